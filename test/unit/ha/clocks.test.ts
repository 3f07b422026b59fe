import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../board/common/sim-clock.ts';
import { NodeClock } from '../../../chassis/sim/node-clock.ts';
import { StallCompensatedClock } from '../../../board/common/stall-clock.ts';
import { IpmiWatchdog, firmwareWatchdogSettings } from '../../../chassis/model/ipmi-watchdog.ts';
import { LoopClock as StallingClock } from '../../support/ha-fakes.ts';

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

describe('StallCompensatedClock (wall-clock mode: a global stall is not a node fault)', () => {
  it('hides a stall of the whole loop from HA timers: a 1 s watchdog survives a 2 s stall', () => {
    const base = new StallingClock();
    const clock = new StallCompensatedClock(base, 250);
    const stalls: number[] = [];
    clock.onStall((e) => stalls.push(e.gapMs));
    const wd = new IpmiWatchdog(clock);
    let expired = false;
    wd.onExpire(() => (expired = true));
    wd.set(firmwareWatchdogSettings(1000));
    wd.kick();
    // A healthy loop kicking every 100 ms.
    const kick = () => {
      wd.kick();
      clock.setTimeout(kick, 100);
    };
    clock.setTimeout(kick, 100);
    base.advance(1000);
    base.stall(2000); // GC / loaded machine: nothing ran for 2 s
    base.advance(1000);
    expect(expired).toBe(false);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toBeGreaterThanOrEqual(2000);
    expect(clock.stalledMs).toBeGreaterThan(1500);
  });

  it('without compensation the same stall expires the watchdog (the check can fail)', () => {
    const base = new StallingClock();
    const wd = new IpmiWatchdog(base);
    let expired = false;
    wd.onExpire(() => (expired = true));
    wd.set(firmwareWatchdogSettings(1000));
    wd.kick();
    const kick = () => {
      wd.kick();
      base.setTimeout(kick, 100);
    };
    base.setTimeout(kick, 100);
    base.advance(1000);
    base.stall(2000);
    expect(expired).toBe(true);
  });

  it('keeps time otherwise: timers fire at their delay and now() follows the base', () => {
    const base = new StallingClock();
    const clock = new StallCompensatedClock(base, 250);
    const at: number[] = [];
    clock.setTimeout(() => at.push(clock.now()), 300);
    const x = clock.setTimeout(() => at.push(-1), 200);
    clock.clearTimeout(x);
    base.advance(1000);
    expect(at).toEqual([300]);
    expect(clock.now()).toBe(1000);
    expect(clock.stalls).toBe(0);
    clock.dispose();
    expect(() => new StallCompensatedClock(base, 100, 100)).toThrow(RangeError);
  });
});
