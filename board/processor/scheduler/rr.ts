/**
 * `rr`: round robin, as IPVS ip_vs_rr.c: walk the pool from the member after the last one
 * chosen and take the first available member (up, weight > 0), wrapping once around.
 */
import type { PoolView, Scheduler } from './scheduler.ts';
import { isAvailable } from './scheduler.ts';

/** Round-robin scheduler. */
export class RrScheduler implements Scheduler {
  readonly name = 'rr' as const;
  private last = -1;

  rebuild(pool: PoolView): void {
    if (this.last >= pool.size) this.last = -1;
  }

  pick(pool: PoolView): number {
    const n = pool.size;
    for (let k = 1; k <= n; k++) {
      const i = (this.last + k) % n;
      if (isAvailable(pool, i)) {
        this.last = i;
        return i;
      }
    }
    return -1;
  }
}
