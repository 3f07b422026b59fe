// A restart resumes the shelf from the database: FRUs in their M-states (timed steps resume), the
// SEL intact with record IDs continuing, LED overrides, policies, thresholds, FRU data, roles;
// a replaced configuration keeps what it did not change. Runs on SQLite files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimClock } from '../../../board/common/sim-clock.ts';
import { SqliteStore } from '../../../chassis/io/sqlite-store.ts';
import { encodeFruInventory } from '../../../chassis/sensors/fru.ts';
import { encodeSelRecord } from '../../../chassis/sensors/sel.ts';
import { defaultConfig, rig } from '../../support/shelf-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let k = 0;
const dbFile = () => join(dir, `shelf${k++}.db`);

describe('restart from the database', () => {
  it('boards come back in their M-states, the SEL is intact, run-time settings persist', () => {
    const file = dbFile();
    const a = rig({ store: SqliteStore.open(file) });
    a.shelf.hotSwap.openHandle('slot3');
    a.run(2000); // slot3 in M1
    a.shelf.hotSwap.openHandle('slot4'); // slot4 in M5, steps pending
    a.shelf.hotSwap.setActivationPolicy('slot5', { deactivationLocked: true });
    a.shelf.leds.set('slot6', 1, { mode: 'blink', onMs: 200, offMs: 800 }, 'amber');
    a.shelf.sensors.setThresholds('slot6', 'Node6 Temp', { unc: 60 });
    a.shelf.sensors.setValue('slot6', 'Node6 Temp', 65);
    const cfg = a.shelf.fruConfig('slot5');
    a.shelf.fruData.write('slot5', 0, encodeFruInventory({ ...cfg.inventory, product: { ...cfg.inventory.product!, assetTag: 'RACK7-U12' } }));
    a.shelf.hotSwap.injectFault('slot2', 'comm');
    a.shelf.roles.set('shmc-a', 'active', 4);
    a.shelf.fans.setLevel('fan2', 12);
    a.shelf.chassis.identify('force');
    const sel = a.shelf.sel.records().map((r) => Buffer.from(encodeSelRecord(r)).toString('hex'));
    // "crash": the process dies; no close() on the shelf, the file is simply reopened
    (a.store as SqliteStore).db.close();

    const b = rig({ store: SqliteStore.open(file), clock: new SimClock(50_000) });
    expect(b.shelf.state('slot3')).toBe(1);
    expect(b.shelf.hotSwap.context('slot3')).toMatchObject({ handleClosed: false, previous: 6, lastCause: 'normal' });
    expect(b.shelf.state('slot4')).toBe(5);
    expect(b.shelf.state('slot2')).toBe(7);
    expect(b.dp.inService.get(3)).toBe(false);
    expect(b.dp.inService.get(2)).toBe(false);
    expect(b.dp.inService.get(5)).toBe(true);
    // the SEL is exactly what was acknowledged, and no new power-up records were added
    expect(b.shelf.sel.records().map((r) => Buffer.from(encodeSelRecord(r)).toString('hex'))).toEqual(sel);
    // pending steps resume
    b.run(2000);
    expect(b.shelf.state('slot4')).toBe(1);
    const next = b.shelf.sel.log({ generatorId: 0x20, sensorType: 1, sensorNumber: 1, eventDirType: 1, eventData: [0x57, 1, 2] })!;
    expect(next.recordId).toBe(sel.length + 3); // + the two slot4 transitions
    expect(b.shelf.hotSwap.activationPolicy('slot5')).toEqual({ activationLocked: false, deactivationLocked: true });
    expect(b.shelf.leds.state('slot6', 1).override).toEqual({ fn: { mode: 'blink', onMs: 200, offMs: 800 }, color: 'amber' });
    expect(b.shelf.sensors.get('slot6', 'Node6 Temp').thresholds).toEqual({ unc: 60, uc: 80, unr: 90 });
    expect(b.shelf.fruData.inventory('slot5').product!.assetTag).toBe('RACK7-U12');
    expect(b.shelf.roles.of('shmc-a')).toEqual([{ key: 'shmc-a', role: 'active', epoch: 4 }]);
    expect(b.shelf.fans.level('fan2').level).toBe(12);
    expect(b.shelf.sensors.get('fan2', 'Fan2 Speed').value).toBe(9000);
    // not persisted, as on a BMC: identify, injected readings
    expect(b.shelf.chassis.status().identify).toBe('off');
    expect(b.shelf.sensors.get('slot6', 'Node6 Temp').value).toBe(48);
    // a board in M1 can be brought back after the restart
    b.shelf.hotSwap.closeHandle('slot3');
    b.run(2000);
    expect(b.shelf.state('slot3')).toBe(4);
    b.shelf.close();
    (b.store as SqliteStore).close();
  });

  it('thresholds stored out of order (by a build that let Set Sensor Thresholds invert them) are dropped at load', () => {
    const file = dbFile();
    const a = rig({ store: SqliteStore.open(file) });
    a.shelf.sensors.setThresholds('slot3', 'Node3 Temp', { unc: 75 });
    const [row] = a.store.listThresholds().filter((t) => t.fru === 'slot3');
    // what the old build stored for `sensor thresh 'Node3 Temp' upper 95 85 75`
    a.store.putThresholds({ ...row!, values: { ...row!.values, unc: 95, uc: 85, unr: 75 } });
    (a.store as SqliteStore).db.close();

    const b = rig({ store: SqliteStore.open(file) });
    expect(b.shelf.sensors.get('slot3', 'Node3 Temp').thresholds).toEqual({ unc: 70, uc: 80, unr: 90 });
    expect(b.store.listThresholds().filter((t) => t.fru === 'slot3')).toEqual([]);
    b.shelf.close();
    (b.store as SqliteStore).close();
  });

  it('chassis power state and the POH counter persist', () => {
    const file = dbFile();
    const a = rig({ store: SqliteStore.open(file) });
    a.run(180_000);
    a.shelf.chassis.control('off');
    a.run(1000);
    a.shelf.close();
    (a.store as SqliteStore).close();
    const b = rig({ store: SqliteStore.open(file) });
    expect(b.shelf.chassis.status().powerOn).toBe(false);
    expect(b.shelf.state('slot3')).toBe(1);
    expect(b.shelf.chassis.poh().count).toBe(3);
    expect(b.shelf.chassis.restartCause()).toBe(7);
    b.shelf.chassis.control('on');
    b.run(3000);
    expect(b.shelf.state('slot3')).toBe(4);
    (b.store as SqliteStore).close();
  });

  it('a replaced configuration keeps state of unchanged FRUs and resets what changed', () => {
    const file = dbFile();
    const a = rig({ store: SqliteStore.open(file) });
    a.shelf.hotSwap.openHandle('slot3');
    a.run(2000);
    a.shelf.sensors.setThresholds('slot4', 'Node4 Temp', { unc: 50 });
    a.shelf.sensors.setThresholds('slot5', 'Node5 Temp', { unc: 52 });
    const inv4 = a.shelf.fruConfig('slot4').inventory;
    a.shelf.fruData.write('slot4', 0, encodeFruInventory({ ...inv4, board: { ...inv4.board!, serial: 'WRITTEN4' } }));
    const inv5 = a.shelf.fruConfig('slot5').inventory;
    a.shelf.fruData.write('slot5', 0, encodeFruInventory({ ...inv5, board: { ...inv5.board!, serial: 'WRITTEN5' } }));
    (a.store as SqliteStore).close();

    // new configuration: slot6 removed, slot4's inventory and slot5's thresholds changed
    const config = defaultConfig((y) =>
      y
        .replace(/  slot6:\n(    .*\n)+/, '')
        .replace('lb2: { members: [slot5, slot6] }', '')
        .replace('serial: CPU0004, part_number', 'serial: CPU0044, part_number')
        .replace('{ name: Node5 Temp, type: temperature, nominal: 47, thresholds: { unc: 70', '{ name: Node5 Temp, type: temperature, nominal: 47, thresholds: { unc: 75'),
    );
    expect(config.frus.some((f) => f.name === 'slot6')).toBe(false);
    const store = SqliteStore.open(file);
    const b = rig({ store, config });
    expect(b.shelf.state('slot3')).toBe(1); // unchanged FRU keeps its state
    expect(b.shelf.fruData.inventory('slot4').board!.serial).toBe('CPU0044'); // configured image changed: rewritten
    expect(b.shelf.fruData.inventory('slot5').board!.serial).toBe('WRITTEN5'); // unchanged configuration: the write survives
    expect(b.shelf.sensors.get('slot4', 'Node4 Temp').thresholds!.unc).toBe(50); // thresholds unchanged in config: override kept
    expect(b.shelf.sensors.get('slot5', 'Node5 Temp').thresholds!.unc).toBe(75); // configured thresholds changed: override dropped
    expect(store.loadFruStates().some((r) => r.fru === 'slot6')).toBe(false);
    expect(b.log.records.some((r) => /FRU data rewritten/.test(r.msg ?? ''))).toBe(true);
    store.close();
  });
});
