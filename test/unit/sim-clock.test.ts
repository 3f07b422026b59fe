import { describe, expect, it } from 'vitest';
import { SimClock } from '../../board/common/sim-clock.ts';
import { SeededRandom } from '../../board/common/random.ts';

describe('SimClock', () => {
  it('fires timers in (due, scheduling) order and only when advanced', () => {
    const c = new SimClock();
    const seen: string[] = [];
    c.setTimeout(() => seen.push(`b@${c.now()}`), 20);
    c.setTimeout(() => seen.push(`a@${c.now()}`), 10);
    c.setTimeout(() => seen.push(`c@${c.now()}`), 20);
    const x = c.setTimeout(() => seen.push('x'), 15);
    c.clearTimeout(x);
    c.advance(9);
    expect(seen).toEqual([]);
    c.advance(11);
    expect(seen).toEqual(['a@10', 'b@20', 'c@20']);
    expect(c.now()).toBe(20);
    expect(c.pending()).toBe(0);
  });

  it('runs timers scheduled from callbacks within the same advance', () => {
    const c = new SimClock();
    const seen: number[] = [];
    c.setTimeout(() => {
      seen.push(c.now());
      c.setTimeout(() => seen.push(c.now()), 5);
    }, 5);
    c.advance(10);
    expect(seen).toEqual([5, 10]);
  });

  it('rejects negative durations', () => {
    expect(() => new SimClock().advance(-1)).toThrow(RangeError);
  });
});

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
