/**
 * The Internet checksum (board/packet/checksum.ts): the RFC 1071 example, a textbook IPv4 header, and
 * RFC 1624 incremental updates against full recomputation.
 */
import { describe, expect, it } from 'vitest';
import { adjust16, adjustBytes, internetChecksum, onesSum, fold, udpChecksumAfter } from '../../../../board/packet/checksum.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { hex } from '../../../support/packet-builders.ts';

describe('Internet checksum (RFC 1071, RFC 1624)', () => {
  it('RFC 1071 §3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2', () => {
    const b = hex`00 01 f2 03 f4 f5 f6 f7`;
    expect(fold(onesSum(b, 0, 8))).toBe(0xddf2);
    expect(internetChecksum(b, 0, 8)).toBe(0x220d);
  });
  it('an IPv4 header: 4500 0073 0000 4000 4011 ---- c0a8 0001 c0a8 00c7 → b861', () => {
    const h = hex`45 00 00 73 00 00 40 00 40 11 00 00 c0 a8 00 01 c0 a8 00 c7`;
    expect(internetChecksum(h, 0, 20)).toBe(0xb861);
  });
  it('odd length pads with a zero byte on the right', () => {
    expect(internetChecksum(hex`01 02 03`, 0, 3)).toBe(~(0x0102 + 0x0300) & 0xffff);
  });
  it('RFC 1624 eqn. 3 equals full recomputation for random words and address runs', () => {
    const r = new SeededRandom(7);
    for (let n = 0; n < 2000; n++) {
      const len = 2 * (2 + r.int(40));
      const b = new Uint8Array(len);
      for (let i = 0; i < len; i++) b[i] = r.int(256);
      const ck = internetChecksum(b, 0, len);
      const at = 2 * r.int(len / 2);
      const old = (b[at]! << 8) | b[at + 1]!;
      const nw = r.int(65536);
      b[at] = nw >> 8;
      b[at + 1] = nw & 0xff;
      const full = internetChecksum(b, 0, len);
      // ones'-complement: 0x0000 and 0xffff are the same number; eqn. 3 never produces -0 from +0
      expect(adjust16(ck, old, nw) % 0xffff).toBe(full % 0xffff);
      const run = Math.min(16, len - at - (at % 2));
      const before = b.slice(at, at + run);
      const ck2 = internetChecksum(b, 0, len);
      const nb = new Uint8Array(run);
      for (let i = 0; i < run; i++) nb[i] = r.int(256);
      b.set(nb, at);
      expect(adjustBytes(ck2, before, 0, nb, 0, run & ~1) % 0xffff).toBe(internetChecksum(b, 0, len) % 0xffff);
    }
  });
  it('UDP: a 0 checksum (none, IPv4) stays 0; a computed 0 is sent as ffff (RFC 768)', () => {
    expect(udpChecksumAfter(0, 0x1234)).toBe(0);
    expect(udpChecksumAfter(0x1111, 0)).toBe(0xffff);
    expect(udpChecksumAfter(0x1111, 0x2222)).toBe(0x2222);
  });
});
