// NodeClock (chassis/sim/node-clock.ts): per-node faults (freeze, pause, steps) in simulated time.
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { NodeClock } from '../../../../chassis/sim/node-clock.ts';

describe('NodeClock (per-node faults in simulated time)', () => {
  it('defers timers and posts while frozen and runs them in order on thaw, at the thaw time', () => {
    const base = new SimClock();
    const c = new NodeClock(base);
    const seen: string[] = [];
    c.setTimeout(() => seen.push(`a@${c.now()}`), 100);
    c.setTimeout(() => seen.push(`b@${c.now()}`), 200);
    base.advance(50);
    c.freeze();
    c.post(() => seen.push(`msg@${c.now()}`));
    base.advance(500);
    expect(seen).toEqual([]);
    c.thaw();
    // In due order: the message arrived (at 50) before the timers fell due (100, 200).
    expect(seen).toEqual(['msg@550', 'a@550', 'b@550']);
  });

  it('discard drops the old software\'s timers and thaws', () => {
    const base = new SimClock();
    const c = new NodeClock(base);
    const seen: number[] = [];
    c.setTimeout(() => seen.push(1), 100);
    c.freeze();
    base.advance(200);
    c.discard();
    c.setTimeout(() => seen.push(2), 10);
    base.advance(100);
    expect(seen).toEqual([2]);
    expect(c.isFrozen).toBe(false);
  });

  it('slews monotonic time by ppm and steps only the wall clock on a jump', () => {
    const base = new SimClock();
    const c = new NodeClock(base, 0);
    c.setSlewPpm(500);
    base.advance(10_000);
    expect(c.now()).toBeCloseTo(10_005, 6);
    const wall = c.wallNow();
    c.jump(3_600_000);
    expect(c.wallNow() - wall).toBe(3_600_000);
    expect(c.now()).toBeCloseTo(10_005, 6);
    let fired = -1;
    c.setTimeout(() => (fired = base.now()), 1000);
    base.advance(2000);
    expect(fired).toBeCloseTo(10_000 + 1000 / 1.0005, 6);
    expect(c.slewPpm).toBeCloseTo(500, 6);
  });
});
