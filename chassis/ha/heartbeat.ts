/**
 * Heartbeats between the two members of a pair: the wire codec and the receiver's bookkeeping.
 *
 * Timing follows BFD's asynchronous mode (RFC 5880 §6.8.7): one heartbeat every interval h,
 * each shortened by a random 0–25 % (jitter), and the peer is silent after N intervals without one
 * (ha.md §4.1, §5.1: h = 100 ms, N = 3). Each heartbeat carries what ha.md §5.1 lists: role,
 * epoch, the sync sequence (last sent by an active, last acknowledged by a standby), "I hear you",
 * and a compatibility version for upgrades; plus the share it is about, the sender's incarnation
 * (new on every boot, so sequence numbers restart safely) and its wall clock (display only: the
 * machine never uses wall time).
 *
 * Wire format (big-endian), version 1:
 *   0  u8[2] magic 'AH'          2  u8 format version (1)      3  u8 flags
 *   4  u8 role code               5  u8 version major           6  u8 version minor   7  u8 pad (0)
 *   8  u32 incarnation           12  u32 sequence              16  u32 epoch
 *  20  u32 sync sequence         24  f64 sender wall clock (ms since 1970)
 *  32  u8 share length, share (UTF-8)   then  u8 node length, node (UTF-8)
 * Flags: b0 software-healthy, b1 hears peer, b2 handover offered, b3 wants bulk sync, b4 uplink up;
 * b5–b7 must be 0.
 */
import { ByteReader, ByteWriter } from '../../board/common/bytes.ts';
import { DecodeError } from '../../board/common/errors.ts';

/** Roles as they travel in a heartbeat (ha.md §5 names; 'active.handover' = active handing over). */
export const HEARTBEAT_ROLE_CODES = ['booting', 'arbitrating', 'active', 'standby.ready', 'standby.hot', 'resetting', 'failed', 'active.handover'] as const;
/** A member's role as reported to its peer and to users. */
export type WireRole = (typeof HEARTBEAT_ROLE_CODES)[number];

/** A software version 'major.minor'; a different major is incompatible (ha.md S25). */
export interface CompatVersion {
  major: number;
  minor: number;
}

/** One heartbeat. */
export interface Heartbeat {
  /** Share or pair this heartbeat is about ('shmc', 'lb1/slot3'). 1..255 bytes UTF-8. */
  share: string;
  /** Sender node name ('shmc-a', 'slot3'). 1..255 bytes UTF-8. */
  node: string;
  /** Sender incarnation: a new value after every boot. u32. */
  incarnation: number;
  /** Per-incarnation sequence number, u32, +1 per heartbeat. */
  seq: number;
  /** Highest activation epoch the sender knows (its own when active). u32. */
  epoch: number;
  role: WireRole;
  /** Active: last sync datagram sent; standby: last acknowledged. u32. */
  syncSeq: number;
  /** Sender's software health (local checks pass). */
  healthy: boolean;
  /** The sender hears our heartbeats ("I hear you"). */
  hearsPeer: boolean;
  /** An active offers a planned handover (its final sync is acknowledged and ACTIVE released). */
  handover: boolean;
  /** A standby asks for a bulk sync (it is ready, or saw a gap it cannot repair). */
  wantsBulk: boolean;
  /** The sender's uplink (external network) is up. */
  uplink: boolean;
  version: CompatVersion;
  /** Sender's wall clock, ms since 1970 (display and skew alarms only). */
  wallMs: number;
}

const MAGIC0 = 0x41;
const MAGIC1 = 0x48;
const FORMAT = 1;
const FIXED = 32;
const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/**
 * Heartbeat codec (dns-packet style: encode / decode / encodingLength).
 */
