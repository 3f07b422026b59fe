/**
 * Push parser for capture files: feed it the file's bytes in chunks of any size (`push`), then
 * `end()`; it calls `handler.packet(record)` synchronously for every packet, with a reused
 * `CaptureRecord` whose bytes stay in the caller's chunk (no copy, no Promise, no allocation per
 * packet). A record that straddles two chunks is assembled in a carry buffer (bounded by the
 * largest legal record/block: 256 KiB for pcap, 16 MiB for pcapng).
 *
 * Format by magic number, never by file name: pcap (a1b2c3d4 µs / a1b23c4d ns, either byte
 * order; see pcap.ts) or pcapng (0a0d0d0a; see pcapng.ts). pcapng: several sections of either byte
 * order; several IDBs with their own link type, snaplen, if_tsresol (10^-n or 2^-n) and
 * if_tsoffset; packets from EPB, SPB (no timestamp; captured length limited by the snaplen of
 * interface 0) and the obsolete PB; NRB, ISB, DSB, custom and unknown blocks skipped by their
 * length (they get no packet number).
 *
 * Errors (all DecodeError with a file byte offset):
 * - not a capture, refused header, corrupt block/record → thrown by `push` (every packet before it
 *   was delivered); the reader is dead afterwards.
 * - file cut inside a header or record → thrown by `end()`, naming the offset where the cut
 *   record starts (every complete packet before it was delivered).
 * - an interface whose link type atcasim cannot decode is not an error for the file: its packets
 *   are delivered with `linkSupported = false`.
 */
import { DecodeError } from '../common/errors.ts';
import { CaptureRecord, type CaptureInterface } from './capture-record.ts';
import { isSupportedLinkType } from './link-type.ts';
import { decodePcapHeader, MAX_CAPLEN, PCAP_HEADER_LEN, PCAP_RECORD_HEADER_LEN, pcapMagic } from './pcap.ts';
import {
  BlockType,
  BYTE_ORDER_MAGIC,
  decodeIdbOptions,
  MAX_BLOCK_LEN,
  MIN_BLOCK_LEN,
  resolutionText,
  type TsResolution,
  u16,
  u32,
  unitsToSecNsec,
} from './pcapng.ts';

export type CaptureFormat = 'pcap' | 'pcapng';

/** Callbacks of a CaptureReader. All are called synchronously from `push`. */
export interface CaptureHandler {
  /** One packet. Return `false` to pause: `push` returns at once with the offset after this
   * packet; call `resume()` and push the rest of the chunk from there to go on. */
  packet(rec: CaptureRecord): boolean | void;
  /** The pcap file header or a pcapng IDB was accepted (before any of its packets). */
  interface?(iface: CaptureInterface): void;
  /** The format was recognised and its first header accepted. */
  start?(format: CaptureFormat): void;
}

interface Iface {
  linkType: number;
  supported: boolean;
  snaplen: number;
  res: TsResolution;
}

const REC_HDR = PCAP_RECORD_HEADER_LEN;
const MAX_REC = MAX_CAPLEN;

