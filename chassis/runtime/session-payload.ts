/**
 * A session record as the payload of a synced record (the emulator's HA data model,
 * ha-board.ts): its sync key and its encoding with ages relative to the sender's clock
 * (board/processor/session-record.ts), decoded on the receiver with the creation time the sync
 * record carries. Pure.
 *
 * Payload layout: the session record (28 bytes IPv4, 52 IPv6), then — for a connection the live
 * path translates (`nat`, `fullnat`; board/processor/forwarding/translation.ts) — its local binding
 * (`encodeLocalBinding`: u8 mode, u16 local port, 4|16 bytes local address; 7 or 19 bytes), so the
 * buddy translates the connection identically after a takeover: same RS, same local address and
 * port under `fullnat`. A payload of the record's length alone carries no binding (a `tunnel`
 * session, or a shelf without a live path).
 */
import { decodeLocalBinding, encodeLocalBinding, localBindingLength, newTranslation } from '../../board/processor/forwarding/translation.ts';
import type { Translation } from '../../board/processor/forwarding/translation.ts';
import { decodeSessionRecord, encodeSessionRecord, newSessionRecord, sessionRecordLength } from '../../board/processor/session-record.ts';
import type { SessionRecord } from '../../board/processor/session-record.ts';
import type { SyncRecord } from '../ha/sync-types.ts';

/**
 * The live path's translations (chassis/dataplane/live/live-path.ts implements it): what a session
 * is translated with on a board (its sync payload carries it) and how a board that took the
 * session over adopts it. Absent without a live path: sessions sync without bindings.
 */
export interface SessionBindings {
  /** The translation board `slot` applies to `rec` (nat/fullnat), or null. */
  bindingOf(slot: number, rec: SessionRecord): Translation | null;
  /** Board `slot` took `rec` over with the synced `binding`: translate it identically. */
  adopt(slot: number, rec: SessionRecord, binding: Translation): boolean;
}

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

/**
 * Encodes a session record as a sync payload (ages relative to `refMs`), with the connection's
 * local binding when `binding` is given (its family must be the record's).
 * @throws RangeError on a record field out of range or a binding of another family
 */
export function encodePayload(r: SessionRecord, refMs: number, binding: Translation | null = null): Uint8Array {
  const n = sessionRecordLength(r);
  if (binding !== null && binding.family !== r.family) throw new RangeError(`session payload: binding of family ${binding.family} on an IPv${r.family} record`);
  const out = new Uint8Array(n + (binding !== null ? localBindingLength(r.family) : 0));
  encodeSessionRecord(r, out, 0, Math.max(refMs, r.createdMs, r.lastSeenMs));
  if (binding !== null) encodeLocalBinding(binding, out, n);
  return out;
}

/**
 * The local binding a payload carries (mode, local address and port), or null when it carries
 * none or it is malformed. The translation's other fields are left zero: the receiver fills client,
 * VIP and their ports from the record, the RS from its configuration.
 */
export function payloadBinding(payload: Uint8Array): Translation | null {
  if (payload.length < 1) return null;
  const family = (payload[0]! & 0x80) !== 0 ? 6 : 4;
  const n = sessionRecordLength({ family });
  if (payload.length !== n + localBindingLength(family)) return null;
  const t = newTranslation('dr', family);
  try {
    decodeLocalBinding(payload, n, t);
  } catch {
    return null;
  }
  return t;
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
