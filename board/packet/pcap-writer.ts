/**
 * pcap encoder (the libpcap savefile format of pcap.ts, written little-endian): a 24-byte file
 * header, then one 16-byte record header + the captured bytes per packet. Pure: it fills buffers
 * the caller owns; chassis/io/pcap-file-sink.ts puts them in a file. Used by the processor boards'
 * `--out FILE.pcap` to write what they forward, as Ethernet (LINKTYPE_ETHERNET) or raw IP
 * (LINKTYPE_RAW) records.
 */
import { encodePcapHeader, MAX_CAPLEN, PCAP_HEADER_LEN, PCAP_RECORD_HEADER_LEN } from './pcap.ts';
import { LinkType } from './link-type.ts';

export interface PcapEncoderOptions {
  /** LINKTYPE_* of every record (default 1, Ethernet; 101 for raw IPv4/IPv6). */
  linkType?: number;
  /** Snapshot length, bytes: longer frames are cut (orig_len keeps their length). Default 262144. */
  snaplen?: number;
  /** Nanosecond timestamps (magic a1b23c4d) instead of microseconds (default false: the
   * classic µs format every tool reads). */
  nanoseconds?: boolean;
}

/** Encodes pcap headers and records. */
export class PcapEncoder {
  readonly linkType: number;
  readonly snaplen: number;
  readonly nanoseconds: boolean;
  /** The 24-byte file header. */
  readonly header: Uint8Array;

  /** @throws RangeError for a snaplen outside 1..262144 or a link type outside 0..65535. */
  constructor(opts: PcapEncoderOptions = {}) {
    this.linkType = opts.linkType ?? LinkType.ETHERNET;
    this.snaplen = opts.snaplen ?? MAX_CAPLEN;
    this.nanoseconds = opts.nanoseconds ?? false;
    if (!Number.isInteger(this.snaplen) || this.snaplen < 1 || this.snaplen > MAX_CAPLEN) {
      throw new RangeError(`pcap snaplen must be 1..${MAX_CAPLEN}, got ${opts.snaplen}`);
    }
    if (!Number.isInteger(this.linkType) || this.linkType < 0 || this.linkType > 0xffff) {
      throw new RangeError(`pcap link type must be 0..65535, got ${opts.linkType}`);
    }
    this.header = new Uint8Array(PCAP_HEADER_LEN);
    encodePcapHeader(this.header, 0, { littleEndian: true, nanoseconds: this.nanoseconds, snaplen: this.snaplen, linkType: this.linkType });
  }

  /** Bytes one record of a `len`-byte frame takes (header + captured bytes after the snaplen cut). */
  recordLength(len: number): number {
    return PCAP_RECORD_HEADER_LEN + Math.min(len, this.snaplen);
  }

  /**
   * Writes one record into `out` at `off`.
   * @param frame    bytes of the frame at frame[start, start + len)
   * @param origLen  length on the wire (>= len; defaults to len)
   * @param tsSec    timestamp, whole seconds since the epoch (0..2^32-1)
   * @param tsNsec   nanoseconds within the second (0..999 999 999; cut to µs for µs files)
   * @returns the offset after the record
   * @throws RangeError when `out` has no room (`recordLength(len)` bytes are needed)
   */
  encodeRecord(out: Uint8Array, off: number, frame: Uint8Array, start: number, len: number, origLen: number, tsSec: number, tsNsec: number): number {
    const cap = Math.min(len, this.snaplen);
    const end = off + PCAP_RECORD_HEADER_LEN + cap;
    if (end > out.length) throw new RangeError(`pcap record of ${end - off} bytes does not fit at offset ${off} of a ${out.length}-byte buffer`);
    const frac = this.nanoseconds ? tsNsec : Math.floor(tsNsec / 1000);
    putLe32(out, off, tsSec >>> 0);
    putLe32(out, off + 4, frac >>> 0);
    putLe32(out, off + 8, cap);
    putLe32(out, off + 12, Math.max(origLen, len) >>> 0);
    out.set(frame.subarray(start, start + cap), off + PCAP_RECORD_HEADER_LEN);
    return end;
  }
}

function putLe32(b: Uint8Array, p: number, v: number): void {
  b[p] = v & 0xff;
  b[p + 1] = (v >>> 8) & 0xff;
  b[p + 2] = (v >>> 16) & 0xff;
  b[p + 3] = v >>> 24;
}

/** Splits a millisecond time (e.g. a Clock reading) into whole seconds and nanoseconds. */
export function msToSecNsec(ms: number): { sec: number; nsec: number } {
  const sec = Math.floor(ms / 1000);
  return { sec, nsec: Math.min(999_999_999, Math.round((ms - sec * 1000) * 1e6)) };
}
