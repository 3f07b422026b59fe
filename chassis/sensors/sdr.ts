/**
 * Sensor Data Records and the shelf manager's SDR repository.
 *
 * Encodings follow IPMI v2.0 §43: 5-byte header (record ID LE, SDR version 51h, record type,
 * length of the rest), then the record key and body —
 *  - Full Sensor Record, type 01h (Table 43-1): threshold sensors with units and M/B/R
 *    linearisation, thresholds and hysteresis, so ipmitool prints "48 degrees C";
 *  - Compact Sensor Record, type 02h (Table 43-2): discrete sensors such as the PICMG Hot Swap
 *    sensor (type F0h, reading type 6Fh);
 *  - Event-Only Sensor Record, type 03h (Table 43-3): sensors that only generate events and
 *    return no reading (the HA role, fault and watchdog sensors), so `ipmitool sel elist` can
 *    name their SEL records (ipmitool matches owner, number and sensor type);
 *  - FRU Device Locator, type 11h (Table 43-7): a logical FRU device behind a controller;
 *  - Management Controller Device Locator, type 12h (Table 43-8): one per IPM controller, with
 *    its capabilities (ipmitool `fru print` reads the FRU of every locator whose "FRU inventory
 *    device" bit is set).
 * ID strings use type/length byte C0h | n (8-bit ASCII + Latin-1), n ≤ 16.
 * The repository (§33: Get SDR Repository Info 0Ah/20h, Reserve 22h, Get SDR 23h) serves records by
 * ID with offsets, as ipmitool reads them (header first, then the body in chunks).
 * Byte layouts are checked against the records in ../shared/ipmi/sim/atca.emu by the unit tests.
 */
import { DecodeError } from '../../board/common/errors.ts';
import type { Linearization } from './linearization.ts';
import type { ThresholdName } from './thresholds.ts';

export const SDR_VERSION = 0x51;
export const SDR_TYPE = { full: 0x01, compact: 0x02, eventOnly: 0x03, fruLocator: 0x11, mcLocator: 0x12 } as const;
/** Maximum ID string length in bytes (IPMI v2.0 Table 43-1 byte 48: 16 bytes). */
export const SDR_ID_MAX = 16;
/** Get SDR: next record ID after the last record. */
export const SDR_LAST = 0xffff;

/**
 * Fields every sensor record (full 01h, compact 02h, event-only 03h) shares: the record key
 * (IPMI v2.0 Tables 43-1..43-3, bytes 1–10 of the body: owner, LUN/channel, sensor number, entity),
 * the sensor and event/reading types, the OEM byte and the ID string.
 */
export interface SensorRecordBase {
  recordId: number;
  ownerId: number;
  ownerLun: number;
  channel: number;
  sensorNumber: number;
  entityId: number;
  entityInstance: number;
  sensorType: number;
  readingType: number;
  oem: number;
  idString: string;
}

/** The threshold/analog part full and compact records share (bytes 11–23). */
export interface ReadingSensorFields {
  /** Byte 11 sensor initialisation. */
  init: number;
  /** Byte 12 sensor capabilities. */
  capabilities: number;
  /** Assertion event mask / lower threshold reading mask. */
  assertionMask: number;
  /** Deassertion event mask / upper threshold reading mask. */
  deassertionMask: number;
  /** Low byte readable thresholds, high byte settable thresholds (for threshold sensors). */
  readingMask: number;
  /** Byte 21: b7:6 analog data format, b5:3 rate unit, b2:1 modifier unit use, b0 percentage. */
  units1: number;
  unitCode: number;
  modifierUnitCode: number;
  hysteresis: { positive: number; negative: number };
}

/** Full sensor record (01h) fields. Masks are the 16-bit words of bytes 15–20. */
export interface FullSensorRecord extends SensorRecordBase, ReadingSensorFields {
  type: 'full';
  /** Byte 24: 00h linear. */
  linearizationType: number;
  linearization: Linearization;
  tolerance: number;
  accuracy: number;
  accuracyExp: number;
  direction: number;
  /** Byte 31: b0 nominal, b1 normal max, b2 normal min specified. */
  analogFlags: number;
  nominalRaw: number;
  normalMaxRaw: number;
  normalMinRaw: number;
  sensorMaxRaw: number;
  sensorMinRaw: number;
  /** Raw thresholds (0 when not used; the readable mask says which are). */
  thresholds: Record<ThresholdName, number>;
}

