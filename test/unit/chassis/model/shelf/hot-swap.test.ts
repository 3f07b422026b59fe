// The Shelf's hot swap (shelf.hotSwap): handles with timed steps, Set FRU Activation, the activation
// policy, extraction and insertion, injected faults and their repair; SEL records and service follow.
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../../board/common/errors.ts';
import type { ChassisEvent } from '../../../../../chassis/model/events.ts';
import { defaultConfig, rig } from '../../../../support/shelf-fixture.ts';

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof CommandError) return e.code;
    throw e;
  }
  return 'no error';
};
const hs = (events: ChassisEvent[], fru: string) => events.filter((e) => e.type === 'hotswap' && e.fru === fru).map((e) => (e.type === 'hotswap' ? `M${e.from}>M${e.to}:${e.cause}` : ''));

describe('handle open / close (TUI x / i)', () => {
  it('x: M4 → M5 → M6 → M1, one step time apart; out of service at M5; sessions lost counted', () => {
    const r = rig();
    r.dp.setSessions(3, 42);
    const m = r.mark();
    expect(r.shelf.hotSwap.openHandle('slot3')).toEqual({ fru: 'slot3', state: 5, changed: true });
    expect(r.dp.inService.get(3)).toBe(false);
    expect(r.shelf.payload.sessionsLost).toBe(42);
    expect(r.events.find((e) => e.type === 'service')).toMatchObject({ slot: 3, inService: false, sessionsLost: 42 });
    r.run(999);
    expect(r.shelf.state(3)).toBe(5);
    r.run(1);
    expect(r.shelf.state(3)).toBe(6);
    r.run(1000);
    expect(r.shelf.state(3)).toBe(1);
    r.run(10_000);
    expect(r.shelf.state(3)).toBe(1); // stays: handle open
    expect(hs(r.events, 'slot3')).toEqual(['M4>M5:handle', 'M5>M6:shelfManager', 'M6>M1:normal']);
    expect(r.selSince(m)).toEqual([
      'FRU Hot Swap Node3 HotSwap | Transition to M5 | Asserted',
      'FRU Hot Swap Node3 HotSwap | Transition to M6 | Asserted',
      'FRU Hot Swap Node3 HotSwap | Transition to M1 | Asserted',
    ]);
    // event data 2 carries cause << 4 | previous state; the generator is the board's IPMB address
    const recs = r.shelf.sel.records().slice(m);
    expect(recs.map((x) => x.eventData)).toEqual([
      [0xa5, 0x24, 0],
      [0xa6, 0x15, 0],
      [0xa1, 0x06, 0],
    ]);
    expect(recs.every((x) => x.generatorId === 0x86 && x.sensorNumber === 2 && x.sensorType === 0xf0)).toBe(true);
    expect(r.shelf.snapshot().frus.find((f) => f.name === 'slot3')).toMatchObject({ handleClosed: false, powerLevel: 0, inService: false, sessionsLost: 42 });
  });

  it('i: M1 → M2 → M3 → M4 with power negotiated and E-keys enabled; back in service at M4', () => {
    const r = rig();
    r.shelf.hotSwap.openHandle('slot4');
    r.run(2000);
    r.events.length = 0;
    expect(r.shelf.hotSwap.closeHandle('slot4').state).toBe(2);
    r.run(1000);
    expect(r.shelf.state(4)).toBe(3);
    expect(r.shelf.power.level('slot4')).toMatchObject({ level: 2, levelsW: [120, 200] });
    expect(r.shelf.ports.states('slot4').every((p) => p.enabled)).toBe(true);
    expect(r.dp.inService.get(4)).toBe(false);
    r.run(1000);
    expect(r.shelf.state(4)).toBe(4);
    expect(r.dp.inService.get(4)).toBe(true);
    expect(hs(r.events, 'slot4')).toEqual(['M1>M2:handle', 'M2>M3:shelfManager', 'M3>M4:normal']);
    expect(r.events.some((e) => e.type === 'power.level' && e.fru === 'slot4' && e.level === 2 && e.watts === 200)).toBe(true);
  });

  it('blue LED follows the state: short blink in M5/M6, on in M1, long blink in M2, off in M4', () => {
    const r = rig();
    const blue = () => r.shelf.leds.state('slot3', 0).effective.fn;
    expect(blue()).toMatchObject({ mode: 'off' });
    r.shelf.hotSwap.openHandle('slot3');
    expect(blue()).toEqual({ mode: 'blink', onMs: 100, offMs: 900 });
    r.run(1000);
    expect(blue()).toEqual({ mode: 'blink', onMs: 100, offMs: 900 });
    r.run(1000);
    expect(blue()).toMatchObject({ mode: 'on' });
    r.shelf.hotSwap.closeHandle('slot3');
    expect(blue()).toEqual({ mode: 'blink', onMs: 900, offMs: 100 });
    r.run(2000);
    expect(blue()).toMatchObject({ mode: 'off' });
  });

  it('closing the handle in M5 withdraws the request (M5 → M4)', () => {
    const r = rig({ config: defaultConfig((y) => y.replace('auto_deactivate: true', 'auto_deactivate: false')) });
    r.shelf.hotSwap.openHandle('slot5');
    r.run(5000);
    expect(r.shelf.state(5)).toBe(5); // the shelf manager does not approve by itself
    r.shelf.hotSwap.closeHandle('slot5');
    expect(r.shelf.state(5)).toBe(4);
    expect(r.dp.inService.get(5)).toBe(true);
  });
});

