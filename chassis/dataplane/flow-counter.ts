/**
 * Shelf-wide distinct-conversation counting for the data plane's statistics (`flows` in
 * `replay` and the stats snapshot): one probe per packet tells whether the conversation is new,
 * and which (hub, port) it went to last, so flows are counted in total, per hub, per processor
 * board and per hub port in one step.
 *
 * A conversation is the processor boards' session key (board/processor/tcam/session-table.ts):
 * TCP/UDP/SCTP by 5-tuple when ports may be used (FlowTuple.hashPorts), other IP protocols and
 * fragments by address pair and protocol; direction-insensitive (the endpoints in canonical
 * order: lower address, then lower port, first); non-IP frames (family 0) are not flows.
 *
 * Storage: open addressing over one typed array (linear probing, load ≤ 0.75, doubling; a slot is
 * three words side by side — the two fingerprint words and the value — so a probe touches one
 * cache line, or two), keyed by a 62-bit fingerprint made directly from the tuple's 32-bit words
 * (two multiplicative hashes with different seeds), so nothing is built per packet; the chance
 * that two of a million conversations share a fingerprint is about 10^-7 (FlowSet in board/switch
 * makes the same trade). Values are small integers chosen by the caller. Allocation-free except
 * when doubling.
 *
 * Memory is touched when it is allocated (the constructor and each doubling write the whole
 * table), not by the packets that first land on each page: a new page costs the packet path a
 * page fault (about 14 µs on the development VM), and a table of 2^17 slots spans 384 pages. The
 * data plane sizes the table at construction for the conversations it expects (DataPlane), as a
 * production data plane maps its memory up front, so the packet path takes no page fault here
 * until the table has to double.
 */
import type { FlowTuple } from '../../board/packet/flow-tuple.ts';

const SEED_A = 0x2545f491;
const SEED_B = 0x9e3779b9;

/** Words per slot: fingerprint half a, half b (never 0 when used), value. */
const SLOT = 3;

/** Distinct-conversation map: fingerprint → last value. */
export class FlowCounter {
  /** Slots of SLOT words: [a, b, value]. */
  private s: Int32Array;
  private mask: number;
  private n = 0;
  /** Fingerprint halves of the tuple last given to `record` (scratch, to avoid returning pairs). */
  private ha = 0;
  private hb = 0;

  /** @param initialCapacity slots at start (rounded up to a power of two, ≥ 1024); the table
   * doubles when more than 3/4 of its slots are used */
  constructor(initialCapacity = 1 << 16) {
    let c = 1024;
    while (c < initialCapacity) c *= 2;
    this.s = touched(new Int32Array(c * SLOT));
    this.mask = c - 1;
  }

  /** Distinct conversations recorded. */
  get size(): number {
    return this.n;
  }

  /**
   * Records that the conversation of `t` went to `value` (a non-negative 31-bit integer).
   * @returns the value recorded last time, -1 when the conversation is new, -2 when `t` is not
   *   a flow (no IP header)
   */
  record(t: FlowTuple, value: number): number {
    if (t.family === 0) return -2;
    this.fingerprint(t);
    return this.put(this.ha, this.hb | 1, value);
  }

  /** Inserts or updates fingerprint (a, b) with `value`. @returns the previous value, or -1 */
  private put(a: number, b: number, value: number): number {
    const mask = this.mask;
    const s = this.s;
    let i = a & mask;
    for (;;) {
      const o = i * SLOT;
      const sb = s[o + 1]!;
      if (sb === 0) {
        s[o] = a;
        s[o + 1] = b;
        s[o + 2] = value;
        break;
      }
      if (sb === b && s[o] === a) {
        const prev = s[o + 2]!;
        s[o + 2] = value;
        return prev;
      }
      i = (i + 1) & mask;
    }
    this.n++;
    // load ≤ 3/4: (mask + 1) · 3/4 slots, and mask + 1 is a power of two ≥ 1024
    if (this.n > ((this.mask + 1) >>> 2) * 3) this.grow();
    return -1;
  }

  /** Forgets every conversation. */
  clear(): void {
    this.s.fill(0);
    this.n = 0;
  }

