/**
 * System Event Log: the 16-byte SEL record codec and the SEL repository of the shelf manager.
 *
 * Follows IPMI v2.0 §31 (SEL commands: Get SEL Info 0Ah/40h, Reserve 42h, Get Entry 43h, Add 44h,
 * Delete 46h, Clear 47h, Get/Set SEL Time 48h/49h) and §32.1 (SEL event record layout, Table 32-1).
 * All multi-byte fields are little-endian. Pure: no I/O and no clock of its own — the caller hands
 * in the SEL time (seconds) and persists what `add`/`delete`/`clear` return.
 *
 * Overflow: when the SEL holds `capacity` records, a new record is NOT logged and the overflow flag
 * is set (§31.2 "SEL overflow"; §31.11 Get SEL Info byte 14 bit 7). Records never wrap. The flag is
 * cleared by Clear SEL.
 */
import { DecodeError } from '../../board/common/errors.ts';

/** Size of every SEL record on the wire and in storage (IPMI v2.0 §32). */
export const SEL_RECORD_BYTES = 16;
/** Record type 02h: system event record (§32.1). C0h–DFh OEM timestamped, E0h–FFh OEM non-timestamped. */
export const SEL_TYPE_SYSTEM_EVENT = 0x02;
/** Event Message format revision for IPMI v2.0 / 1.5 (§32.1 byte 10). */
export const EVM_REV = 0x04;
/** SEL version reported by Get SEL Info: 51h = IPMI 1.5/2.0 (§31.2). */
export const SEL_VERSION = 0x51;
/** Record ids 0000h ("first") and FFFFh ("last") are reserved by Get SEL Entry (§31.5). */
export const SEL_FIRST = 0x0000;
export const SEL_LAST = 0xffff;
/** Default SEL capacity in records (docs/shelf.md "The System Event Log"). */
export const DEFAULT_SEL_CAPACITY = 4096;
/** Timestamp meaning "unspecified" (§31.2: FFFFFFFFh = not available). */
export const SEL_TIME_UNSPECIFIED = 0xffffffff;

/**
 * A decoded SEL record. For type 02h every field is meaningful; for OEM types (C0h–FFh) `raw`
 * holds the 13 bytes after the record type and the event fields are undefined.
 */
export interface SelRecord {
  /** Record ID, 1..FFFEh. */
  recordId: number;
  /** 02h system event; C0h–FFh OEM. */
  recordType: number;
  /** Seconds since 1970-01-01 (IPMI timestamp, §37); absent for non-timestamped OEM records. */
  timestamp?: number;
  /** Generator ID (§32.1 bytes 8–9 as a little-endian word): low byte b7:1 IPMB slave address or
   * software ID, b0 0 = IPMB address / 1 = software ID; high byte b7:4 channel, b1:0 LUN. */
  generatorId?: number;
  /** Event message format revision, 04h. */
  evmRev?: number;
  sensorType?: number;
  sensorNumber?: number;
  /** b7 event direction (0 assertion, 1 deassertion), b6:0 event/reading type code. */
  eventDirType?: number;
  /** Event data 1–3. */
  eventData?: [number, number, number];
  /** OEM records: the 13 bytes following the record type (timestamped: 4-byte timestamp first). */
  raw?: Uint8Array;
}

/** What a caller supplies to log a system event; the SEL assigns record ID (and time if absent). */
export interface SelEventInput {
  /** Generator ID word as in SelRecord (e.g. 0x0086 for the IPMC at IPMB 86h, LUN 0, channel 0). */
  generatorId: number;
  sensorType: number;
  sensorNumber: number;
  /** b7 direction (1 = deassertion), b6:0 event/reading type. */
  eventDirType: number;
  eventData: [number, number, number];
  /** Override the SEL time (seconds); default the SEL's current time. */
  timestamp?: number;
}

/**
 * Encodes one record into 16 bytes (IPMI v2.0 Table 32-1):
 * `[0..1] record ID LE, [2] type, [3..6] timestamp LE, [7..8] generator ID LE, [9] EvM rev,
 *  [10] sensor type, [11] sensor number, [12] event dir | type, [13..15] event data 1..3`.
 * OEM types copy `raw` (13 bytes) after the type byte.
 * @throws RangeError on out-of-range fields or a missing OEM payload.
 */
