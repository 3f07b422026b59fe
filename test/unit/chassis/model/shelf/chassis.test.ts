// The Shelf as an IPMI chassis (shelf.chassis): Chassis Control off/on/cycle/reset, identify, POH.
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../../board/common/errors.ts';
import { rig } from '../../../../support/shelf-fixture.ts';

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof CommandError) return e.code;
    throw e;
  }
  return 'no error';
};

describe('chassis control', () => {
  it('off deactivates the boards (not ShMCs, fans, PEMs); on brings them back; restart cause 1', () => {
    const r = rig();
    expect(r.shelf.chassis.restartCause()).toBe(7);
    r.shelf.chassis.control('off');
    expect(r.shelf.chassis.status()).toMatchObject({ powerOn: false, lastPowerByCommand: true });
    r.run(1000);
    for (const s of [1, 2, 3, 4, 5, 6]) expect(r.shelf.state(s)).toBe(1);
    for (const f of ['shmc-a', 'shmc-b', 'fan1', 'pem1']) expect(r.shelf.state(f)).toBe(4);
    expect(r.shelf.power.level('slot3').level).toBe(0);
    r.shelf.chassis.control('on');
    expect(r.shelf.chassis.status().powerOn).toBe(true);
    r.run(3000);
    for (const s of [1, 2, 3, 4, 5, 6]) expect(r.shelf.state(s)).toBe(4);
    expect(r.shelf.chassis.restartCause()).toBe(1);
  });

  it('on while the boards are still deactivating (M6) brings them back once they reach M1', () => {
    const r = rig();
    r.shelf.chassis.control('off');
    expect(r.shelf.state(3)).toBe(6);
    r.shelf.chassis.control('on');
    r.run(5000);
    for (const s of [1, 2, 3, 4, 5, 6]) expect(r.shelf.state(s)).toBe(4);
  });

  it('cycle: off at once, on again after the power-cycle interval', () => {
    const r = rig();
    r.shelf.chassis.control('cycle');
    expect(r.shelf.chassis.status().powerOn).toBe(false);
    r.run(999);
    expect(r.shelf.chassis.status().powerOn).toBe(false);
    r.run(1);
    expect(r.shelf.chassis.status().powerOn).toBe(true);
    r.run(3000);
    expect(r.shelf.state(3)).toBe(4);
    expect(r.events.filter((e) => e.type === 'chassis.power').map((e) => (e.type === 'chassis.power' ? `${e.action}:${e.on}` : ''))).toEqual(['cycle:false', 'cycle:true']);
  });

  it('reset restarts the payloads: boards leave service for a step and return in M4', () => {
    const r = rig();
    r.dp.setSessions(5, 7);
    r.shelf.chassis.control('reset');
    expect(r.dp.inService.get(5)).toBe(false);
    expect(r.shelf.state(5)).toBe(4);
    r.run(1000);
    expect(r.dp.inService.get(5)).toBe(true);
    expect(r.shelf.payload.sessionsLost).toBe(7);
  });

  it('while power is off, a closed handle does not activate a board', () => {
    const r = rig();
    r.shelf.chassis.control('off');
    r.run(1000);
    r.shelf.hotSwap.openHandle(3);
    expect(code(() => r.shelf.hotSwap.activate(3))).toBe('chassis_off');
    r.shelf.hotSwap.closeHandle(3);
    r.run(5000);
    expect(r.shelf.state(3)).toBe(2);
  });

  it('identify: timed, forced, off; POH counts powered minutes', () => {
    const r = rig();
    r.shelf.chassis.identify(15);
    expect(r.shelf.chassis.status().identify).toBe('timed');
    r.run(15_000);
    expect(r.shelf.chassis.status().identify).toBe('off');
    r.shelf.chassis.identify('force');
    r.run(100_000);
    expect(r.shelf.chassis.status().identify).toBe('indefinite');
    r.shelf.chassis.identify(0);
    expect(r.shelf.chassis.status().identify).toBe('off');
    expect(r.shelf.chassis.poh()).toEqual({ minutesPerCount: 1, count: 1 }); // 115 s so far
    r.shelf.chassis.control('off');
    r.run(600_000);
    expect(r.shelf.chassis.poh().count).toBe(1);
  });
});
