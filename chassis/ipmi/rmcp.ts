/**
 * RMCP header (DMTF ASF 2.0 §3.2.2.1) and the ASF Presence Ping / Pong (ASF 2.0 §3.2.4.3,
 * §3.2.4.4). All fields big-endian. IPMI over LAN rides on RMCP class 07h; ipmitool `-I lan`
 * and FreeIPMI's ipmiping/rmcpping start with a Presence Ping (class 06h).
 *
 * Wire shapes (research ../shared/research/ipmi.md §A.1):
 *   header: 06 00 SEQ CLASS   (SEQ FFh = no RMCP ACK wanted; CLASS b7 = ACK, b3:0 = class)
 *   ping:   hdr | 00 00 11 be | 80 | tag | 00 | 00
 *   pong:   hdr | 00 00 11 be | 40 | tag | 00 | 10 | 00 00 11 be | 00 00 00 00 | 81 | 00 | 00*6
 */
import { DecodeError } from '../../board/common/errors.ts';

/** RMCP version 1.0 as carried in byte 0. */
export const RMCP_VERSION = 0x06;
/** RMCP message classes (bits 3:0 of byte 3). */
export const RmcpClass = { Asf: 0x06, Ipmi: 0x07 } as const;
/** IANA enterprise number of the ASF (4542), used in ASF messages. */
export const ASF_IANA = 4542;
/** ASF message types. */
export const AsfType = { PresencePong: 0x40, PresencePing: 0x80 } as const;
/** Length of the RMCP header in bytes. */
export const RMCP_HEADER_LENGTH = 4;

/** Decoded RMCP header. */
export interface RmcpHeader {
  /** RMCP sequence number; FFh means "no RMCP ACK". */
  sequence: number;
  /** Message class (bits 3:0). */
  msgClass: number;
  /** True when bit 7 of the class byte is set (this is an RMCP ACK). */
  ack: boolean;
}

/**
 * Decodes the 4-byte RMCP header.
 * @throws DecodeError('rmcp', …) when shorter than 4 bytes or the version is not 06h.
 */
export function decodeRmcpHeader(buf: Uint8Array): RmcpHeader {
  if (buf.length < RMCP_HEADER_LENGTH) {
    throw new DecodeError('rmcp', 'header', 0, `need ${RMCP_HEADER_LENGTH} bytes, have ${buf.length}`);
  }
  if (buf[0] !== RMCP_VERSION) throw new DecodeError('rmcp', 'version', 0, `version ${buf[0]} is not 06h`);
  const cls = buf[3]!;
  return { sequence: buf[2]!, msgClass: cls & 0x0f, ack: (cls & 0x80) !== 0 };
}

/** Encodes an RMCP header for `msgClass` with sequence FFh (no ACK), as both clients send. */
export function encodeRmcpHeader(msgClass: number, sequence = 0xff): Uint8Array {
  return Uint8Array.of(RMCP_VERSION, 0x00, sequence & 0xff, msgClass & 0x0f);
}

/** A decoded ASF Presence Ping. */
export interface AsfPing {
  /** Message tag the pong must echo. */
  tag: number;
}

/**
 * Decodes an ASF message after the RMCP header and returns the ping, or undefined for ASF messages
 * that are not a Presence Ping addressed to the ASF IANA (those get no answer).
 * @throws DecodeError('asf', …) when the ASF header is truncated.
 */
export function decodeAsfPing(buf: Uint8Array, offset = RMCP_HEADER_LENGTH): AsfPing | undefined {
  if (buf.length < offset + 8) throw new DecodeError('asf', 'header', offset, `need 8 bytes, have ${Math.max(0, buf.length - offset)}`);
  const iana = ((buf[offset]! << 24) | (buf[offset + 1]! << 16) | (buf[offset + 2]! << 8) | buf[offset + 3]!) >>> 0;
  if (iana !== ASF_IANA) return undefined;
  if (buf[offset + 4] !== AsfType.PresencePing) return undefined;
  return { tag: buf[offset + 5]! };
}

/**
 * Builds the complete Presence Pong datagram (28 bytes) for a ping with `tag`: OEM IANA 4542, no
 * OEM data, supported entities 81h (IPMI supported, ASF 1.0), no supported interactions.
 */
export function encodeAsfPong(tag: number): Uint8Array {
  const out = new Uint8Array(28);
  out.set(encodeRmcpHeader(RmcpClass.Asf), 0);
  const dv = new DataView(out.buffer);
  dv.setUint32(4, ASF_IANA);
  out[8] = AsfType.PresencePong;
  out[9] = tag & 0xff;
  out[10] = 0x00;
  out[11] = 16; // data length
  dv.setUint32(12, ASF_IANA); // OEM IANA
  dv.setUint32(16, 0); // OEM-defined
  out[20] = 0x81; // supported entities: IPMI supported, ASF version 1.0
  out[21] = 0x00; // supported interactions
  // bytes 22..27 reserved, already zero
  return out;
}

/** Builds a Presence Ping datagram (used by tests and clients). */
export function encodeAsfPing(tag: number): Uint8Array {
  const out = new Uint8Array(12);
  out.set(encodeRmcpHeader(RmcpClass.Asf), 0);
  new DataView(out.buffer).setUint32(4, ASF_IANA);
  out[8] = AsfType.PresencePing;
  out[9] = tag & 0xff;
  return out;
}
