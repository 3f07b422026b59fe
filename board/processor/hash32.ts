/**
 * 32-bit hashing helpers of the processor board: MurmurHash3 x86_32 block mixing and
 * finalisation (Austin Appleby, public domain algorithm) written over integers so the data path
 * hashes keys without building byte arrays or allocating. Used for the session-table index, the
 * per-flow hash the schedulers see, the ternary table's per-mask hash tables and the Maglev
 * permutations (over server names, via `hashString`).
 */

/** Mixes one 32-bit word `k` into the running hash `h` (MurmurHash3 body step). Returns int32. */
export function mix32(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3 finaliser: avalanches all bits of `h`. Returns an unsigned 32-bit value. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3 x86_32 of a string's UTF-16 code units (control plane: Maglev permutations). */
export function hashString(s: string, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < s.length; i++) h = mix32(h, s.charCodeAt(i));
  return fmix32(h ^ s.length);
}
