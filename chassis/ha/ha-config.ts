/**
 * Timing and policy of the redundant pairs (ShMC pair and processor-board buddy pairs), as the
 * shelf YAML's `ha` section gives it (parsed by chassis/config; defaults below; durations in ms).
 * Sources: issue 6; ../shared/research/ha.md §0, §4.5, §5 (proposed parameters).
 */
export interface HaConfig {
  /** Heartbeat interval, default 100 ms. */
  heartbeatMs: number;
  /** Heartbeats missed before the peer counts as silent (N), default 3. */
  missedHeartbeats: number;
  /** IPMI watchdog initial countdown the firmware programs, default 1000 ms (10 × 100 ms units). */
  watchdogTimeoutMs: number;
  /** Watchdog pre-timeout interval, default 0 (off). */
  watchdogPretimeoutMs: number;
  /** Period at which healthy firmware kicks its watchdog, default = heartbeatMs. */
  watchdogKickMs: number;
  /** Time a reset keeps the node down before it boots again (HEALTHY low throughout), default 500 ms. */
  resetMs: number;
  /** Boot time before a node starts arbitrating, default 200 ms. */
  bootMs: number;
  /** Session sync: only sessions older than T_s are synced, default 3000 ms. */
  syncMinAgeMs: number;
  /** Session sync: a batch leaves when it fills `syncMtu` bytes or after at most B, default 100 ms. */
  syncBatchMs: number;
  /** Sync datagram size limit, default 1500 bytes. */
  syncMtu: number;
  /** Periodic full resync, default 240000 ms (4 min). */
  syncFullResyncMs: number;
  /** A stall of the whole process longer than this is a global stall (rebase HA timers, no
   * failover), default 250 ms. Wall-clock mode only. */
  globalStallMs: number;
}

export const DEFAULT_HA: Readonly<HaConfig> = {
  heartbeatMs: 100,
  missedHeartbeats: 3,
  watchdogTimeoutMs: 1000,
  watchdogPretimeoutMs: 0,
  watchdogKickMs: 100,
  resetMs: 500,
  bootMs: 200,
  syncMinAgeMs: 3000,
  syncBatchMs: 100,
  syncMtu: 1500,
  syncFullResyncMs: 240_000,
  globalStallMs: 250,
};

/** A redundant pair as the shelf YAML names it. */
export interface PairConfig {
  /** 'shmc' for the shelf-manager pair, else e.g. 'lb1'. */
  name: string;
  kind: 'shmc' | 'processor';
  /** The two members: node names ('shmc-a', 'shmc-b') or logical slots ('slot3', 'slot4').
   * For processor pairs each member is the home of one share `name/member`. */
  members: [string, string];
}