describe('shelf-manager activation commands (Set FRU Activation)', () => {
  it('deactivate: M4 → M6 → M1 (no M5), cause "commanded by the shelf manager"; activate brings it back', () => {
    const r = rig();
    expect(r.shelf.hotSwap.deactivate('slot6').state).toBe(6);
    r.run(1000);
    expect(r.shelf.state(6)).toBe(1);
    expect(r.shelf.hotSwap.deactivate('slot6').changed).toBe(false);
    expect(r.shelf.hotSwap.activate('slot6').state).toBe(2);
    r.run(2000);
    expect(r.shelf.state(6)).toBe(4);
    expect(r.shelf.hotSwap.activate('slot6').changed).toBe(false);
    expect(hs(r.events, 'slot6')).toEqual(['M4>M6:shelfManager', 'M6>M1:normal', 'M1>M2:shelfManager', 'M2>M3:shelfManager', 'M3>M4:normal']);
  });

  it('without auto-activation the FRU waits in M2 until activated', () => {
    const r = rig({ config: defaultConfig((y) => y.replace('auto_activate: true', 'auto_activate: false')) });
    r.shelf.hotSwap.openHandle('slot3');
    r.run(2000);
    r.shelf.hotSwap.closeHandle('slot3');
    r.run(10_000);
    expect(r.shelf.state(3)).toBe(2);
    expect(r.shelf.hotSwap.activate('slot3').state).toBe(3);
    r.run(1000);
    expect(r.shelf.state(3)).toBe(4);
  });

  it('M6 and M7 refuse activation commands; M0 refuses everything but insert', () => {
    const r = rig();
    r.shelf.hotSwap.deactivate('slot3');
    expect(code(() => r.shelf.hotSwap.activate('slot3'))).toBe('illegal_state');
    r.run(1000);
    r.shelf.hotSwap.extract('slot3');
    for (const f of [() => r.shelf.hotSwap.activate(3), () => r.shelf.hotSwap.deactivate(3), () => r.shelf.hotSwap.openHandle(3), () => r.shelf.hotSwap.extract(3), () => r.shelf.fruData.read(3, 0, 8)]) {
      expect(code(f)).toBe('not_present');
    }
  });
});

describe('activation policy (locked bits)', () => {
  it('activation locked: the handle closes but the FRU stays in M1; clearing the lock activates it', () => {
    const r = rig();
    r.shelf.hotSwap.openHandle('slot3');
    r.run(2000);
    r.shelf.hotSwap.setActivationPolicy('slot3', { activationLocked: true });
    expect(code(() => r.shelf.hotSwap.closeHandle('slot3'))).toBe('activation_locked');
    r.run(5000);
    expect(r.shelf.state(3)).toBe(1);
    expect(r.shelf.hotSwap.context(3)).toMatchObject({ handleClosed: true, activationPending: true });
    expect(r.shelf.hotSwap.setActivationPolicy('slot3', { activationLocked: false })).toEqual({ activationLocked: false, deactivationLocked: false });
    expect(r.shelf.state(3)).toBe(2);
    r.run(2000);
    expect(r.shelf.state(3)).toBe(4);
  });

  it('deactivation locked: opening the handle keeps M4; the shelf manager can still deactivate', () => {
    const r = rig();
    r.shelf.hotSwap.setActivationPolicy(4, { deactivationLocked: true });
    expect(r.shelf.hotSwap.activationPolicy(4)).toEqual({ activationLocked: false, deactivationLocked: true });
    expect(code(() => r.shelf.hotSwap.openHandle(4))).toBe('deactivation_locked');
    r.run(5000);
    expect(r.shelf.state(4)).toBe(4);
    expect(r.shelf.hotSwap.deactivate(4).state).toBe(6);
  });
});

