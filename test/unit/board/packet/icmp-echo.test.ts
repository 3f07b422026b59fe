/** ICMP/ICMPv6 echo replies (board/packet/icmp-echo.ts), checked by an independent checksum (test/support/frames.ts). */
import { describe, expect, it } from 'vitest';
import { echoReplyInPlace, isEchoRequest } from '../../../../board/packet/icmp-echo.ts';
import { IpLayout, locateIp } from '../../../../board/packet/ip-layout.ts';
import { addr, checksumProblems, frame, MAC_A, toHex } from '../../../support/frames.ts';

const MY_MAC = Uint8Array.from([0x02, 0xa7, 0xca, 0, 0, 1]);

describe('ICMP echo (RFC 792, RFC 4443 §4)', () => {
  for (const [name, src, dst, proto] of [['IPv4', '198.18.0.2', '198.18.100.10', 1], ['IPv6', 'fd00:a7ca::2', 'fd00:a7ca:100::12', 58]] as const) {
    it(`${name}: the reply swaps addresses, keeps id/seq/data, checksums right`, () => {
      const f = frame({ src, dst, proto });
      const ip = new IpLayout();
      expect(locateIp(f, 14, f.length, ip)).toBe(true);
      expect(isEchoRequest(f, ip)).toBe(true);
      const data = toHex(f.subarray(ip.l4 + 4, ip.end));
      const n = echoReplyInPlace(f, ip, MY_MAC);
      expect(n).toBe(f.length);
      expect(toHex(f.subarray(0, 12))).toBe(`${toHex(Uint8Array.from(MAC_A))}02a7ca000001`);
      expect(f[ip.l4]).toBe(proto === 1 ? 0 : 129);
      expect(toHex(f.subarray(ip.l4 + 4, ip.end))).toBe(data);
      expect(checksumProblems(f)).toEqual([]);
      const l3 = new IpLayout();
      locateIp(f, 14, f.length, l3);
      expect(toHex(f.subarray(proto === 1 ? 26 : 22, proto === 1 ? 30 : 38))).toBe(toHex(addr(dst).subarray(0, proto === 1 ? 4 : 16)));
    });
  }
  it('a request with a bad checksum gets no reply', () => {
    const f = frame({ src: '198.18.0.2', dst: '198.18.100.10', proto: 1 });
    f[14 + 20 + 6] ^= 0xff;
    const ip = new IpLayout();
    locateIp(f, 14, f.length, ip);
    expect(isEchoRequest(f, ip)).toBe(false);
  });
});
