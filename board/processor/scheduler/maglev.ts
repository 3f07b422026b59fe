/**
 * `maglev`: consistent hashing with the Maglev lookup table (Eisenbud et al., "Maglev: A Fast
 * and Reliable Software Network Load Balancer", NSDI 2016, §3.4). For a prime table size M
 * (default 65537, the paper's), each member i has offset_i = h1(key_i) mod M and
 * skip_i = h2(key_i) mod (M − 1) + 1, giving the permutation (offset_i + j · skip_i) mod M. The
 * population loop lets each member in turn claim its next preferred empty entry until the table
 * is full; a flow then goes to entry[flowHash mod M].
 *
 * - Order independence (Envoy issue 20703, dataplane.md T5): permutations come from the member's
 *   stable key (`name@address`), never its list position, and members take turns in key order,
 *   so the same servers in any order build the same table.
 * - Weights: a member of weight w takes a turn in round r only while it holds fewer than
 *   r · w / w_max entries (equal weights reduce to the paper's loop).
 * - Only available members (up, weight > 0) are in the table; removing one changes about 1/N of
 *   the entries plus a little collateral (the paper's "minimal disruption").
 */
import type { PoolView, Scheduler } from './scheduler.ts';
import { isAvailable } from './scheduler.ts';
import { hashString } from '../hash32.ts';

/** Default table size (prime), as the paper's evaluation and Envoy/Katran. */
export const MAGLEV_DEFAULT_M = 65537;

/** True when n is prime (trial division; table sizes are small). */
export function isPrime(n: number): boolean {
  if (!Number.isInteger(n) || n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

/** Maglev consistent-hash scheduler. */
export class MaglevScheduler implements Scheduler {
  readonly name = 'maglev' as const;
  readonly size: number;
  /** Pool position per table entry, −1 when the pool has no available member. */
  readonly table: Int32Array;

  /** @throws RangeError when the table size is not a prime ≥ 3 */
  constructor(size = MAGLEV_DEFAULT_M) {
    if (!isPrime(size) || size < 3) throw new RangeError(`maglev table size must be a prime ≥ 3, got ${size}`);
    this.size = size;
    this.table = new Int32Array(size).fill(-1);
  }

  rebuild(pool: PoolView): void {
    const M = this.size;
    const members: number[] = [];
    for (let i = 0; i < pool.size; i++) if (isAvailable(pool, i)) members.push(i);
    members.sort((a, b) => (pool.keys[a]! < pool.keys[b]! ? -1 : pool.keys[a]! > pool.keys[b]! ? 1 : a - b));
    const t = this.table;
    t.fill(-1);
    const n = members.length;
    if (n === 0) return;
    const offset = new Float64Array(n);
    const skip = new Float64Array(n);
    const next = new Float64Array(n);
    const held = new Float64Array(n);
    const w = new Float64Array(n);
    let wmax = 0;
    for (let k = 0; k < n; k++) {
      const key = pool.keys[members[k]!]!;
      offset[k] = hashString(key, 0x4d61676c) % M;
      skip[k] = (hashString(key, 0x65762d32) % (M - 1)) + 1;
      w[k] = pool.weight[pool.ids[members[k]!]!]!;
      if (w[k]! > wmax) wmax = w[k]!;
    }
    let filled = 0;
    for (let round = 1; filled < M; round++) {
      for (let k = 0; k < n && filled < M; k++) {
        if (held[k]! >= (round * w[k]!) / wmax) continue;
        let c = (offset[k]! + next[k]! * skip[k]!) % M;
        while (t[c] !== -1) {
          next[k]!++;
          c = (offset[k]! + next[k]! * skip[k]!) % M;
        }
        t[c] = members[k]!;
        next[k]!++;
        held[k]!++;
        filled++;
      }
    }
  }

  pick(_pool: PoolView, flowHash: number): number {
    return this.table[(flowHash >>> 0) % this.size]!;
  }
}