export function encodeSelRecord(r: SelRecord, out: Uint8Array = new Uint8Array(SEL_RECORD_BYTES), offset = 0): Uint8Array {
  if (out.length - offset < SEL_RECORD_BYTES) throw new RangeError('encodeSelRecord: output too small');
  checkU(r.recordId, 0xffff, 'recordId');
  checkU(r.recordType, 0xff, 'recordType');
  out[offset] = r.recordId & 0xff;
  out[offset + 1] = r.recordId >> 8;
  out[offset + 2] = r.recordType;
  if (r.recordType === SEL_TYPE_SYSTEM_EVENT) {
    const ts = r.timestamp ?? SEL_TIME_UNSPECIFIED;
    checkU(ts, 0xffffffff, 'timestamp');
    checkU(r.generatorId ?? -1, 0xffff, 'generatorId');
    const data = r.eventData;
    if (!data || data.length !== 3) throw new RangeError('encodeSelRecord: eventData must have 3 bytes');
    out[offset + 3] = ts & 0xff;
    out[offset + 4] = (ts >>> 8) & 0xff;
    out[offset + 5] = (ts >>> 16) & 0xff;
    out[offset + 6] = (ts >>> 24) & 0xff;
    out[offset + 7] = r.generatorId! & 0xff;
    out[offset + 8] = r.generatorId! >> 8;
    out[offset + 9] = checkU(r.evmRev ?? EVM_REV, 0xff, 'evmRev');
    out[offset + 10] = checkU(r.sensorType ?? -1, 0xff, 'sensorType');
    out[offset + 11] = checkU(r.sensorNumber ?? -1, 0xff, 'sensorNumber');
    out[offset + 12] = checkU(r.eventDirType ?? -1, 0xff, 'eventDirType');
    out[offset + 13] = checkU(data[0], 0xff, 'eventData1');
    out[offset + 14] = checkU(data[1], 0xff, 'eventData2');
    out[offset + 15] = checkU(data[2], 0xff, 'eventData3');
  } else {
    if (!r.raw || r.raw.length !== 13) throw new RangeError('encodeSelRecord: OEM record needs 13 raw bytes');
    out.set(r.raw, offset + 3);
  }
  return out;
}

/**
 * Decodes 16 bytes at `offset` into a SelRecord (inverse of encodeSelRecord).
 * @throws DecodeError('sel', …) when fewer than 16 bytes remain.
 */
export function decodeSelRecord(buf: Uint8Array, offset = 0): SelRecord {
  if (buf.length - offset < SEL_RECORD_BYTES) {
    throw new DecodeError('sel', 'record', offset, `need ${SEL_RECORD_BYTES} bytes, have ${Math.max(0, buf.length - offset)}`);
  }
  const b = (i: number) => buf[offset + i]!;
  const recordId = b(0) | (b(1) << 8);
  const recordType = b(2);
  if (recordType === SEL_TYPE_SYSTEM_EVENT) {
    return {
      recordId,
      recordType,
      timestamp: (b(3) | (b(4) << 8) | (b(5) << 16) | (b(6) << 24)) >>> 0,
      generatorId: b(7) | (b(8) << 8),
      evmRev: b(9),
      sensorType: b(10),
      sensorNumber: b(11),
      eventDirType: b(12),
      eventData: [b(13), b(14), b(15)],
    };
  }
  const raw = buf.slice(offset + 3, offset + 16);
  const rec: SelRecord = { recordId, recordType, raw };
  if (recordType >= 0xc0 && recordType <= 0xdf) rec.timestamp = (raw[0]! | (raw[1]! << 8) | (raw[2]! << 16) | (raw[3]! << 24)) >>> 0;
  return rec;
}

/** Generator ID word for an IPMB slave address (8-bit form, b0 = 0), LUN and channel (§32.1). */
export function generatorIdForIpmb(address: number, lun = 0, channel = 0): number {
  return (address & 0xfe) | ((lun & 3) << 8) | ((channel & 0xf) << 12);
}

