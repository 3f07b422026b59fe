// StallCompensatedClock (board/common/stall-clock.ts): in wall-clock mode a stall of the whole process is not a node fault.
import { describe, expect, it } from 'vitest';
import { StallCompensatedClock } from '../../../../board/common/stall-clock.ts';
import { IpmiWatchdog, firmwareWatchdogSettings } from '../../../../chassis/model/ipmi-watchdog.ts';
import { LoopClock as StallingClock } from '../../../support/ha-fakes.ts';

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