  private fingerprint(t: FlowTuple): void {
    const s = t.src;
    const d = t.dst;
    if (t.family === 4) {
      // IPv4 fast path: one word per address
      const x = (s[0]! << 24) | (s[1]! << 16) | (s[2]! << 8) | s[3]!;
      const y = (d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!;
      const ports = t.hasPorts === true && t.fragment === false; // hashPorts, as word compares
      // unsigned comparison of the two addresses, then of the ports
      const swap = x !== y ? (x >>> 0) > (y >>> 0) : ports && t.sport > t.dport;
      const lo = swap ? y : x;
      const hi = swap ? x : y;
      const pw = ports ? (swap ? (t.dport << 16) | t.sport : (t.sport << 16) | t.dport) : 0x5bd1e995;
      this.finish(SEED_A ^ 0x400 ^ t.proto, SEED_B ^ 0x400 ^ t.proto, lo, hi, pw);
      return;
    }
    const words = 4; // IPv6 (IPv4 took the fast path)
    // canonical order: lower address first (unsigned, network order), then lower port
    let swap = 0;
    for (let w = 0; w < words && swap === 0; w++) {
      const o = w << 2;
      const x = ((s[o]! << 24) | (s[o + 1]! << 16) | (s[o + 2]! << 8) | s[o + 3]!) >>> 0;
      const y = ((d[o]! << 24) | (d[o + 1]! << 16) | (d[o + 2]! << 8) | d[o + 3]!) >>> 0;
      if (x !== y) swap = x > y ? 1 : -1;
    }
    const ports = t.hasPorts === true && t.fragment === false; // hashPorts, as word compares
    if (swap === 0 && ports && t.sport > t.dport) swap = 1;
    const lo = swap === 1 ? d : s;
    const hi = swap === 1 ? s : d;
    let a = SEED_A ^ (t.family << 8) ^ t.proto;
    let b = SEED_B ^ (t.family << 8) ^ t.proto;
    for (let w = 0; w < words; w++) {
      const o = w << 2;
      const x = (lo[o]! << 24) | (lo[o + 1]! << 16) | (lo[o + 2]! << 8) | lo[o + 3]!;
      const y = (hi[o]! << 24) | (hi[o + 1]! << 16) | (hi[o + 2]! << 8) | hi[o + 3]!;
      a = Math.imul(a ^ x, 0xcc9e2d51);
      a = Math.imul((a << 15) | (a >>> 17), 0x1b873593) ^ y;
      b = Math.imul(b ^ y, 0x85ebca6b);
      b = Math.imul((b << 13) | (b >>> 19), 0xc2b2ae35) ^ x;
    }
    if (ports) {
      const p = swap === 1 ? (t.dport << 16) | t.sport : (t.sport << 16) | t.dport;
      a = Math.imul(a ^ p, 0xcc9e2d51);
      b = Math.imul(b ^ p, 0x85ebca6b);
    } else {
      a = Math.imul(a ^ 0x5bd1e995, 0xcc9e2d51);
      b = Math.imul(b ^ 0x5bd1e995, 0x85ebca6b);
    }
    this.mixOut(a, b);
  }

  /** IPv4 body: the same rounds as the general path over one word per address. */
  private finish(a: number, b: number, x: number, y: number, p: number): void {
    a = Math.imul(a ^ x, 0xcc9e2d51);
    a = Math.imul((a << 15) | (a >>> 17), 0x1b873593) ^ y;
    b = Math.imul(b ^ y, 0x85ebca6b);
    b = Math.imul((b << 13) | (b >>> 19), 0xc2b2ae35) ^ x;
    a = Math.imul(a ^ p, 0xcc9e2d51);
    b = Math.imul(b ^ p, 0x85ebca6b);
    this.mixOut(a, b);
  }

  private mixOut(a: number, b: number): void {
    a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
    a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
    b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d);
    b = Math.imul(b ^ (b >>> 12), 0x297a2d39);
    this.ha = a ^ (a >>> 16);
    this.hb = b ^ (b >>> 16);
  }

  private grow(): void {
    const old = this.s;
    const c = (this.mask + 1) * 2;
    const s = touched(new Int32Array(c * SLOT));
    const mask = c - 1;
    for (let o = 0; o < old.length; o += SLOT) {
      const b = old[o + 1]!;
      if (b === 0) continue;
      const a = old[o]!;
      let i = a & mask;
      while (s[i * SLOT + 1] !== 0) i = (i + 1) & mask;
      s[i * SLOT] = a;
      s[i * SLOT + 1] = b;
      s[i * SLOT + 2] = old[o + 2]!;
    }
    this.s = s;
    this.mask = mask;
  }
}

/** Writes every page of a new (zero) table, so the pages are mapped now rather than by the
 * packets that first reach them (see the module header). @returns `a` */
function touched(a: Int32Array): Int32Array {
  a.fill(0);
  return a;
}
