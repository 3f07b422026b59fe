/**
 * The Shelf as SNMP rows (./view.ts): every FRU, slot and bay as an ENTITY-MIB entPhysicalTable
 * row, every sensor as an entPhysicalTable row of class sensor(8) plus an ENTITY-SENSOR-MIB
 * entPhySensorTable row, and every FRU's hot-swap state in atcasim's enterprise table.
 *
 * entPhysicalIndex is derived from the configuration alone, so it is the same across restarts and
 * in both ShMCs: 1 = the shelf; a site (slot or bay) of PICMG site type T, number N = 100·(T+1) + N
 * (slot3 = 103, ShMC bay 1 = 401, fan bay 2 = 502, PEM bay 1 = 201); the FRU in it = 1000 × the
 * site's index (slot3 = 103000); its IPMI sensor number S = the FRU's index + S (Node3 Temp = 103001).
 * Board slots are listed whether or not a board is in them; a FRU in M0 (not installed) has no
 * entPhysicalTable row (nor its sensors), its hot-swap row stays (state 0).
 *
 * Sensor values follow IPMI's linearisation exactly: the engineering value y the IPMI layer reports
 * (y = (M·x + B·10^Bexp)·10^Rexp, ./sensor-value.ts) is served as round(y·10^p) with scale units(9)
 * and precision p = the number of decimals the factors can produce, so `ipmitool sdr elist` and a
 * walk show the same number. The PICMG Hot Swap sensor is a specialEnum(13) sensor whose value is
 * the M-state.
 *
 * Sources: RFC 6933 §3 (entPhysicalTable, containment, DateAndTime of RFC 2579), RFC 3433 §4
 * (entPhySensorTable), PICMG 3.0 §3.2.1 (site types and numbers), §3.2.4 (M-states, causes).
 * Pure: no I/O.
 */
import type { FruRef } from '../config/slots.ts';
import type { FruConfig, ShelfConfig, ThresholdSensorConfig } from '../config/types.ts';
import { FRU_EPOCH_MS, type FruInventory } from '../sensors/fru.ts';
import { HOT_SWAP_CAUSE, mLabel } from '../model/hot-swap.ts';
import type { SensorView } from '../model/shelf/sensors.ts';
import type { ChassisSnapshot, FruSnapshot } from '../model/snapshot.ts';
import { PHYSICAL_CLASS, SCALE_UNITS, SENSOR_STATUS, SENSOR_TYPE, TRUTH } from './oids.ts';
import { encodeSensorValue, sensorPrecision } from './sensor-value.ts';
import type { EntityRow, FruStateRow, SensorRow, SnmpView } from './view.ts';

/** What the rows are built from (the Shelf has all of it). */
export interface SnmpSource {
  readonly config: ShelfConfig;
  snapshot(): ChassisSnapshot;
  readonly sensors: { list(ref: FruRef): SensorView[] };
}

/** When things last changed, by the source's clock (ms). */
export interface SnmpTimes {
  now: number;
  /** FRU name → time of its last hot-swap transition. */
  fruChanged: ReadonlyMap<string, number>;
  /** `fru#number` → time of the sensor's last reading change. */
  sensorRead: ReadonlyMap<string, number>;
  /** Last change of entPhysicalTable (a FRU entering or leaving M0). */
  lastChange?: number;
}

/** entPhysicalIndex of the shelf. */
export const SHELF_INDEX = 1;

/** entPhysicalIndex of the site (slot, bay) of PICMG site type `siteType`, number `siteNumber`. */
export function siteIndex(siteType: number, siteNumber: number): number {
  return 100 * (siteType + 1) + siteNumber;
}

/** entPhysicalIndex of a FRU. */
export function fruIndex(f: Pick<FruConfig, 'siteType' | 'siteNumber'>): number {
  return siteIndex(f.siteType, f.siteNumber) * 1000;
}

/** entPhysicalIndex of a FRU's IPMI sensor `number`. */
export function sensorIndex(f: Pick<FruConfig, 'siteType' | 'siteNumber'>, number: number): number {
  return fruIndex(f) + number;
}

