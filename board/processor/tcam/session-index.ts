/**
 * The session table's index (board/processor/tcam/session-table.ts): an open-addressing hash
 * table (linear probing, load ≤ 0.75, backward-shift deletion, Knuth TAOCP vol. 3 §6.4
 * Algorithm R) of 32-bit words: entry + 1 in the low bits, then the word's probe distance from
 * its home slot (5 bits, 31 = "31 or more"), then the top bits of the key hash as a tag. A probe
 * only reads an entry whose distance and tag both match, so most probes that do not match never
 * touch an entry; and a deletion shifts the cluster behind it back by the stored distances alone,
 * without reading the entries that follow (only a word whose distance saturated reads its
 * entry's hash).
 *
 * It starts at 4096 slots and doubles as the table fills (a one-off rehash of the live entries,
 * about 10–30 ms at the last doubling of a 1.5 M table), up to the first power of two ≥
 * capacity / 0.75: a board holding a few thousand sessions probes a cache-resident index.
 * The IPv6 side store (ipv6-store.ts) holds the addresses an IPv6 key is compared with.
 */
import * as L from './entry-layout.ts';
import { Ipv6Store } from './ipv6-store.ts';
import { KeyRegisters } from './key-registers.ts';
import type { SessionTableOptions } from './table-options.ts';

// module-local copies of the layout (entry-layout.ts explains why)
const W = L.W;
const O_A = L.O_A;
const O_B = L.O_B;
const O_PORTS = L.O_PORTS;
const O_META = L.O_META;
const O_HASH = L.O_HASH;
const KEY_META = L.KEY_META;

/** Slots of a new table's index (it doubles as entries arrive). */
export const INITIAL_INDEX_SIZE = 4096;
/** Bits of an index word's probe distance; DIST_SAT means "DIST_SAT or more: read the entry". */
const DIST_BITS = 5;
const DIST_SAT = (1 << DIST_BITS) - 1;

/** The keyed entry store with its hash index and the IPv6 side store. */
export abstract class SessionIndex extends KeyRegisters {
  /** Times the index doubled (it starts small and grows to capacity / 0.75). */
  indexGrowths = 0;

  /** IPv6 address pairs of the IPv6 entries. */
  protected readonly v6 = new Ipv6Store();
  private idx: Int32Array;
  private mask: number;
  private readonly maxIndexSize: number;
  /** Mask of the entry bits of an index word. */
  private readonly emask: number;
  /** Mask of the tag bits of an index word (the hash bits above entry and distance). */
  private readonly tmask: number;
  /** Bit position of the 5-bit probe distance in an index word (= entry bits). */
  private readonly dshift: number;
  /** Mask of the tag and distance bits of an index word. */
  private readonly tdmask: number;

  /** @param opts checked (table-options.ts checkedOptions) */
  constructor(opts: SessionTableOptions) {
    super(opts);
    const cap = opts.capacity;
    let size = 16;
    while (size * 0.75 < cap) size *= 2;
    this.maxIndexSize = size;
    // The index starts small and doubles as the table fills (load ≤ 0.75), so a table that holds
    // a few thousand sessions of its 1.5 M probes a cache-resident index.
    const initial = Math.min(size, INITIAL_INDEX_SIZE);
    this.idx = new Int32Array(initial);
    this.mask = initial - 1;
    let ebits = 1;
    while ((1 << ebits) <= cap) ebits++;
    this.emask = (1 << ebits) - 1;
    this.dshift = ebits;
    // tag: the hash bits above the entry and distance fields (none when ebits + 5 = 32)
    this.tmask = ebits + DIST_BITS >= 32 ? 0 : ~((1 << (ebits + DIST_BITS)) - 1);
    this.tdmask = this.tmask | (DIST_SAT << ebits);
  }

