/**
 * The SOL payload (payload type 01h) as it travels inside an RMCP+ session (IPMI v2.0 §15.9,
 * Table 15-2 console → BMC, Table 15-3 BMC → console):
 *
 *   byte 0  packet sequence number, bits 3:0 (1..15; 0 = an ACK/NACK-only packet without data)
 *   byte 1  packet ACK/NACK sequence number, bits 3:0 (the packet this one acknowledges; 0 = none)
 *   byte 2  accepted character count (of the acknowledged packet)
 *   byte 3  operation (console → BMC) / status (BMC → console) bits, see SolOperation / SolStatus
 *   byte 4… character data
 *
 * Sequence numbers wrap 15 → 1. A packet with data must be acknowledged; a retransmission keeps
 * its sequence number (and may carry more data); the receiver counts only the characters it has
 * not accepted yet (ipmitool's check_sol_packet_for_new_data does the same).
 */
import { DecodeError } from '../../../board/common/errors.ts';

/** Length of the SOL header before the character data. */
export const SOL_HEADER_LENGTH = 4;

/** Operation bits of byte 3, console → BMC (IPMI v2.0 Table 15-2). */
export const SolOperation = {
  /** 1 = NACK: the console could not accept the acknowledged packet's characters. */
  nack: 0x40,
  /** Assert RI (ring indicate / wake on ring). */
  ringWor: 0x20,
  /** Generate a break on the serial line (≈ 300 ms). */
  generateBreak: 0x10,
  /** Deassert CTS (pause the BMC's transmitter). */
  deassertCts: 0x08,
  /** Drop DCD/DSR. */
  dropDcdDsr: 0x04,
  /** Flush the BMC's inbound (console → serial) buffer. */
  flushInbound: 0x02,
  /** Flush the BMC's outbound (serial → console) buffer. */
  flushOutbound: 0x01,
} as const;

/** Status bits of byte 3, BMC → console (IPMI v2.0 Table 15-3). */
export const SolStatus = {
  /** 1 = NACK of the acknowledged packet. */
  nack: 0x40,
  /** Character transfer is unavailable (the serial controller is off or busy). */
  transferUnavailable: 0x20,
  /** SOL is being deactivated by the BMC. */
  deactivating: 0x10,
  /** Characters were dropped between the last packet and this one (transmit overrun). */
  transmitOverrun: 0x08,
  /** A break was detected on the serial input. */
  breakDetected: 0x04,
} as const;

/** One SOL packet. */
export interface SolPacket {
  /** 1..15, or 0 for an ACK/NACK-only packet. */
  seq: number;
  /** Sequence number being acknowledged (0 = none). */
  ackSeq: number;
  /** Characters of the acknowledged packet that were accepted. */
  accepted: number;
  /** Byte 3: SolOperation bits (from the console) or SolStatus bits (from the BMC). */
  flags: number;
  /** Character data (a view into the decoded buffer). */
  data: Uint8Array;
}

/**
 * Decodes a SOL payload.
 * @throws DecodeError('sol', …) when shorter than the 4-byte header or a sequence field uses bits 7:4
 */
export function decodeSolPacket(buf: Uint8Array, offset = 0): SolPacket {
  if (buf.length - offset < SOL_HEADER_LENGTH) throw new DecodeError('sol', 'header', offset, `need ${SOL_HEADER_LENGTH} bytes, have ${Math.max(0, buf.length - offset)}`);
  const seq = buf[offset]!;
  const ackSeq = buf[offset + 1]!;
  if (seq > 0x0f) throw new DecodeError('sol', 'sequence', offset, `sequence number ${seq} is not 0..15`);
  if (ackSeq > 0x0f) throw new DecodeError('sol', 'ack_sequence', offset + 1, `ACK sequence number ${ackSeq} is not 0..15`);
  return { seq, ackSeq, accepted: buf[offset + 2]!, flags: buf[offset + 3]!, data: buf.subarray(offset + SOL_HEADER_LENGTH) };
}

/** Bytes `encodeSolPacket` writes. */
export function solPacketLength(p: SolPacket): number {
  return SOL_HEADER_LENGTH + p.data.length;
}

/**
 * Encodes a SOL payload into `buf` at `offset`, or into a new buffer of exactly its length.
 * @returns the buffer written
 * @throws RangeError for sequence numbers outside 0..15, an accepted count outside 0..255, or a
 *   buffer too small
 */
export function encodeSolPacket(p: SolPacket, buf?: Uint8Array, offset = 0): Uint8Array {
  if (!(Number.isInteger(p.seq) && p.seq >= 0 && p.seq <= 15)) throw new RangeError(`SOL sequence number ${p.seq} is not 0..15`);
  if (!(Number.isInteger(p.ackSeq) && p.ackSeq >= 0 && p.ackSeq <= 15)) throw new RangeError(`SOL ACK sequence number ${p.ackSeq} is not 0..15`);
  if (!(Number.isInteger(p.accepted) && p.accepted >= 0 && p.accepted <= 255)) throw new RangeError(`accepted character count ${p.accepted} is not 0..255`);
  const len = solPacketLength(p);
  const out = buf ?? new Uint8Array(len);
  const at = buf ? offset : 0;
  if (out.length - at < len) throw new RangeError(`buffer too small: need ${len} bytes at offset ${at}`);
  out[at] = p.seq;
  out[at + 1] = p.ackSeq;
  out[at + 2] = p.accepted;
  out[at + 3] = p.flags & 0xff;
  out.set(p.data, at + SOL_HEADER_LENGTH);
  return out;
}

/** The next outbound sequence number after `seq` (1..15, wrapping 15 → 1). */
export function nextSolSeq(seq: number): number {
  return seq >= 15 ? 1 : seq + 1;
}
