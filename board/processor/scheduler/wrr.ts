/**
 * `wrr`: interleaved weighted round robin, as IPVS ip_vs_wrr.c (LVS "Weighted Round-Robin
 * Scheduling"): with di = gcd of the weights, mw = max weight − (di − 1) and a current weight cw
 * starting at mw, walk the pool from the member after the last pick; take the first available
 * member with weight ≥ cw; at the end of each pass lower cw by di, and when it reaches 0 start
 * again from mw. A member of weight w is picked w/di times per cycle of Σw/di picks, interleaved:
 * weights 4:3:2 give A A B A B C A B C, then again.
 * Members that are down are skipped as IPVS skips overloaded ones; weight 0 is never ≥ cw.
 */
import type { PoolView, Scheduler } from './scheduler.ts';
import { gcd, isAvailable } from './scheduler.ts';

/** Interleaved weighted round-robin scheduler. */
export class WrrScheduler implements Scheduler {
  readonly name: 'wrr' | 'dynamic' = 'wrr';
  /** Pool position of the last pick (−1 = list head). */
  private cl = -1;
  private cw = 0;
  private mw = 0;
  private di = 1;

  rebuild(pool: PoolView): void {
    let g = 0;
    let max = 0;
    for (let i = 0; i < pool.size; i++) {
      if (!isAvailable(pool, i)) continue;
      const w = pool.weight[pool.ids[i]!]!;
      g = g ? gcd(w, g) : w;
      if (w > max) max = w;
    }
    this.di = g || 1;
    this.mw = max - (this.di - 1);
    if (this.cl >= pool.size) this.cl = -1;
    // As ip_vs_wrr_dest_changed: keep cw when still valid, else restart the cycle.
    if (this.cw > this.mw || this.cw <= 0) this.cw = this.mw;
    else if (this.di > 1) this.cw = Math.floor(this.cw / this.di) * this.di + 1;
  }

  pick(pool: PoolView): number {
    if (this.mw <= 0) return -1;
    const n = pool.size;
    // Every pass lowers cw by di until it restarts at mw; a member with the max weight is
    // available, so the pass with cw = mw always finds one: at most mw/di + 1 passes.
    for (let pass = 0; pass <= this.mw / this.di + 1; pass++) {
      for (let i = this.cl + 1; i < n; i++) {
        if (isAvailable(pool, i) && pool.weight[pool.ids[i]!]! >= this.cw) {
          this.cl = i;
          return i;
        }
      }
      this.cl = -1;
      this.cw -= this.di;
      if (this.cw <= 0) this.cw = this.mw;
    }
    return -1;
  }
}