export const heartbeatCodec = {
  /** Bytes `hb` takes on the wire. */
  encodingLength(hb: Heartbeat): number {
    return FIXED + 2 + enc.encode(hb.share).length + enc.encode(hb.node).length;
  },

  /**
   * Encodes `hb`. @throws RangeError when a field does not fit (names 1..255 bytes, u32 counters,
   * version parts 0..255, unknown role).
   */
  encode(hb: Heartbeat): Buffer {
    const share = enc.encode(hb.share);
    const node = enc.encode(hb.node);
    if (share.length < 1 || share.length > 255) throw new RangeError(`heartbeat share name must be 1..255 bytes`);
    if (node.length < 1 || node.length > 255) throw new RangeError(`heartbeat node name must be 1..255 bytes`);
    const role = HEARTBEAT_ROLE_CODES.indexOf(hb.role);
    if (role < 0) throw new RangeError(`heartbeat role ${hb.role} unknown`);
    for (const [k, v] of [['incarnation', hb.incarnation], ['seq', hb.seq], ['epoch', hb.epoch], ['syncSeq', hb.syncSeq]] as const) {
      if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`heartbeat ${k} ${v} is not a u32`);
    }
    for (const [k, v] of [['major', hb.version.major], ['minor', hb.version.minor]] as const) {
      if (!Number.isInteger(v) || v < 0 || v > 255) throw new RangeError(`heartbeat version ${k} ${v} out of range 0..255`);
    }
    const flags = (hb.healthy ? 1 : 0) | (hb.hearsPeer ? 2 : 0) | (hb.handover ? 4 : 0) | (hb.wantsBulk ? 8 : 0) | (hb.uplink ? 16 : 0);
    const w = new ByteWriter(FIXED + share.length + node.length + 2);
    w.u8(MAGIC0).u8(MAGIC1).u8(FORMAT).u8(flags);
    w.u8(role).u8(hb.version.major).u8(hb.version.minor).u8(0);
    w.u32be(hb.incarnation).u32be(hb.seq).u32be(hb.epoch).u32be(hb.syncSeq);
    const f = Buffer.alloc(8);
    f.writeDoubleBE(hb.wallMs, 0);
    w.bytes(f);
    w.u8(share.length).bytes(share).u8(node.length).bytes(node);
    return w.toBuffer();
  },

  /**
   * Decodes one heartbeat starting at `offset`.
   * @returns the heartbeat and `end` (offset after it)
   * @throws DecodeError('heartbeat', field, offset, …) on a short buffer, bad magic, unknown
   *   format version, reserved flag bits, unknown role, empty or invalid UTF-8 names.
   */
  decode(buf: Uint8Array, offset = 0): { value: Heartbeat; end: number } {
    const r = new ByteReader(buf, 'heartbeat', offset);
    const m0 = r.u8('magic');
    const m1 = r.u8('magic');
    if (m0 !== MAGIC0 || m1 !== MAGIC1) throw new DecodeError('heartbeat', 'magic', offset, `not a heartbeat (0x${m0.toString(16)}${m1.toString(16)})`);
    const fmtAt = r.pos;
    const fmt = r.u8('format');
    if (fmt !== FORMAT) throw new DecodeError('heartbeat', 'format', fmtAt, `unsupported format version ${fmt}`);
    const flagsAt = r.pos;
    const flags = r.u8('flags');
    if (flags & 0xe0) throw new DecodeError('heartbeat', 'flags', flagsAt, `reserved bits set (0x${flags.toString(16)})`);
    const roleAt = r.pos;
    const roleCode = r.u8('role');
    const role = HEARTBEAT_ROLE_CODES[roleCode];
    if (role === undefined) throw new DecodeError('heartbeat', 'role', roleAt, `unknown role code ${roleCode}`);
    const major = r.u8('version');
    const minor = r.u8('version');
    r.u8('pad');
    const incarnation = r.u32be('incarnation');
    const seq = r.u32be('seq');
    const epoch = r.u32be('epoch');
    const syncSeq = r.u32be('syncSeq');
    const wb = r.bytes(8, 'wallMs');
    const wallMs = Buffer.from(wb.buffer, wb.byteOffset, 8).readDoubleBE(0);
    const share = readName(r, 'share');
    const node = readName(r, 'node');
    return {
      value: {
        share, node, incarnation, seq, epoch, role, syncSeq,
        healthy: (flags & 1) !== 0, hearsPeer: (flags & 2) !== 0, handover: (flags & 4) !== 0,
        wantsBulk: (flags & 8) !== 0, uplink: (flags & 16) !== 0,
        version: { major, minor }, wallMs,
      },
      end: r.pos,
    };
  },
};

