/**
 * The session table's entry layout (board/processor/tcam/session-table.ts) and the store that
 * holds the entries: no per-session JS objects, so 1.5 M sessions cost no GC time.
 *
 * Entries live in one Uint32Array, 12 words (48 bytes) per entry (array of structures, so a hit
 * touches one or two cache lines):
 *     0 A        endpoint A address (IPv4) | IPv6 side-store slot (ipv6-store.ts)
 *     1 B        endpoint B address (IPv4) | 0
 *     2 PORTS    portA << 16 | portB (0 when the key has no ports)
 *     3 META     proto | entry flags << 8 | state << 16 | key bits << 24 (v6, no-ports, client-is-B,
 *                hot ref, in hot tier)
 *     4 RS       RS index | service index << 16
 *     5 HASH     key hash (32 bits)
 *     6 SEEN     last-seen ms (table time, table-clock.ts)
 *     7 HITS     packets that hit the entry after its creation (saturating)
 *     8 CREATED  ms
 *     9 PREV    10 NEXT   links of the entry's aging list (one LRU list per state, aging-lists.ts)
 *    11 HOT      slot in the hot tier, -1 when cold (hot-tier.ts)
 * A hit touches words 0–7 only (32 bytes). A free entry has META 0 (state FREE) and is linked
 * into the free list through its NEXT word.
 *
 * The files of the table's hot path copy these constants into module-local `const`s: Node 20's
 * optimizing compiler folds a module's own non-exported `const` into the code, but loads an
 * imported (or exported) binding from its module cell on every use.
 */
import type { SessionTableOptions } from './table-options.ts';

/** Words per entry. */
export const W = 12;
export const O_A = 0;
export const O_B = 1;
export const O_PORTS = 2;
export const O_META = 3;
export const O_RS = 4;
export const O_HASH = 5;
// The words a hit reads or writes (key, RS, last-seen, hits) come first: 32 bytes, within one
// cache line for three entries in four; creation time, LRU links and hot slot follow.
export const O_SEEN = 6;
export const O_HITS = 7;
export const O_CREATED = 8;
export const O_PREV = 9;
export const O_NEXT = 10;
export const O_HOT = 11;

/** META key bits (top byte). */
export const K_V6 = 1 << 24;
export const K_NOPORTS = 1 << 25;
export const K_CLIENT_B = 1 << 26;
export const K_REF = 1 << 27;
/** Mirror of `HOT ≥ 0` (in the hot tier), so a hit needs no read of the HOT word. */
export const K_HOT = 1 << 28;
/** Bits of META that are part of the key: protocol, family, no-ports. */
export const KEY_META = 0xff | K_V6 | K_NOPORTS;

// module-local copies for the methods below (see the module header)
const W_ = W;
const O_META_ = O_META;
const O_NEXT_ = O_NEXT;

/**
 * The entry array and its free list: `capacity` entries of W words, viewed as u32 (`d`) and
 * i32 (`di`, for the words that hold −1). Entries 0 … top−1 have been used; freed ones are
 * reused first. The base of the session table's class chain (session-table.ts).
 */
export abstract class EntryStore {
  readonly capacity: number;
  /** Live entries. */
  size = 0;
  protected readonly d: Uint32Array;
  protected readonly di: Int32Array;
  /** Head of the free list (−1: none; linked through NEXT). */
  protected freeHead = -1;
  /** Entries ever used (the high-water mark). */
  protected top = 0;

  /** @param opts checked (table-options.ts checkedOptions) */
  constructor(opts: SessionTableOptions) {
    const capacity = opts.capacity;
    this.capacity = capacity;
    const buf = new ArrayBuffer(capacity * W * 4);
    this.d = new Uint32Array(buf);
    this.di = new Int32Array(buf);
  }

  /** Takes an entry from the free list, else the next unused one (the caller checked size < capacity). */
  protected allocEntry(): number {
    const e = this.freeHead;
    if (e >= 0) {
      this.freeHead = this.di[e * W_ + O_NEXT_]!;
      return e;
    }
    return this.top++;
  }

  /** Marks entry e free (META 0) and puts it on the free list. */
  protected freeEntry(e: number): void {
    const o = e * W_;
    this.d[o + O_META_] = 0;
    this.di[o + O_NEXT_] = this.freeHead;
    this.freeHead = e;
  }

  /** Calls cb for every live entry (do not insert or remove from cb). */
  forEach(cb: (e: number) => void): void {
    const d = this.d;
    for (let e = 0; e < this.top; e++) {
      if (((d[e * W_ + O_META_]! >>> 16) & 0xff) !== 0) cb(e);
    }
  }
}