/** Compact sensor record (02h) fields. */
export interface CompactSensorRecord extends SensorRecordBase, ReadingSensorFields {
  type: 'compact';
  /** Byte 24: b7:6 direction, b5:4 ID string instance modifier type, b3:0 share count. */
  sharing: number;
  /** Byte 25: b7 entity instance increments, b6:0 ID string instance modifier offset. */
  instanceSharing: number;
}

/** Event-only sensor record (03h, IPMI v2.0 Table 43-3) fields: no reading, no thresholds. */
export interface EventOnlySensorRecord extends SensorRecordBase {
  type: 'event-only';
  /** Byte 13: b7:6 direction, b5:4 ID string instance modifier type, b3:0 share count. */
  sharing: number;
  /** Byte 14: b7 entity instance increments, b6:0 ID string instance modifier offset. */
  instanceSharing: number;
}

/** FRU device locator (11h) fields. */
export interface FruLocatorRecord {
  type: 'fru-locator';
  recordId: number;
  /** Device access address (8-bit IPMB form). */
  accessAddress: number;
  fruDeviceId: number;
  /** true = logical FRU device (accessed with Read FRU Data). */
  logical: boolean;
  accessLun: number;
  privateBus: number;
  channel: number;
  /** 10h = IPMI FRU inventory device. */
  deviceType: number;
  deviceTypeModifier: number;
  entityId: number;
  entityInstance: number;
  oem: number;
  idString: string;
}

/** Management controller device locator (12h) fields. */
export interface McLocatorRecord {
  type: 'mc-locator';
  recordId: number;
  /** Device slave address (8-bit IPMB form). */
  slaveAddress: number;
  channel: number;
  /** Byte 8: power state notification and global initialisation. */
  powerStateInit: number;
  /** Byte 9: b7 chassis, b6 bridge, b5 IPMB event generator, b4 event receiver, b3 FRU inventory,
   * b2 SEL, b1 SDR repository, b0 sensor device. */
  capabilities: number;
  entityId: number;
  entityInstance: number;
  oem: number;
  idString: string;
}

export type SdrRecord = FullSensorRecord | CompactSensorRecord | EventOnlySensorRecord | FruLocatorRecord | McLocatorRecord;

/** The records that describe a sensor (owner, number, type): full, compact and event-only. */
export type SensorSdrRecord = FullSensorRecord | CompactSensorRecord | EventOnlySensorRecord;

/** True for a sensor record (full 01h, compact 02h or event-only 03h). */
export function isSensorRecord(r: SdrRecord): r is SensorSdrRecord {
  return r.type === 'full' || r.type === 'compact' || r.type === 'event-only';
}

/** MC locator capability bits (Table 43-8 byte 9). */
export const MC_CAP = {
  chassis: 0x80,
  bridge: 0x40,
  eventGenerator: 0x20,
  eventReceiver: 0x10,
  fruInventory: 0x08,
  sel: 0x04,
  sdrRepository: 0x02,
  sensor: 0x01,
} as const;

function idBytes(s: string): Uint8Array {
  const b = Buffer.from(s, 'latin1');
  if (b.length > SDR_ID_MAX) throw new RangeError(`SDR ID string "${s}" longer than ${SDR_ID_MAX} bytes`);
  if ([...s].some((c) => c.charCodeAt(0) > 0xff)) throw new RangeError(`SDR ID string "${s}" is not Latin-1`);
  return b;
}

function u(v: number, max: number, field: string): number {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`SDR: ${field}=${v} out of range 0..${max}`);
  return v;
}

function signedBits(v: number, bits: number, field: string): number {
  const lo = -(1 << (bits - 1));
  const hi = (1 << (bits - 1)) - 1;
  if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`SDR: ${field}=${v} out of range ${lo}..${hi}`);
  return v & ((1 << bits) - 1);
}

function fromSigned(v: number, bits: number): number {
  return v & (1 << (bits - 1)) ? v - (1 << bits) : v;
}

