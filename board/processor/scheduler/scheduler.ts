/**
 * The Scheduler contract: picks the RS of a new connection among a service's pool. One algorithm
 * per file in this folder (rr, wrr, lc, wlc, source-hash, maglev, dynamic); `createScheduler`
 * (scheduler/index.ts) builds one by its configuration name.
 *
 * Schedulers read the pool through a PoolView over the board's typed arrays, indexed by the
 * board-wide RS id: effective weight (0 = drain), health, and IPVS's active/inactive connection
 * counters. A pool member is *available* for new connections when it is up and its weight > 0;
 * existing sessions are pinned by the session table and never go through a scheduler.
 */
import type { SchedulerName } from '../processor-config.ts';

/** A service's pool as schedulers see it. */
export interface PoolView {
  /** Members in configuration order. */
  readonly size: number;
  /** Board-wide RS id per pool position. */
  readonly ids: Int32Array;
  /** Stable identity per pool position (`name@address`), for order-independent hashing. */
  readonly keys: readonly string[];
  /** Effective weight by RS id (the configured weight, or the load-score weight for `dynamic`). */
  readonly weight: Int32Array;
  /** 1 = health checks say up, by RS id. */
  readonly up: Uint8Array;
  /** IPVS connection counters by RS id: active = ESTABLISHED TCP, inactive = every other state. */
  readonly active: Int32Array;
  readonly inactive: Int32Array;
}

/** True when pool position i may take new connections (up and weight > 0). */
export function isAvailable(pool: PoolView, i: number): boolean {
  const id = pool.ids[i]!;
  return pool.up[id] === 1 && pool.weight[id]! > 0;
}

/** IPVS's connection overhead of an RS: active · 256 + inactive (ip_vs_dest_conn_overhead). */
export function connOverhead(pool: PoolView, i: number): number {
  const id = pool.ids[i]!;
  return pool.active[id]! * 256 + pool.inactive[id]!;
}

/** A scheduling algorithm instance bound to one service. */
export interface Scheduler {
  readonly name: SchedulerName;
  /** Recomputes internal state after the pool's membership, weights or health changed. */
  rebuild(pool: PoolView): void;
  /**
   * Picks the pool position of a new connection's RS, or −1 when no member is available.
   * @param flowHash the conversation's hash (direction-insensitive 5-tuple hash, u32)
   * @param srcHash hash of the client address alone (u32)
   * @param srcPort the client's source port (0 for packets without ports); only `sh` with
   *   `sh-port` reads it
   */
  pick(pool: PoolView, flowHash: number, srcHash: number, srcPort?: number): number;
}

/** Greatest common divisor of two non-negative integers. */
export function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
