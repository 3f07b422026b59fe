/**
 * Codecs for the RMCP+ session-setup payloads (IPMI v2.0 §13.17–§13.23): Open Session
 * Request/Response and RAKP Messages 1–4. Multi-byte fields little-endian.
 *
 *   Open Session Request (32):  tag | max priv | 00 00 | console SID | auth(8) | integrity(8) | conf(8)
 *     algorithm payload (8):    type | 00 00 | length (08h, or 00h = "any") | alg | 00 00 00
 *   Open Session Response (36): tag | status | max priv | 00 | console SID | BMC SID | auth | integrity | conf
 *                               (8 bytes — up to the console SID — when status != 0)
 *   RAKP1 (28+n):  tag | 00 00 00 | BMC SID | Rm(16) | role | 00 00 | name len | name
 *   RAKP2 (40+h):  tag | status | 00 00 | console SID | Rc(16) | GUIDc(16) | auth code
 *   RAKP3 (8+h):   tag | status | 00 00 | BMC SID | auth code
 *   RAKP4 (8+i):   tag | status | 00 00 | console SID | ICV
 * Observed bytes: research ../shared/research/ipmi.md §A.3.
 */
import { DecodeError } from '../../board/common/errors.ts';

/** One algorithm proposal; `alg` undefined means "wildcard" (payload length 00h). */
export interface AlgorithmProposal {
  alg: number | undefined;
}

/** A decoded Open Session Request. */
export interface OpenSessionRequest {
  tag: number;
  /** Requested maximum privilege (b3:0); 0 = "highest level matching the proposed algorithms". */
  maxPrivilege: number;
  consoleSid: number;
  auth: AlgorithmProposal;
  integrity: AlgorithmProposal;
  conf: AlgorithmProposal;
}