/** The sensor key of a sensor record (bytes 6–10: owner ID, channel/LUN, sensor number, entity ID
 * and instance; IPMI v2.0 Tables 43-1..43-3). @throws RangeError on an out-of-range field */
function sensorKeyBytes(r: SensorRecordBase): number[] {
  return [
    u(r.ownerId, 0xff, 'ownerId'),
    (u(r.channel, 0xf, 'channel') << 4) | u(r.ownerLun, 3, 'ownerLun'),
    u(r.sensorNumber, 0xff, 'sensorNumber'),
    u(r.entityId, 0xff, 'entityId'),
    u(r.entityInstance, 0xff, 'entityInstance'),
  ];
}

function header(recordId: number, type: number, bodyLen: number): number[] {
  u(recordId, 0xffff, 'recordId');
  return [recordId & 0xff, recordId >> 8, SDR_VERSION, type, u(bodyLen, 0xff, 'length')];
}

/**
 * Encodes an SDR record (header included). The record ID inside `r` is written as given; the
 * repository rewrites bytes 0–1 when it assigns IDs.
 * @throws RangeError on out-of-range fields or an over-long ID string.
 */
export function encodeSdr(r: SdrRecord): Uint8Array {
  const id = idBytes(r.idString);
  let body: number[];
  switch (r.type) {
    case 'full': {
      const l = r.linearization;
      const m = signedBits(l.m, 10, 'M');
      const b = signedBits(l.b, 10, 'B');
      const t = r.thresholds;
      body = [
        ...sensorKeyBytes(r),
        u(r.init, 0xff, 'init'),
        u(r.capabilities, 0xff, 'capabilities'),
        u(r.sensorType, 0xff, 'sensorType'),
        u(r.readingType, 0xff, 'readingType'),
        r.assertionMask & 0xff, (r.assertionMask >> 8) & 0xff,
        r.deassertionMask & 0xff, (r.deassertionMask >> 8) & 0xff,
        r.readingMask & 0xff, (r.readingMask >> 8) & 0xff,
        u(r.units1, 0xff, 'units1'),
        u(r.unitCode, 0xff, 'unitCode'),
        u(r.modifierUnitCode, 0xff, 'modifierUnitCode'),
        u(r.linearizationType, 0x7f, 'linearizationType'),
        m & 0xff, ((m >> 8) << 6) | u(r.tolerance, 0x3f, 'tolerance'),
        b & 0xff, ((b >> 8) << 6) | (u(r.accuracy, 0x3ff, 'accuracy') & 0x3f),
        ((r.accuracy >> 6) << 4) | (u(r.accuracyExp, 3, 'accuracyExp') << 2) | u(r.direction, 3, 'direction'),
        (signedBits(l.rExp, 4, 'Rexp') << 4) | signedBits(l.bExp, 4, 'Bexp'),
        u(r.analogFlags, 0xff, 'analogFlags'),
        u(r.nominalRaw, 0xff, 'nominal'),
        u(r.normalMaxRaw, 0xff, 'normalMax'),
        u(r.normalMinRaw, 0xff, 'normalMin'),
        u(r.sensorMaxRaw, 0xff, 'sensorMax'),
        u(r.sensorMinRaw, 0xff, 'sensorMin'),
        u(t.unr, 0xff, 'unr'), u(t.uc, 0xff, 'uc'), u(t.unc, 0xff, 'unc'),
        u(t.lnr, 0xff, 'lnr'), u(t.lc, 0xff, 'lc'), u(t.lnc, 0xff, 'lnc'),
        u(r.hysteresis.positive, 0xff, 'hysteresis+'), u(r.hysteresis.negative, 0xff, 'hysteresis-'),
        0x00, 0x00,
        u(r.oem, 0xff, 'oem'),
        0xc0 | id.length,
        ...id,
      ];
      break;
    }
    case 'compact':
      body = [
        ...sensorKeyBytes(r),
        u(r.init, 0xff, 'init'),
        u(r.capabilities, 0xff, 'capabilities'),
        u(r.sensorType, 0xff, 'sensorType'),
        u(r.readingType, 0xff, 'readingType'),
        r.assertionMask & 0xff, (r.assertionMask >> 8) & 0xff,
        r.deassertionMask & 0xff, (r.deassertionMask >> 8) & 0xff,
        r.readingMask & 0xff, (r.readingMask >> 8) & 0xff,
        u(r.units1, 0xff, 'units1'),
        u(r.unitCode, 0xff, 'unitCode'),
        u(r.modifierUnitCode, 0xff, 'modifierUnitCode'),
        u(r.sharing, 0xff, 'sharing'),
        u(r.instanceSharing, 0xff, 'instanceSharing'),
        u(r.hysteresis.positive, 0xff, 'hysteresis+'),
        u(r.hysteresis.negative, 0xff, 'hysteresis-'),
        0x00, 0x00, 0x00,
        u(r.oem, 0xff, 'oem'),
        0xc0 | id.length,
        ...id,
      ];
      break;
    case 'event-only':
      body = [
        ...sensorKeyBytes(r),
        u(r.sensorType, 0xff, 'sensorType'),
        u(r.readingType, 0xff, 'readingType'),
        u(r.sharing, 0xff, 'sharing'),
        u(r.instanceSharing, 0xff, 'instanceSharing'),
        0x00,
        u(r.oem, 0xff, 'oem'),
        0xc0 | id.length,
        ...id,
      ];
      break;
    case 'fru-locator':
      body = [
        u(r.accessAddress, 0xff, 'accessAddress') & 0xfe,
        u(r.fruDeviceId, 0xff, 'fruDeviceId'),
        (r.logical ? 0x80 : 0) | (u(r.accessLun, 3, 'accessLun') << 3) | u(r.privateBus, 7, 'privateBus'),
        u(r.channel, 0xf, 'channel') << 4,
        0x00,
        u(r.deviceType, 0xff, 'deviceType'),
        u(r.deviceTypeModifier, 0xff, 'deviceTypeModifier'),
        u(r.entityId, 0xff, 'entityId'),
        u(r.entityInstance, 0xff, 'entityInstance'),
        u(r.oem, 0xff, 'oem'),
        0xc0 | id.length,
        ...id,
      ];
      break;
    case 'mc-locator':
      body = [
        u(r.slaveAddress, 0xff, 'slaveAddress') & 0xfe,
        u(r.channel, 0xf, 'channel'),
        u(r.powerStateInit, 0xff, 'powerStateInit'),
        u(r.capabilities, 0xff, 'capabilities'),
        0x00, 0x00, 0x00,
        u(r.entityId, 0xff, 'entityId'),
        u(r.entityInstance, 0xff, 'entityInstance'),
        u(r.oem, 0xff, 'oem'),
        0xc0 | id.length,
        ...id,
      ];
      break;
  }
  return Uint8Array.from([...header(r.recordId, SDR_TYPE_CODE[r.type], body.length), ...body]);
}

