/**
 * IPMI 1.5 session wrapper (IPMI v2.0 §13.6, Table 13-8) and its MD5 authentication code
 * (§22.17.1). Multi-byte fields little-endian.
 *
 *   after the RMCP header:
 *   authtype(1) | session seq(4) | session ID(4) | [authcode(16) if authtype != 0] | msg len(1) | IPMI msg
 *
 *   MD5 authcode = MD5(pw16 ‖ session ID ‖ IPMI msg ‖ session seq ‖ pw16), pw16 = the password
 *   zero-padded to 16 bytes (research ../shared/research/ipmi.md §A.1).
 */
import { createHash } from 'node:crypto';
import { DecodeError } from '../../board/common/errors.ts';
import { AuthType } from './codes.ts';
import { RMCP_HEADER_LENGTH, RmcpClass, encodeRmcpHeader } from './rmcp.ts';

/** A decoded IPMI 1.5 session packet. */
export interface Session15Packet {
  authType: number;
  /** Session sequence number (u32). */
  sequence: number;
  /** Session ID (u32); 0 outside a session. */
  sessionId: number;
  /** The 16-byte auth code (view) when authType != 0, else undefined. */
  authCode: Uint8Array | undefined;
  /** The IPMI message (view), exactly `msg len` bytes. */
  message: Uint8Array;
}

/**
 * Decodes the 1.5 wrapper that follows the RMCP header.
 * @throws DecodeError('ipmi15', …) on a truncated header, an unknown auth type, or a length byte
 * that does not match the datagram (a trailing pad byte is tolerated, as some clients send one).
 */
export function decodeSession15(buf: Uint8Array, offset = RMCP_HEADER_LENGTH): Session15Packet {
  let p = offset;
  if (buf.length < p + 10) throw new DecodeError('ipmi15', 'header', p, `need 10 bytes, have ${Math.max(0, buf.length - p)}`);
  const authType = buf[p]!;
  if (authType !== AuthType.None && authType !== AuthType.Md2 && authType !== AuthType.Md5 && authType !== AuthType.Password && authType !== AuthType.Oem) {
    throw new DecodeError('ipmi15', 'authtype', p, `unknown auth type ${authType}`);
  }
  p += 1;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const sequence = dv.getUint32(p, true);
  const sessionId = dv.getUint32(p + 4, true);
  p += 8;
  let authCode: Uint8Array | undefined;
  if (authType !== AuthType.None) {
    if (buf.length < p + 17) throw new DecodeError('ipmi15', 'authcode', p, 'truncated auth code');
    authCode = buf.subarray(p, p + 16);
    p += 16;
  }
  const len = buf[p]!;
  p += 1;
  const rest = buf.length - p;
  if (len > rest || rest > len + 1) throw new DecodeError('ipmi15', 'msg_len', p - 1, `length byte ${len}, ${rest} bytes follow`);
  return { authType, sequence, sessionId, authCode, message: buf.subarray(p, p + len) };
}

/** Password zero-padded (or cut) to `n` bytes. */
export function padPassword(password: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  out.set(password.subarray(0, n));
  return out;
}

/** MD5 auth code of one 1.5 packet (IPMI v2.0 §22.17.1). @param password raw bytes (≤ 16 used) */
export function md5AuthCode(password: Uint8Array, sessionId: number, message: Uint8Array, sequence: number): Uint8Array {
  const pw = padPassword(password, 16);
  const sid = new Uint8Array(4);
  new DataView(sid.buffer).setUint32(0, sessionId >>> 0, true);
  const seq = new Uint8Array(4);
  new DataView(seq.buffer).setUint32(0, sequence >>> 0, true);
  return new Uint8Array(createHash('md5').update(pw).update(sid).update(message).update(seq).update(pw).digest());
}

/**
 * Encodes a complete 1.5 datagram (RMCP header included). With `password` and authType MD5 the
 * auth code is computed; with authType NONE no auth code field is written.
 */
export function encodeSession15(
  authType: number,
  sequence: number,
  sessionId: number,
  message: Uint8Array,
  password?: Uint8Array,
): Uint8Array {
  const hasAuth = authType !== AuthType.None;
  const out = new Uint8Array(RMCP_HEADER_LENGTH + 10 + (hasAuth ? 16 : 0) + message.length);
  out.set(encodeRmcpHeader(RmcpClass.Ipmi), 0);
  let p = RMCP_HEADER_LENGTH;
  out[p++] = authType;
  const dv = new DataView(out.buffer);
  dv.setUint32(p, sequence >>> 0, true);
  dv.setUint32(p + 4, sessionId >>> 0, true);
  p += 8;
  if (hasAuth) {
    if (authType !== AuthType.Md5 || !password) throw new TypeError('encodeSession15: only MD5 with a password is supported');
    out.set(md5AuthCode(password, sessionId, message, sequence), p);
    p += 16;
  }
  out[p++] = message.length;
  out.set(message, p);
  return out;
}
