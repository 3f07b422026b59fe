// SimClock (board/common/sim-clock.ts): timers in due order, only when advanced.
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../../board/common/sim-clock.ts';

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