const SDR_TYPE_CODE: Record<SdrRecord['type'], number> = {
  full: SDR_TYPE.full,
  compact: SDR_TYPE.compact,
  'event-only': SDR_TYPE.eventOnly,
  'fru-locator': SDR_TYPE.fruLocator,
  'mc-locator': SDR_TYPE.mcLocator,
};

/**
 * Decodes one SDR record at `offset` (inverse of encodeSdr).
 * @returns the record and the offset after it.
 * @throws DecodeError('sdr', …) on truncation, a bad version, an unknown type or a bad ID string length.
 */
export function decodeSdr(buf: Uint8Array, offset = 0): { record: SdrRecord; end: number } {
  const need = (n: number, field: string) => {
    if (buf.length - offset < n) throw new DecodeError('sdr', field, offset, `need ${n} bytes, have ${Math.max(0, buf.length - offset)}`);
  };
  need(5, 'header');
  const g = (i: number) => buf[offset + i]!;
  const recordId = g(0) | (g(1) << 8);
  if (g(2) !== SDR_VERSION) throw new DecodeError('sdr', 'version', offset + 2, `expected 51h, got ${g(2).toString(16)}h`);
  const type = g(3);
  const len = g(4);
  need(5 + len, 'body');
  const end = offset + 5 + len;
  const idAt = (pos: number): string => {
    const tl = g(pos);
    const n = tl & 0x1f;
    if (pos + 1 + n > 5 + len) throw new DecodeError('sdr', 'id_string', offset + pos, `length ${n} runs past the record`);
    return Buffer.from(buf.subarray(offset + pos + 1, offset + pos + 1 + n)).toString('latin1');
  };
  const w = (i: number) => g(i) | (g(i + 1) << 8);
  /** The sensor key of a sensor record (bytes 5–9 here; see sensorKeyBytes). */
  const key = () => ({ ownerId: g(5), ownerLun: g(6) & 3, channel: g(6) >> 4, sensorNumber: g(7), entityId: g(8), entityInstance: g(9) });
  switch (type) {
    case SDR_TYPE.full: {
      if (len < 43) throw new DecodeError('sdr', 'length', offset + 4, `full sensor record body ${len} < 43`);
      const m = fromSigned(g(24) | ((g(25) >> 6) << 8), 10);
      const b = fromSigned(g(26) | ((g(27) >> 6) << 8), 10);
      return {
        end,
        record: {
          type: 'full', recordId,
          ...key(),
          init: g(10), capabilities: g(11),
          sensorType: g(12), readingType: g(13),
          assertionMask: w(14), deassertionMask: w(16), readingMask: w(18),
          units1: g(20), unitCode: g(21), modifierUnitCode: g(22), linearizationType: g(23),
          linearization: { m, b, rExp: fromSigned(g(29) >> 4, 4), bExp: fromSigned(g(29) & 0xf, 4) },
          tolerance: g(25) & 0x3f,
          accuracy: (g(27) & 0x3f) | ((g(28) >> 4) << 6),
          accuracyExp: (g(28) >> 2) & 3,
          direction: g(28) & 3,
          analogFlags: g(30), nominalRaw: g(31), normalMaxRaw: g(32), normalMinRaw: g(33),
          sensorMaxRaw: g(34), sensorMinRaw: g(35),
          thresholds: { unr: g(36), uc: g(37), unc: g(38), lnr: g(39), lc: g(40), lnc: g(41) },
          hysteresis: { positive: g(42), negative: g(43) },
          oem: g(46),
          idString: idAt(47),
        },
      };
    }
    case SDR_TYPE.compact:
      if (len < 27) throw new DecodeError('sdr', 'length', offset + 4, `compact sensor record body ${len} < 27`);
      return {
        end,
        record: {
          type: 'compact', recordId,
          ...key(),
          init: g(10), capabilities: g(11),
          sensorType: g(12), readingType: g(13),
          assertionMask: w(14), deassertionMask: w(16), readingMask: w(18),
          units1: g(20), unitCode: g(21), modifierUnitCode: g(22),
          sharing: g(23), instanceSharing: g(24),
          hysteresis: { positive: g(25), negative: g(26) },
          oem: g(30),
          idString: idAt(31),
        },
      };
    case SDR_TYPE.eventOnly:
      if (len < 12) throw new DecodeError('sdr', 'length', offset + 4, `event-only sensor record body ${len} < 12`);
      return {
        end,
        record: {
          type: 'event-only', recordId,
          ...key(),
          sensorType: g(10), readingType: g(11),
          sharing: g(12), instanceSharing: g(13),
          oem: g(15),
          idString: idAt(16),
        },
      };
    case SDR_TYPE.fruLocator:
      if (len < 11) throw new DecodeError('sdr', 'length', offset + 4, `FRU locator body ${len} < 11`);
      return {
        end,
        record: {
          type: 'fru-locator', recordId,
          accessAddress: g(5), fruDeviceId: g(6), logical: (g(7) & 0x80) !== 0,
          accessLun: (g(7) >> 3) & 3, privateBus: g(7) & 7, channel: g(8) >> 4,
          deviceType: g(10), deviceTypeModifier: g(11), entityId: g(12), entityInstance: g(13), oem: g(14),
          idString: idAt(15),
        },
      };
    case SDR_TYPE.mcLocator:
      if (len < 11) throw new DecodeError('sdr', 'length', offset + 4, `MC locator body ${len} < 11`);
      return {
        end,
        record: {
          type: 'mc-locator', recordId,
          slaveAddress: g(5), channel: g(6) & 0xf, powerStateInit: g(7), capabilities: g(8),
          entityId: g(12), entityInstance: g(13), oem: g(14),
          idString: idAt(15),
        },
      };
    default:
      throw new DecodeError('sdr', 'record_type', offset + 3, `unsupported record type ${type.toString(16)}h`);
  }
}

