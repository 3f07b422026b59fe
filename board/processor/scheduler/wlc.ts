/**
 * `wlc`: weighted least connections, as IPVS ip_vs_wlc.c (IPVS's default scheduler): the
 * available member with the smallest overhead / weight (overhead = active · 256 + inactive),
 * compared by cross-multiplication (oh_a · w_b > oh_b · w_a) so no division or rounding is
 * involved; ties go to the first in pool order. Values stay below 2^53 (1.5 M · 256 · 65535).
 */
import type { PoolView, Scheduler } from './scheduler.ts';
import { connOverhead, isAvailable } from './scheduler.ts';

/** Weighted least-connection scheduler. */
export class WlcScheduler implements Scheduler {
  readonly name = 'wlc' as const;

  rebuild(): void {}

  pick(pool: PoolView): number {
    let least = -1;
    let loh = 0;
    let lw = 0;
    for (let i = 0; i < pool.size; i++) {
      if (!isAvailable(pool, i)) continue;
      const oh = connOverhead(pool, i);
      const w = pool.weight[pool.ids[i]!]!;
      if (least < 0 || loh * w > oh * lw) {
        least = i;
        loh = oh;
        lw = w;
      }
    }
    return least;
  }
}