const EMPTY_DATE = '0000000000000000';

/** RFC 2579 DateAndTime (11 octets, UTC) of FRU board-area minutes (0 = unknown: 8 zero octets). */
export function dateAndTime(mfgMinutes: number | undefined): string {
  if (!mfgMinutes) return EMPTY_DATE;
  const d = new Date(FRU_EPOCH_MS + mfgMinutes * 60_000);
  const y = d.getUTCFullYear();
  const octets = [y >> 8, y & 0xff, d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), 0, 0x2b, 0, 0];
  return octets.map((o) => o.toString(16).padStart(2, '0')).join('');
}

const SITE_WORDS: Record<number, { descr: string; name: string }> = {
  0x00: { descr: 'ATCA front board slot', name: 'Slot' },
  0x01: { descr: 'Power entry module bay', name: 'PEM bay' },
  0x03: { descr: 'Shelf manager bay', name: 'ShMC bay' },
  0x04: { descr: 'Fan tray bay', name: 'Fan tray bay' },
};

const FRU_CLASS: Record<FruConfig['kind'], number> = { shmc: PHYSICAL_CLASS.module, hub: PHYSICAL_CLASS.module, processor: PHYSICAL_CLASS.module, fan: PHYSICAL_CLASS.fan, pem: PHYSICAL_CLASS.powerSupply };

/** IPMI base unit code (Table 43-15) → entPhySensorType (ATCA feeds are DC: IPMI does not say). */
const SENSOR_TYPE_OF_UNIT: Record<number, number> = { 1: SENSOR_TYPE.celsius, 4: SENSOR_TYPE.voltsDC, 5: SENSOR_TYPE.amperes, 6: SENSOR_TYPE.watts, 18: SENSOR_TYPE.rpm };

function blankEntity(index: number): EntityRow {
  return {
    index, descr: '', vendorType: '0.0', containedIn: 0, class: PHYSICAL_CLASS.other, parentRelPos: -1, name: '',
    hardwareRev: '', firmwareRev: '', softwareRev: '', serialNum: '', mfgName: '', modelName: '', alias: '', assetId: '',
    isFru: TRUTH.false, mfgDate: EMPTY_DATE, uris: '', uuid: '',
  };
}

/** `s` cut to `max` characters (SnmpAdminString columns with a size limit). */
const cut = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

function fruEntity(f: FruConfig, snap: FruSnapshot): EntityRow {
  const inv: FruInventory = 'error' in snap.inventory ? {} : (snap.inventory as FruInventory);
  const p = inv.product;
  const b = inv.board;
  return {
    ...blankEntity(fruIndex(f)),
    descr: p?.name || b?.product || f.label,
    containedIn: siteIndex(f.siteType, f.siteNumber),
    class: FRU_CLASS[f.kind],
    parentRelPos: 1,
    name: f.name,
    hardwareRev: p?.version ?? '',
    firmwareRev: `${f.device.firmwareMajor}.${String(f.device.firmwareMinor).padStart(2, '0')}`,
    serialNum: cut(p?.serial || b?.serial || '', 32),
    mfgName: p?.manufacturer || b?.manufacturer || '',
    modelName: p?.partNumber || b?.partNumber || '',
    alias: f.label,
    assetId: cut(p?.assetTag ?? '', 32),
    isFru: TRUTH.true,
    mfgDate: dateAndTime(b?.mfgMinutes),
  };
}

function sensorEntity(f: FruConfig, s: SensorView): EntityRow {
  const what = s.kind === 'hotswap' ? 'PICMG FRU Hot Swap sensor' : `IPMI threshold sensor, type ${s.sensorType.toString(16).padStart(2, '0')}h`;
  return {
    ...blankEntity(sensorIndex(f, s.number)),
    descr: `${what}, number ${s.number} of IPMB ${f.ipmbAddress.toString(16).padStart(2, '0')}h`,
    containedIn: fruIndex(f),
    class: PHYSICAL_CLASS.sensor,
    parentRelPos: s.number,
    name: s.name,
  };
}

