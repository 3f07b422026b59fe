// rr (board/processor/scheduler/rr.ts).
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

describe('rr', () => {
  it('cycles in order and skips unavailable members', () => {
    const p = pool(['A', 'B', 'C'], [1, 0, 1]);
    const s = createScheduler('rr');
    s.rebuild(p);
    expect(Array.from({ length: 4 }, () => p.names[s.pick(p, 0, 0)])).toEqual(['A', 'C', 'A', 'C']);
  });
});
