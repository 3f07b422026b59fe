/**
 * The session table's hot tier (board/processor/tcam/session-table.ts): the entries held "on
 * chip", `hotCapacity` of them. A cold entry is promoted after `promoteAfterHits` hits; when the
 * tier is full a CLOCK hand (second chance) picks the victim to demote. Entries stay in the one
 * entry array: the tier is a ring of entry numbers, an entry's HOT word its slot in the ring,
 * and the K_HOT / K_REF bits of its META word mirror "in the tier" and "referenced since the
 * hand last passed".
 */
import * as L from './entry-layout.ts';
import { AgingLists } from './aging-lists.ts';
import type { SessionTableOptions } from './table-options.ts';

// module-local copies of the layout (entry-layout.ts explains why)
const W = L.W;
const O_META = L.O_META;
const O_HITS = L.O_HITS;
const O_HOT = L.O_HOT;
const K_REF = L.K_REF;
const K_HOT = L.K_HOT;

/** The aging entry store with the hot tier and its hit counters. */
export abstract class HotTier extends AgingLists {
  readonly hotCapacity: number;
  readonly promoteAfterHits: number;
  /** Hits on hot-tier / cold-tier entries; promotions into and demotions out of the hot tier. */
  hotHits = 0;
  coldHits = 0;
  promotions = 0;
  demotions = 0;

  private readonly hotRing: Int32Array;
  private hotCount = 0;
  private hand = 0;

  /** @param opts checked (table-options.ts checkedOptions) */
  constructor(opts: SessionTableOptions) {
    super(opts);
    const hot = opts.hotCapacity ?? 0;
    this.hotCapacity = hot;
    this.promoteAfterHits = Math.max(1, opts.promoteAfterHits ?? 8);
    this.hotRing = new Int32Array(hot);
  }

  /** Entries in the hot tier. */
  get hotSize(): number {
    return this.hotCount;
  }

  /** hotHits / (hotHits + coldHits), 0 when nothing hit yet. */
  get hotHitRatio(): number {
    const n = this.hotHits + this.coldHits;
    return n === 0 ? 0 : this.hotHits / n;
  }

  /** True when entry e is in the hot tier. */
  isHot(e: number): boolean {
    return this.di[e * W + O_HOT]! >= 0;
  }

  /** Bytes of the hot ring. */
  protected hotBytes(): number {
    return this.hotRing.byteLength;
  }

  /** Counts a packet's hit on entry e; promotes a cold entry that reached promoteAfterHits. */
  protected hit(e: number): void {
    const d = this.d;
    const o = e * W;
    const hits = d[o + O_HITS]!;
    if (hits !== 0xffffffff) d[o + O_HITS] = hits + 1;
    const meta = d[o + O_META]!;
    if ((meta & K_HOT) !== 0) {
      this.hotHits++;
      d[o + O_META] = (meta | K_REF) >>> 0;
      return;
    }
    this.coldHits++;
    if (this.hotCapacity > 0 && hits + 1 >= this.promoteAfterHits) this.promote(e);
  }

  /** Puts cold entry e into the hot tier; when the tier is full, the CLOCK hand picks a victim
   * (the first hot entry not referenced since the hand last passed) and demotes it. */
  private promote(e: number): void {
    const ring = this.hotRing;
    const d = this.d;
    let slot: number;
    if (this.hotCount < this.hotCapacity) {
      slot = this.hotCount++;
    } else {
      for (;;) {
        if (this.hand >= this.hotCount) this.hand = 0;
        const v = ring[this.hand]!;
        const vo = v * W + O_META;
        if (d[vo]! & K_REF) {
          d[vo] = (d[vo]! & ~K_REF) >>> 0;
          this.hand++;
          continue;
        }
        this.di[v * W + O_HOT] = -1;
        d[vo] = (d[vo]! & ~K_HOT) >>> 0;
        d[v * W + O_HITS] = 0;
        this.demotions++;
        slot = this.hand++;
        break;
      }
    }
    ring[slot] = e;
    this.di[e * W + O_HOT] = slot;
    d[e * W + O_META] = (d[e * W + O_META]! | K_REF | K_HOT) >>> 0;
    this.promotions++;
  }

  /** Takes hot entry e out of the tier (the last ring slot moves into its place). */
  protected hotRemove(e: number): void {
    const s = this.di[e * W + O_HOT]!;
    const last = --this.hotCount;
    if (s !== last) {
      const moved = this.hotRing[last]!;
      this.hotRing[s] = moved;
      this.di[moved * W + O_HOT] = s;
    }
    this.di[e * W + O_HOT] = -1;
    this.d[e * W + O_META] = (this.d[e * W + O_META]! & ~K_HOT) >>> 0;
  }
}
