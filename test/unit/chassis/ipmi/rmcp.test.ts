/** RMCP and ASF presence ping/pong (chassis/ipmi/rmcp.ts) against captured bytes. */
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../board/common/errors.ts';
import { decodeAsfPing, decodeRmcpHeader, encodeAsfPing, encodeAsfPong } from '../../../../chassis/ipmi/rmcp.ts';
import { readIpmiCapture, toHex } from '../../../support/ipmi-captures.ts';

describe('RMCP and ASF', () => {
  const frames = readIpmiCapture('lan15_session');

  it('decodes the captured ping and rebuilds ping and pong byte for byte', () => {
    expect(decodeRmcpHeader(frames[0]!.payload)).toEqual({ sequence: 0xff, msgClass: 6, ack: false });
    const ping = decodeAsfPing(frames[0]!.payload)!;
    expect(toHex(encodeAsfPing(ping.tag))).toBe(toHex(frames[0]!.payload));
    expect(toHex(encodeAsfPong(ping.tag))).toBe(toHex(frames[1]!.payload));
  });

  it('rejects short headers and other versions with DecodeError("rmcp")', () => {
    expect(() => decodeRmcpHeader(Uint8Array.of(6, 0, 0xff))).toThrow(/rmcp: header/);
    expect(() => decodeRmcpHeader(Uint8Array.of(5, 0, 0xff, 7))).toThrow(DecodeError);
    expect(() => decodeAsfPing(Uint8Array.of(6, 0, 0xff, 6, 0, 0))).toThrow(/asf: header/);
  });
});