function sensorRow(f: FruConfig, s: SensorView, times: SnmpTimes): SensorRow {
  const at = times.sensorRead.get(`${f.name}#${s.number}`);
  const base = { index: sensorIndex(f, s.number), scale: SCALE_UNITS, operStatus: s.available ? SENSOR_STATUS.ok : SENSOR_STATUS.unavailable, valueAgeMs: at === undefined ? null : times.now - at, updateRateMs: 0 };
  if (s.kind === 'hotswap') return { ...base, type: SENSOR_TYPE.specialEnum, precision: 0, value: s.value, unitsDisplay: 'M-state', valueAgeMs: ageOf(times.fruChanged.get(f.name), times.now) };
  const cfg = f.sensors.find((x) => x.number === s.number) as ThresholdSensorConfig;
  const precision = sensorPrecision(cfg.linearization);
  return { ...base, type: SENSOR_TYPE_OF_UNIT[cfg.unitCode] ?? SENSOR_TYPE.other, precision, value: encodeSensorValue(s.value, precision), unitsDisplay: cfg.unit };
}

const ageOf = (at: number | undefined, now: number) => (at === undefined ? null : now - at);

/** The shelf row and every site (all board slots; the bays of the configured ShMCs, fan trays, PEMs). */
function fixedEntities(c: ShelfConfig): EntityRow[] {
  const rows: EntityRow[] = [
    { ...blankEntity(SHELF_INDEX), descr: `ATCA shelf ${c.name}`, class: PHYSICAL_CLASS.chassis, name: c.name, serialNum: cut(c.chassisFru.serial, 32), modelName: c.chassisFru.partNumber },
  ];
  const site = (type: number, number: number, relPos: number, extra: string) => {
    const w = SITE_WORDS[type] ?? { descr: 'Site', name: 'Site' };
    rows.push({ ...blankEntity(siteIndex(type, number)), descr: `${w.descr}${extra}`, containedIn: SHELF_INDEX, class: PHYSICAL_CLASS.container, parentRelPos: relPos, name: `${w.name} ${number}` });
  };
  for (let s = 1; s <= c.slotCount; s++) {
    const physical = c.physicalOrder.indexOf(s) + 1;
    site(0x00, s, physical, `, logical ${s}, physical ${physical}`);
  }
  const seen = new Set<number>();
  for (const f of c.frus) {
    if (f.siteType === 0x00 || seen.has(siteIndex(f.siteType, f.siteNumber))) continue;
    seen.add(siteIndex(f.siteType, f.siteNumber));
    site(f.siteType, f.siteNumber, f.siteNumber, '');
  }
  return rows;
}

/**
 * Builds the view of `src` at `times.now`. Rows are sorted by index within each table.
 * @throws nothing for a configuration the loader accepted
 */
export function buildSnmpView(src: SnmpSource, times: SnmpTimes): SnmpView {
  const snap = src.snapshot();
  const c = src.config;
  const entities = fixedEntities(c);
  const sensors: SensorRow[] = [];
  const frus: FruStateRow[] = [];
  for (const f of c.frus) {
    const fs = snap.frus.find((x) => x.name === f.name);
    if (!fs) continue;
    frus.push({
      index: fruIndex(f), state: fs.state, stateName: mLabel(fs.state), previous: fs.previous, cause: HOT_SWAP_CAUSE[fs.lastCause],
      changedAgeMs: ageOf(times.fruChanged.get(f.name), times.now), ipmbAddress: f.ipmbAddress, hardwareAddress: f.hardwareAddress,
    });
    if (fs.state === 0) continue;
    entities.push(fruEntity(f, fs));
    for (const s of src.sensors.list(f.name)) {
      entities.push(sensorEntity(f, s));
      sensors.push(sensorRow(f, s, times));
    }
  }
  const byIndex = (a: { index: number }, b: { index: number }) => a.index - b.index;
  return {
    seq: snap.seq,
    shelfName: c.name,
    entities: entities.sort(byIndex),
    sensors: sensors.sort(byIndex),
    frus: frus.sort(byIndex),
    lastChangeAgeMs: ageOf(times.lastChange, times.now),
  };
}
