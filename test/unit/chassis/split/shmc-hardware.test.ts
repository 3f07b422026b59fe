/**
 * The shelf-held ShMC hardware (chassis/split/shmc-hardware.ts) in simulated time: the watchdog
 * keeps counting and its expiry resets the ShMC (kill + start again with the registered flags).
 */
import { describe, expect, it } from 'vitest';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { TimeoutAction } from '../../../../chassis/model/ipmi-watchdog.ts';
import { resetDecision, ShmcHardware } from '../../../../chassis/split/shmc-hardware.ts';

describe('watchdog reset decision', () => {
  it('maps the IPMI timeout actions', () => {
    expect(resetDecision({ action: TimeoutAction.hardReset })).toBe('reset');
    expect(resetDecision({ action: TimeoutAction.powerCycle })).toBe('reset');
    expect(resetDecision({ action: TimeoutAction.powerDown })).toBe('off');
    expect(resetDecision({ action: TimeoutAction.none })).toBe('log');
  });
});

describe('ShmcHardware', () => {
  it('lines follow the connection; a killed ShMC is reset when its watchdog expires; kicks keep it alive', () => {
    const clock = new SimClock(0);
    const resets: Array<[string, number]> = [];
    const hw = new ShmcHardware({ clock, log: nullLogger, reset: (n) => resets.push([n, clock.now()]) });
    hw.connect('shmc-a');
    hw.connect('shmc-b');
    hw.setHealthy('shmc-a', true);
    expect(hw.claim('shmc-a', 1)).toBe(true);
    expect(hw.claim('shmc-b', 2)).toBe(false); // interlock
    expect(hw.view('shmc-b').peer).toEqual({ present: true, healthy: true, active: true, power: 'on' });
    hw.watchdogSet('shmc-a', 1000);
    for (let i = 0; i < 20; i++) {
      clock.advance(100);
      hw.kick('shmc-a');
    }
    expect(resets).toEqual([]);
    hw.disconnect('shmc-a'); // kill -9: lines drop at once
    expect(hw.view('shmc-b').peer).toMatchObject({ healthy: false, active: false, power: 'off' });
    expect(hw.claim('shmc-b', 2)).toBe(true);
    hw.kick('shmc-a'); // a dead process cannot kick
    clock.advance(999);
    expect(resets).toEqual([]);
    clock.advance(1);
    expect(resets).toEqual([['shmc-a', 3000]]);
    expect(hw.power('shmc-a')).toBe('reset');
    expect(hw.expiries['shmc-a']).toBe(1);
    hw.connect('shmc-a'); // the restarted process registers
    expect(hw.view('shmc-a').self).toMatchObject({ power: 'on', active: false });
  });
});
