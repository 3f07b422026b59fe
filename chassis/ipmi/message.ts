/**
 * The IPMI message inside a LAN session (IPMI v2.0 §13.8, Table 13-4/13-5) — also the IPMB frame
 * format (IPMB v1.0 §2.11) used for bridged messages:
 *
 *   request:  rsSA | netFn<<2|rsLUN | chk1 | rqSA | rqSeq<<2|rqLUN | cmd | data… | chk2
 *   response: rqSA | netFn<<2|rqLUN | chk1 | rsSA | rqSeq<<2|rsLUN | cmd | cc | data… | chk2
 *
 * chk1 covers the first two bytes, chk2 everything from byte 3 up to (not including) chk2;
 * each is the two's complement of the 8-bit sum, so the covered bytes plus the checksum sum to 0.
 */
import { DecodeError } from '../../board/common/errors.ts';

/** Smallest well-formed message: 6 header bytes + chk2 (request without data). */
export const MIN_MESSAGE_LENGTH = 7;

/** A decoded IPMI request. */
export interface IpmiRequest {
  /** Responder (target) slave address, e.g. 20h for the BMC / shelf manager. */
  rsSA: number;
  /** Request NetFn (even), 0..3Fh. */
  netFn: number;
  rsLUN: number;
  /** Requester address: 81h for a remote console, the BMC's address for bridged requests. */
  rqSA: number;
  /** Requester sequence number 0..63, echoed in the response. */
  rqSeq: number;
  rqLUN: number;
  cmd: number;
  data: Uint8Array;
}

/** A decoded IPMI response. */
export interface IpmiResponse {
  rqSA: number;
  /** Response NetFn (odd). */
  netFn: number;
  rqLUN: number;
  rsSA: number;
  rqSeq: number;
  rsLUN: number;
  cmd: number;
  cc: number;
  data: Uint8Array;
}

/** Two's-complement checksum of `buf[start..end)`. */
export function ipmiChecksum(buf: Uint8Array, start = 0, end = buf.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum = (sum + buf[i]!) & 0xff;
  return (0x100 - sum) & 0xff;
}

interface Frame {
  a1: number;
  netFn: number;
  lun1: number;
  a2: number;
  seq: number;
  lun2: number;
  cmd: number;
  body: Uint8Array;
}

function decodeFrame(buf: Uint8Array, layer: string): Frame {
  if (buf.length < MIN_MESSAGE_LENGTH) {
    throw new DecodeError(layer, 'length', 0, `need ${MIN_MESSAGE_LENGTH} bytes, have ${buf.length}`);
  }
  if (ipmiChecksum(buf, 0, 2) !== buf[2]) throw new DecodeError(layer, 'checksum1', 2, 'header checksum mismatch');
  const last = buf.length - 1;
  if (ipmiChecksum(buf, 3, last) !== buf[last]) throw new DecodeError(layer, 'checksum2', last, 'data checksum mismatch');
  return {
    a1: buf[0]!,
    netFn: buf[1]! >> 2,
    lun1: buf[1]! & 3,
    a2: buf[3]!,
    seq: buf[4]! >> 2,
    lun2: buf[4]! & 3,
    cmd: buf[5]!,
    body: buf.subarray(6, last),
  };
}

/**
 * Decodes a request message. The data is a view into `buf` (not copied).
 * @throws DecodeError('ipmi-msg', 'length'|'checksum1'|'checksum2', …)
 */
export function decodeRequest(buf: Uint8Array): IpmiRequest {
  const f = decodeFrame(buf, 'ipmi-msg');
  return { rsSA: f.a1, netFn: f.netFn, rsLUN: f.lun1, rqSA: f.a2, rqSeq: f.seq, rqLUN: f.lun2, cmd: f.cmd, data: f.body };
}

/**
 * Decodes a response message (completion code first in the body).
 * @throws DecodeError('ipmi-msg', …) when malformed or the completion code is missing.
 */
export function decodeResponse(buf: Uint8Array): IpmiResponse {
  const f = decodeFrame(buf, 'ipmi-msg');
  if (f.body.length < 1) throw new DecodeError('ipmi-msg', 'cc', 6, 'response has no completion code');
  return {
    rqSA: f.a1,
    netFn: f.netFn,
    rqLUN: f.lun1,
    rsSA: f.a2,
    rqSeq: f.seq,
    rsLUN: f.lun2,
    cmd: f.cmd,
    cc: f.body[0]!,
    data: f.body.subarray(1),
  };
}

function encodeFrame(a1: number, netFn: number, lun1: number, a2: number, seq: number, lun2: number, cmd: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(7 + body.length);
  out[0] = a1 & 0xff;
  out[1] = ((netFn & 0x3f) << 2) | (lun1 & 3);
  out[2] = ipmiChecksum(out, 0, 2);
  out[3] = a2 & 0xff;
  out[4] = ((seq & 0x3f) << 2) | (lun2 & 3);
  out[5] = cmd & 0xff;
  out.set(body, 6);
  out[out.length - 1] = ipmiChecksum(out, 3, out.length - 1);
  return out;
}

/** Encodes a request message with both checksums. */
export function encodeRequest(r: IpmiRequest): Uint8Array {
  return encodeFrame(r.rsSA, r.netFn, r.rsLUN, r.rqSA, r.rqSeq, r.rqLUN, r.cmd, r.data);
}

/** Encodes a response message (cc then data) with both checksums. */
export function encodeResponse(r: IpmiResponse): Uint8Array {
  const body = new Uint8Array(1 + r.data.length);
  body[0] = r.cc;
  body.set(r.data, 1);
  return encodeFrame(r.rqSA, r.netFn, r.rqLUN, r.rsSA, r.rqSeq, r.rsLUN, r.cmd, body);
}

/**
 * The response addressed back to the requester of `req`: addresses swapped, NetFn + 1, rqSeq and
 * cmd echoed, the requester's LUN in byte 1 and the responder's LUN in byte 4.
 */
export function responseTo(req: IpmiRequest, cc: number, data: Uint8Array = new Uint8Array(0)): IpmiResponse {
  return {
    rqSA: req.rqSA,
    netFn: req.netFn | 1,
    rqLUN: req.rqLUN,
    rsSA: req.rsSA,
    rqSeq: req.rqSeq,
    rsLUN: req.rsLUN,
    cmd: req.cmd,
    cc,
    data,
  };
}
