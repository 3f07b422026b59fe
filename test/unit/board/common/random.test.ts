// SeededRandom (board/common/random.ts): reproducible draws for a seed.
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../board/common/random.ts';

describe('SeededRandom', () => {
  it('is reproducible per seed and uniform enough', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    const xs = Array.from({ length: 5 }, () => a.u32());
    expect(Array.from({ length: 5 }, () => b.u32())).toEqual(xs);
    expect(new SeededRandom(43).u32()).not.toBe(xs[0]);
    const r = new SeededRandom(1);
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) buckets[r.int(10)]++;
    for (const n of buckets) expect(Math.abs(n - 10_000)).toBeLessThan(500);
  });
});
