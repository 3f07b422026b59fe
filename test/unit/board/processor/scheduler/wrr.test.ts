// wrr (board/processor/scheduler/wrr.ts): IPVS interleaved weighted round robin.
import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../../../../board/processor/scheduler/index.ts';
import type { PoolView } from '../../../../../board/processor/scheduler/scheduler.ts';

interface TestPool extends PoolView {
  names: string[];
}

/** A pool whose RS ids equal their positions. */
function pool(names: string[], weights: number[], opts: { up?: number[]; active?: number[]; inactive?: number[] } = {}): TestPool {
  const n = names.length;
  return {
    names,
    size: n,
    ids: Int32Array.from({ length: n }, (_, i) => i),
    keys: names.map((x) => `${x}@10.0.0.${names.indexOf(x) + 1}`),
    weight: Int32Array.from(weights),
    up: Uint8Array.from(opts.up ?? names.map(() => 1)),
    active: Int32Array.from(opts.active ?? names.map(() => 0)),
    inactive: Int32Array.from(opts.inactive ?? names.map(() => 0)),
  };
}

describe('wrr (IPVS interleaved weighted round robin)', () => {
  it('produces IPVS\'s sequence for weights 4:3:2', () => {
    // Derivation from ip_vs_wrr.c: di = gcd(4,3,2) = 1, mw = 4 - (1 - 1) = 4, cw starts at mw.
    // Each pass over [A,B,C] takes the servers with weight >= cw, then cw drops by di:
    //   cw=4: A        cw=3: A B        cw=2: A B C        cw=1: A B C        then cw wraps to 4.
    const expectedCycle = ['A', 'A', 'B', 'A', 'B', 'C', 'A', 'B', 'C'];
    const p = pool(['A', 'B', 'C'], [4, 3, 2]);
    const s = createScheduler('wrr');
    s.rebuild(p);
    const got = Array.from({ length: 27 }, () => p.names[s.pick(p, 0, 0)]);
    expect(got).toEqual([...expectedCycle, ...expectedCycle, ...expectedCycle]);
  });

  it('steps by the gcd: weights 4:2 behave as 2:1', () => {
    const p = pool(['A', 'B'], [4, 2]);
    const s = createScheduler('wrr');
    s.rebuild(p);
    expect(Array.from({ length: 6 }, () => p.names[s.pick(p, 0, 0)])).toEqual(['A', 'A', 'B', 'A', 'A', 'B']);
  });

  it('skips down and drained members and returns -1 when none is available', () => {
    const p = pool(['A', 'B', 'C'], [4, 0, 2], { up: [0, 1, 1] });
    const s = createScheduler('wrr');
    s.rebuild(p);
    expect(new Set(Array.from({ length: 10 }, () => p.names[s.pick(p, 0, 0)]))).toEqual(new Set(['C']));
    p.up[2] = 0;
    s.rebuild(p);
    expect(s.pick(p, 0, 0)).toBe(-1);
  });
});
