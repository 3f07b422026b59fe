// The Shelf aggregate: hot-swap commands with timed steps, SEL records for every change, the data
// plane port, locks, faults, extraction, shelf-manager dependence, power budget, chassis control,
// LEDs, E-keying, FRU data, sensors, roles, events and snapshots.
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { decodeSelRecord } from '../../../../chassis/sensors/sel.ts';
import { encodeFruInventory } from '../../../../chassis/sensors/fru.ts';
import type { ChassisEvent } from '../../../../chassis/model/events.ts';
import { defaultConfig, rig } from './fixture.ts';

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

describe('a new shelf', () => {
  it('powers every FRU up in M4, one "Transition to M4" record each, boards in service', () => {
    const { shelf, dp } = rig();
    expect(shelf.fruNames()).toEqual(['shmc-a', 'shmc-b', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6', 'fan1', 'fan2', 'fan3', 'pem1', 'pem2']);
    for (const f of shelf.fruNames()) expect(shelf.state(f), f).toBe(4);
    const texts = shelf.sel.records().map((r) => shelf.sel.describe(r));
    expect(texts.length).toBe(13);
    expect(texts).toContain('FRU Hot Swap Node3 HotSwap | Transition to M4 | Asserted');
    expect(texts).toContain('FRU Hot Swap ShMC HotSwap | Transition to M4 | Asserted');
    expect([...dp.inService]).toEqual([1, 2, 3, 4, 5, 6].map((s) => [s, true]));
    expect(shelf.activeShmc()).toBe('shmc-a');
    expect(shelf.resolveAddress(0x20)).toBe('shmc-a');
    expect(shelf.resolveAddress(0x86)).toBe('slot3');
    expect(shelf.resolveAddress(0x12)).toBe('shmc-b');
    expect(shelf.resolveAddress(0x90)).toBeUndefined();
  });

  it('names slots by logical number: slot3, "3", 3, "SLOT3"; empty and unknown slots are refused', () => {
    const { shelf } = rig();
    for (const r of ['slot3', '3', 3, 'SLOT3']) expect(shelf.resolve(r)).toBe('slot3');
    expect(code(() => shelf.state('slot9'))).toBe('empty_slot');
    expect(code(() => shelf.state('slot15'))).toBe('unknown_fru');
    expect(code(() => shelf.state('blade3'))).toBe('unknown_fru');
    const slots = shelf.slots();
    expect(slots.map((s) => s.physical)).toEqual([7, 8, 6, 9, 5, 10, 4, 11, 3, 12, 2, 13, 1, 14]);
    expect(slots.filter((s) => s.occupant).map((s) => s.occupant)).toEqual(['slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6']);
  });
});

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

describe('the shelf manager and the power budget gate activation', () => {
  it('with no ShMC active, a board waits in M2; it activates once a ShMC is back', () => {
    const r = rig();
    r.shelf.hotSwap.deactivate('shmc-a');
    r.shelf.hotSwap.deactivate('shmc-b');
    r.run(1000);
    expect(r.shelf.activeShmc()).toBeUndefined();
    expect(r.shelf.resolveAddress(0x20)).toBeUndefined();
    r.shelf.hotSwap.openHandle('slot3');
    r.run(10_000);
    expect(r.shelf.state(3)).toBe(5); // nobody approves the deactivation request
    r.shelf.hotSwap.activate('shmc-b');
    r.run(2000);
    expect(r.shelf.activeShmc()).toBe('shmc-b');
    r.run(2000);
    expect(r.shelf.state(3)).toBe(1);
    r.shelf.hotSwap.deactivate('shmc-b');
    r.run(1000);
    r.shelf.hotSwap.closeHandle('slot3');
    r.run(10_000);
    expect(r.shelf.state(3)).toBe(2);
    expect(r.events.some((e) => e.type === 'activation.waiting' && e.fru === 'slot3' && e.reason === 'no_shelf_manager')).toBe(true);
    r.shelf.hotSwap.activate('shmc-a');
    r.run(5000);
    expect(r.shelf.state(3)).toBe(4);
  });

  it('without PEM power a board waits in M2 (power budget); it activates when a PEM returns', () => {
    const r = rig();
    r.shelf.hotSwap.openHandle('slot6');
    r.run(2000);
    r.shelf.hotSwap.extract('pem1');
    r.shelf.hotSwap.extract('pem2');
    expect(r.shelf.power.budgetW()).toBe(0);
    expect(r.shelf.chassis.status().powerFault).toBe(true);
    r.shelf.hotSwap.closeHandle('slot6');
    r.run(10_000);
    expect(r.shelf.state(6)).toBe(2);
    expect(r.events.some((e) => e.type === 'activation.waiting' && e.reason === 'power_budget')).toBe(true);
    expect(code(() => r.shelf.hotSwap.activate('slot6'))).toBe('power_budget');
    r.shelf.hotSwap.insert('pem1');
    r.run(10_000);
    expect(r.shelf.state('pem1')).toBe(4);
    expect(r.shelf.state(6)).toBe(4);
  });

  it('a partial budget grants a lower power level', () => {
    const r = rig({ config: defaultConfig((y) => y.replace(/capacity_w: 1500/g, 'capacity_w: 625')) });
    // 1250 W budget, negotiated at power-up in configuration order after the PEMs (2×5 W):
    // ShMCs 2×20, hubs 2×150, processors 4×200 → 1150 W; fan1 60 W; fan2 gets level 1 (30 W of
    // the 40 W left); fan3 (30 W at level 1) does not fit in the 10 W left and waits in M2
    expect(r.shelf.power.usedW()).toBe(1240);
    expect(r.shelf.chassis.status().powerOverload).toBe(false);
    expect(r.shelf.power.level('fan2').level).toBe(1);
    expect(r.shelf.state('fan3')).toBe(2);
    r.shelf.hotSwap.openHandle('slot3');
    r.run(2000);
    expect(r.shelf.state(3)).toBe(1);
    r.run(2000);
    // slot3 in M1 released 200 W: the waiting fan3 takes its desired level (60 W of 210 W)
    expect(r.shelf.state('fan3')).toBe(4);
    expect(r.shelf.power.level('fan3').level).toBe(2);
    r.shelf.hotSwap.closeHandle('slot3');
    r.run(2000);
    expect(r.shelf.state(3)).toBe(4);
    expect(r.shelf.power.level('slot3').level).toBe(1); // 120 W fits in the 150 W left, 200 W does not
    expect(r.shelf.power.usedW()).toBe(1220);
    expect(r.shelf.chassis.status().powerOverload).toBe(false);
  });
});

describe('the power budget at the first start (PICMG 3.0 §3.9)', () => {
  // 2 PEMs × 150 W. Negotiated as a later activation is, PEMs first, then in configuration order:
  // PEMs 10 W; shmc-a, shmc-b 20 W each (50); slot1 150 W (200); slot2 only level 1, 90 W (290);
  // 10 W left: slot3…slot6 (120 W at level 1) and fan1…fan3 (30 W) wait in M2.
  const tiny = () => defaultConfig((y) => y.replace(/capacity_w: 1500/g, 'capacity_w: 150'));

  it('activates only what the PEM capacity covers; the others wait in M2 with the reason, out of service', () => {
    const r = rig({ config: tiny() });
    const states = Object.fromEntries(r.shelf.fruNames().map((f) => [f, r.shelf.state(f)]));
    expect(states).toEqual({ 'shmc-a': 4, 'shmc-b': 4, slot1: 4, slot2: 4, slot3: 2, slot4: 2, slot5: 2, slot6: 2, fan1: 2, fan2: 2, fan3: 2, pem1: 4, pem2: 4 });
    expect(r.shelf.power.level('slot1').level).toBe(2);
    expect(r.shelf.power.level('slot2').level).toBe(1);
    expect(r.shelf.power.level('slot3').level).toBe(0);
    expect(r.shelf.power.usedW()).toBe(290);
    expect(r.shelf.power.budgetW()).toBe(300);
    expect(r.shelf.chassis.status().powerOverload).toBe(false);
    expect([...r.dp.inService]).toEqual([1, 2, 3, 4, 5, 6].map((s) => [s, s <= 2]));
    const texts = r.shelf.sel.records().map((x) => r.shelf.sel.describe(x));
    expect(texts).toContain('FRU Hot Swap Node3 HotSwap | Transition to M2 | Asserted');
    expect(texts).toContain('FRU Hot Swap Hub2 HotSwap | Transition to M4 | Asserted');
    expect(texts).not.toContain('FRU Hot Swap Node3 HotSwap | Transition to M4 | Asserted');
    expect(r.shelf.hotSwap.context('slot3')).toMatchObject({ state: 2, previous: 1 });
    expect(r.log.records.some((l) => l.level === 'warn' && l.msg === 'not enough power budget at power-up; FRU waits in M2' && (l.obj as { fru?: string }).fru === 'slot3')).toBe(true);
    // one step later the shelf manager asks again and says why it does not grant
    r.run(1000);
    expect(r.events.find((e) => e.type === 'activation.waiting' && e.fru === 'slot3')).toMatchObject({ reason: 'power_budget', neededW: 120, availableW: 10 });
    r.run(60_000);
    expect(r.shelf.state('slot3')).toBe(2);
    expect(r.shelf.state('fan1')).toBe(2);
    expect(r.shelf.power.usedW()).toBe(290);
  });

  it('a waiting board activates when power is released, in configuration order', () => {
    const r = rig({ config: tiny() });
    r.shelf.hotSwap.openHandle('slot1'); // releases 150 W once in M1: 160 W left
    r.run(2000);
    expect(r.shelf.state('slot1')).toBe(1);
    r.run(3000);
    // slot3 (first in configuration order) takes 120 W at level 1; slot4…slot6 (120 W) still do
    // not fit in the 40 W left, fan1 takes 30 W at level 1, fan2 and fan3 wait
    expect(['slot3', 'slot4', 'slot5', 'slot6', 'fan1', 'fan2', 'fan3'].map((f) => r.shelf.state(f))).toEqual([4, 2, 2, 2, 4, 2, 2]);
    expect(r.shelf.power.level('slot3').level).toBe(1);
    expect(r.shelf.power.level('fan1').level).toBe(1);
    expect(r.shelf.power.usedW()).toBe(290);
    expect(hs(r.events, 'slot3')).toEqual(['M2>M3:shelfManager', 'M3>M4:normal']);
  });

  it('FRUs added to the configuration later are budgeted against what is already allocated', () => {
    const store = new MemoryStore();
    // first start at 2 × 700 W: the default shelf's 1330 W fit
    const a = rig({ store, config: defaultConfig((y) => y.replace(/capacity_w: 1500/g, 'capacity_w: 700')) });
    for (const f of a.shelf.fruNames()) expect(a.shelf.state(f), f).toBe(4);
    expect(a.shelf.power.usedW()).toBe(1330);
    // the same store with less capacity and an extra board in slot7: the running FRUs keep their
    // state (a restart resumes), the new board gets what is left (70 W: not enough) and waits
    const yaml = (y: string) => y.replace(/capacity_w: 1500/g, 'capacity_w: 700').replace('\nfan_trays:', `\n  slot7:\n    type: processor\n    label: Node7\n    sensors:\n      - { name: Node7 HotSwap, type: hotswap }\n    power: { levels_w: [120, 200] }\n\nfan_trays:`);
    const b = rig({ store, config: defaultConfig(yaml) });
    expect(b.shelf.state('slot6')).toBe(4);
    expect(b.shelf.state('slot7')).toBe(2);
    expect(b.shelf.power.usedW()).toBe(1330);
  });
});

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

describe('sensors', () => {
  it('an injected reading crossing thresholds logs SEL records and events; recovery deasserts', () => {
    const r = rig();
    const m = r.mark();
    const v = r.shelf.sensors.setValue('slot3', 'Node3 Temp', 83);
    expect(v).toMatchObject({ value: 83, status: 'cr', asserted: ['unc', 'uc'], owner: 0x86, number: 1 });
    expect(r.selSince(m)).toEqual([
      'Temperature Node3 Temp | Upper Non-critical going high | Asserted | Reading 83 > Threshold 70 (raw)',
      'Temperature Node3 Temp | Upper Critical going high | Asserted | Reading 83 > Threshold 80 (raw)',
    ]);
    const rec = r.shelf.sel.records().at(-1)!;
    expect([rec.generatorId, rec.sensorType, rec.sensorNumber, rec.eventDirType, ...rec.eventData!]).toEqual([0x86, 0x01, 1, 0x01, 0x59, 83, 80]);
    r.shelf.sensors.setValue('slot3', 1, 40);
    expect(r.selSince(m).length).toBe(4);
    expect(r.shelf.sel.records().at(-1)!.eventDirType).toBe(0x81);
    expect(r.events.filter((e) => e.type === 'sensor.threshold').length).toBe(4);
    expect(code(() => r.shelf.sensors.setValue('slot3', 'Node3 HotSwap', 1))).toBe('bad_value');
    expect(code(() => r.shelf.sensors.setValue('slot3', 'Hub1 Temp', 1))).toBe('no_such_sensor');
  });

  it('sensors at the shelf-manager address are the active ShMC\'s; the Hot Swap reading is the M-state bit', () => {
    const r = rig();
    expect(r.shelf.sensors.at(0x20, 1)).toMatchObject({ fru: 'shmc-a', name: 'ShMC Temp', value: 42, unit: 'degrees C', owner: 0x20 });
    expect(r.shelf.sensors.at(0x20, 2)).toMatchObject({ kind: 'hotswap', raw: 4, states: 0x10, sensorType: 0xf0, readingType: 0x6f });
    expect(r.shelf.sensors.find('Node3 HotSwap')).toMatchObject({ fru: 'slot3', owner: 0x86, number: 2 });
    expect(r.shelf.sensors.find('Hub1 3.3V')).toMatchObject({ value: 3.3, unit: 'Volts', thresholdMask: 0b011011 });
    r.shelf.roles.set('shmc-b', 'active', 2);
    r.shelf.roles.set('shmc-a', 'standby.hot', 2);
    expect(r.shelf.sensors.at(0x20, 1)!.fru).toBe('shmc-b');
    r.shelf.hotSwap.openHandle(3);
    expect(r.shelf.sensors.at(0x86, 2)!.states).toBe(1 << 5);
  });

  it('Set Sensor Thresholds re-evaluates and persists', () => {
    const r = rig();
    const v = r.shelf.sensors.setThresholds('slot3', 'Node3 Temp', { unc: 45 });
    expect(v.asserted).toEqual(['unc']);
    expect(r.store.listThresholds()).toEqual([expect.objectContaining({ fru: 'slot3', sensor: 1, values: { lnc: null, lc: null, lnr: null, unc: 45, uc: 80, unr: 90 } })]);
    expect(code(() => r.shelf.sensors.setThresholds('slot3', 'Node3 Temp', { uc: 999 }))).toBe('bad_value');
  });

  it('fan level drives the fan speed sensors (level 0 → lower critical)', () => {
    const r = rig();
    expect(r.shelf.fans.properties('fan1')).toEqual({ minLevel: 0, maxLevel: 15, normalLevel: 8, localControl: true });
    r.shelf.fans.setLevel('fan1', 4);
    expect(r.shelf.sensors.get('fan1', 'Fan1 Speed').value).toBe(3000);
    r.shelf.fans.setLevel('fan1', 0);
    expect(r.shelf.sensors.get('fan1', 'Fan1 Speed')).toMatchObject({ value: 0, status: 'cr' });
    expect(r.shelf.chassis.status().fanFault).toBe(true);
    expect(r.shelf.fans.level('fan1')).toEqual({ level: 0, local: true });
    expect(code(() => r.shelf.fans.setLevel('fan1', 16))).toBe('out_of_range');
    expect(code(() => r.shelf.fans.setLevel('slot3', 1))).toBe('unsupported');
  });
});

describe('SEL through the shelf', () => {
  it('capacity from the configuration; when full nothing is logged and the overflow flag is set', () => {
    const r = rig({ config: defaultConfig((y) => y.replace('capacity: 4096', 'capacity: 20')) });
    expect(r.shelf.sel.info()).toMatchObject({ entries: 13, capacity: 20 });
    for (let i = 0; i < 7; i++) expect(r.shelf.sel.log({ generatorId: 0x20, sensorType: 1, sensorNumber: 1, eventDirType: 1, eventData: [0x57, i, 0x46] })).toBeDefined();
    expect(r.shelf.sel.log({ generatorId: 0x20, sensorType: 1, sensorNumber: 1, eventDirType: 1, eventData: [0x57, 9, 0x46] })).toBeUndefined();
    r.shelf.hotSwap.openHandle(3); // a state change with a full SEL still happens, its record is dropped
    expect(r.shelf.state(3)).toBe(5);
    expect(r.shelf.sel.info()).toMatchObject({ entries: 20, overflow: true, freeBytes: 0 });
    expect(r.events.filter((e) => e.type === 'sel.full').length).toBe(2);
    expect(r.store.loadSel()).toMatchObject({ overflow: true });
    expect(code(() => r.shelf.sel.add(decodeSelRecord(new Uint8Array(16).fill(2))))).toBe('sel_full');
    r.shelf.sel.clear();
    expect(r.shelf.sel.info()).toMatchObject({ entries: 0, overflow: false });
    expect(r.store.loadSel().records).toEqual([]);
  });

  it('Add/Get/Delete with reservations; SEL time is settable', () => {
    const r = rig();
    expect(r.shelf.sel.time()).toBe(1_704_067_200);
    r.run(5000);
    expect(r.shelf.sel.time()).toBe(1_704_067_205);
    r.shelf.sel.setTime(2_000_000_000);
    r.run(1000);
    expect(r.shelf.sel.time()).toBe(2_000_000_001);
    const rec = r.shelf.sel.add({ recordId: 0, recordType: 2, timestamp: 0, generatorId: 0x41, evmRev: 4, sensorType: 0x23, sensorNumber: 3, eventDirType: 0x6f, eventData: [0xc1, 0xff, 0xff] });
    expect(rec.timestamp).toBe(2_000_000_001);
    expect(r.shelf.sel.entry(0xffff).record.recordId).toBe(rec.recordId);
    expect(r.shelf.sel.describe(rec)).toBe('Watchdog 2 #0x03 | Hard reset | Asserted');
    expect(code(() => r.shelf.sel.delete(rec.recordId, 0))).toBe('reservation_invalid');
    expect(r.shelf.sel.delete(rec.recordId, r.shelf.sel.reserve())).toBe(rec.recordId);
    expect(code(() => r.shelf.sel.entry(rec.recordId))).toBe('not_found');
    expect(code(() => r.shelf.sel.clear(12345))).toBe('reservation_invalid');
    r.shelf.sel.clear(r.shelf.sel.reserve());
    expect(r.shelf.sel.info().entries).toBe(0);
  });
});

describe('LEDs, ports, power, FRU control, FRU data', () => {
  it('LED overrides, lamp test, restore local control; capabilities', () => {
    const r = rig();
    expect(r.shelf.leds.properties(3)).toEqual({ statusLeds: 0x0f, applicationLeds: 0 });
    expect(r.shelf.leds.colors(3, 1)).toEqual({ colors: ['red', 'amber'], defaultLocal: 'red', defaultOverride: 'red' });
    r.shelf.leds.set(3, 1, { mode: 'blink', onMs: 300, offMs: 700 }, 'amber');
    expect(r.shelf.leds.state(3, 1)).toMatchObject({ override: { fn: { mode: 'blink', onMs: 300, offMs: 700 }, color: 'amber' }, lampTest: false });
    r.shelf.leds.set(3, 'all', { mode: 'lamp-test', onMs: 2000, offMs: 0 });
    expect(r.shelf.leds.state(3, 0).lampTest).toBe(true);
    r.run(2000);
    expect(r.shelf.leds.state(3, 0).override).toBeUndefined();
    r.shelf.leds.set(3, 2, { mode: 'off', onMs: 0, offMs: 0 });
    r.shelf.leds.set(3, 2, 'restore');
    expect(r.shelf.leds.state(3, 2)).toMatchObject({ effective: { fn: { mode: 'on' }, color: 'green' } });
    expect(code(() => r.shelf.leds.state(3, 4))).toBe('out_of_range');
    expect(code(() => r.shelf.leds.set(3, 0, { mode: 'on', onMs: 0, offMs: 0 }, 'red'))).toBe('out_of_range');
  });

  it('E-keying: node channel 1/2 → hub slot 1/2 on base and fabric; Set Port State overrides until deactivation', () => {
    const r = rig();
    const p = r.shelf.ports.states('slot3');
    expect(p.map((x) => `${x.interface}/${x.channel}>${x.peer}:${x.enabled}`)).toEqual([
      'base/1>slot1:true',
      'base/2>slot2:true',
      'fabric/1>slot1:true',
      'fabric/2>slot2:true',
    ]);
    expect(r.shelf.ports.states('slot1', 'fabric').map((x) => `${x.channel}>${x.peer}`)).toEqual(['1>slot2', '2>slot3', '3>slot4', '4>slot5', '5>slot6']);
    r.shelf.ports.set('slot3', 'fabric', 2, false);
    expect(r.shelf.ports.states('slot3', 'fabric', 2)[0]!.enabled).toBe(false);
    expect(code(() => r.shelf.ports.set('slot3', 1, 9, true))).toBe('out_of_range');
    r.shelf.hotSwap.extract('slot2');
    expect(r.shelf.ports.states('slot3', 'base', 2)[0]!.enabled).toBe(false); // hub 2 gone
    r.shelf.hotSwap.deactivate('slot3');
    r.run(1000);
    r.shelf.hotSwap.activate('slot3');
    r.run(2000);
    expect(r.shelf.ports.states('slot3', 'fabric', 1)[0]!.enabled).toBe(true);
    expect(r.shelf.ports.states('slot3', 'fabric', 2)[0]!.enabled).toBe(false);
    expect(r.shelf.snapshot().frus.find((f) => f.name === 'slot3')!.state).toBe(4);
  });

  it('power levels: Get Power Level numbers and Set Power Level within the budget', () => {
    const r = rig();
    expect(r.shelf.power.level('slot3', 'steady')).toEqual({ dynamic: false, level: 2, delayTenths: 0, multiplierTenthW: 8, levelBytes: [150, 250], levelsW: [120, 200] });
    expect(r.shelf.power.computeProperties(3)).toEqual({ spannedSlots: 1, ipmcLocation: 0 });
    expect(r.shelf.power.setLevel(3, 1)).toEqual({ level: 1, watts: 120 });
    expect(code(() => r.shelf.power.setLevel(3, 3))).toBe('out_of_range');
    r.shelf.power.setLevel(3, 0);
    expect(r.shelf.state(3)).toBe(6);
  });

  it('FRU control: capabilities from the configuration; a cold reset restarts the payload for one step', () => {
    const r = rig({ config: defaultConfig((y) => y.replace('    label: Node6\n', '    label: Node6\n    fru_control: { warm_reset: false }\n')) });
    expect(r.shelf.payload.controlCapabilities(3)).toEqual(['cold-reset', 'warm-reset', 'graceful-reboot', 'diagnostic-interrupt']);
    expect(code(() => r.shelf.payload.control(6, 'warm-reset'))).toBe('unsupported');
    r.shelf.payload.control(3, 'cold-reset');
    expect(r.dp.inService.get(3)).toBe(false);
    r.run(1000);
    expect(r.dp.inService.get(3)).toBe(true);
    r.shelf.payload.control(3, 'diagnostic-interrupt');
    expect(r.dp.inService.get(3)).toBe(true);
  });

  it('FRU data: read by offset, write persists, the decoded inventory follows; a bad write is reported', () => {
    const r = rig();
    const info = r.shelf.fruData.info('slot3');
    expect(info).toEqual({ size: 1024, byWords: false });
    const cfg = r.shelf.fruConfig('slot3');
    const image = encodeFruInventory(cfg.inventory);
    expect([...r.shelf.fruData.read('slot3', 0, 8)]).toEqual([...image.subarray(0, 8)]);
    const changed = encodeFruInventory({ ...cfg.inventory, board: { ...cfg.inventory.board!, serial: 'CPU9999' } });
    expect(r.shelf.fruData.write('slot3', 0, changed)).toBe(changed.length);
    expect(r.shelf.fruData.inventory('slot3').board!.serial).toBe('CPU9999');
    expect([...r.store.getFruData('slot3')!.bytes.subarray(0, changed.length)]).toEqual([...changed]);
    r.shelf.fruData.write('slot3', 7, Uint8Array.of(0));
    expect(code(() => r.shelf.fruData.inventory('slot3'))).toBe('bad_fru_data');
    expect(r.shelf.snapshot().frus.find((f) => f.name === 'slot3')!.inventory).toMatchObject({ error: expect.stringMatching(/checksum/) });
    expect(code(() => r.shelf.fruData.write('slot3', 1020, new Uint8Array(8)))).toBe('out_of_range');
    expect(code(() => r.shelf.fruData.read('slot3', 1024, 1))).toBe('out_of_range');
  });
});

describe('HA roles (display and audit)', () => {
  it('setRole persists, logs a SEL record, and the shelf-manager address follows the active ShMC', () => {
    const r = rig();
    const m = r.mark();
    r.shelf.roles.set('shmc-a', 'active', 1);
    r.shelf.roles.set('shmc-b', 'standby.hot', 1);
    r.shelf.roles.set('slot4', 'active', 3, { share: 'lb1/slot3' });
    expect(r.selSince(m)).toEqual([
      'Management Subsystem Health ShMC HA Role | Transition to On Line | Asserted', // shmc-a now active: at 20h
      'Management Subsystem Health ShMC-B HA Role | Transition to Off Duty | Asserted', // the standby at its own 12h
      'Module/Board Node4 HA Role | Transition to On Line | Asserted',
    ]);
    // each of them has an event-only SDR record at its generator address (what ipmitool looks up)
    for (const rec of r.shelf.sel.records().slice(-3)) {
      expect(r.shelf.sdr.records().filter((x) => x.type === 'event-only' && x.ownerId === (rec.generatorId! & 0xff) && x.sensorNumber === rec.sensorNumber && x.sensorType === rec.sensorType)).toHaveLength(1);
    }
    expect(r.shelf.sel.records().at(-1)!.eventData).toEqual([0xa3, 2, 3]);
    expect(r.store.loadRoles().map((x) => `${x.key}:${x.role}@${x.epoch}`).sort()).toEqual(['lb1/slot3:active@3', 'shmc-a:active@1', 'shmc-b:standby.hot@1']);
    r.shelf.roles.set('shmc-a', 'failed', 2);
    expect(r.shelf.activeShmc()).toBeUndefined();
    r.shelf.roles.set('shmc-b', 'active', 2);
    expect(r.shelf.resolveAddress(0x20)).toBe('shmc-b');
    expect(r.events.filter((e) => e.type === 'role').at(-1)).toMatchObject({ node: 'shmc-b', previous: 'standby.hot', role: 'active', epoch: 2 });
    // ShMC records carry the shelf-manager address only while that ShMC is active
    r.shelf.hotSwap.openHandle('shmc-a');
    expect(r.shelf.sel.records().at(-1)!.generatorId).toBe(0x10);
    r.shelf.hotSwap.openHandle('shmc-b');
    expect(r.shelf.sel.records().at(-1)!.generatorId).toBe(0x20);
    expect(code(() => r.shelf.roles.set('slot3', 'leader' as 'active', 1))).toBe('bad_value');
    expect(r.shelf.roles.of('slot4')).toEqual([{ key: 'lb1/slot3', role: 'active', epoch: 3 }]);
  });
});

describe('events, snapshot, acknowledgement after commit', () => {
  it('typed subscriptions receive only their type; a throwing listener breaks nothing', () => {
    const r = rig();
    const got: string[] = [];
    const off = r.shelf.on('hotswap', (e) => got.push(`${e.fru} M${e.to}`));
    r.shelf.on('hotswap', () => {
      throw new Error('listener bug');
    });
    r.shelf.hotSwap.openHandle(3);
    off();
    r.shelf.hotSwap.openHandle(4);
    expect(got).toEqual(['slot3 M5']);
    expect(r.shelf.state(4)).toBe(5);
    expect(r.log.records.some((x) => x.level === 'error' && (x.obj as { category?: string }).category === 'listener')).toBe(true);
  });

  it('the snapshot is frozen, versioned, and changes seq with every event', () => {
    const r = rig();
    const a = r.shelf.snapshot();
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.frus[0]!.sensors)).toBe(true);
    expect(a.version).toBe(1);
    expect(a.slots.length).toBe(14);
    expect(a.slots.find((s) => s.logical === 3)).toEqual({ logical: 3, physical: 6, role: 'node', occupant: 'slot3' });
    expect(a.frus.find((f) => f.name === 'slot3')).toMatchObject({ stateLabel: 'M4', ipmbAddress: 0x86, hardwareAddress: 0x43, label: 'Node3', console: { baud: 115200 } });
    expect(a.shelf).toMatchObject({ name: 'atcasim-default', activeShmc: 'shmc-a', powerOn: true, shelfManagerAddress: 0x20 });
    expect(a.sel.recent.length).toBe(13);
    expect(r.shelf.snapshot()).toBe(a);
    r.shelf.hotSwap.openHandle(3);
    const b = r.shelf.snapshot();
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(b.frus.find((f) => f.name === 'slot3')).toMatchObject({ state: 5, transitioning: true });
    expect(() => JSON.stringify(b)).not.toThrow();
  });

  it('a command whose store write fails throws and changes nothing; a timed step retries', () => {
    class FlakyStore extends MemoryStore {
      fail = false;
      override transaction<T>(fn: () => T): T {
        if (this.fail) throw new Error('disk full');
        return super.transaction(fn);
      }
    }
    const store = new FlakyStore();
    const r = rig({ store });
    const selBefore = r.shelf.sel.records().length;
    r.events.length = 0;
    store.fail = true;
    expect(() => r.shelf.hotSwap.openHandle(3)).toThrow('disk full');
    expect(r.shelf.state(3)).toBe(4);
    expect(r.events.filter((e) => e.type === 'hotswap')).toEqual([]);
    expect(r.shelf.sel.records().length).toBe(selBefore);
    expect(r.dp.inService.get(3)).toBe(true);
    store.fail = false;
    r.shelf.hotSwap.openHandle(3);
    store.fail = true;
    r.run(1000); // M5 → M6 fails to commit
    expect(r.shelf.state(3)).toBe(5);
    store.fail = false;
    r.run(1000); // retried
    expect(r.shelf.state(3)).toBe(6);
    r.run(1000);
    expect(r.shelf.state(3)).toBe(1);
  });
});
