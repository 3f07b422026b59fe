// lc and wlc (board/processor/scheduler/lc.ts, wlc.ts).
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

describe('lc / wlc', () => {
  it('lc picks the smallest active*256+inactive, first on ties', () => {
    const p = pool(['A', 'B', 'C'], [1, 1, 1], { active: [2, 1, 1], inactive: [0, 300, 10] });
    const s = createScheduler('lc');
    // overheads: A 512, B 556, C 266 → C
    expect(p.names[s.pick(p, 0, 0)]).toBe('C');
    p.inactive[2] = 300;
    expect(p.names[s.pick(p, 0, 0)]).toBe('A'); // A 512 < B 556 = C 556
  });

  it('wlc picks by Ci/Wi (overhead over weight)', () => {
    // A: 10 active, weight 1 → 2560; B: 25 active, weight 3 → 2133; C: 18 active, weight 2 → 2304
    const p = pool(['A', 'B', 'C'], [1, 3, 2], { active: [10, 25, 18] });
    const s = createScheduler('wlc');
    expect(p.names[s.pick(p, 0, 0)]).toBe('B');
    // ties by cross-multiplication keep the first: A 256/1 vs B 768/3
    const q = pool(['A', 'B'], [1, 3], { active: [1, 3] });
    expect(q.names[s.pick(q, 0, 0)]).toBe('A');
    // weight 0 never chosen even with no connections
    const r = pool(['A', 'B'], [0, 1], { active: [0, 50] });
    expect(r.names[s.pick(r, 0, 0)]).toBe('B');
  });

  it('wlc spreads new connections in proportion to weight when it counts them', () => {
    const p = pool(['A', 'B', 'C'], [1, 2, 5]);
    const s = createScheduler('wlc');
    for (let i = 0; i < 800; i++) p.active[s.pick(p, 0, 0)]!++;
    expect(Array.from(p.active)).toEqual([100, 200, 500]);
  });
});