/** Get SEL Info (§31.2) as numbers; the IPMI layer lays out the 14 bytes. */
export interface SelInfo {
  version: number;
  entries: number;
  /** Free space in bytes = free records × 16. */
  freeBytes: number;
  /** Most recent addition / erase timestamps (seconds), FFFFFFFFh when none. */
  lastAddTime: number;
  lastEraseTime: number;
  overflow: boolean;
  /** Operation support byte without the overflow bit: b3 delete, b2 partial add, b1 reserve, b0 alloc info. */
  operationSupport: number;
  capacity: number;
}

/** Result of SelRepository.add. `logged: false` means the SEL was full (overflow flag now set). */
export type SelAddResult = { logged: true; record: SelRecord; bytes: Uint8Array } | { logged: false; reason: 'full' };

/** State a SelRepository is rebuilt from (persistence). */
export interface SelState {
  /** Records in log order, 16 bytes each. */
  records: Uint8Array[];
  nextRecordId: number;
  overflow: boolean;
  lastAddTime: number;
  lastEraseTime: number;
}

/** Why a reservation-checked SEL command was refused (the IPMI layer maps these to CC C5h / CBh). */
export type SelRefusal = 'reservation_invalid' | 'not_found';

/**
 * The SEL repository. Record IDs run 1..FFFEh in log order and restart at 1 after Clear SEL;
 * a reservation (Reserve SEL) is cancelled by Clear and Delete, as §31.4 says.
 */
export class SelRepository {
  private records: SelRecord[] = [];
  private bytesById = new Map<number, Uint8Array>();
  private nextId = 1;
  private overflowFlag = false;
  private lastAdd = SEL_TIME_UNSPECIFIED;
  private lastErase = SEL_TIME_UNSPECIFIED;
  private reservation = 0;
  private reservationCounter = 0;

