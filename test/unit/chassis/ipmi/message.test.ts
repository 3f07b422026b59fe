/** IPMI messages (chassis/ipmi/message.ts) against captured bytes, and malformed inputs with their typed errors. */
import { describe, expect, it } from 'vitest';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse, ipmiChecksum, responseTo } from '../../../../chassis/ipmi/message.ts';
import { hex, toHex } from '../../../support/ipmi-captures.ts';

describe('IPMI messages', () => {
  it('round-trips requests and responses, with checksums that sum to zero', () => {
    const req = { rsSA: 0x20, netFn: 0x06, rsLUN: 0, rqSA: 0x81, rqSeq: 0x3f, rqLUN: 2, cmd: 0x3b, data: Uint8Array.of(4) };
    const b = encodeRequest(req);
    expect(toHex(b.subarray(0, 7))).toBe('2018c881fe3b04'); // rqSeq 3Fh << 2 | rqLUN 2
    const sum = (from: number, to: number) => b.subarray(from, to).reduce((a, x) => (a + x) & 0xff, 0);
    expect([sum(0, 3), sum(3, b.length)]).toEqual([0, 0]);
    expect(ipmiChecksum(b, 3, b.length - 1)).toBe(b[b.length - 1]);
    expect(decodeRequest(b)).toEqual(req);
    const rsp = responseTo(req, 0, Uint8Array.of(4));
    const rb = encodeResponse(rsp);
    expect(decodeResponse(rb)).toEqual(rsp);
    expect([rsp.rqSA, rsp.netFn, rsp.rqLUN, rsp.rsSA, rsp.rqSeq, rsp.cmd]).toEqual([0x81, 0x07, 2, 0x20, 0x3f, 0x3b]);
  });

  it('reproduces the captured Set Session Privilege Level request and response', () => {
    expect(toHex(encodeRequest(decodeRequest(hex('2018c881103b0430'))))).toBe('2018c881103b0430');
    expect(toHex(encodeResponse(decodeResponse(hex('811c6320103b000491'))))).toBe('811c6320103b000491');
  });

  it('throws DecodeError for short messages and bad checksums', () => {
    expect(() => decodeRequest(hex('2018c88110'))).toThrow(/ipmi-msg: length/);
    expect(() => decodeRequest(hex('2018c981103b0430'))).toThrow(/checksum1/);
    expect(() => decodeRequest(hex('2018c881103b0431'))).toThrow(/checksum2/);
    expect(() => decodeResponse(hex('811c6320103b' + '95'))).toThrow(/cc/);
  });
});