function readName(r: ByteReader, field: string): string {
  const at = r.pos;
  const n = r.u8(field);
  if (n === 0) throw new DecodeError('heartbeat', field, at, 'empty name');
  const b = r.bytes(n, field);
  try {
    return dec.decode(b);
  } catch {
    throw new DecodeError('heartbeat', field, at + 1, 'invalid UTF-8');
  }
}

/** Two versions can sync and hand over iff their majors are equal (ha.md S25). */
export function compatible(a: CompatVersion, b: CompatVersion): boolean {
  return a.major === b.major;
}

/** Parses 'MAJOR.MINOR[.PATCH]' (patch ignored). @throws RangeError on anything else. */
export function parseVersion(text: string): CompatVersion {
  const m = /^(\d{1,3})\.(\d{1,3})(?:\.\d+)?$/.exec(text.trim());
  if (!m) throw new RangeError(`version "${text}": expected MAJOR.MINOR or MAJOR.MINOR.PATCH`);
  const v = { major: Number(m[1]), minor: Number(m[2]) };
  if (v.major > 255 || v.minor > 255) throw new RangeError(`version "${text}": parts must be 0..255`);
  return v;
}

/** Result of offering a heartbeat to the monitor. */
export type HeardResult = 'fresh' | 'duplicate' | 'new-incarnation';

/**
 * Receiver-side bookkeeping for one peer: last heard (local monotonic ms), sequence and
 * incarnation tracking (duplicates and reordered heartbeats are dropped; a new incarnation
 * restarts the sequence), counters of heartbeats received and missed.
 */
export class HeartbeatMonitor {
  lastHeardAt: number | undefined;
  last: Heartbeat | undefined;
  received = 0;
  duplicates = 0;
  /** Sequence numbers skipped (lost or cut), summed over the run. */
  missed = 0;

  /**
   * @param intervalMs heartbeat interval h
   * @param missedLimit N: silent after N × h without a heartbeat
   */
  constructor(private readonly intervalMs: number, private readonly missedLimit: number) {}

  /** Records a heartbeat received at local monotonic time `now`. */
  offer(hb: Heartbeat, now: number): HeardResult {
    const prev = this.last;
    let result: HeardResult = 'fresh';
    if (prev && prev.incarnation === hb.incarnation) {
      if (hb.seq <= prev.seq) {
        this.duplicates++;
        return 'duplicate';
      }
      this.missed += hb.seq - prev.seq - 1;
    } else if (prev) {
      result = 'new-incarnation';
    }
    this.last = hb;
    this.lastHeardAt = now;
    this.received++;
    return result;
  }

  /** Ms since the last heartbeat (Infinity if never heard). */
  silentFor(now: number): number {
    return this.lastHeardAt === undefined ? Infinity : Math.max(0, now - this.lastHeardAt);
  }

  /** True when nothing was heard for N × h. */
  isSilent(now: number): boolean {
    return this.silentFor(now) >= this.intervalMs * this.missedLimit;
  }

  /** Restarts the silence count at `now` (after a global stall: the peer was not silent, we were not running). */
  rebase(now: number): void {
    if (this.lastHeardAt !== undefined) this.lastHeardAt = now;
  }

  /** Forgets everything (after a local reboot). */
  clear(): void {
    this.lastHeardAt = undefined;
    this.last = undefined;
  }
}
