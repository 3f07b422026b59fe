/**
 * `sh`: source hashing, as IPVS ip_vs_sh.c: a 256-bucket table filled by walking the pool in
 * order, each member taking `weight` consecutive buckets (weights first divided by their gcd),
 * cycling until all buckets are filled; the client address picks a bucket by Knuth's
 * multiplicative hash (address · 2654435761, top 8 bits, as the kernel's hash_32). Members that
 * are down are left out of the table; a member of weight 0 keeps one bucket slot but is skipped.
 * Changing the pool re-tiles the table, so most clients move — exactly the IPVS behaviour
 * `maglev` improves on.
 *
 * The two scheduler flags of ipvsadm(8) `-b`:
 * - `sh-fallback`: when the bucket's member is not available (drained or down) the next buckets
 *   are tried; without it such a client gets no RS (IPVS returns no destination). The shelf
 *   YAML's `sh` has it on unless `scheduler_flags` says otherwise (dataplane.md P8).
 * - `sh-port`: the client's source port is added to its address before hashing (IPVS adds
 *   ntohs(port) to the folded address), so the clients behind one NAT address, which differ
 *   only by port, spread over the pool instead of all landing on one RS.
 */
import type { PoolView, Scheduler } from './scheduler.ts';
import { gcd, isAvailable } from './scheduler.ts';

/** IPVS sh table size (IP_VS_SH_TAB_BITS = 8). */
export const SH_BUCKETS = 256;

/** Source-hash scheduler. */
export class SourceHashScheduler implements Scheduler {
  readonly name = 'sh' as const;
  /** Pool position per bucket, −1 = empty. */
  readonly buckets = new Int32Array(SH_BUCKETS).fill(-1);

  /**
   * @param fallback `sh-fallback`: try the next buckets when a bucket's member is unavailable
   * @param port `sh-port`: hash the source port with the address
   */
  constructor(readonly fallback = true, readonly port = false) {}

  rebuild(pool: PoolView): void {
    const members: number[] = [];
    let g = 0;
    for (let i = 0; i < pool.size; i++) {
      if (pool.up[pool.ids[i]!] !== 1) continue;
      members.push(i);
      const w = pool.weight[pool.ids[i]!]!;
      if (w > 0) g = g ? gcd(g, w) : w;
    }
    this.buckets.fill(-1);
    if (members.length === 0) return;
    let m = 0;
    let count = 0;
    for (let b = 0; b < SH_BUCKETS; b++) {
      const i = members[m]!;
      this.buckets[b] = i;
      const w = g ? pool.weight[pool.ids[i]!]! / g : 0;
      if (++count >= w) {
        m = (m + 1) % members.length;
        count = 0;
      }
    }
  }

  pick(pool: PoolView, _flowHash: number, srcHash: number, srcPort = 0): number {
    const key = this.port ? (srcHash + srcPort) >>> 0 : srcHash;
    const start = (Math.imul(key, 2654435761) >>> 0) >>> 24;
    const tries = this.fallback ? SH_BUCKETS : 1;
    for (let k = 0; k < tries; k++) {
      const i = this.buckets[(start + k) & (SH_BUCKETS - 1)]!;
      if (i >= 0 && isAvailable(pool, i)) return i;
    }
    return -1;
  }
}