function le32(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

function be32(b: Uint8Array, p: number): number {
  return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
}

const FMT_UNKNOWN = 0;
const FMT_PCAP = 1;
const FMT_PCAPNG = 2;

export class CaptureReader {
  /** The record handed to `handler.packet` (reused). */
  readonly rec = new CaptureRecord();
  private fmt = FMT_UNKNOWN;
  private headerDone = false;
  private le = true;
  private nano = false;
  /** File offset of the next unit (file header, record or block) to parse. */
  private fileOff = 0;
  private carry = new Uint8Array(0);
  private carryLen = 0;
  private stopped = false;
  private paused = false;
  private ended = false;
  private failed: DecodeError | null = null;
  private count = 0;
  private section = -1;
  private ifaces: Iface[] = [];

  constructor(private readonly handler: CaptureHandler) {}

  /** 'pcap' / 'pcapng' once recognised, else null. */
  get format(): CaptureFormat | null {
    return this.fmt === FMT_PCAP ? 'pcap' : this.fmt === FMT_PCAPNG ? 'pcapng' : null;
  }

  /** Packets delivered so far. */
  get packets(): number {
    return this.count;
  }

  /** File offset up to which the bytes have been parsed (start of the next record). */
  get offset(): number {
    return this.fileOff;
  }

  /** True after `stop()`. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** True while paused (a handler returned false); see `resume()`. */
  get isPaused(): boolean {
    return this.paused;
  }

  /** Stops for good: later `push` calls are ignored and `end()` reports nothing. */
  stop(): void {
    this.stopped = true;
  }

  /** Clears a pause; push the unconsumed rest of the chunk next. */
  resume(): void {
    this.paused = false;
  }

  /**
   * Parses `chunk[start, end)`, the next bytes of the file. Bytes of an incomplete record at the
   * end are copied into the carry buffer (the caller may reuse `chunk` afterwards).
   * @returns the chunk offset up to which bytes were consumed: `end`, or less when the handler
   *   paused (push `chunk[returned, end)` again after `resume()`).
   * @throws DecodeError when the file is not a capture or is corrupt (see the module comment).
   */
  push(chunk: Uint8Array, start = 0, end = chunk.length): number {
    if (this.failed) throw this.failed;
    if (this.stopped || this.ended) return end;
    if (this.paused) return start;
    try {
      let off = start;
      if (this.carryLen > 0) {
        off = this.fillCarry(chunk, off, end);
        if (this.carryLen > 0) return end;
        if (this.paused) return off;
        if (this.stopped) return end;
      }
      off = this.run(chunk, off, end);
      if (this.paused) return off;
      if (!this.stopped && off < end) this.appendCarry(chunk, off, end);
      return end;
    } catch (e) {
      if (e instanceof DecodeError) this.failed = e;
      throw e;
    }
  }

  /**
   * Marks the end of the file.
   * @throws DecodeError for an empty file, or when the file ends inside a header or record
   * (offset = where that record starts).
   */
  end(): void {
    if (this.failed) throw this.failed;
    if (this.ended) return;
    this.ended = true;
    if (this.stopped || this.paused) return;
    if (this.fmt === FMT_UNKNOWN && this.carryLen === 0) {
      throw new DecodeError('capture', 'magic', 0, 'empty file, not a capture');
    }
    if (this.carryLen === 0) return;
    throw this.truncationError();
  }

  private truncationError(): DecodeError {
    const have = this.carryLen;
    const at = this.fileOff;
    if (this.fmt === FMT_UNKNOWN) {
      return new DecodeError('capture', 'magic', 0, `file too short to be a capture (${have} bytes)`);
    }
    if (this.fmt === FMT_PCAP) {
      if (!this.headerDone) return new DecodeError('pcap', 'file header', at, `cut short: ${have} of ${PCAP_HEADER_LEN} bytes present`);
      if (have < PCAP_RECORD_HEADER_LEN) {
        return new DecodeError('pcap', 'record', at, `cut short in the record header: ${have} of ${PCAP_RECORD_HEADER_LEN} bytes present`);
      }
      const caplen = u32(this.carry, 8, this.le);
      return new DecodeError('pcap', 'record', at, `cut short: ${PCAP_RECORD_HEADER_LEN + caplen} bytes needed (16-byte header + ${caplen} captured), ${have} present`);
    }
    if (have < MIN_BLOCK_LEN) {
      return new DecodeError('pcapng', 'block', at, `cut short in the block header: ${have} of ${MIN_BLOCK_LEN} bytes present`);
    }
    const need = this.unitLength(this.carry, 0, have);
    return new DecodeError('pcapng', 'block', at, `cut short: ${need}-byte block, ${have} bytes present`);
  }

  private appendCarry(b: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.carryLen + n > this.carry.length) {
      const next = new Uint8Array(Math.max(this.carryLen + n, this.carry.length * 2, 4096));
      next.set(this.carry.subarray(0, this.carryLen));
      this.carry = next;
    }
    this.carry.set(b.subarray(from, to), this.carryLen);
    this.carryLen += n;
  }

  /** Completes the unit held in the carry buffer from `chunk`; returns the new chunk offset. */
  private fillCarry(chunk: Uint8Array, off: number, end: number): number {
    for (;;) {
      const need = this.unitLength(this.carry, 0, this.carryLen);
      const target = need > 0 ? need : -need;
      if (this.carryLen < target) {
        const take = Math.min(target - this.carryLen, end - off);
        this.appendCarry(chunk, off, off + take);
        off += take;
        if (this.carryLen < target) return off;
        continue;
      }
      this.processUnit(this.carry, 0, need);
      this.fileOff += need;
      this.carryLen = 0;
      return off;
    }
  }

  /** Parses every complete unit of b[off, end); returns the offset of the first incomplete one. */
  private run(b: Uint8Array, off: number, end: number): number {
    while (!this.stopped && !this.paused) {
      if (this.fmt === FMT_PCAP && this.headerDone) {
        off = this.runPcap(b, off, end);
        break;
      }
      const avail = end - off;
      const need = this.unitLength(b, off, avail);
      if (need < 0 || avail < need) break;
      this.processUnit(b, off, need);
      off += need;
      this.fileOff += need;
    }
    return off;
  }

  /** Fast loop over pcap records (module-local helpers and constants: no cross-module access). */
  private runPcap(b: Uint8Array, off: number, end: number): number {
    const le = this.le;
    const r = this.rec;
    const nano = this.nano;
    while (!this.stopped && !this.paused && end - off >= REC_HDR) {
      const caplen = le ? le32(b, off + 8) : be32(b, off + 8);
      if (caplen > MAX_REC) throw this.bigRecord(caplen, this.fileOff);
      const total = REC_HDR + caplen;
      if (end - off < total) break;
      r.number = ++this.count;
      let frac: number;
      if (le) {
        r.tsSec = le32(b, off);
        frac = le32(b, off + 4);
        r.origLen = le32(b, off + 12);
      } else {
        r.tsSec = be32(b, off);
        frac = be32(b, off + 4);
        r.origLen = be32(b, off + 12);
      }
      r.tsNsec = nano ? frac : frac * 1000;
      r.caplen = caplen;
      r.buf = b;
      r.offset = off + REC_HDR;
      r.fileOffset = this.fileOff;
      off += total;
      this.fileOff += total;
      if (this.handler.packet(r) === false) this.paused = true;
    }
    return off;
  }

  private bigRecord(caplen: number, at: number): DecodeError {
    return new DecodeError(this.fmt === FMT_PCAP ? 'pcap' : 'pcapng', 'caplen', at + 8, `record has ${caplen} captured bytes, more than the maximum of ${MAX_CAPLEN} (corrupt file?)`);
  }

  /**
   * Length of the unit starting at b[off] (avail bytes present), or -k when at least k bytes are
   * needed to tell. Recognises the format on the first call.
   * @throws DecodeError for a non-capture or an impossible length.
   */
  private unitLength(b: Uint8Array, off: number, avail: number): number {
    if (this.fmt === FMT_UNKNOWN) {
      if (avail < 4) return -4;
      const m = pcapMagic(b, off);
      if (m) {
        this.fmt = FMT_PCAP;
        this.le = m.littleEndian;
        this.nano = m.nanoseconds;
      } else if (b[off] === 0x0a && b[off + 1] === 0x0d && b[off + 2] === 0x0d && b[off + 3] === 0x0a) {
        this.fmt = FMT_PCAPNG;
      } else {
        const hex = Array.from(b.subarray(off, off + 4), (x) => x.toString(16).padStart(2, '0')).join('');
        throw new DecodeError('capture', 'magic', 0, `not a capture file (magic 0x${hex}; expected pcap a1b2c3d4/a1b23c4d in either byte order, or pcapng 0a0d0d0a)`);
      }
    }
    if (this.fmt === FMT_PCAP) {
      if (!this.headerDone) return avail < PCAP_HEADER_LEN ? -PCAP_HEADER_LEN : PCAP_HEADER_LEN;
      if (avail < PCAP_RECORD_HEADER_LEN) return -PCAP_RECORD_HEADER_LEN;
      const caplen = u32(b, off + 8, this.le);
      if (caplen > MAX_CAPLEN) throw this.bigRecord(caplen, this.fileOff);
      return PCAP_RECORD_HEADER_LEN + caplen;
    }
    // pcapng
    if (avail < MIN_BLOCK_LEN) return -MIN_BLOCK_LEN;
    let le = this.le;
    const isShb = b[off] === 0x0a && b[off + 1] === 0x0d && b[off + 2] === 0x0d && b[off + 3] === 0x0a;
    if (isShb) {
      const bom = u32(b, off + 8, false);
      if (bom === BYTE_ORDER_MAGIC) le = false;
      else if (bom === 0x4d3c2b1a) le = true;
      else throw new DecodeError('pcapng', 'byte_order_magic', this.fileOff + 8, `bad byte-order magic 0x${bom.toString(16).padStart(8, '0')} in Section Header Block`);
    } else if (this.section < 0) {
      throw new DecodeError('pcapng', 'block_type', this.fileOff, 'first block is not a Section Header Block');
    }
    const len = u32(b, off + 4, le);
    if (len < (isShb ? 28 : MIN_BLOCK_LEN)) {
      throw new DecodeError('pcapng', 'block_total_length', this.fileOff + 4, `block total length ${len} is too small`);
    }
    if (len % 4 !== 0) throw new DecodeError('pcapng', 'block_total_length', this.fileOff + 4, `block total length ${len} is not a multiple of 4`);
    if (len > MAX_BLOCK_LEN) throw new DecodeError('pcapng', 'block_total_length', this.fileOff + 4, `block total length ${len} exceeds the ${MAX_BLOCK_LEN}-byte maximum`);
    return len;
  }

  /** Handles one complete unit b[off, off + len) that starts at file offset this.fileOff. */
  private processUnit(b: Uint8Array, off: number, len: number): void {
    if (this.fmt === FMT_PCAP) {
      if (!this.headerDone) {
        const h = decodePcapHeader(b, off, this.fileOff);
        this.headerDone = true;
        const supported = isSupportedLinkType(h.linkType);
        this.ifaces = [{ linkType: h.linkType, supported, snaplen: h.snaplen, res: { pow10: true, exp: h.nanoseconds ? 9 : 6, offsetSec: 0 } }];
        const r = this.rec;
        r.section = 0;
        r.interfaceId = 0;
        r.linkType = h.linkType;
        r.linkSupported = supported;
        r.hasTimestamp = true;
        this.handler.start?.('pcap');
        this.handler.interface?.({
          section: 0,
          interfaceId: 0,
          linkType: h.linkType,
          linkSupported: supported,
          snaplen: h.snaplen,
          tsResolution: h.nanoseconds ? '1e9' : '1e6',
          fileOffset: this.fileOff,
        });
        return;
      }
      // a single record that straddled chunks
      this.runPcap(b, off, off + len);
      // runPcap advanced fileOff already; undo so the caller's += len is right
      this.fileOff -= len;
      return;
    }
    this.processBlock(b, off, len);
  }

  private processBlock(b: Uint8Array, off: number, len: number): void {
    const at = this.fileOff;
    const isShb = b[off] === 0x0a && b[off + 1] === 0x0d && b[off + 2] === 0x0d && b[off + 3] === 0x0a;
    let le = this.le;
    if (isShb) le = u32(b, off + 8, false) !== BYTE_ORDER_MAGIC;
    const trailer = u32(b, off + len - 4, le);
    if (trailer !== len) {
      throw new DecodeError('pcapng', 'block_total_length', at + len - 4, `total length ${trailer} at the end of the block differs from ${len} at its start`);
    }
    const type = u32(b, off, le);
    const r = this.rec;
    switch (type) {
      case BlockType.SHB: {
        const major = u16(b, off + 12, le);
        const minor = u16(b, off + 14, le);
        if (!(major === 1 && (minor === 0 || minor === 2))) {
          throw new DecodeError('pcapng', 'version', at + 12, `unknown Section Header Block version ${major}.${minor}`);
        }
        this.le = le;
        this.section++;
        this.ifaces = [];
        if (this.section === 0) this.handler.start?.('pcapng');
        return;
      }
      case BlockType.IDB: {
        if (len < 20) throw new DecodeError('pcapng', 'block_total_length', at + 4, `Interface Description Block of ${len} bytes is too short`);
        const linkType = u16(b, off + 8, le);
        const snaplen = u32(b, off + 12, le);
        const res = decodeIdbOptions(b, off + 16, off + len - 4, le, at - off);
        const supported = isSupportedLinkType(linkType);
        this.ifaces.push({ linkType, supported, snaplen, res });
        this.handler.interface?.({
          section: this.section,
          interfaceId: this.ifaces.length - 1,
          linkType,
          linkSupported: supported,
          snaplen,
          tsResolution: resolutionText(res),
          fileOffset: at,
        });
        return;
      }
      case BlockType.EPB:
      case BlockType.PB: {
        if (len < 32) throw new DecodeError('pcapng', 'block_total_length', at + 4, `packet block of ${len} bytes is too short`);
        const ifId = type === BlockType.EPB ? u32(b, off + 8, le) : u16(b, off + 8, le);
        const iface = this.ifaces[ifId];
        if (!iface) {
          throw new DecodeError('pcapng', 'interface_id', at + 8, `packet names interface ${ifId}, but its section has ${this.ifaces.length} interface(s)`);
        }
        const caplen = u32(b, off + 20, le);
        if (caplen > MAX_CAPLEN) throw this.bigRecord(caplen, at + 12);
        if (caplen > len - 32) {
          throw new DecodeError('pcapng', 'captured_length', at + 20, `captured length ${caplen} does not fit in a ${len}-byte block`);
        }
        r.number = ++this.count;
        r.section = this.section;
        r.interfaceId = ifId;
        r.linkType = iface.linkType;
        r.linkSupported = iface.supported;
        r.hasTimestamp = true;
        unitsToSecNsec(u32(b, off + 12, le), u32(b, off + 16, le), iface.res, r);
        r.caplen = caplen;
        r.origLen = u32(b, off + 24, le);
        r.buf = b;
        r.offset = off + 28;
        r.fileOffset = at;
        if (this.handler.packet(r) === false) this.paused = true;
        return;
      }
      case BlockType.SPB: {
        if (len < 16) throw new DecodeError('pcapng', 'block_total_length', at + 4, `Simple Packet Block of ${len} bytes is too short`);
        const iface = this.ifaces[0];
        if (!iface) throw new DecodeError('pcapng', 'block_type', at, 'Simple Packet Block before any Interface Description Block in its section');
        const origLen = u32(b, off + 8, le);
        let caplen = Math.min(origLen, len - 16);
        if (iface.snaplen !== 0 && caplen > iface.snaplen) caplen = iface.snaplen;
        if (caplen > MAX_CAPLEN) throw this.bigRecord(caplen, at);
        r.number = ++this.count;
        r.section = this.section;
        r.interfaceId = 0;
        r.linkType = iface.linkType;
        r.linkSupported = iface.supported;
        r.hasTimestamp = false;
        r.tsSec = 0;
        r.tsNsec = 0;
        r.caplen = caplen;
        r.origLen = origLen;
        r.buf = b;
        r.offset = off + 12;
        r.fileOffset = at;
        if (this.handler.packet(r) === false) this.paused = true;
        return;
      }
      default:
        // NRB, ISB, DSB, custom blocks (0x00000BAD, 0x40000BAD), local-use and unknown types:
        // skipped by their length, not packets.
        return;
    }
  }
}
