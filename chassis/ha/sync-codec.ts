/**
 * The session-sync datagram's wire codec (dns-packet style: encode / decode / encodingLength) and
 * the byte counts the sender packs datagrams by. Layout in `syncCodec`'s comment. Pure.
 */
import { ByteReader, ByteWriter } from '../../board/common/bytes.ts';
import { DecodeError } from '../../board/common/errors.ts';
import { SYNC_KINDS } from './sync-types.ts';
import type { SyncDatagram } from './sync-types.ts';

const MAGIC0 = 0x41;
const MAGIC1 = 0x53; // 'AS'
const FORMAT = 1;
/** Header bytes of every sync datagram. */
export const SYNC_HEADER_BYTES = 20;
/** IPv4 + UDP header bytes subtracted from the MTU. */
export const IP_UDP_OVERHEAD = 28;
const te = new TextEncoder();
const td = new TextDecoder('utf-8', { fatal: true });

function keyLen(key: string): number {
  const n = Buffer.byteLength(key, 'utf8');
  if (n < 1 || n > 255) throw new RangeError(`sync key must be 1..255 bytes, got ${n}`);
  return n;
}

/** Wire bytes of one update record. */
export function recordWireBytes(r: { key: string; size: number }): number {
  return 1 + keyLen(r.key) + 4 + 4 + 2 + r.size;
}

/** Wire bytes of one delete entry. */
export function deleteWireBytes(key: string): number {
  return 1 + keyLen(key);
}

/**
 * Sync datagram codec (encode / decode / encodingLength).
 * Layout (big-endian): 'AS', u8 format (1), u8 kind, u8 schema, u8 flags (b0 restart, b1 hasBase),
 * u16 count, u32 epoch, u32 stream, u32 seq; then per kind: resync-begin/-end u32 gen; update
 * `count` × (u8 keyLen, key, u32 ageMs, u32 sessions, u16 size, size bytes); delete `count` ×
 * (u8 keyLen, key).
 */
export const syncCodec = {
  encodingLength(d: SyncDatagram): number {
    let n = SYNC_HEADER_BYTES;
    if (d.kind === 'resync-begin' || d.kind === 'resync-end') n += 4;
    if (d.kind === 'update') for (const r of d.records ?? []) n += recordWireBytes(r);
    if (d.kind === 'delete') for (const k of d.keys ?? []) n += deleteWireBytes(k);
    return n;
  },

  /** @throws RangeError when a field does not fit. */
  encode(d: SyncDatagram): Buffer {
    const kind = SYNC_KINDS.indexOf(d.kind);
    if (kind < 0) throw new RangeError(`sync kind ${d.kind} unknown`);
    const count = d.kind === 'update' ? (d.records ?? []).length : d.kind === 'delete' ? (d.keys ?? []).length : 0;
    if (count > 0xffff) throw new RangeError(`sync datagram holds ${count} entries (max 65535)`);
    const w = new ByteWriter(this.encodingLength(d));
    w.u8(MAGIC0).u8(MAGIC1).u8(FORMAT).u8(kind).u8(d.schema & 0xff);
    w.u8((d.restart ? 1 : 0) | (d.hasBase ? 2 : 0)).u16be(count);
    w.u32be(d.epoch).u32be(d.stream).u32be(d.seq);
    if (d.kind === 'resync-begin' || d.kind === 'resync-end') w.u32be(d.gen ?? 0);
    if (d.kind === 'update') {
      for (const r of d.records ?? []) {
        const k = te.encode(r.key);
        keyLen(r.key);
        if (r.size < 0 || r.size > 0xffff) throw new RangeError(`sync record size ${r.size} out of range`);
        w.u8(k.length).bytes(k).u32be(Math.min(0xffffffff, Math.max(0, Math.round(r.ageMs)))).u32be(r.sessions).u16be(r.size);
        if (r.payload) {
          if (r.payload.length !== r.size) throw new RangeError(`sync record payload length ${r.payload.length} != size ${r.size}`);
          w.bytes(r.payload);
        } else {
          w.bytes(new Uint8Array(r.size));
        }
      }
    }
    if (d.kind === 'delete') {
      for (const key of d.keys ?? []) {
        const k = te.encode(key);
        keyLen(key);
        w.u8(k.length).bytes(k);
      }
    }
    return w.toBuffer();
  },

  /**
   * @throws DecodeError('session-sync', field, offset, …) on a short or malformed datagram
   *   (bad magic, format, kind, reserved flags, empty or non-UTF-8 key, trailing bytes).
   */
  decode(buf: Uint8Array, offset = 0): { value: SyncDatagram; end: number } {
    const r = new ByteReader(buf, 'session-sync', offset);
    if (r.u8('magic') !== MAGIC0 || r.u8('magic') !== MAGIC1) throw new DecodeError('session-sync', 'magic', offset, 'not a sync datagram');
    const fAt = r.pos;
    if (r.u8('format') !== FORMAT) throw new DecodeError('session-sync', 'format', fAt, 'unsupported format version');
    const kAt = r.pos;
    const kind = SYNC_KINDS[r.u8('kind')];
    if (kind === undefined) throw new DecodeError('session-sync', 'kind', kAt, 'unknown kind');
    const schema = r.u8('schema');
    const flAt = r.pos;
    const flags = r.u8('flags');
    if (flags & 0xfc) throw new DecodeError('session-sync', 'flags', flAt, `reserved bits set (0x${flags.toString(16)})`);
    const count = r.u16be('count');
    const d: SyncDatagram = { kind, schema, epoch: r.u32be('epoch'), stream: r.u32be('stream'), seq: r.u32be('seq') };
    if (flags & 1) d.restart = true;
    if (flags & 2) d.hasBase = true;
    if (kind === 'resync-begin' || kind === 'resync-end') d.gen = r.u32be('gen');
    const readKey = (): string => {
      const at = r.pos;
      const n = r.u8('keyLen');
      if (n === 0) throw new DecodeError('session-sync', 'key', at, 'empty key');
      try {
        return td.decode(r.bytes(n, 'key'));
      } catch (e) {
        if (e instanceof DecodeError) throw e;
        throw new DecodeError('session-sync', 'key', at + 1, 'invalid UTF-8');
      }
    };
    if (kind === 'update') {
      d.records = [];
      for (let i = 0; i < count; i++) {
        const key = readKey();
        const ageMs = r.u32be('ageMs');
        const sessions = r.u32be('sessions');
        const size = r.u16be('size');
        const payload = Uint8Array.from(r.bytes(size, 'payload'));
        d.records.push({ key, ageMs, sessions, size, payload });
      }
    } else if (kind === 'delete') {
      d.keys = [];
      for (let i = 0; i < count; i++) d.keys.push(readKey());
    } else if (count !== 0) {
      throw new DecodeError('session-sync', 'count', 6, `kind ${kind} carries no entries, count ${count}`);
    }
    return { value: d, end: r.pos };
  },
};
