/**
 * Why an entry left the session table (board/processor/tcam/session-table.ts): the second
 * argument of its `onRemove` hook, and the names the board's events and counters use.
 */

/** Why an entry left the table (the `onRemove` hook's second argument). */
export const RemoveReason = {
  /** Idle longer than its state's timeout (sweep or lazy reclaim). */
  EXPIRED: 0,
  /** A half-open entry evicted by a new connection on a full table. */
  EVICTED: 1,
  /** The board removed it: a new connection reused the tuple of a closing session. */
  REUSED: 2,
  /** The board removed it: its RS went down. */
  RS_DOWN: 3,
  /** Removed by `delete`/`clear` (HA delete sync, operator). */
  DELETED: 4,
} as const;
export type RemoveReasonCode = (typeof RemoveReason)[keyof typeof RemoveReason];
/** Names of the RemoveReason codes, by code. */
export const REMOVE_REASON_NAMES: readonly string[] = ['expired', 'evicted', 'reused', 'rs_down', 'deleted'];
