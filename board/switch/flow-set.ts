/**
 * Exact distinct-flow counting for the hub's statistics (a switch chip keeps no flow state; the
 * emulator counts conversations so `replay` can report flows per port). Open addressing over typed
 * arrays keyed by a 63-bit fingerprint of the flow key (two MurmurHash3-style 32-bit hashes with
 * different seeds, computed in one pass over the key's 32-bit words); the chance that two of a
 * million flows share a fingerprint is about 10^-7. Grows by doubling at half load (amortised,
 * rare allocations); stops adding once `maxEntries` are held (then `saturated` is true and new flows
 * are no longer counted).
 */
/** Seeds of the two fingerprint halves (arbitrary odd constants). */
const SEED_HI = 0x9747b28c;
const SEED_LO = 0x2545f491;

function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Distinct-flow set: fingerprint → the port the flow was last forwarded to. */
export class FlowSet {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private val: Int32Array;
  private mask: number;
  private n = 0;
  /** True once a new flow could not be recorded because the set is full. */
  saturated = false;

  /**
   * @param initialCapacity slots at start (rounded up to a power of two, ≥ 16)
   * @param maxEntries      most flows remembered (default 16,777,216)
   */
  constructor(initialCapacity = 4096, readonly maxEntries = 1 << 24) {
    let c = 16;
    while (c < initialCapacity) c *= 2;
    this.hi = new Uint32Array(c);
    this.lo = new Uint32Array(c);
    this.val = new Int32Array(c);
    this.mask = c - 1;
  }

  /** Number of distinct flows recorded. */
  get size(): number {
    return this.n;
  }

  /**
   * Records that the flow with key `key[0..len)` went to `port`.
   * @returns the port it went to last time, or -1 when it is new (or could not be recorded)
   */
  record(key: Uint8Array, len: number, port: number): number {
    // MurmurHash3 (x86, 32-bit) body over big-endian 32-bit words, run with two seeds at once.
    let a = SEED_HI;
    let b = SEED_LO;
    let i = 0;
    for (; i + 4 <= len; i += 4) {
      let k = (key[i]! << 24) | (key[i + 1]! << 16) | (key[i + 2]! << 8) | key[i + 3]!;
      k = Math.imul(k, 0xcc9e2d51);
      k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
      a ^= k;
      a = (Math.imul((a << 13) | (a >>> 19), 5) + 0xe6546b64) | 0;
      b ^= k;
      b = (Math.imul((b << 13) | (b >>> 19), 5) + 0xe6546b64) | 0;
    }
    if (i < len) {
      let k = 0;
      for (let j = i; j < len; j++) k = (k << 8) | key[j]!;
      k = Math.imul(k, 0xcc9e2d51);
      k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
      a ^= k;
      b ^= k;
    }
    const h = fmix(a ^ len);
    const l = (fmix(b ^ len) | 1) >>> 0;
    return this.put(h, l, port);
  }

  private put(h: number, l: number, port: number): number {
    let i = h & this.mask;
    for (;;) {
      const sl = this.lo[i]!;
      if (sl === 0) break;
      if (sl === l && this.hi[i] === h) {
        const prev = this.val[i]!;
        this.val[i] = port;
        return prev;
      }
      i = (i + 1) & this.mask;
    }
    if (this.n >= this.maxEntries) {
      this.saturated = true;
      return -1;
    }
    this.hi[i] = h;
    this.lo[i] = l;
    this.val[i] = port;
    this.n++;
    if (this.n * 2 > this.mask + 1) this.grow();
    return -1;
  }

  /** Forgets every flow. */
  clear(): void {
    this.hi.fill(0);
    this.lo.fill(0);
    this.val.fill(0);
    this.n = 0;
    this.saturated = false;
  }

  private grow(): void {
    const oh = this.hi;
    const ol = this.lo;
    const ov = this.val;
    const c = (this.mask + 1) * 2;
    this.hi = new Uint32Array(c);
    this.lo = new Uint32Array(c);
    this.val = new Int32Array(c);
    this.mask = c - 1;
    for (let j = 0; j < ol.length; j++) {
      const l = ol[j]!;
      if (l === 0) continue;
      let i = oh[j]! & this.mask;
      while (this.lo[i] !== 0) i = (i + 1) & this.mask;
      this.hi[i] = oh[j]!;
      this.lo[i] = l;
      this.val[i] = ov[j]!;
    }
  }
}
