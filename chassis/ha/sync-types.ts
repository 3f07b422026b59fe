/**
 * Session sync of one share, active → standby: the types both ends share — the ports to the
 * share's session table (SessionSource on the owner, SessionSink on the standby), the datagram as
 * it travels, the tunables and the counters. The design is described in sync-sender.ts; the wire
 * format in sync-codec.ts. Sizes in bytes, times in ms.
 */

/** One synced record; opaque to the sync engine except for these fields. */
export interface SyncRecord {
  /** Unique within the share (e.g. canonical 5-tuple bytes in hex, or a cohort id). 1..255 bytes UTF-8. */
  key: string;
  /** Creation time on the source's monotonic clock, ms. */
  createdAt: number;
  /** Sessions the record stands for: 1 for a real session table, n for a cohort of the count model. */
  sessions: number;
  /** Payload bytes on the wire (payload.length when a payload is present). 0..65535. */
  size: number;
  /** Opaque payload (the processor board's session codec); absent in the count model (zeros are sent). */
  payload?: Uint8Array;
}

/** The active side's view of the share's session table. */
export interface SessionSource {
  /** Live records created in (after, upTo], oldest first. */
  createdBetween(after: number, upTo: number): Iterable<SyncRecord>;
  /** Every live record, oldest first (bulk, full resync, final sync). */
  all(): Iterable<SyncRecord>;
  /** Records that ended (closed, expired) since the last call. */
  drainEnded(): Iterable<{ key: string; createdAt: number; sessions: number }>;
}

/** The standby side's table for the share (the processor board's standby table plugs in here). */
export interface SessionSink {
  /** Inserts or refreshes records; `createdAt` is already on the receiver's clock. */
  upsert(records: readonly SyncRecord[]): void;
  remove(keys: readonly string[]): void;
  /** Keys currently held (for the sweep at the end of a full resync). */
  keys(): Iterable<string>;
  clear(): void;
}

/** Datagram kinds. */
export const SYNC_KINDS = ['update', 'delete', 'resync-begin', 'resync-end', 'final', 'idle', 'ack', 'nack'] as const;
export type SyncKind = (typeof SYNC_KINDS)[number];

/** A record as it travels: age instead of creation time (clocks differ between nodes). */
export interface WireRecord {
  key: string;
  /** Age at send time, ms (u32). */
  ageMs: number;
  sessions: number;
  size: number;
  payload?: Uint8Array;
}

/** One sync datagram. */
export interface SyncDatagram {
  kind: SyncKind;
  /** Sender's major software version (schema). */
  schema: number;
  epoch: number;
  /** Sender's stream id (new per activation). */
  stream: number;
  /** Data kinds: this datagram's sequence; idle: last sequence sent; ack: cumulative; nack: first missing. */
  seq: number;
  /** resync-begin/-end: generation number. */
  gen?: number;
  /** resync-begin: a restart point (receiver resets its expected sequence). */
  restart?: boolean;
  /** ack: the receiver holds a complete base (a finished full generation). */
  hasBase?: boolean;
  records?: WireRecord[];
  keys?: string[];
}

/** Sync tunables (from ResolvedHaConfig). */
export interface SyncTiming {
  syncMinAgeMs: number;
  syncBatchMs: number;
  syncMtu: number;
  syncFullResyncMs: number;
  syncResendMs: number;
  syncResendQueue: number;
  syncBulkBytesPerSec: number;
  syncStaleMs: number;
}

/** Counters of a sender (bytes include the sync header, not IP/UDP). */
export interface SyncSenderStats {
  datagrams: number;
  bytes: number;
  /** Records and sessions sent incrementally (age-filtered). */
  incrementalRecords: number;
  incrementalSessions: number;
  /** Records and sessions sent in bulk / periodic full resyncs. */
  bulkRecords: number;
  bulkSessions: number;
  /** Records and sessions sent by final syncs (young ones included). */
  finalRecords: number;
  finalSessions: number;
  deletes: number;
  retransmits: number;
  /** Datagrams dropped from a full resend queue. */
  queueOverflows: number;
  bulks: number;
  fullResyncs: number;
  /** Records that ended before they were old enough to be sent (saved by the age filter). */
  filteredRecords: number;
  filteredSessions: number;
}

/** Zeroed sync sender counters. */
export function emptySyncStats(): SyncSenderStats {
  return {
    datagrams: 0, bytes: 0, incrementalRecords: 0, incrementalSessions: 0, bulkRecords: 0, bulkSessions: 0, finalRecords: 0,
    finalSessions: 0, deletes: 0, retransmits: 0, queueOverflows: 0, bulks: 0, fullResyncs: 0, filteredRecords: 0, filteredSessions: 0,
  };
}

/** Adds the counters `s` into `into`. */
export function addSyncStats(into: SyncSenderStats, s: SyncSenderStats): void {
  for (const k of Object.keys(into) as Array<keyof SyncSenderStats>) into[k] += s[k];
}

/** Counters of a receiver. */
export interface SyncReceiverStats {
  datagrams: number;
  applied: number;
  duplicates: number;
  outOfOrder: number;
  nacks: number;
  acks: number;
  ignoredEpoch: number;
  ignoredSchema: number;
  records: number;
  deletes: number;
  swept: number;
  bulksCompleted: number;
}
