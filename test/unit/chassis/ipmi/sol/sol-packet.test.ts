// SOL payload codec (chassis/ipmi/sol/sol-packet.ts; IPMI v2.0 Table 15-2/15-3).
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../../board/common/errors.ts';
import { decodeSolPacket, encodeSolPacket, nextSolSeq, SOL_HEADER_LENGTH, solPacketLength, SolStatus, type SolPacket } from '../../../../../chassis/ipmi/sol/sol-packet.ts';

const txt = (s: string) => Buffer.from(s, 'latin1');

describe('SOL packet codec', () => {
  it('encodes the 4-byte header then the characters, byte for byte', () => {
    const bytes = encodeSolPacket({ seq: 3, ackSeq: 15, accepted: 9, flags: SolStatus.transmitOverrun, data: txt('ok') });
    // seq  ack  count  status  'o'  'k'
    expect([...bytes]).toEqual([0x03, 0x0f, 0x09, 0x08, 0x6f, 0x6b]);
    expect(solPacketLength(decodeSolPacket(bytes))).toBe(6);
  });

  it('round-trips, also at a non-zero offset in a larger buffer', () => {
    const p: SolPacket = { seq: 15, ackSeq: 1, accepted: 255, flags: 0x5f, data: txt('show version\r') };
    const again = decodeSolPacket(encodeSolPacket(p));
    expect({ ...again, data: [...again.data] }).toEqual({ ...p, data: [...p.data] });
    const big = new Uint8Array(40).fill(0xee);
    encodeSolPacket(p, big, 7);
    const d = decodeSolPacket(big.subarray(0, 7 + SOL_HEADER_LENGTH + p.data.length), 7);
    expect(Buffer.from(d.data).toString()).toBe('show version\r');
    expect(() => encodeSolPacket(p, new Uint8Array(10), 0)).toThrow(RangeError);
  });

  it('refuses short packets and sequence numbers outside 0..15', () => {
    expect(() => decodeSolPacket(Uint8Array.of(1, 0, 0))).toThrow(DecodeError);
    expect(() => decodeSolPacket(Uint8Array.of(0x10, 0, 0, 0))).toThrow(/sequence number 16/);
    expect(() => decodeSolPacket(Uint8Array.of(1, 0x20, 0, 0))).toThrow(/ACK sequence number 32/);
    expect(() => encodeSolPacket({ seq: 16, ackSeq: 0, accepted: 0, flags: 0, data: new Uint8Array(0) })).toThrow(RangeError);
    expect(() => encodeSolPacket({ seq: 1, ackSeq: 0, accepted: 256, flags: 0, data: new Uint8Array(0) })).toThrow(RangeError);
  });

  it('sequence numbers wrap 15 → 1, never 0', () => {
    expect(nextSolSeq(0)).toBe(1);
    expect(nextSolSeq(14)).toBe(15);
    expect(nextSolSeq(15)).toBe(1);
  });
});
