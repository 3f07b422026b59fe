/**
 * RMCP+ (IPMI 2.0) session wrapper (IPMI v2.0 §13.6, Table 13-8), multi-byte fields little-endian:
 *
 *   after the RMCP header:
 *   06 | payload type byte (b7 encrypted, b6 authenticated, b5:0 type) | [OEM IANA(4) OEM ID(2) if type 02h]
 *      | session ID(4) | session seq(4) | payload length(2) | payload
 *      | [if authenticated: integrity pad FFh… | pad length(1) | next header 07h | AuthCode]
 *
 * The pad makes the bytes from authtype through next header a multiple of 4; the AuthCode covers
 * exactly those bytes. Encryption (payload) happens before integrity (research §A.1, §A.4).
 */
import { DecodeError } from '../../board/common/errors.ts';
import { AuthType, PayloadType } from './codes.ts';
import { bytesEqual, integrityCode, integrityParams } from './crypto.ts';
import { RMCP_HEADER_LENGTH, RmcpClass, encodeRmcpHeader } from './rmcp.ts';

/** Value of the "next header" byte in the integrity trailer. */
export const NEXT_HEADER = 0x07;

/** A decoded RMCP+ header; the trailer is checked separately with the session's keys. */
export interface RmcpPlusPacket {
  encrypted: boolean;
  authenticated: boolean;
  /** Payload type, bits 5:0. */
  payloadType: number;
  sessionId: number;
  sequence: number;
  /** The payload (view), `payload length` bytes. */
  payload: Uint8Array;
  /** Offset just after the payload in the datagram (start of the integrity trailer). */
  payloadEnd: number;
}

/**
 * Decodes the RMCP+ header and locates the payload.
 * @throws DecodeError('rmcp+', …) on a truncated header, an auth type other than 06h, an OEM
 * payload, a payload running past the datagram, or trailing bytes on an unauthenticated packet.
 */
export function decodeRmcpPlus(buf: Uint8Array, offset = RMCP_HEADER_LENGTH): RmcpPlusPacket {
  let p = offset;
  if (buf.length < p + 12) throw new DecodeError('rmcp+', 'header', p, `need 12 bytes, have ${Math.max(0, buf.length - p)}`);
  if (buf[p] !== AuthType.RmcpPlus) throw new DecodeError('rmcp+', 'authtype', p, `auth type ${buf[p]} is not 06h`);
  const ptByte = buf[p + 1]!;
  const payloadType = ptByte & 0x3f;
  if (payloadType === PayloadType.Oem) throw new DecodeError('rmcp+', 'payload_type', p + 1, 'OEM payloads are not supported');
  p += 2;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const sessionId = dv.getUint32(p, true);
  const sequence = dv.getUint32(p + 4, true);
  const len = dv.getUint16(p + 8, true);
  p += 10;
  if (p + len > buf.length) throw new DecodeError('rmcp+', 'payload_length', p - 2, `length ${len}, ${buf.length - p} bytes follow`);
  const authenticated = (ptByte & 0x40) !== 0;
  if (!authenticated && p + len !== buf.length) {
    throw new DecodeError('rmcp+', 'trailer', p + len, `${buf.length - p - len} unexpected bytes after an unauthenticated payload`);
  }
  return {
    encrypted: (ptByte & 0x80) !== 0,
    authenticated,
    payloadType,
    sessionId,
    sequence,
    payload: buf.subarray(p, p + len),
    payloadEnd: p + len,
  };
}

/**
 * Checks the integrity trailer of an authenticated packet: pad bytes FFh, pad length, next header
 * 07h, padded length a multiple of 4, and the AuthCode (constant-time) under K1.
 * @returns true when the packet is intact
 */
export function verifyIntegrity(buf: Uint8Array, pkt: RmcpPlusPacket, integrityAlg: number, k1: Uint8Array, codeLength: number, offset = RMCP_HEADER_LENGTH): boolean {
  const codeStart = buf.length - codeLength;
  if (codeStart - 2 < pkt.payloadEnd) return false;
  if (buf[codeStart - 1] !== NEXT_HEADER) return false;
  const padLen = buf[codeStart - 2]!;
  if (pkt.payloadEnd + padLen !== codeStart - 2) return false;
  for (let i = pkt.payloadEnd; i < codeStart - 2; i++) if (buf[i] !== 0xff) return false;
  if ((codeStart - offset) % 4 !== 0) return false;
  const expect = integrityCode(integrityAlg, k1, buf.subarray(offset, codeStart));
  return bytesEqual(expect, buf.subarray(codeStart));
}

/** What to put in an RMCP+ datagram. */
export interface RmcpPlusOut {
  payloadType: number;
  encrypted: boolean;
  sessionId: number;
  sequence: number;
  /** The payload as it goes on the wire (already encrypted when `encrypted`). */
  payload: Uint8Array;
}

/**
 * Encodes a complete RMCP+ datagram (RMCP header included). With `integrity` the packet is marked
 * authenticated and the trailer + AuthCode are appended.
 */
export function encodeRmcpPlus(out: RmcpPlusOut, integrity?: { alg: number; k1: Uint8Array }): Uint8Array {
  const head = RMCP_HEADER_LENGTH + 12;
  let trailer = 0;
  let padLen = 0;
  if (integrity) {
    const base = 12 + out.payload.length + 2; // authtype … next header, without pad
    padLen = (4 - (base % 4)) % 4;
    trailer = padLen + 2;
  }
  const covered = head + out.payload.length + trailer;
  const code = integrity ? (integrityParams(integrity.alg)?.length ?? 0) : 0;
  const buf = new Uint8Array(covered + code);
  buf.set(encodeRmcpHeader(RmcpClass.Ipmi), 0);
  let p = RMCP_HEADER_LENGTH;
  buf[p++] = AuthType.RmcpPlus;
  buf[p++] = (out.encrypted ? 0x80 : 0) | (integrity ? 0x40 : 0) | (out.payloadType & 0x3f);
  const dv = new DataView(buf.buffer);
  dv.setUint32(p, out.sessionId >>> 0, true);
  dv.setUint32(p + 4, out.sequence >>> 0, true);
  dv.setUint16(p + 8, out.payload.length, true);
  p += 10;
  buf.set(out.payload, p);
  p += out.payload.length;
  if (integrity) {
    buf.fill(0xff, p, p + padLen);
    p += padLen;
    buf[p++] = padLen;
    buf[p++] = NEXT_HEADER;
    buf.set(integrityCode(integrity.alg, integrity.k1, buf.subarray(RMCP_HEADER_LENGTH, p)), p);
  }
  return buf;
}
