// The Shelf as SNMP rows (chassis/snmp/rows.ts, sensor-value.ts): indexes from the configuration,
// every FRU and site with its ENTITY-MIB columns, every sensor with the value IPMI reports (the
// same linearisation), a FRU in M0 gone from entPhysicalTable but kept in the hot-swap table.
import { describe, expect, it } from 'vitest';
import { buildSnmpView, dateAndTime, fruIndex, sensorIndex, siteIndex, SHELF_INDEX, type SnmpTimes } from '../../../../chassis/snmp/rows.ts';
import { decodeSensorValue, encodeSensorValue, sensorPrecision } from '../../../../chassis/snmp/sensor-value.ts';
import { PHYSICAL_CLASS, SENSOR_STATUS, SENSOR_TYPE } from '../../../../chassis/snmp/oids.ts';
import { fruMinutesFromIso } from '../../../../chassis/sensors/fru.ts';
import { rig } from '../../../support/shelf-fixture.ts';

const times = (now = 0): SnmpTimes => ({ now, fruChanged: new Map(), sensorRead: new Map() });

describe('sensor values (ENTITY-SENSOR-MIB encoding of IPMI readings)', () => {
  it('precision = the decimals M·x·10^Rexp and B·10^(Bexp+Rexp) can have, 0..9', () => {
    expect(sensorPrecision({ m: 1, b: 0, bExp: 0, rExp: 0 })).toBe(0);
    expect(sensorPrecision({ m: 5, b: 0, bExp: 0, rExp: -2 })).toBe(2);
    expect(sensorPrecision({ m: 1, b: 3, bExp: -1, rExp: -1 })).toBe(2);
    expect(sensorPrecision({ m: 1, b: 0, bExp: 0, rExp: 3 })).toBe(0);
    expect(sensorPrecision({ m: 1, b: 1, bExp: -8, rExp: -8 })).toBe(9);
  });

  it('value = round(y · 10^p), clamped to ±10^9; decoding gives y back', () => {
    expect(encodeSensorValue(3.3, 2)).toBe(330);
    expect(encodeSensorValue(12.05, 2)).toBe(1205);
    expect(encodeSensorValue(-40, 0)).toBe(-40);
    expect(encodeSensorValue(5e12, 0)).toBe(1_000_000_000);
    expect(decodeSensorValue(1205, 2)).toBe(12.05);
  });

  it('DateAndTime of FRU board minutes: 11 octets UTC, 8 zero octets when unknown', () => {
    expect(dateAndTime(fruMinutesFromIso('2024-01-15T12:00:00Z'))).toBe('07e8010f0c0000002b0000');
    expect(dateAndTime(0)).toBe('0000000000000000');
  });
});

