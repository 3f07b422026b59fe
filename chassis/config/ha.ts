/**
 * Timing and policy of the redundant pairs (ShMC pair and processor-board buddy pairs), as the
 * shelf YAML's `ha` section gives it (parsed by chassis/config; defaults below; durations in ms).
 * Sources: docs/ha.md "Configuration"; ../shared/research/ha.md §0, §4.5, §5 (proposed parameters).
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
  // ---- Optional refinements (added by the HA core; absent = the default in HA_REFINED_DEFAULTS) ----
  /** Boot tie-break: wait this long for a present-but-unhealthy peer before going active (T_settle, ha.md §5.2), default 2000 ms. */
  settleMs?: number;
  /** Boot: a lone node (peer not PRESENT) goes active after S, default 2 × missedHeartbeats × heartbeatMs (ha.md §5.2). */
  loneSettleMs?: number;
  /** Activation cost a: from claiming ACTIVE to forwarding (commit table, GARP), default 20 ms (ha.md §5.1: a ≤ 100 ms). */
  activationMs?: number;
  /** Planned switchover: the final sync and the peer's claim must finish within this, else the active keeps the role, default 500 ms. */
  handoverTimeoutMs?: number;
  /** Heartbeat transmit jitter: each interval is shortened by a random 0..jitter fraction (BFD, RFC 5880 §6.8.7), default 0.25. */
  heartbeatJitter?: number;
  /** Session sync: an unacknowledged datagram is retransmitted after this, default 200 ms. */
  syncResendMs?: number;
  /** Session sync: resend queue length in datagrams (conntrackd FTFW ResendQueue), default 4096. Overflow forces a resync. */
  syncResendQueue?: number;
  /** Session sync: bulk/full-resync pacing, default 12 500 000 bytes/s (100 Mbit/s). */
  syncBulkBytesPerSec?: number;
  /** Session sync: a hot standby that hears nothing on the sync channel for this long turns stale (standby.ready), default 1000 ms. */
  syncStaleMs?: number;
}

/** Defaults of the optional HaConfig fields (see each field). `loneSettleMs` is derived when absent. */
export const HA_REFINED_DEFAULTS = {
  settleMs: 2000,
  activationMs: 20,
  handoverTimeoutMs: 500,
  heartbeatJitter: 0.25,
  syncResendMs: 200,
  syncResendQueue: 4096,
  syncBulkBytesPerSec: 12_500_000,
  syncStaleMs: 1000,
} as const;

/** HaConfig with every optional field filled in. */
export type ResolvedHaConfig = Required<HaConfig>;

/**
 * Fills a partial HaConfig with DEFAULT_HA and HA_REFINED_DEFAULTS (defaults spread first).
 * @throws RangeError when a duration is negative or not finite, heartbeatMs or missedHeartbeats < 1,
 *   or heartbeatJitter is outside [0, 0.5].
 */
export function resolveHaConfig(partial: Partial<HaConfig> = {}): ResolvedHaConfig {
  const base = { ...DEFAULT_HA, ...HA_REFINED_DEFAULTS, ...stripUndefined(partial) };
  const r: ResolvedHaConfig = {
    ...base,
    loneSettleMs: partial.loneSettleMs ?? 2 * base.missedHeartbeats * base.heartbeatMs,
  };
  for (const [k, v] of Object.entries(r)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`ha.${k}: must be a finite number >= 0, got ${v}`);
  }
  if (r.heartbeatMs < 1) throw new RangeError(`ha.heartbeatMs: must be >= 1 ms, got ${r.heartbeatMs}`);
  if (r.missedHeartbeats < 1) throw new RangeError(`ha.missedHeartbeats: must be >= 1, got ${r.missedHeartbeats}`);
  if (r.heartbeatJitter > 0.5) throw new RangeError(`ha.heartbeatJitter: must be in [0, 0.5], got ${r.heartbeatJitter}`);
  if (r.syncMtu < 128) throw new RangeError(`ha.syncMtu: must be >= 128 bytes, got ${r.syncMtu}`);
  return r;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
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