/** Get SDR Repository Info (§33.9) as numbers. */
export interface SdrInfo {
  version: number;
  recordCount: number;
  /** Free space in bytes (FFFEh = "> 64Kb - 2 bytes"; the repository is rebuilt, not added to). */
  freeBytes: number;
  lastAddTime: number;
  lastEraseTime: number;
  /** b7 overflow, b6:5 update type (00 unspecified), b3 delete, b2 partial add, b1 reserve, b0 alloc info. */
  operationSupport: number;
}

/** Refusals of Get SDR (the IPMI layer maps them: not_found → CBh, reservation_invalid → C5h,
 * offset_out_of_range → C9h). */
export type SdrRefusal = 'not_found' | 'reservation_invalid' | 'offset_out_of_range';

/**
 * The SDR repository: an ordered list of encoded records with IDs 1..N. `replace` rebuilds it (the
 * shelf does so when a FRU appears or disappears) and cancels the reservation, as a repository
 * update does (§33.11).
 */
export class SdrRepository {
  private records: Uint8Array[] = [];
  private reservation = 0;
  private reservationCounter = 0;
  private lastAdd = 0xffffffff;
  private lastErase = 0xffffffff;

  /** Replaces every record; IDs are reassigned 1..N in the given order. `now` = SEL-clock seconds. */
  replace(records: readonly SdrRecord[], now: number): void {
    const changed = records.length !== this.records.length;
    this.records = records.map((r, i) => encodeSdr({ ...r, recordId: i + 1 }));
    if (this.records.length) this.lastAdd = now >>> 0;
    if (changed && this.records.length === 0) this.lastErase = now >>> 0;
    this.reservation = 0;
  }

