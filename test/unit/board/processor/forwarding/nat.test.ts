/**
 * The nat and fullnat translations (board/processor/forwarding/nat.ts; dr in forwarding/dr.ts) over
 * real frames in both directions, IPv4 and IPv6, TCP and UDP; the incremental checksums (RFC 1624)
 * checked by an independent full recomputation (test/support/frames.ts).
 */
import { describe, expect, it } from 'vitest';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import { drForward } from '../../../../../board/processor/forwarding/dr.ts';
import { natInbound, natOutbound } from '../../../../../board/processor/forwarding/nat.ts';
import {
  newTranslation, XlateResult, type ForwardingMode, type Translation,
} from '../../../../../board/processor/forwarding/translation.ts';
import { addr, checksumProblems, frame, toHex } from '../../../../support/frames.ts';

function translation(mode: ForwardingMode, v6: boolean): Translation {
  const t = newTranslation(mode, v6 ? 6 : 4);
  t.client.set(addr(v6 ? 'fd00:a7ca::2' : '198.18.0.2'));
  t.clientPort = 40000;
  t.vip.set(addr(v6 ? 'fd00:a7ca:100::12' : '198.18.100.12'));
  t.vipPort = 80;
  t.rs.set(addr(v6 ? 'fd00:a7ca:10::121' : '198.18.10.121'));
  t.rsPort = 8080;
  t.local.set(addr(v6 ? 'fd00:a7ca:10::30' : '198.18.10.30'));
  t.localPort = 2001;
  return t;
}

function ipOf(f: Uint8Array): IpLayout {
  const ip = new IpLayout();
  expect(locateIp(f, 14, f.length, ip)).toBe(true);
  return ip;
}

function tuple(f: Uint8Array): string {
  const ip = ipOf(f);
  const n = ip.family === 6 ? 16 : 4;
  const s = ip.l3 + (ip.family === 6 ? 8 : 12);
  const a = (o: number) => toHex(f.subarray(o, o + n));
  const p = (o: number) => (f[o]! << 8) | f[o + 1]!;
  return `${a(s)}:${p(ip.l4)}>${a(s + n)}:${p(ip.l4 + 2)}`;
}

function expectTuple(f: Uint8Array, src: string, sp: number, dst: string, dp: number): void {
  const v6 = src.includes(':');
  const n = v6 ? 16 : 4;
  expect(tuple(f)).toBe(`${toHex(addr(src).subarray(0, n))}:${sp}>${toHex(addr(dst).subarray(0, n))}:${dp}`);
}

describe('nat / fullnat translations', () => {
  for (const v6 of [false, true]) {
    for (const proto of [6, 17] as const) {
      const fam = v6 ? 'IPv6' : 'IPv4';
      const pn = proto === 6 ? 'TCP' : 'UDP';
      const C = v6 ? 'fd00:a7ca::2' : '198.18.0.2';
      const V = v6 ? 'fd00:a7ca:100::12' : '198.18.100.12';
      const R = v6 ? 'fd00:a7ca:10::121' : '198.18.10.121';
      const L = v6 ? 'fd00:a7ca:10::30' : '198.18.10.30';
      it(`${fam} ${pn} nat: in VIP:80 → RS:8080, out RS:8080 → VIP:80; checksums right`, () => {
        const t = translation('nat', v6);
        const f = frame({ src: C, dst: V, proto, sport: 40000, dport: 80 });
        expect(natInbound(f, ipOf(f), t)).toBe(XlateResult.OK);
        expectTuple(f, C, 40000, R, 8080);
        expect(checksumProblems(f)).toEqual([]);
        const r = frame({ src: R, dst: C, proto, sport: 8080, dport: 40000, flags: 0x12 });
        expect(natOutbound(r, ipOf(r), t)).toBe(XlateResult.OK);
        expectTuple(r, V, 80, C, 40000);
        expect(checksumProblems(r)).toEqual([]);
      });
      it(`${fam} ${pn} fullnat: in client → local:2001, VIP → RS; out back to client and VIP`, () => {
        const t = translation('fullnat', v6);
        const f = frame({ src: C, dst: V, proto, sport: 40000, dport: 80 });
        expect(natInbound(f, ipOf(f), t)).toBe(XlateResult.OK);
        expectTuple(f, L, 2001, R, 8080);
        expect(checksumProblems(f)).toEqual([]);
        const r = frame({ src: R, dst: L, proto, sport: 8080, dport: 2001, flags: 0x12 });
        expect(natOutbound(r, ipOf(r), t)).toBe(XlateResult.OK);
        expectTuple(r, V, 80, C, 40000);
        expect(checksumProblems(r)).toEqual([]);
      });
    }
  }
  it('a UDP/IPv4 datagram without checksum keeps checksum 0', () => {
    const t = translation('fullnat', false);
    const f = frame({ src: '198.18.0.2', dst: '198.18.100.12', proto: 17, sport: 40000, dport: 80, noUdpChecksum: true });
    natInbound(f, ipOf(f), t);
    expect([f[40], f[41]]).toEqual([0, 0]);
    expect(checksumProblems(f)).toEqual([]);
  });
  it('the exact bytes of one fullnat rewrite (addresses, ports, both checksums)', () => {
    const t = translation('fullnat', false);
    const f = frame({ src: '198.18.0.2', dst: '198.18.100.12', proto: 6, sport: 40000, dport: 80, payload: [] });
    natInbound(f, ipOf(f), t);
    // IPv4 header: 45 00 0028 abcd 4000 40 06 CK c6120a1e c6120a79; checksum by hand:
    // 4500+0028+abcd+4000+4006+c612+0a1e+c612+0a79 = 0x311b6 → 0x11b6 + 3 = 0x11b9 → ~ = 0xee46
    expect(toHex(f.subarray(14, 34))).toBe('45000028abcd40004006ee46c6120a1ec6120a79');
    expect(toHex(f.subarray(34, 38))).toBe('07d11f90');
    expect(checksumProblems(f)).toEqual([]);
  });
  it('ICMP and other protocols are not port-translated (UNSUPPORTED, frame untouched)', () => {
    const t = translation('nat', false);
    const f = frame({ src: '198.18.0.2', dst: '198.18.100.12', proto: 1 });
    const before = toHex(f);
    expect(natInbound(f, ipOf(f), t)).toBe(XlateResult.UNSUPPORTED);
    expect(toHex(f)).toBe(before);
  });
  it('dr changes only the MACs', () => {
    const f = frame({ src: '198.18.0.2', dst: '198.18.100.10', proto: 6 });
    const ipBefore = toHex(f.subarray(14));
    const rsMac = Uint8Array.from([2, 0, 0, 0, 1, 1]);
    const me = Uint8Array.from([2, 0xa7, 0xca, 0, 0, 3]);
    expect(drForward(f, f.length, rsMac, me)).toBe(f.length);
    expect(toHex(f.subarray(0, 12))).toBe('020000000101' + '02a7ca000003');
    expect(toHex(f.subarray(14))).toBe(ipBefore);
  });
});