  /** Looks up the loaded key. @returns the entry index, or −1 when absent. */
  find(): number {
    const idx = this.idx;
    const di = this.di;
    const mask = this.mask;
    const emask = this.emask;
    const tdmask = this.tdmask;
    const dshift = this.dshift;
    const h = this.kHash;
    const tag = h & this.tmask;
    let i = h & mask;
    // An entry in the n-th slot from its home carries distance min(n, DIST_SAT).
    for (let n = 0; ; n++) {
      const v = idx[i]!;
      if (v === 0) return -1;
      if ((v & tdmask) === (tag | ((n < DIST_SAT ? n : DIST_SAT) << dshift))) {
        const e = (v & emask) - 1;
        const o = e * W;
        if (di[o + O_HASH] === h && (di[o + O_META]! & KEY_META) === this.kMeta && di[o + O_PORTS] === this.kPorts) {
          if (this.kV6 === true ? this.v6.equals(di[o + O_A]!, this.kWords) : di[o + O_A] === this.kA && di[o + O_B] === this.kB) return e;
        }
      }
      i = (i + 1) & mask;
    }
  }

  /** Bytes of the index. */
  protected indexBytes(): number {
    return this.idx.byteLength;
  }

  /** The index word of entry e placed n slots from its home (hash h). */
  private word(h: number, n: number, e: number): number {
    return (h & this.tmask) | ((n < DIST_SAT ? n : DIST_SAT) << this.dshift) | (e + 1);
  }

  /** Adds entry e under the loaded key's hash, first doubling the index when the new entry
   * would take its load over 0.75 (`size` is the live entries before e). */
  protected indexAdd(e: number): void {
    if ((this.size + 1) * 4 > this.idx.length * 3 && this.idx.length < this.maxIndexSize) this.growIndex();
    const idx = this.idx;
    const mask = this.mask;
    let i = this.kHash & mask;
    let n = 0;
    while (idx[i] !== 0) {
      i = (i + 1) & mask;
      n++;
    }
    idx[i] = this.word(this.kHash, n, e);
  }

  /** Doubles the index and re-inserts every live entry (hashes are kept in the entries). */
  private growIndex(): void {
    const size = this.idx.length * 2;
    const idx = new Int32Array(size);
    const mask = size - 1;
    const di = this.di;
    for (let e = 0; e < this.top; e++) {
      const o = e * W;
      if (((di[o + O_META]! >>> 16) & 0xff) === 0) continue;
      const h = di[o + O_HASH]!;
      let i = h & mask;
      let n = 0;
      while (idx[i] !== 0) {
        i = (i + 1) & mask;
        n++;
      }
      idx[i] = this.word(h, n, e);
    }
    this.idx = idx;
    this.mask = mask;
    this.indexGrowths++;
  }

  /** Takes live entry e out of the index: finds the slot that holds it, then backward-shifts the
   * cluster behind it. @throws Error when e is not in the index (corrupt table) */
  protected indexDelete(e: number): void {
    const d = this.d;
    const idx = this.idx;
    const mask = this.mask;
    const emask = this.emask;
    let i = d[e * W + O_HASH]! & mask;
    for (let n = 0; (idx[i]! & emask) !== e + 1; n++) {
      if (n > mask) throw new Error('session table index corrupt: entry not found');
      i = (i + 1) & mask;
    }
    // Algorithm R: a word at j whose home is not cyclically in (i, j] — its distance is at least
    // the gap j − i — moves back into the hole at i, its distance reduced by the gap.
    const dshift = this.dshift;
    const keep = ~(DIST_SAT << dshift);
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const v = idx[j]!;
      if (v === 0) break;
      let dist = (v >>> dshift) & DIST_SAT;
      if (dist === DIST_SAT) dist = (j - d[((v & emask) - 1) * W + O_HASH]!) & mask;
      const gap = (j - i) & mask;
      if (dist >= gap) {
        const nd = dist - gap;
        idx[i] = (v & keep) | ((nd < DIST_SAT ? nd : DIST_SAT) << dshift);
        i = j;
      }
    }
    idx[i] = 0;
  }
}
