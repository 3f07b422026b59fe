/**
 * Ternary (value/mask/priority) match table: the TCAM half of the processor card's classifier,
 * for ACLs, blacklists and the virtual-service (VIP wildcard) rules.
 *
 * A key is a fixed number of 32-bit words. An entry matches a key when (key & mask) == value
 * word by word; among matching entries the highest priority wins, and among equal priorities the
 * one added first (TCAM order). Capacity is fixed; adding past it throws `table_full`.
 *
 * Lookup is a tuple-space search (Srinivasan, Suri, Varghese, "Packet Classification using
 * Tuple Space Search", SIGCOMM 1999): entries are grouped by their mask, each group is an
 * open-addressing hash table of the masked values, and a lookup probes one hash table per
 * distinct mask, visiting groups in order of their best priority and stopping as soon as no
 * remaining group can beat the match in hand. Cost: O(number of distinct masks), not O(entries).
 * Lookups allocate nothing; add/remove (control plane) rebuild the affected group's hash table.
 */
import { CommandError } from '../../common/errors.ts';
import { fmix32, mix32 } from '../hash32.ts';

interface Group {
  mask: Uint32Array;
  /** Open-addressing table of entry ids + 1 (0 = empty). */
  slots: Int32Array;
  count: number;
  /** Best priority in the group: lookups skip groups that cannot beat the match in hand. */
  maxPriority: number;
  /** Live entry ids of the group. */
  ids: number[];
}

/** Thrown when a ternary table is full: a CommandError with code `table_full`. */
export class TernaryTableFullError extends CommandError {
  constructor(capacity: number) {
    super('table_full', `ternary table full: capacity ${capacity} entries`);
  }
}

/**
 * Fixed-capacity ternary table over keys of `words` 32-bit words.
 */
export class TernaryTable {
  readonly words: number;
  readonly capacity: number;
  private readonly values: Uint32Array;
  private readonly priorities: Float64Array;
  private readonly seqs: Float64Array;
  private readonly results: Int32Array;
  private readonly hashes: Int32Array;
  private readonly groupOf: Int32Array;
  private readonly used: Uint8Array;
  private freeIds: number[] = [];
  private nextId = 0;
  private seq = 0;
  private groups: Group[] = [];
  private liveCount = 0;

