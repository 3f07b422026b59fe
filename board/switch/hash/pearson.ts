/**
 * Pearson hashing (P. K. Pearson, "Fast Hashing of Variable-Length Text Strings", CACM 33(6),
 * June 1990, pp. 677–680), the 8-bit table hash an FM4224-class switch chip uses for ECMP, and
 * its 16-bit widening.
 *
 * 8-bit: h = 0; for each input byte c: h = T[h XOR c]; the result is h (the paper's algorithm,
 * with h[0] = 0).
 * 16-bit (the paper's extension to wider results): run the 8-bit hash twice, the second time with
 * the first input byte incremented by 1 (mod 256); the first pass gives the high byte and the
 * second the low byte. Empty input hashes to 0.
 *
 * The permutation T (PEARSON_TABLE) is the 256-entry example permutation printed with Pearson's paper,
 * as it is reproduced in the TLSH reference implementation (its `v_table`) and in Eclipse OMR
 * (`RandomValues`). We could not check it against the paper's own page; whatever its pedigree, it is
 * fixed here, and test/unit/board/switch/hash/pearson.test.ts checks that it is a permutation of
 * 0..255. (It has one fixed point: T[92] = 92.)
 */

/** The fixed permutation of 0..255 used by `pearson8`/`pearson16` (see the module header). */
export const PEARSON_TABLE: Readonly<Uint8Array> = Uint8Array.from([
  1, 87, 49, 12, 176, 178, 102, 166, 121, 193, 6, 84, 249, 230, 44, 163,
  14, 197, 213, 181, 161, 85, 218, 80, 64, 239, 24, 226, 236, 142, 38, 200,
  110, 177, 104, 103, 141, 253, 255, 50, 77, 101, 81, 18, 45, 96, 31, 222,
  25, 107, 190, 70, 86, 237, 240, 34, 72, 242, 20, 214, 244, 227, 149, 235,
  97, 234, 57, 22, 60, 250, 82, 175, 208, 5, 127, 199, 111, 62, 135, 248,
  174, 169, 211, 58, 66, 154, 106, 195, 245, 171, 17, 187, 182, 179, 0, 243,
  132, 56, 148, 75, 128, 133, 158, 100, 130, 126, 91, 13, 153, 246, 216, 219,
  119, 68, 223, 78, 83, 88, 201, 99, 122, 11, 92, 32, 136, 114, 52, 10,
  138, 30, 48, 183, 156, 35, 61, 26, 143, 74, 251, 94, 129, 162, 63, 152,
  170, 7, 115, 167, 241, 206, 3, 150, 55, 59, 151, 220, 90, 53, 23, 131,
  125, 173, 15, 238, 79, 95, 89, 16, 105, 137, 225, 224, 217, 160, 37, 123,
  118, 73, 2, 157, 46, 116, 9, 145, 134, 228, 207, 212, 202, 215, 69, 229,
  27, 188, 67, 124, 168, 252, 42, 4, 29, 108, 21, 247, 19, 205, 39, 203,
  233, 40, 186, 147, 198, 192, 155, 33, 164, 191, 98, 204, 165, 180, 117, 76,
  140, 36, 210, 172, 41, 54, 159, 8, 185, 232, 113, 196, 231, 47, 146, 120,
  51, 65, 28, 144, 254, 221, 93, 189, 194, 139, 112, 43, 71, 109, 184, 209,
]);

const T = PEARSON_TABLE as Uint8Array;

/**
 * 8-bit Pearson hash of `data[0..len)`.
 * @param data input bytes
 * @param len  number of bytes to hash (default all; clamped to data.length)
 * @returns 0..255
 */
export function pearson8(data: Uint8Array, len: number = data.length): number {
  const n = Math.min(len, data.length);
  let h = 0;
  for (let i = 0; i < n; i++) h = T[h ^ data[i]!]!;
  return h;
}

/**
 * 16-bit Pearson hash of `data[0..len)`: high byte = pearson8(data), low byte = pearson8 of the
 * same bytes with the first byte incremented by 1 mod 256 (Pearson 1990). Does not modify `data`.
 * @returns 0..65535 (0 for empty input)
 */
export function pearson16(data: Uint8Array, len: number = data.length): number {
  const n = Math.min(len, data.length);
  if (n <= 0) return 0;
  const c0 = data[0]!;
  let hi = T[c0]!;
  let lo = T[(c0 + 1) & 0xff]!;
  for (let i = 1; i < n; i++) {
    const c = data[i]!;
    hi = T[hi ^ c]!;
    lo = T[lo ^ c]!;
  }
  return (hi << 8) | lo;
}

/**
 * `pearson16` of an IPv4 key given as integers instead of bytes (the hubs' hot path; no key
 * buffer is written): the bytes hashed are `a` (4, big-endian) ‖ `b` (4) ‖ `proto` (1) and, when
 * `withPorts`, `ports` (4: high half then low half, each big-endian) — the standard layout of
 * board/switch/field-select.ts for an IPv4 l3 or l3l4 key. Equal to `pearson16` over those 9 or
 * 13 bytes.
 * @param a first address as a 32-bit integer (network order: first byte in the top bits)
 * @param b second address, likewise
 * @param proto IP protocol (low 8 bits used)
 * @param ports first port << 16 | second port
 * @returns 0..65535
 */
export function pearson16V4(a: number, b: number, proto: number, ports: number, withPorts: boolean): number {
  let c = a >>> 24;
  let hi = T[c]!;
  let lo = T[(c + 1) & 0xff]!;
  c = (a >>> 16) & 0xff;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  c = (a >>> 8) & 0xff;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  c = a & 0xff;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  c = b >>> 24;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  c = (b >>> 16) & 0xff;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  c = (b >>> 8) & 0xff;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  c = b & 0xff;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  c = proto & 0xff;
  hi = T[hi ^ c]!;
  lo = T[lo ^ c]!;
  if (withPorts === true) {
    c = ports >>> 24;
    hi = T[hi ^ c]!;
    lo = T[lo ^ c]!;
    c = (ports >>> 16) & 0xff;
    hi = T[hi ^ c]!;
    lo = T[lo ^ c]!;
    c = (ports >>> 8) & 0xff;
    hi = T[hi ^ c]!;
    lo = T[lo ^ c]!;
    c = ports & 0xff;
    hi = T[hi ^ c]!;
    lo = T[lo ^ c]!;
  }
  return (hi << 8) | lo;
}
