/**
 * Options of the session table (board/processor/tcam/session-table.ts) and their check; every
 * layer of the table's class chain reads the part it sizes from the checked options.
 */
import type { TimeoutConfig } from '../processor-config.ts';

/** Largest supported capacity (the index word needs 5 distance bits beside the entry number,
 * session-index.ts). */
export const MAX_SESSION_CAPACITY = 1 << 26;

/** Options of a SessionTable. */
export interface SessionTableOptions {
  /** Maximum number of entries (1 … 2^26). The board default is 1,500,000. */
  capacity: number;
  /** Entries in the hot (on-chip) tier, default 0 (no tier). */
  hotCapacity?: number;
  /** Hits after which a cold entry is promoted to the hot tier, default 8. */
  promoteAfterHits?: number;
  /** Idle timeouts by state (ms); defaults DEFAULT_TIMEOUTS. */
  timeouts?: Partial<TimeoutConfig>;
  /** Hash seed; the same seed gives the same flow hashes on every board. Default 0x9e3779b9. */
  seed?: number;
  /** Size of the per-RS connection counters (RS indexes 0 … n−1), default 65536. */
  maxRealServers?: number;
}

/**
 * Returns `opts` after checking the sizes every layer relies on.
 * @throws RangeError when capacity is not an integer in 1 … 2^26, or hotCapacity > capacity.
 */
export function checkedOptions(opts: SessionTableOptions): SessionTableOptions {
  const cap = opts.capacity;
  if (!Number.isInteger(cap) || cap < 1 || cap > MAX_SESSION_CAPACITY) {
    throw new RangeError(`session table capacity must be an integer in 1..${MAX_SESSION_CAPACITY}, got ${cap}`);
  }
  const hot = opts.hotCapacity ?? 0;
  if (!Number.isInteger(hot) || hot < 0 || hot > cap) {
    throw new RangeError(`hot tier capacity must be an integer in 0..${cap}, got ${hot}`);
  }
  return opts;
}