  /**
   * @param words key width in 32-bit words (1 … 64)
   * @param capacity maximum entries (≥ 1)
   * @throws RangeError on bad sizes
   */
  constructor(words: number, capacity: number) {
    if (!Number.isInteger(words) || words < 1 || words > 64) throw new RangeError(`ternary key width must be 1..64 words, got ${words}`);
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ternary table capacity must be ≥ 1, got ${capacity}`);
    this.words = words;
    this.capacity = capacity;
    this.values = new Uint32Array(words * capacity);
    this.priorities = new Float64Array(capacity);
    this.seqs = new Float64Array(capacity);
    this.results = new Int32Array(capacity);
    this.hashes = new Int32Array(capacity);
    this.groupOf = new Int32Array(capacity).fill(-1);
    this.used = new Uint8Array(capacity);
  }

  /** Live entries. */
  get size(): number {
    return this.liveCount;
  }

  /** Distinct masks (hash tables a lookup may probe). */
  get maskCount(): number {
    return this.groups.length;
  }

  /**
   * Adds an entry. `value` is masked on insertion (bits outside the mask are ignored).
   * @param value key words (length `words`)
   * @param mask mask words (1 = must match)
   * @param priority higher wins; equal priorities: the earlier entry wins
   * @param result the number lookup returns for this entry (e.g. a rule or service index)
   * @returns the entry id (for `remove`)
   * @throws TernaryTableFullError when the table holds `capacity` entries
   * @throws RangeError when value/mask have the wrong length
   */
  add(value: ArrayLike<number>, mask: ArrayLike<number>, priority: number, result: number): number {
    const W = this.words;
    if (value.length !== W || mask.length !== W) throw new RangeError(`ternary entry must have ${W} value and mask words`);
    if (this.liveCount >= this.capacity) throw new TernaryTableFullError(this.capacity);
    const id = this.freeIds.length ? this.freeIds.pop()! : this.nextId++;
    const m = Uint32Array.from(mask, (x) => x >>> 0);
    for (let w = 0; w < W; w++) this.values[id * W + w] = (value[w]! & m[w]!) >>> 0;
    this.priorities[id] = priority;
    this.seqs[id] = this.seq++;
    this.results[id] = result;
    this.used[id] = 1;
    let g = this.groups.findIndex((x) => sameMask(x.mask, m));
    if (g < 0) {
      this.groups.push({ mask: m, slots: new Int32Array(8), count: 0, maxPriority: -Infinity, ids: [] });
      g = this.groups.length - 1;
    }
    const grp = this.groups[g]!;
    grp.ids.push(id);
    this.hashes[id] = this.hashMasked(this.values, id * W, null);
    this.rebuildGroup(grp);
    this.liveCount++;
    this.sortGroups();
    return id;
  }

  /** Removes an entry by id. @returns false when the id is not live. */
  remove(id: number): boolean {
    if (!(id >= 0 && id < this.capacity) || !this.used[id]) return false;
    const grp = this.groups[this.groupOf[id]!]!;
    grp.ids.splice(grp.ids.indexOf(id), 1);
    this.used[id] = 0;
    this.freeIds.push(id);
    this.liveCount--;
    if (grp.ids.length === 0) this.groups.splice(this.groups.indexOf(grp), 1);
    else this.rebuildGroup(grp);
    this.sortGroups();
    return true;
  }

  /** Removes every entry. */
  clear(): void {
    this.groups = [];
    this.used.fill(0);
    this.freeIds = [];
    this.nextId = 0;
    this.liveCount = 0;
  }

  /** Result number of a live entry. */
  resultOf(id: number): number {
    return this.results[id]!;
  }

  /** Priority of a live entry. */
  priorityOf(id: number): number {
    return this.priorities[id]!;
  }

  /**
   * Finds the best entry matching `key` (length ≥ `words`; extra words ignored).
   * @returns the entry id, or −1 when nothing matches
   */
  lookup(key: ArrayLike<number>): number {
    const W = this.words;
    const vals = this.values;
    let best = -1;
    let bestPrio = -Infinity;
    let bestSeq = Infinity;
    const groups = this.groups;
    for (let gi = 0; gi < groups.length; gi++) {
      const g = groups[gi]!;
      if (g.maxPriority < bestPrio) break;
      const m = g.mask;
      let h = 0x2545f491;
      for (let w = 0; w < W; w++) h = mix32(h, (key[w]! & m[w]!) >>> 0);
      h = fmix32(h) | 0;
      const slots = g.slots;
      const smask = slots.length - 1;
      let i = h & smask;
      for (;;) {
        const v = slots[i]!;
        if (v === 0) break;
        const id = v - 1;
        if (this.hashes[id] === h) {
          let ok = true;
          const o = id * W;
          for (let w = 0; w < W; w++) {
            if (((key[w]! & m[w]!) >>> 0) !== vals[o + w]) {
              ok = false;
              break;
            }
          }
          if (ok) {
            const p = this.priorities[id]!;
            if (p > bestPrio || (p === bestPrio && this.seqs[id]! < bestSeq)) {
              best = id;
              bestPrio = p;
              bestSeq = this.seqs[id]!;
            }
          }
        }
        i = (i + 1) & smask;
      }
    }
    return best;
  }

  private hashMasked(src: ArrayLike<number>, at: number, mask: Uint32Array | null): number {
    let h = 0x2545f491;
    for (let w = 0; w < this.words; w++) h = mix32(h, mask ? (src[at + w]! & mask[w]!) >>> 0 : src[at + w]!);
    return fmix32(h) | 0;
  }

  private rebuildGroup(g: Group): void {
    let size = 8;
    while (size < g.ids.length * 2) size *= 2;
    const slots = new Int32Array(size);
    let maxP = -Infinity;
    const gi = this.groups.indexOf(g);
    for (const id of g.ids) {
      let i = this.hashes[id]! & (size - 1);
      while (slots[i] !== 0) i = (i + 1) & (size - 1);
      slots[i] = id + 1;
      this.groupOf[id] = gi;
      if (this.priorities[id]! > maxP) maxP = this.priorities[id]!;
    }
    g.slots = slots;
    g.count = g.ids.length;
    g.maxPriority = maxP;
  }

  private sortGroups(): void {
    this.groups.sort((a, b) => b.maxPriority - a.maxPriority);
    this.groups.forEach((g, gi) => {
      for (const id of g.ids) this.groupOf[id] = gi;
    });
  }
}

function sameMask(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