  /** Number of records. */
  get size(): number {
    return this.records.length;
  }

  /** Decoded records in ID order. */
  list(): SdrRecord[] {
    return this.records.map((b) => decodeSdr(b).record);
  }

  /** Encoded record by ID, or undefined. */
  bytes(recordId: number): Uint8Array | undefined {
    return this.records[recordId - 1];
  }

  /** Get SDR Repository Info (§33.9). */
  info(): SdrInfo {
    return {
      version: SDR_VERSION,
      recordCount: this.records.length,
      freeBytes: 0xfffe,
      lastAddTime: this.lastAdd,
      lastEraseTime: this.lastErase,
      operationSupport: 0x02,
    };
  }

  /** Reserve SDR Repository (§33.11): a new non-zero reservation ID. */
  reserve(): number {
    this.reservationCounter = (this.reservationCounter % 0xffff) + 1;
    this.reservation = this.reservationCounter;
    return this.reservation;
  }

  /**
   * Get SDR (§33.12). `recordId` 0000h = first. `count` FFh = to the end of the record. A
   * non-zero offset needs the current reservation (reservation 0 is accepted only at offset 0).
   */
  get(
    recordId: number,
    offset: number,
    count: number,
    reservation: number,
  ): { ok: true; next: number; data: Uint8Array } | { ok: false; reason: SdrRefusal } {
    if (offset > 0 && (reservation === 0 || reservation !== this.reservation)) return { ok: false, reason: 'reservation_invalid' };
    if (offset === 0 && reservation !== 0 && reservation !== this.reservation) return { ok: false, reason: 'reservation_invalid' };
    const idx = recordId === 0 ? 0 : recordId - 1;
    const rec = this.records[idx];
    if (!rec) return { ok: false, reason: 'not_found' };
    if (offset >= rec.length) return { ok: false, reason: 'offset_out_of_range' };
    const n = count === 0xff ? rec.length - offset : Math.min(count, rec.length - offset);
    const next = idx + 1 < this.records.length ? idx + 2 : SDR_LAST;
    return { ok: true, next, data: rec.subarray(offset, offset + n) };
  }
}
