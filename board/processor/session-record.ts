/**
 * SessionRecord: one connection-table entry as plain data, and its compact binary codec for the
 * HA session-sync messages (docs/ha.md: the active sends batches to the standby, each datagram
 * filled up to the sync MTU, 1500 bytes by default).
 *
 * Wire format (big-endian, network order; 28 bytes for IPv4, 52 for IPv6):
 *   0  u8   kind      bit 7: IPv6; bit 6: key without ports; bits 0–3: state (SessionState 1–9)
 *   1  u8   proto     IP protocol
 *   2  u8   flags     EF_* bits (reply seen 0x08, client FIN 0x10, server FIN 0x20)
 *   3  u8   reserved  0
 *   4  u16  service   service index on the board (both boards use the same configuration)
 *   6  u16  rs        RS index on the board
 *   8  u32  age       ms from creation to the batch's reference time
 *  12  u32  idle      ms from last-seen to the batch's reference time
 *  16  4|16 client address
 *  ..  4|16 server (VIP) address
 *  ..  u16  client port, u16 server port (0 when the key has no ports)
 * Times travel as ages relative to a reference time the sync message carries (its send time),
 * so the two boards need not share a clock origin. 1500 − 28 (IP+UDP) − a 16-byte batch header
 * leaves room for 52 IPv4 or 28 IPv6 records per datagram (IPVS sync v1 fits about 40).
 */
import { DecodeError } from '../common/errors.ts';
import { STATE_COUNT } from './tcp-state.ts';

/** A session as plain data (the HA layer's unit of sync). Addresses are 16-byte arrays; IPv4
 * uses bytes 0..3. Times are ms on the exporting board's clock. */
export interface SessionRecord {
  family: 4 | 6;
  proto: number;
  /** False for sessions keyed without ports (other protocols, fragments). */
  hasPorts: boolean;
  client: Uint8Array;
  server: Uint8Array;
  clientPort: number;
  serverPort: number;
  /** SessionState code (1–9). */
  state: number;
  /** EF_* bits (tcp-state.ts). */
  flags: number;
  /** Service index (the board's configuration order). */
  service: number;
  /** RS index (the board's global numbering: services in order, pool members in order). */
  rs: number;
  createdMs: number;
  lastSeenMs: number;
}

/** A zeroed record with its own address buffers. */
export function newSessionRecord(): SessionRecord {
  return {
    family: 4, proto: 0, hasPorts: false, client: new Uint8Array(16), server: new Uint8Array(16),
    clientPort: 0, serverPort: 0, state: 0, flags: 0, service: 0, rs: 0, createdMs: 0, lastSeenMs: 0,
  };
}

/** Copies a record (new address buffers). */
export function copySessionRecord(r: SessionRecord): SessionRecord {
  return { ...r, client: Uint8Array.from(r.client), server: Uint8Array.from(r.server) };
}

/** Bytes of one encoded record: 28 (IPv4) or 52 (IPv6). */
export function sessionRecordLength(r: Pick<SessionRecord, 'family'>): number {
  return r.family === 6 ? 52 : 28;
}

const AGE_MAX = 0xffffffff;

function age(ref: number, t: number): number {
  const a = Math.round(ref - t);
  return a < 0 ? 0 : a > AGE_MAX ? AGE_MAX : a;
}

/**
 * Encodes `r` into `buf` at `offset`.
 * @param refMs the batch's reference time (ms, the exporter's clock), ≥ the record's times
 * @returns the offset after the record
 * @throws RangeError when `buf` is too short or a field is out of range
 */
export function encodeSessionRecord(r: SessionRecord, buf: Uint8Array, offset: number, refMs: number): number {
  const n = sessionRecordLength(r);
  if (offset < 0 || offset + n > buf.length) throw new RangeError(`session record: need ${n} bytes at ${offset}, buffer has ${buf.length}`);
  if (!(r.state >= 1 && r.state < STATE_COUNT)) throw new RangeError(`session record: bad state ${r.state}`);
  if (r.service < 0 || r.service > 0xffff || r.rs < 0 || r.rs > 0xffff) throw new RangeError('session record: service/rs out of u16 range');
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  v.setUint8(offset, (r.family === 6 ? 0x80 : 0) | (r.hasPorts ? 0 : 0x40) | r.state);
  v.setUint8(offset + 1, r.proto & 0xff);
  v.setUint8(offset + 2, r.flags & 0xff);
  v.setUint8(offset + 3, 0);
  v.setUint16(offset + 4, r.service);
  v.setUint16(offset + 6, r.rs);
  v.setUint32(offset + 8, age(refMs, r.createdMs));
  v.setUint32(offset + 12, age(refMs, r.lastSeenMs));
  const al = r.family === 6 ? 16 : 4;
  buf.set(r.client.subarray(0, al), offset + 16);
  buf.set(r.server.subarray(0, al), offset + 16 + al);
  v.setUint16(offset + 16 + 2 * al, r.hasPorts ? r.clientPort : 0);
  v.setUint16(offset + 18 + 2 * al, r.hasPorts ? r.serverPort : 0);
  return offset + n;
}

/**
 * Decodes one record at `offset` into `into` (or a new record).
 * @param refMs the batch's reference time on the importer's clock
 * @returns the record and the offset after it
 * @throws DecodeError (layer 'session-record') on a short buffer, a bad state or reserved bits
 */
export function decodeSessionRecord(
  buf: Uint8Array, offset: number, refMs: number, into: SessionRecord = newSessionRecord(),
): { value: SessionRecord; end: number } {
  if (offset + 1 > buf.length) throw new DecodeError('session-record', 'kind', offset, `need 1 byte, have ${Math.max(0, buf.length - offset)}`);
  const kind = buf[offset]!;
  const v6 = (kind & 0x80) !== 0;
  const n = v6 ? 52 : 28;
  if (offset + n > buf.length) throw new DecodeError('session-record', 'record', offset, `need ${n} bytes, have ${buf.length - offset}`);
  const state = kind & 0x0f;
  if ((kind & 0x30) !== 0 || state < 1 || state >= STATE_COUNT) throw new DecodeError('session-record', 'kind', offset, `bad kind byte 0x${kind.toString(16)}`);
  if (buf[offset + 3] !== 0) throw new DecodeError('session-record', 'reserved', offset + 3, 'must be 0');
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const r = into;
  r.family = v6 ? 6 : 4;
  r.hasPorts = (kind & 0x40) === 0;
  r.state = state;
  r.proto = buf[offset + 1]!;
  r.flags = buf[offset + 2]!;
  r.service = v.getUint16(offset + 4);
  r.rs = v.getUint16(offset + 6);
  r.createdMs = refMs - v.getUint32(offset + 8);
  r.lastSeenMs = refMs - v.getUint32(offset + 12);
  const al = v6 ? 16 : 4;
  r.client.fill(0);
  r.server.fill(0);
  r.client.set(buf.subarray(offset + 16, offset + 16 + al));
  r.server.set(buf.subarray(offset + 16 + al, offset + 16 + 2 * al));
  r.clientPort = v.getUint16(offset + 16 + 2 * al);
  r.serverPort = v.getUint16(offset + 18 + 2 * al);
  return { value: r, end: offset + n };
}
