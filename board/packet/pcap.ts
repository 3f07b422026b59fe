/**
 * Classic pcap file format (libpcap savefile; draft-ietf-opsawg-pcap): the 24-byte file header and
 * the 16-byte record header. The magic number gives the byte order and the timestamp unit
 * (0xa1b2c3d4 microseconds, 0xa1b23c4d nanoseconds), written in the capturing host's order.
 *
 * Acceptance follows tshark 4.0 (wiretap/libpcap.c): major version < 2 is refused
 * ("pcap: major version 1 unsupported", as for libpcap's pcap-invalid-version-1.pcap); any later
 * version is read. Reserved link-type bits 16-25 set → refused; FCS bits 26-31 ignored. A record
 * longer than 262 144 captured bytes means a corrupt file (tshark: "bigger than maximum").
 */
import { DecodeError } from '../common/errors.ts';
import { LINKTYPE_RESERVED_MASK, linkTypeOf } from './link-type.ts';

export const PCAP_MAGIC_MICRO = 0xa1b2c3d4;
export const PCAP_MAGIC_NANO = 0xa1b23c4d;
/** File header length, bytes. */
export const PCAP_HEADER_LEN = 24;
/** Record header length (ts_sec, ts_frac, incl_len, orig_len), bytes. */
export const PCAP_RECORD_HEADER_LEN = 16;
/** Largest captured length accepted per record, bytes (WTAP_MAX_PACKET_SIZE_STANDARD). */
export const MAX_CAPLEN = 262144;

/** The decoded pcap file header. */
export interface PcapHeader {
  littleEndian: boolean;
  /** True for the nanosecond magic, false for microseconds. */
  nanoseconds: boolean;
  versionMajor: number;
  versionMinor: number;
  /** Snapshot length, bytes. */
  snaplen: number;
  /** The full 32-bit link-type word as stored. */
  linkWord: number;
  /** Link type proper (bits 0-15). */
  linkType: number;
}

/** Byte order and unit from the first 4 bytes, or null when they are not a pcap magic. */
export function pcapMagic(b: Uint8Array, off: number): { littleEndian: boolean; nanoseconds: boolean } | null {
  const be = ((b[off]! << 24) | (b[off + 1]! << 16) | (b[off + 2]! << 8) | b[off + 3]!) >>> 0;
  const le = ((b[off + 3]! << 24) | (b[off + 2]! << 16) | (b[off + 1]! << 8) | b[off]!) >>> 0;
  if (le === PCAP_MAGIC_MICRO) return { littleEndian: true, nanoseconds: false };
  if (le === PCAP_MAGIC_NANO) return { littleEndian: true, nanoseconds: true };
  if (be === PCAP_MAGIC_MICRO) return { littleEndian: false, nanoseconds: false };
  if (be === PCAP_MAGIC_NANO) return { littleEndian: false, nanoseconds: true };
  return null;
}

/**
 * Decodes the 24-byte file header at `off` (the caller guarantees 24 bytes).
 * @throws DecodeError('pcap', 'magic'|'version_major'|'linktype', offset, …) when the file must be refused.
 */
export function decodePcapHeader(b: Uint8Array, off: number, fileOffset = off): PcapHeader {
  const m = pcapMagic(b, off);
  if (!m) throw new DecodeError('pcap', 'magic', fileOffset, 'not a pcap magic number');
  const u16 = (p: number) => (m.littleEndian ? b[p]! | (b[p + 1]! << 8) : (b[p]! << 8) | b[p + 1]!);
  const u32 = (p: number) =>
    m.littleEndian
      ? (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0
      : ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  const versionMajor = u16(off + 4);
  const versionMinor = u16(off + 6);
  if (versionMajor < 2) {
    throw new DecodeError('pcap', 'version_major', fileOffset + 4, `major version ${versionMajor} unsupported (file format version ${versionMajor}.${versionMinor}; only 2.x is defined)`);
  }
  const snaplen = u32(off + 16);
  const linkWord = u32(off + 20);
  if ((linkWord & LINKTYPE_RESERVED_MASK) !== 0) {
    throw new DecodeError('pcap', 'linktype', fileOffset + 20, `reserved bits of the link-type word are set (0x${linkWord.toString(16).padStart(8, '0')})`);
  }
  return { ...m, versionMajor, versionMinor, snaplen, linkWord, linkType: linkTypeOf(linkWord) };
}

/** Encodes a pcap file header (used by the writer and by tests). */
export function encodePcapHeader(
  out: Uint8Array,
  off: number,
  h: { littleEndian?: boolean; nanoseconds?: boolean; snaplen?: number; linkType: number; versionMajor?: number; versionMinor?: number },
): number {
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const le = h.littleEndian ?? true;
  dv.setUint32(off, h.nanoseconds ? PCAP_MAGIC_NANO : PCAP_MAGIC_MICRO, le);
  dv.setUint16(off + 4, h.versionMajor ?? 2, le);
  dv.setUint16(off + 6, h.versionMinor ?? 4, le);
  dv.setInt32(off + 8, 0, le);
  dv.setUint32(off + 12, 0, le);
  dv.setUint32(off + 16, h.snaplen ?? MAX_CAPLEN, le);
  dv.setUint32(off + 20, h.linkType >>> 0, le);
  return off + PCAP_HEADER_LEN;
}
