/** The PMTU errors (RFC 1191, RFC 4443 §3.2; board/packet/icmp-error.ts), checked by an independent checksum (test/support/frames.ts). */
import { describe, expect, it } from 'vitest';
import { internetChecksum } from '../../../../board/packet/checksum.ts';
import { buildFragNeeded, buildPacketTooBig, exceedsMtu, mayReportError } from '../../../../board/packet/icmp-error.ts';
import { IpLayout, locateIp } from '../../../../board/packet/ip-layout.ts';
import { addr, checksumProblems, frame, MAC_A, naiveChecksum, toHex } from '../../../support/frames.ts';

const MY_MAC = Uint8Array.from([0x02, 0xa7, 0xca, 0, 0, 1]);

describe('PMTU errors (RFC 1191, RFC 4443 §3.2)', () => {
  it('Fragmentation Needed quotes the datagram and carries the next-hop MTU', () => {
    const f = frame({ src: '198.18.0.2', dst: '198.18.100.11', proto: 6, payload: new Array(1460).fill(7) });
    const ip = new IpLayout();
    locateIp(f, 14, f.length, ip);
    expect(exceedsMtu(ip, 1400)).toBe(true);
    expect(exceedsMtu(ip, 1500)).toBe(false);
    expect(mayReportError(f, ip)).toBe(true);
    const out = new Uint8Array(14 + 576);
    const n = buildFragNeeded(out, f, ip, 1400, addr('198.18.100.11'), MY_MAC, 7);
    expect(n).toBe(14 + 576);
    expect(toHex(out.subarray(0, 6))).toBe(toHex(Uint8Array.from(MAC_A)));
    expect([out[34], out[35], (out[40]! << 8) | out[41]!]).toEqual([3, 4, 1400]);
    expect(toHex(out.subarray(42, 42 + 28))).toBe(toHex(f.subarray(14, 42)));
    expect(toHex(out.subarray(30, 34))).toBe(toHex(addr('198.18.0.2').subarray(0, 4)));
    expect(checksumProblems(out.subarray(0, n))).toEqual([]);
  });
  it('Packet Too Big: 32-bit MTU, quote up to 1280 bytes, ICMPv6 checksum', () => {
    const f = frame({ src: 'fd00:a7ca::2', dst: 'fd00:a7ca:100::12', proto: 6, payload: new Array(1440).fill(9) });
    const ip = new IpLayout();
    locateIp(f, 14, f.length, ip);
    const out = new Uint8Array(14 + 1280);
    const n = buildPacketTooBig(out, f, ip, 1400, addr('fd00:a7ca:100::12'), MY_MAC);
    expect(n).toBe(14 + 1280);
    expect([out[54], out[55]]).toEqual([2, 0]);
    expect((out[58]! << 24) | (out[59]! << 16) | (out[60]! << 8) | out[61]!).toBe(1400);
    expect(checksumProblems(out.subarray(0, n))).toEqual([]);
  });
  it('no error about an ICMP error, a multicast source or a later fragment', () => {
    const ip = new IpLayout();
    const m = frame({ src: '224.0.0.5', dst: '198.18.100.11', proto: 17 });
    locateIp(m, 14, m.length, ip);
    expect(mayReportError(m, ip)).toBe(false);
    const e = frame({ src: '198.18.0.2', dst: '198.18.100.11', proto: 1 });
    e[34] = 3; // destination unreachable
    locateIp(e, 14, e.length, ip);
    expect(mayReportError(e, ip)).toBe(false);
    const frag = frame({ src: '198.18.0.2', dst: '198.18.100.11', proto: 17 });
    frag[20] = 0x00;
    frag[21] = 0x10; // fragment offset 16 × 8
    locateIp(frag, 14, frag.length, ip);
    expect(ip.l4).toBe(-1);
    expect(mayReportError(frag, ip)).toBe(false);
  });
  it('naiveChecksum agrees with internetChecksum (the two implementations)', () => {
    const b = frame({ src: '198.18.0.2', dst: '198.18.100.11', proto: 6 });
    expect(naiveChecksum([...b.subarray(14, 34)])).toBe(0);
    expect(internetChecksum(b, 14, 20)).toBe(0);
  });
});
