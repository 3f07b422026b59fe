// The Shelf aggregate and its smaller parts: a new shelf, sensors, the SEL, LEDs, E-keying, power
// levels, FRU control, FRU data, roles, events and snapshots (hot swap, the power budget and the
// chassis have files of their own: shelf-hot-swap, shelf-power, shelf-chassis).
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { decodeSelRecord } from '../../../../chassis/sensors/sel.ts';
import { encodeFruInventory } from '../../../../chassis/sensors/fru.ts';
import { defaultConfig, rig } from '../../../support/shelf-fixture.ts';

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof CommandError) return e.code;
    throw e;
  }
  return 'no error';
};

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
    expect(r.shelf.sel.records().at(-1)!.eventData).toEqual([0xa3, 0xff, 3]); // On Line, no previous state, share of slot3
    // one record per state change of a share: standby.ready → standby.hot, or a new epoch, keeps the state
    const n = r.shelf.sel.records().length;
    r.shelf.roles.set('slot4', 'standby.ready', 4, { share: 'lb1/slot4' });
    r.shelf.roles.set('slot4', 'standby.hot', 4, { share: 'lb1/slot4' });
    r.shelf.roles.set('slot4', 'active', 5, { share: 'lb1/slot3' });
    expect(r.shelf.sel.records().length).toBe(n + 1);
    expect(r.shelf.sel.records().at(-1)!.eventData).toEqual([0xa5, 0xff, 4]); // Off Duty, share of slot4
    r.shelf.roles.set('slot4', 'failed', 5, { share: 'lb1/slot4' });
    expect(r.shelf.sel.records().at(-1)!.eventData).toEqual([0xa4, 0xf5, 4]); // Off Line, was Off Duty
    expect(r.events.filter((e) => e.type === 'role' && e.node === 'slot4').length).toBe(5); // every change is announced
    expect(r.store.loadRoles().map((x) => `${x.key}:${x.role}@${x.epoch}`).sort()).toEqual(['lb1/slot3:active@5', 'lb1/slot4:failed@5', 'shmc-a:active@1', 'shmc-b:standby.hot@1']);
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
    expect(r.shelf.roles.of('slot4')).toEqual([
      { key: 'lb1/slot3', role: 'active', epoch: 5 },
      { key: 'lb1/slot4', role: 'failed', epoch: 5 },
    ]);
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