  /** @param capacity maximum number of records (default 4096); @throws RangeError if < 1 or > 65534. */
  constructor(readonly capacity: number = DEFAULT_SEL_CAPACITY, state?: SelState) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 0xfffe) throw new RangeError(`SEL capacity ${capacity} out of range 1..65534`);
    if (state) this.restore(state);
  }

  private restore(s: SelState): void {
    for (const bytes of s.records) {
      const rec = decodeSelRecord(bytes);
      this.records.push(rec);
      this.bytesById.set(rec.recordId, Uint8Array.from(bytes));
    }
    this.nextId = s.nextRecordId >= 1 && s.nextRecordId <= 0xfffe ? s.nextRecordId : 1;
    this.overflowFlag = s.overflow;
    this.lastAdd = s.lastAddTime;
    this.lastErase = s.lastEraseTime;
  }

  /** Number of records held. */
  get size(): number {
    return this.records.length;
  }

  get overflow(): boolean {
    return this.overflowFlag;
  }

  /** State for persistence. */
  state(): SelState {
    return {
      records: this.records.map((r) => this.bytesById.get(r.recordId)!),
      nextRecordId: this.nextId,
      overflow: this.overflowFlag,
      lastAddTime: this.lastAdd,
      lastEraseTime: this.lastErase,
    };
  }

  /** Get SEL Info (§31.2). */
  info(): SelInfo {
    return {
      version: SEL_VERSION,
      entries: this.records.length,
      freeBytes: Math.min(0xffff, (this.capacity - this.records.length) * SEL_RECORD_BYTES),
      lastAddTime: this.lastAdd,
      lastEraseTime: this.lastErase,
      overflow: this.overflowFlag,
      operationSupport: 0x0a, // delete + reserve
      capacity: this.capacity,
    };
  }

  /** Reserve SEL (§31.4): a new non-zero 16-bit reservation ID; the previous one is cancelled. */
  reserve(): number {
    this.reservationCounter = (this.reservationCounter % 0xffff) + 1;
    this.reservation = this.reservationCounter;
    return this.reservation;
  }

  /** True when `id` is the current reservation. */
  reservationValid(id: number): boolean {
    return id !== 0 && id === this.reservation;
  }

  /**
   * Logs a system event record (type 02h) at SEL time `now` (seconds), or not at all when full.
   * @throws RangeError on out-of-range event fields.
   */
  addEvent(ev: SelEventInput, now: number): SelAddResult {
    return this.addRecord(
      {
        recordId: 0,
        recordType: SEL_TYPE_SYSTEM_EVENT,
        timestamp: ev.timestamp ?? now,
        generatorId: ev.generatorId,
        evmRev: EVM_REV,
        sensorType: ev.sensorType,
        sensorNumber: ev.sensorNumber,
        eventDirType: ev.eventDirType,
        eventData: ev.eventData,
      },
      now,
    );
  }

  /**
   * Add SEL Entry (§31.6): logs `r` with a new record ID (the caller's ID is ignored). For type 02h
   * and OEM timestamped types the BMC overwrites the timestamp with `now`, as the spec requires.
   */
  addRecord(r: SelRecord, now: number): SelAddResult {
    if (this.records.length >= this.capacity) {
      this.overflowFlag = true;
      return { logged: false, reason: 'full' };
    }
    const id = this.allocateId();
    const rec: SelRecord = { ...r, recordId: id };
    if (r.recordType === SEL_TYPE_SYSTEM_EVENT) rec.timestamp = now >>> 0;
    if (r.recordType >= 0xc0 && r.recordType <= 0xdf && r.raw) {
      const raw = Uint8Array.from(r.raw);
      raw[0] = now & 0xff;
      raw[1] = (now >>> 8) & 0xff;
      raw[2] = (now >>> 16) & 0xff;
      raw[3] = (now >>> 24) & 0xff;
      rec.raw = raw;
      rec.timestamp = now >>> 0;
    }
    const bytes = encodeSelRecord(rec);
    this.records.push(rec);
    this.bytesById.set(id, bytes);
    this.lastAdd = now >>> 0;
    return { logged: true, record: rec, bytes };
  }

  private allocateId(): number {
    // Monotonic in log order; after FFFEh wrap to the lowest ID not in use (only reachable when
    // records were deleted, since capacity <= FFFEh).
    let id = this.nextId;
    for (let i = 0; i < 0xfffe && this.bytesById.has(id); i++) id = id >= 0xfffe ? 1 : id + 1;
    this.nextId = id >= 0xfffe ? 1 : id + 1;
    return id;
  }

  /**
   * Get SEL Entry (§31.5): `id` 0000h = first, FFFFh = last. Returns the record, its 16 bytes and
   * the next record ID (FFFFh after the last), or undefined when absent.
   */
  get(id: number): { record: SelRecord; bytes: Uint8Array; next: number } | undefined {
    if (this.records.length === 0) return undefined;
    let idx: number;
    if (id === SEL_FIRST) idx = 0;
    else if (id === SEL_LAST) idx = this.records.length - 1;
    else idx = this.records.findIndex((r) => r.recordId === id);
    if (idx < 0) return undefined;
    const record = this.records[idx]!;
    const next = idx + 1 < this.records.length ? this.records[idx + 1]!.recordId : SEL_LAST;
    return { record, bytes: this.bytesById.get(record.recordId)!, next };
  }

  /** Every record in log order (read-only views). */
  list(): readonly SelRecord[] {
    return this.records;
  }

  /**
   * Delete SEL Entry (§31.8). `reservation` must be current (0 is accepted only when `requireReservation`
   * is false). Cancels the reservation. @returns the deleted record ID or a refusal.
   */
  delete(id: number, reservation: number, requireReservation = true): { ok: true; recordId: number } | { ok: false; reason: SelRefusal } {
    if (requireReservation && !this.reservationValid(reservation)) return { ok: false, reason: 'reservation_invalid' };
    const hit = this.get(id);
    if (!hit) return { ok: false, reason: 'not_found' };
    const rid = hit.record.recordId;
    this.records = this.records.filter((r) => r.recordId !== rid);
    this.bytesById.delete(rid);
    this.reservation = 0;
    return { ok: true, recordId: rid };
  }

  /**
   * Clear SEL (§31.9): erases every record, clears the overflow flag, records the erase time and
   * restarts record IDs at 1. Erasure completes at once. Cancels the reservation.
   */
  clear(now: number): void {
    this.records = [];
    this.bytesById.clear();
    this.nextId = 1;
    this.overflowFlag = false;
    this.lastErase = now >>> 0;
    this.reservation = 0;
  }
}

function checkU(v: number, max: number, field: string): number {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`SEL record: ${field}=${v} out of range 0..${max}`);
  return v;
}
