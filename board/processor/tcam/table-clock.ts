/**
 * The session table's clock (board/processor/tcam/session-table.ts).
 *
 * Callers pass `now` in ms (any origin: simulated, performance.now or capture time). The table
 * keeps u32 ms relative to the first `now` it sees (plus a 2^31 bias so imported sessions older
 * than the table still fit), never goes backwards (a `now` older than the newest seen is taken as
 * the newest), and rebases itself before the u32 range runs out.
 */
import * as L from './entry-layout.ts';
import { EntryStore } from './entry-layout.ts';

// module-local copies of the layout (entry-layout.ts explains why)
const W = L.W;
const O_META = L.O_META;
const O_SEEN = L.O_SEEN;
const O_CREATED = L.O_CREATED;

const BIAS = 2 ** 31;
const REBASE_AT = 0xc000_0000;

/** The entry store with the table's time base: caller ms ↔ table time (u32 ms). */
export abstract class TableClock extends EntryStore {
  /** Caller ms of table time BIAS (NaN until the first `now`). */
  private base = Number.NaN;
  /** The newest table time seen. */
  protected tnow = 0;
  /** The `now` that last advanced tnow (time() of the same `now` again returns tnow at once). */
  private lastIn = Number.NaN;

  /** Table time (u32 ms) for a caller's `now`; monotonic. */
  protected time(now: number): number {
    // Most packets share their millisecond with the one before: nothing to recompute.
    if (now === this.lastIn) return this.tnow;
    if (!Number.isFinite(now)) return this.tnow;
    if (Number.isNaN(this.base)) {
      this.base = Math.floor(now);
      this.tnow = BIAS;
    }
    const r = Math.floor(now - this.base) + BIAS;
    if (!(r > this.tnow)) return this.tnow;
    if (r >= REBASE_AT) return this.rebase(r);
    this.tnow = r;
    this.lastIn = now;
    return r;
  }

  /** Moves the time origin forward so table time `r` becomes BIAS again: entries keep their
   * distance to the present, clamped at 0 (already long expired). O(entries), once per ~12 days
   * of table time or per big forward jump of a capture's clock. */
  private rebase(r: number): number {
    const shift = r - BIAS;
    this.base += shift;
    const d = this.d;
    for (let e = 0; e < this.top; e++) {
      const o = e * W;
      if (((d[o + O_META]! >>> 16) & 0xff) === 0) continue;
      d[o + O_CREATED] = Math.max(0, d[o + O_CREATED]! - shift);
      d[o + O_SEEN] = Math.max(0, d[o + O_SEEN]! - shift);
    }
    this.tnow = BIAS;
    return BIAS;
  }

  /** Caller ms for a table time. */
  protected absolute(t: number): number {
    return this.base + t - BIAS;
  }

  /** Table time for an absolute caller time without advancing the clock (imports). */
  protected relative(ms: number): number {
    if (Number.isNaN(this.base)) this.time(ms);
    const r = Math.floor(ms - this.base) + BIAS;
    return r < 0 ? 0 : r > this.tnow ? this.tnow : r;
  }
}