function u32(buf: Uint8Array, p: number): number {
  return (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0;
}

function put32(buf: Uint8Array, p: number, v: number): void {
  buf[p] = v & 0xff;
  buf[p + 1] = (v >>> 8) & 0xff;
  buf[p + 2] = (v >>> 16) & 0xff;
  buf[p + 3] = (v >>> 24) & 0xff;
}

function decodeProposal(buf: Uint8Array, p: number, type: number, field: string): AlgorithmProposal {
  if (buf[p] !== type) throw new DecodeError('rakp', field, p, `payload type ${buf[p]}, expected ${type}`);
  const len = buf[p + 3]!;
  if (len === 0) return { alg: undefined };
  if (len !== 8) throw new DecodeError('rakp', field, p + 3, `payload length ${len}, expected 8`);
  return { alg: buf[p + 4]! & 0x3f };
}

/**
 * Decodes an Open Session Request.
 * @throws DecodeError('rakp', …) when the length is not 32 or a proposal is malformed
 */
export function decodeOpenSessionRequest(buf: Uint8Array): OpenSessionRequest {
  if (buf.length !== 32) throw new DecodeError('rakp', 'open_session_length', 0, `length ${buf.length}, expected 32`);
  return {
    tag: buf[0]!,
    maxPrivilege: buf[1]! & 0x0f,
    consoleSid: u32(buf, 4),
    auth: decodeProposal(buf, 8, 0, 'auth_payload'),
    integrity: decodeProposal(buf, 16, 1, 'integrity_payload'),
    conf: decodeProposal(buf, 24, 2, 'conf_payload'),
  };
}

/** Encodes an Open Session Request (tests and clients). */
export function encodeOpenSessionRequest(r: { tag: number; maxPrivilege: number; consoleSid: number; auth: number; integrity: number; conf: number }): Uint8Array {
  const b = new Uint8Array(32);
  b[0] = r.tag;
  b[1] = r.maxPrivilege;
  put32(b, 4, r.consoleSid);
  [r.auth, r.integrity, r.conf].forEach((alg, i) => {
    b[8 + i * 8] = i;
    b[8 + i * 8 + 3] = 8;
    b[8 + i * 8 + 4] = alg;
  });
  return b;
}

/** Fields of an Open Session Response. */
export interface OpenSessionResponse {
  tag: number;
  status: number;
  maxPrivilege: number;
  consoleSid: number;
  /** Present when status is 0. */
  bmcSid?: number;
  auth?: number;
  integrity?: number;
  conf?: number;
}

/** Encodes an Open Session Response: 36 bytes on success, 8 bytes on error. */
export function encodeOpenSessionResponse(r: OpenSessionResponse): Uint8Array {
  const ok = r.status === 0 && r.bmcSid !== undefined;
  const b = new Uint8Array(ok ? 36 : 8);
  b[0] = r.tag;
  b[1] = r.status;
  b[2] = ok ? r.maxPrivilege : 0;
  put32(b, 4, r.consoleSid);
  if (ok) {
    put32(b, 8, r.bmcSid!);
    [r.auth ?? 0, r.integrity ?? 0, r.conf ?? 0].forEach((alg, i) => {
      b[12 + i * 8] = i;
      b[12 + i * 8 + 3] = 8;
      b[12 + i * 8 + 4] = alg;
    });
  }
  return b;
}

/** Decodes an Open Session Response. @throws DecodeError('rakp', …) when shorter than 8 (or 36 on success) */
export function decodeOpenSessionResponse(buf: Uint8Array): OpenSessionResponse {
  if (buf.length < 8) throw new DecodeError('rakp', 'open_session_response', 0, `length ${buf.length}`);
  const r: OpenSessionResponse = { tag: buf[0]!, status: buf[1]!, maxPrivilege: buf[2]! & 0x0f, consoleSid: u32(buf, 4) };
  if (r.status === 0) {
    if (buf.length < 36) throw new DecodeError('rakp', 'open_session_response', 8, `length ${buf.length}, expected 36`);
    r.bmcSid = u32(buf, 8);
    r.auth = buf[16]! & 0x3f;
    r.integrity = buf[24]! & 0x3f;
    r.conf = buf[32]! & 0x3f;
  }
  return r;
}

/** A decoded RAKP Message 1. */
export interface Rakp1 {
  tag: number;
  bmcSid: number;
  consoleRandom: Uint8Array;
  /** Role byte as sent: b3:0 requested privilege, b4 name-only lookup. */
  role: number;
  userName: Uint8Array;
}

/**
 * Decodes RAKP Message 1 (copies the random and the name).
 * @throws DecodeError('rakp', …) when shorter than 28 bytes or the name length does not match
 */
export function decodeRakp1(buf: Uint8Array): Rakp1 {
  if (buf.length < 28) throw new DecodeError('rakp', 'rakp1_length', 0, `length ${buf.length}, need 28`);
  const n = buf[27]!;
  if (buf.length !== 28 + n) throw new DecodeError('rakp', 'rakp1_name_length', 27, `name length ${n}, ${buf.length - 28} bytes follow`);
  return { tag: buf[0]!, bmcSid: u32(buf, 4), consoleRandom: buf.slice(8, 24), role: buf[24]!, userName: buf.slice(28) };
}

/** Encodes RAKP Message 1 (tests and clients). */
export function encodeRakp1(r: Rakp1): Uint8Array {
  const b = new Uint8Array(28 + r.userName.length);
  b[0] = r.tag;
  put32(b, 4, r.bmcSid);
  b.set(r.consoleRandom.subarray(0, 16), 8);
  b[24] = r.role;
  b[27] = r.userName.length;
  b.set(r.userName, 28);
  return b;
}

/** RAKP Message 2 fields. On error only tag/status/consoleSid are sent (8 bytes). */
export interface Rakp2 {
  tag: number;
  status: number;
  consoleSid: number;
  bmcRandom?: Uint8Array;
  bmcGuid?: Uint8Array;
  authCode?: Uint8Array;
}

/** Encodes RAKP Message 2 (40 + auth code bytes on success, 8 on error — no auth code, research §S8). */
export function encodeRakp2(r: Rakp2): Uint8Array {
  const ok = r.status === 0;
  const code = ok ? (r.authCode ?? new Uint8Array(0)) : new Uint8Array(0);
  const b = new Uint8Array(ok ? 40 + code.length : 8);
  b[0] = r.tag;
  b[1] = r.status;
  put32(b, 4, r.consoleSid);
  if (ok) {
    b.set(r.bmcRandom!.subarray(0, 16), 8);
    b.set(r.bmcGuid!.subarray(0, 16), 24);
    b.set(code, 40);
  }
  return b;
}

/** Decodes RAKP Message 2. @throws DecodeError('rakp', …) when truncated */
export function decodeRakp2(buf: Uint8Array): Rakp2 {
  if (buf.length < 8) throw new DecodeError('rakp', 'rakp2_length', 0, `length ${buf.length}`);
  const r: Rakp2 = { tag: buf[0]!, status: buf[1]!, consoleSid: u32(buf, 4) };
  if (r.status === 0) {
    if (buf.length < 40) throw new DecodeError('rakp', 'rakp2_length', 8, `length ${buf.length}, need 40`);
    r.bmcRandom = buf.slice(8, 24);
    r.bmcGuid = buf.slice(24, 40);
    r.authCode = buf.slice(40);
  }
  return r;
}

/** RAKP Message 3 / 4 share a shape: tag, status, session ID, then a code. */
export interface RakpShort {
  tag: number;
  status: number;
  /** RAKP3: the BMC's session ID; RAKP4: the console's. */
  sessionId: number;
  code: Uint8Array;
}

/** Decodes RAKP Message 3 or 4 (copies the code). @throws DecodeError('rakp', …) when shorter than 8 bytes */
export function decodeRakpShort(buf: Uint8Array): RakpShort {
  if (buf.length < 8) throw new DecodeError('rakp', 'rakp3_length', 0, `length ${buf.length}, need 8`);
  return { tag: buf[0]!, status: buf[1]!, sessionId: u32(buf, 4), code: buf.slice(8) };
}

/** Encodes RAKP Message 3 or 4; the code is omitted when status != 0. */
export function encodeRakpShort(r: RakpShort): Uint8Array {
  const code = r.status === 0 ? r.code : new Uint8Array(0);
  const b = new Uint8Array(8 + code.length);
  b[0] = r.tag;
  b[1] = r.status;
  put32(b, 4, r.sessionId);
  b.set(code, 8);
  return b;
}
