/**
 * Toeplitz hash as Microsoft RSS defines it ("RSS hashing functions", Microsoft Learn; Intel
 * 82599 datasheet §7.1.2.8.3): for every input bit, most significant bit of byte 0 first, that
 * is 1, XOR the current left-most 32 bits of the key into the result; after every bit slide that
 * 32-bit window one bit further along the key. With a 40-byte (320-bit) key, inputs of up to 36
 * bytes (IPv6 + ports) use the key as published.
 *
 * Table-driven (dataplane.md §2.1): one 256 × u32 table per input byte position, so a hash costs
 * one lookup and one XOR per input byte. Positions beyond byte 35 (only reachable by unusual L2
 * keys) read the key cyclically — bit i of the key stream is key bit (i mod 320); no published
 * vector covers that case.
 */

/** Key length of RSS Toeplitz, bytes. */
export const TOEPLITZ_KEY_BYTES = 40;
/** Longest input the hasher accepts, bytes (longer inputs are hashed over their first 64 bytes). */
export const TOEPLITZ_MAX_INPUT = 64;

/**
 * Parses a Toeplitz key written as hex: 80 hex digits, optionally prefixed `0x`, and optionally
 * separated by `:`, `-`, `_` or whitespace (e.g. `6d:5a:56:da…`).
 * @returns the 40 key bytes
 * @throws TypeError when the text has non-hex characters or an odd number of digits;
 *         RangeError when it is not exactly 40 bytes
 */
export function parseToeplitzKey(text: string): Uint8Array {
  let s = text.trim();
  if (/^0x/i.test(s)) s = s.slice(2);
  s = s.replace(/[\s:_-]/g, '');
  if (!/^[0-9a-fA-F]*$/.test(s)) throw new TypeError(`Toeplitz key: not hexadecimal: '${text}'`);
  if (s.length % 2 !== 0) throw new TypeError(`Toeplitz key: odd number of hex digits (${s.length})`);
  if (s.length !== TOEPLITZ_KEY_BYTES * 2) {
    throw new RangeError(`Toeplitz key: expected ${TOEPLITZ_KEY_BYTES} bytes (${TOEPLITZ_KEY_BYTES * 2} hex digits), got ${s.length / 2}`);
  }
  const out = new Uint8Array(TOEPLITZ_KEY_BYTES);
  for (let i = 0; i < TOEPLITZ_KEY_BYTES; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * A Toeplitz hasher for one key; the per-position tables (64 × 256 × 4 bytes = 64 KiB) are built
 * once in the constructor.
 */
export class ToeplitzHasher {
  /** The 40 key bytes (a copy). */
  readonly key: Uint8Array;
  private readonly table: Uint32Array;

  /**
   * @param key 40 key bytes, or their hex text (see parseToeplitzKey)
   * @throws TypeError / RangeError for a malformed key (see parseToeplitzKey)
   */
  constructor(key: Uint8Array | string) {
    const k = typeof key === 'string' ? parseToeplitzKey(key) : Uint8Array.from(key);
    if (k.length !== TOEPLITZ_KEY_BYTES) {
      throw new RangeError(`Toeplitz key: expected ${TOEPLITZ_KEY_BYTES} bytes, got ${k.length}`);
    }
    this.key = k;
    const bits = TOEPLITZ_KEY_BYTES * 8;
    const keyBit = (i: number): number => (k[(i % bits) >> 3]! >> (7 - (i & 7))) & 1;
    // window(b): the 32 key bits starting at bit b, as an unsigned 32-bit number.
    const window = (b: number): number => {
      let w = 0;
      for (let j = 0; j < 32; j++) w = (w << 1) | keyBit(b + j);
      return w >>> 0;
    };
    const t = new Uint32Array(TOEPLITZ_MAX_INPUT * 256);
    for (let p = 0; p < TOEPLITZ_MAX_INPUT; p++) {
      const base = p * 256;
      for (let j = 0; j < 8; j++) t[base + (0x80 >> j)] = window(8 * p + j);
      for (let v = 1; v < 256; v++) {
        const low = v & -v;
        if (low !== v) t[base + v] = (t[base + (v ^ low)]! ^ t[base + low]!) >>> 0;
      }
    }
    this.table = t;
  }

  /**
   * Toeplitz hash of `data[0..len)` (at most the first 64 bytes).
   * @returns unsigned 32-bit value (0 for empty input)
   */
  hash(data: Uint8Array, len: number = data.length): number {
    const n = Math.min(len, data.length, TOEPLITZ_MAX_INPUT);
    const t = this.table;
    let r = 0;
    for (let i = 0; i < n; i++) r ^= t[(i << 8) | data[i]!]!;
    return r >>> 0;
  }
}
