/**
 * A session record as the payload of a synced record (the emulator's HA data model,
 * ha-board.ts): its sync key and its encoding with ages relative to the sender's clock
 * (board/processor/session-record.ts), decoded on the receiver with the creation time the sync
 * record carries. Pure.
 */
import { decodeSessionRecord, encodeSessionRecord, newSessionRecord, sessionRecordLength } from '../../board/processor/session-record.ts';
import type { SessionRecord } from '../../board/processor/session-record.ts';
import type { SyncRecord } from '../ha/sync-types.ts';

function hex(b: Uint8Array, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += (b[i]! < 16 ? '0' : '') + b[i]!.toString(16);
  return s;
}

/** The sync key of a session record (direction as the table keeps it: client first). */
export function sessionKey(r: SessionRecord): string {
  const n = r.family === 6 ? 16 : 4;
  return `${r.proto}/${hex(r.client, n)}.${r.hasPorts ? r.clientPort : '-'}/${hex(r.server, n)}.${r.hasPorts ? r.serverPort : '-'}`;
}

/** Encodes a session record as a sync payload (ages relative to `refMs`). */
export function encodePayload(r: SessionRecord, refMs: number): Uint8Array {
  const out = new Uint8Array(sessionRecordLength(r));
  encodeSessionRecord(r, out, 0, Math.max(refMs, r.createdMs, r.lastSeenMs));
  return out;
}

/**
 * Decodes a synced record's payload on the receiver; the creation time comes from the record's
 * age on the wire (exact), last-seen keeps its distance to creation. Null for a malformed payload.
 */
export function decodePayload(r: SyncRecord, now: number, into: SessionRecord = newSessionRecord()): SessionRecord | null {
  if (!r.payload) return null;
  try {
    const rec = decodeSessionRecord(r.payload, 0, now, into).value;
    const idle = Math.max(0, rec.lastSeenMs - rec.createdMs);
    rec.createdMs = r.createdAt;
    rec.lastSeenMs = r.createdAt + idle;
    return rec;
  } catch {
    return null;
  }
}
