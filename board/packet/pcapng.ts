/**
 * pcapng (draft-ietf-opsawg-pcapng): block types, the Interface Description Block options that
 * matter for decoding (if_tsresol, if_tsoffset) and the exact timestamp conversion.
 *
 * Every block: type (4) | total length (4) | body | total length (4), in the byte order of its
 * section (the Section Header Block's byte-order magic 0x1A2B3C4D). Acceptance follows tshark 4.0
 * (wiretap/pcapng.c): SHB version 1.0 or 1.2; total length >= 12, a multiple of 4, at most 16 MiB,
 * the same at both ends; packet blocks name an interface that exists in their section.
 */
import { DecodeError } from '../common/errors.ts';

export const BlockType = {
  /** Section Header Block; the same bytes in both byte orders. */
  SHB: 0x0a0d0d0a,
  IDB: 0x00000001,
  /** Obsolete Packet Block. */
  PB: 0x00000002,
  /** Simple Packet Block: no interface ID, no timestamp, interface 0. */
  SPB: 0x00000003,
  /** Name Resolution Block (skipped). */
  NRB: 0x00000004,
  /** Interface Statistics Block (skipped). */
  ISB: 0x00000005,
  /** Enhanced Packet Block. */
  EPB: 0x00000006,
  /** Decryption Secrets Block (skipped). */
  DSB: 0x0000000a,
  /** Custom Block that may be copied (skipped; not a packet). */
  CB_COPY: 0x00000bad,
  /** Custom Block that must not be copied (skipped; not a packet). */
  CB_NOCOPY: 0x40000bad,
} as const;

export const BYTE_ORDER_MAGIC = 0x1a2b3c4d;
/** Largest block accepted, bytes (wiretap's MAX_BLOCK_SIZE is of this order). */
export const MAX_BLOCK_LEN = 16 * 1024 * 1024;
/** Smallest block: type + length + trailing length. */
export const MIN_BLOCK_LEN = 12;

/** Timestamp unit of one interface: units per second are 10^exp (pow10) or 2^exp. */
export interface TsResolution {
  pow10: boolean;
  exp: number;
  /** if_tsoffset: seconds added to every timestamp (may be negative). */
  offsetSec: number;
}

/** Reads a u32 in the given byte order. */
export function u32(b: Uint8Array, p: number, le: boolean): number {
  return le
    ? (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0
    : ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
}

/** Reads a u16 in the given byte order. */
export function u16(b: Uint8Array, p: number, le: boolean): number {
  return le ? b[p]! | (b[p + 1]! << 8) : (b[p]! << 8) | b[p + 1]!;
}

/**
 * Decodes the IDB options that change how timestamps read (if_tsresol = 9, if_tsoffset = 14).
 * Options run from `start` to `end` (exclusive); a malformed option list ends the walk (the
 * remaining options are ignored, as they do not change packet decoding).
 * @throws DecodeError('pcapng', 'if_tsresol', …) for a resolution finer than 10^-19 s or 2^-63 s.
 */
export function decodeIdbOptions(b: Uint8Array, start: number, end: number, le: boolean, fileBase: number): TsResolution {
  const r: TsResolution = { pow10: true, exp: 6, offsetSec: 0 };
  let p = start;
  while (p + 4 <= end) {
    const code = u16(b, p, le);
    const len = u16(b, p + 2, le);
    if (code === 0) break;
    if (p + 4 + len > end) break;
    if (code === 9 && len >= 1) {
      const v = b[p + 4]!;
      r.pow10 = (v & 0x80) === 0;
      r.exp = v & 0x7f;
      if ((r.pow10 && r.exp > 19) || (!r.pow10 && r.exp > 63)) {
        throw new DecodeError('pcapng', 'if_tsresol', fileBase + p + 4, `time stamp resolution ${r.pow10 ? '10' : '2'}^-${r.exp} is too fine`);
      }
    } else if (code === 14 && len >= 8) {
      const hi = u32(b, p + 4 + (le ? 4 : 0), le);
      const lo = u32(b, p + 4 + (le ? 0 : 4), le);
      // signed 64-bit seconds
      r.offsetSec = (hi | 0) * 4294967296 + lo;
    }
    p += 4 + ((len + 3) & ~3);
  }
  return r;
}

const TWO32 = 4294967296;

/**
 * Converts a 64-bit timestamp (hi:lo units of `res`) into exact seconds + nanoseconds (finer
 * units truncated to ns). The value is unsigned, as tshark reads it. Fast path for the common
 * micro/nanosecond units without BigInt; other units go through BigInt (rare).
 * @returns writes into `out` ([sec, nsec]).
 */
export function unitsToSecNsec(hi: number, lo: number, res: TsResolution, out: { tsSec: number; tsNsec: number }): void {
  if (res.pow10 && res.exp <= 9 && hi < 0x200000) {
    const d = POW10[res.exp]!;
    const ts = hi * TWO32 + lo;
    let sec = Math.floor(ts / d);
    let rem = ts - sec * d;
    if (rem < 0) {
      sec--;
      rem += d;
    } else if (rem >= d) {
      sec++;
      rem -= d;
    }
    out.tsSec = sec + res.offsetSec;
    out.tsNsec = rem * POW10[9 - res.exp]!;
    return;
  }
  const ts = (BigInt(hi) << 32n) | BigInt(lo);
  const unitsPerSec = res.pow10 ? 10n ** BigInt(res.exp) : 1n << BigInt(res.exp);
  const sec = ts / unitsPerSec;
  const rem = ts % unitsPerSec;
  out.tsSec = Number(sec) + res.offsetSec;
  out.tsNsec = Number((rem * 1_000_000_000n) / unitsPerSec);
}

const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000];

/** Resolution as text for reports: '1e6', '2^20'. */
export function resolutionText(r: TsResolution): string {
  return r.pow10 ? `1e${r.exp}` : `2^${r.exp}`;
}