describe('buildSnmpView on the default shelf', () => {
  const r = rig();
  const v = buildSnmpView(r.shelf, times());
  const ent = new Map(v.entities.map((e) => [e.index, e]));

  it('indexes: shelf 1, sites 100·(site type + 1) + number, FRU = site × 1000, sensor = FRU + number', () => {
    expect(siteIndex(0, 3)).toBe(103);
    const slot3 = r.shelf.fruConfig('slot3');
    expect(fruIndex(slot3)).toBe(103_000);
    expect(sensorIndex(slot3, 1)).toBe(103_001);
    expect(fruIndex(r.shelf.fruConfig('shmc-a'))).toBe(401_000);
    expect(fruIndex(r.shelf.fruConfig('fan2'))).toBe(502_000);
    expect(fruIndex(r.shelf.fruConfig('pem1'))).toBe(201_000);
    expect(v.entities.map((e) => e.index)).toEqual([...v.entities.map((e) => e.index)].sort((a, b) => a - b));
  });

  it('the shelf, 14 slots (empty ones too), the bays, every FRU, every sensor — contained in one another', () => {
    expect(ent.get(SHELF_INDEX)).toMatchObject({ class: PHYSICAL_CLASS.chassis, containedIn: 0, name: 'atcasim-default', serialNum: 'SH0001', modelName: 'ATCA-SHELF-PN', parentRelPos: -1 });
    for (let s = 1; s <= 14; s++) {
      expect(ent.get(100 + s), `slot ${s}`).toMatchObject({ class: PHYSICAL_CLASS.container, containedIn: SHELF_INDEX, name: `Slot ${s}`, parentRelPos: r.shelf.config.physicalOrder.indexOf(s) + 1 });
    }
    for (const idx of [401, 402, 501, 502, 503, 201, 202]) expect(ent.get(idx)?.class, String(idx)).toBe(PHYSICAL_CLASS.container);
    const frus = v.entities.filter((e) => e.isFru === 1);
    expect(frus.map((e) => e.name).sort()).toEqual(r.shelf.fruNames().sort());
    const sensors = v.entities.filter((e) => e.class === PHYSICAL_CLASS.sensor);
    const configured = r.shelf.config.frus.flatMap((f) => f.sensors.map((s) => `${f.name}/${s.name}`));
    expect(sensors.map((e) => `${ent.get(e.containedIn)!.name}/${e.name}`).sort()).toEqual(configured.sort());
    expect(v.entities).toHaveLength(1 + 14 + 7 + 13 + configured.length);
  });

  it('FRU columns from the FRU inventory and the controller', () => {
    expect(ent.get(103_000)).toEqual({
      index: 103_000, descr: 'Processor Node', vendorType: '0.0', containedIn: 103, class: PHYSICAL_CLASS.module, parentRelPos: 1, name: 'slot3',
      hardwareRev: '1.0', firmwareRev: '1.05', softwareRev: '', serialNum: 'CPU0003', mfgName: 'Example Telecom', modelName: 'CPU-300', alias: 'Node3',
      assetId: 'ASSET-CPU0003', isFru: 1, mfgDate: '07e8010f0c0000002b0000', uris: '', uuid: '',
    });
    expect(ent.get(401_000)).toMatchObject({ descr: 'Shelf Manager', firmwareRev: '2.10', serialNum: 'SHM0001' });
    expect(ent.get(501_000)).toMatchObject({ class: PHYSICAL_CLASS.fan, name: 'fan1' });
    expect(ent.get(201_000)).toMatchObject({ class: PHYSICAL_CLASS.powerSupply, name: 'pem1' });
  });

  it('every sensor row carries the reading IPMI reports (value / 10^precision = the SensorView value)', () => {
    let n = 0;
    for (const f of r.shelf.config.frus) {
      for (const s of r.shelf.sensors.list(f.name)) {
        const row = v.sensors.find((x) => x.index === sensorIndex(f, s.number))!;
        expect(decodeSensorValue(row.value, row.precision), `${f.name} ${s.name}`).toBe(s.value);
        expect(row.operStatus).toBe(SENSOR_STATUS.ok);
        n++;
      }
    }
    expect(v.sensors).toHaveLength(n);
    const v33 = v.sensors.find((x) => x.index === sensorIndex(r.shelf.fruConfig('slot1'), 4))!;
    expect(v33).toMatchObject({ type: SENSOR_TYPE.voltsDC, scale: 9, precision: 2, value: 330, unitsDisplay: 'Volts', valueAgeMs: null, updateRateMs: 0 });
    expect(v.sensors.find((x) => x.index === sensorIndex(r.shelf.fruConfig('fan1'), 1))).toMatchObject({ type: SENSOR_TYPE.rpm, value: 6000, unitsDisplay: 'RPM' });
    expect(v.sensors.find((x) => x.index === sensorIndex(r.shelf.fruConfig('slot3'), 2))).toMatchObject({ type: SENSOR_TYPE.specialEnum, value: 4, precision: 0, unitsDisplay: 'M-state' });
  });

  it('an injected reading shows rounded to the sensor resolution, as IPMI shows it, with its age', () => {
    const reading = r.shelf.sensors.setValue('slot3', 'Node3 12V', 12.337);
    const v2 = buildSnmpView(r.shelf, { ...times(500), sensorRead: new Map([['slot3#3', 200]]) });
    const row = v2.sensors.find((x) => x.index === 103_003)!;
    expect(decodeSensorValue(row.value, row.precision)).toBe(reading.value);
    expect(reading.value).not.toBe(12.337);
    expect(row.valueAgeMs).toBe(300);
  });

  it('a FRU in M0 leaves entPhysicalTable with its sensors; its hot-swap row says M0; M7 makes its sensors unavailable', () => {
    r.shelf.hotSwap.extract('slot5');
    r.shelf.hotSwap.injectFault('slot6', 'comm');
    const v2 = buildSnmpView(r.shelf, times());
    expect(v2.entities.some((e) => e.index >= 105_000 && e.index < 106_000)).toBe(false);
    expect(v2.entities.some((e) => e.index === 105)).toBe(true);
    expect(v2.frus.find((x) => x.index === 105_000)).toMatchObject({ state: 0, stateName: 'M0', previous: 4, cause: 6, ipmbAddress: 0x8a, hardwareAddress: 0x45 });
    expect(v2.sensors.find((x) => x.index === 106_001)!.operStatus).toBe(SENSOR_STATUS.unavailable);
    expect(v2.frus.find((x) => x.index === 106_000)!.state).toBe(7);
  });
});