describe('extraction and insertion', () => {
  it('e: surprise extraction → M0, sensors and SDR records disappear, traffic stops; insert brings it back', () => {
    const r = rig();
    const sdr = () => r.shelf.sdr.records().map((x) => x.idString);
    expect(sdr()).toContain('Node3 Temp');
    const before = r.shelf.sdr.records().length;
    expect(r.shelf.hotSwap.extract('slot3').state).toBe(0);
    expect(hs(r.events, 'slot3')).toEqual(['M4>M0:surpriseExtraction']);
    expect(r.selSince().at(-1)).toBe('FRU Hot Swap Node3 HotSwap | Transition to M0 | Asserted');
    expect(r.shelf.sel.records().at(-1)!.eventData).toEqual([0xa0, 0x64, 0]);
    expect(sdr()).not.toContain('Node3 Temp');
    expect(r.shelf.sdr.records().length).toBe(before - 8); // its locator, 4 sensors, 3 event-only sensors
    expect(r.shelf.sdr.records().some((x) => x.type !== 'mc-locator' && x.type !== 'fru-locator' && x.ownerId === 0x86)).toBe(false);
    expect(r.shelf.sensors.at(0x86, 1)).toMatchObject({ available: false, status: 'ns' });
    expect(r.dp.inService.get(3)).toBe(false);
    expect(code(() => r.shelf.hotSwap.insert('slot4'))).toBe('already_present');
    expect(r.shelf.hotSwap.insert('slot3').state).toBe(2); // M0 → M1, and the handle closed on insertion → M2
    expect(hs(r.events, 'slot3').slice(-2)).toEqual(['M0>M1:normal', 'M1>M2:handle']);
    r.run(2000);
    expect(r.shelf.state(3)).toBe(4);
    expect(sdr()).toContain('Node3 Temp');
    expect(r.shelf.sdr.records().length).toBe(before);
  });

  it('extracting a board from M1 is a normal extraction', () => {
    const r = rig();
    r.shelf.hotSwap.deactivate(5);
    r.run(1000);
    r.shelf.hotSwap.extract(5);
    expect(hs(r.events, 'slot5').at(-1)).toBe('M1>M0:normal');
  });
});

describe('faults', () => {
  it('f (payload): M4 → M6 (unexpected deactivation) → M1, LED1 on, no re-activation until r; r: M1 → … → M4', () => {
    const r = rig();
    const m = r.mark();
    r.shelf.hotSwap.injectFault('slot4', 'payload');
    expect(r.shelf.state(4)).toBe(6);
    r.run(1000);
    expect(r.shelf.state(4)).toBe(1);
    expect(r.shelf.leds.state('slot4', 1).effective.fn.mode).toBe('on');
    expect(code(() => r.shelf.hotSwap.closeHandle('slot4'))).toBe('faulted');
    expect(code(() => r.shelf.hotSwap.activate('slot4'))).toBe('faulted');
    expect(code(() => r.shelf.hotSwap.injectFault('slot4', 'payload'))).toBe('already_faulted');
    r.run(5000);
    expect(r.shelf.state(4)).toBe(1);
    r.shelf.hotSwap.repair('slot4');
    expect(r.shelf.state(4)).toBe(2);
    r.run(2000);
    expect(r.shelf.state(4)).toBe(4);
    expect(r.shelf.leds.state('slot4', 1).effective.fn.mode).toBe('off');
    expect(code(() => r.shelf.hotSwap.repair('slot4'))).toBe('not_faulted');
    const t = r.selSince(m);
    expect(t[0]).toBe('Module/Board Node4 Health | Transition to Critical from less severe | Asserted');
    expect(t).toContain('FRU Hot Swap Node4 HotSwap | Transition to M6 | Asserted');
    expect(t).toContain('Module/Board Node4 Health | Transition to OK | Asserted');
    expect(hs(r.events, 'slot4')[0]).toBe('M4>M6:unexpectedDeactivation');
  });

  it('r while the faulted board is still in M6: it reaches M1 and then re-activates to M4', () => {
    const r = rig();
    r.shelf.hotSwap.injectFault('slot4', 'payload');
    expect(r.shelf.state(4)).toBe(6);
    r.shelf.hotSwap.repair('slot4');
    expect(r.shelf.state(4)).toBe(6);
    r.run(1000);
    expect(r.shelf.state(4)).not.toBe(6);
    r.run(4000);
    expect(r.shelf.state(4)).toBe(4);
  });

  it('x then a fault repaired in M6 does not re-activate a board whose handle is open', () => {
    const r = rig();
    r.shelf.hotSwap.openHandle('slot4');
    r.run(1000);
    expect(r.shelf.state(4)).toBe(6);
    r.shelf.hotSwap.injectFault('slot4', 'payload');
    r.shelf.hotSwap.repair('slot4');
    r.run(5000);
    expect(r.shelf.state(4)).toBe(1);
  });

  it('comm fault: M4 → M7, sensors unavailable; repair returns to M4', () => {
    const r = rig();
    r.shelf.hotSwap.injectFault('slot5', 'comm');
    expect(r.shelf.state(5)).toBe(7);
    expect(r.dp.inService.get(5)).toBe(false);
    expect(r.shelf.sensors.get('slot5', 'Node5 Temp')).toMatchObject({ available: false, status: 'ns' });
    expect(code(() => r.shelf.payload.control('slot5', 'cold-reset'))).toBe('comm_lost');
    r.shelf.hotSwap.repair('slot5', 'comm');
    expect(r.shelf.state(5)).toBe(4);
    expect(r.dp.inService.get(5)).toBe(true);
    expect(hs(r.events, 'slot5')).toEqual(['M4>M7:communication', 'M7>M4:communication']);
  });
});
