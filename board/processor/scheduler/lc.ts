/**
 * `lc`: least connections, as IPVS ip_vs_lc.c: the available member with the smallest
 * overhead = active · 256 + inactive; ties go to the first in pool order.
 */
import type { PoolView, Scheduler } from './scheduler.ts';
import { connOverhead, isAvailable } from './scheduler.ts';

/** Least-connection scheduler. */
export class LcScheduler implements Scheduler {
  readonly name = 'lc' as const;

  rebuild(): void {}

  pick(pool: PoolView): number {
    let best = -1;
    let bestOh = Infinity;
    for (let i = 0; i < pool.size; i++) {
      if (!isAvailable(pool, i)) continue;
      const oh = connOverhead(pool, i);
      if (oh < bestOh) {
        best = i;
        bestOh = oh;
      }
    }
    return best;
  }
}
