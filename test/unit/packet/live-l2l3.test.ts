/**
 * The pure L2/L3 modules of live mode against hand-computed bytes: the Internet checksum (RFC 1071
 * example, a textbook IPv4 header), RFC 1624 incremental updates against full recomputation, ARP
 * (RFC 826 / RFC 5227), Neighbour Discovery (RFC 4861), ICMP/ICMPv6 echo replies, and the PMTU
 * errors (RFC 1191, RFC 4443 §3.2). Frames come from test/support/frames.ts, whose checksums are
 * computed independently; every frame produced is checked by checksumProblems.
 */
import { describe, expect, it } from 'vitest';
import { adjust16, adjustBytes, internetChecksum, onesSum, fold, udpChecksumAfter } from '../../../board/packet/checksum.ts';
import { ArpMessage, ARP_REPLY, ARP_REQUEST, buildArpAnnouncement, buildArpReply, buildArpRequest, parseArp } from '../../../board/packet/arp.ts';
import { buildNeighbourAdvert, buildNeighbourSolicit, buildUnsolicitedAdvert, NA_OVERRIDE, NA_SOLICITED, NdMessage, parseNd, solicitedNode } from '../../../board/packet/ndp.ts';
import { echoReplyInPlace, isEchoRequest } from '../../../board/packet/icmp-echo.ts';
import { buildFragNeeded, buildPacketTooBig, exceedsMtu, mayReportError } from '../../../board/packet/icmp-error.ts';
import { IpLayout, locateIp } from '../../../board/packet/ip-layout.ts';
import { SeededRandom } from '../../../board/common/random.ts';
import { hex } from './builders.ts';
import { addr, checksumProblems, frame, MAC_A, naiveChecksum, toHex } from '../../support/frames.ts';

const MY_MAC = Uint8Array.from([0x02, 0xa7, 0xca, 0, 0, 1]);

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

describe('ARP (RFC 826, RFC 5227)', () => {
  const reqFrame = hex`
    ff ff ff ff ff ff  02 00 00 00 00 aa  08 06   # broadcast from MAC_A, ARP
    00 01 08 00 06 04 00 01                       # Ethernet/IPv4, request
    02 00 00 00 00 aa  c6 12 01 01                # sender 198.18.1.1
    00 00 00 00 00 00  c6 12 01 02                # target 198.18.1.2
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00`;
  it('parses a request and answers it with the exact reply bytes', () => {
    const m = new ArpMessage();
    expect(parseArp(reqFrame, 14, reqFrame.length, m)).toBe(true);
    expect(m.op).toBe(ARP_REQUEST);
    expect([...m.targetIp]).toEqual([198, 18, 1, 2]);
    const out = new Uint8Array(60);
    expect(buildArpReply(out, m, MY_MAC)).toBe(60);
    expect(toHex(out)).toBe(toHex(hex`
      02 00 00 00 00 aa  02 a7 ca 00 00 01  08 06
      00 01 08 00 06 04 00 02
      02 a7 ca 00 00 01  c6 12 01 02
      02 00 00 00 00 aa  c6 12 01 01
      00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00`));
    const back = new ArpMessage();
    expect(parseArp(out, 14, 60, back)).toBe(true);
    expect(back.op).toBe(ARP_REPLY);
  });
  it('request and announcement (sender = target address, target MAC zero, broadcast)', () => {
    const out = new Uint8Array(60);
    buildArpRequest(out, MY_MAC, addr('198.18.10.3'), addr('198.18.10.101'));
    expect(toHex(out.subarray(0, 42))).toBe(toHex(hex`ff ff ff ff ff ff 02 a7 ca 00 00 01 08 06 00 01 08 00 06 04 00 01
      02 a7 ca 00 00 01 c6 12 0a 03 00 00 00 00 00 00 c6 12 0a 65`));
    buildArpAnnouncement(out, MY_MAC, addr('198.18.100.10'));
    expect(toHex(out.subarray(0, 42))).toBe(toHex(hex`ff ff ff ff ff ff 02 a7 ca 00 00 01 08 06 00 01 08 00 06 04 00 01
      02 a7 ca 00 00 01 c6 12 64 0a 00 00 00 00 00 00 c6 12 64 0a`));
  });
  it('refuses other hardware/protocol types and short packets', () => {
    const m = new ArpMessage();
    const bad = Uint8Array.from(reqFrame);
    bad[15] = 6; // hardware type 6 (IEEE 802)
    expect(parseArp(bad, 14, bad.length, m)).toBe(false);
    expect(parseArp(reqFrame, 14, 30, m)).toBe(false);
  });
});

describe('Neighbour Discovery (RFC 4861)', () => {
  const me = addr('fd00:a7ca:10::3');
  const rs = addr('fd00:a7ca:10::121');
  it('solicited-node group and its MAC (RFC 4291 §2.7.1, RFC 2464 §7)', () => {
    expect(toHex(solicitedNode(rs, new Uint8Array(16)))).toBe('ff0200000000000000000001ff000121');
    const out = new Uint8Array(86);
    buildNeighbourSolicit(out, MY_MAC, me, rs, null);
    expect(toHex(out.subarray(0, 6))).toBe('3333ff000121');
    expect(out[14 + 7]).toBe(255);
    expect(out[54]).toBe(135);
    expect(toHex(out.subarray(78, 86))).toBe('010102a7ca000001');
    expect(checksumProblems(out)).toEqual([]);
  });
  it('an NS parsed and answered: solicited NA with S and O, TLLA, to the solicitor', () => {
    const ns = new Uint8Array(86);
    const solicitorMac = Uint8Array.from(MAC_A);
    buildNeighbourSolicit(ns, solicitorMac, rs, me, null);
    const m = new NdMessage();
    expect(parseNd(ns, 14, 54, 32, m)).toBe(true);
    expect(m.type).toBe(135);
    expect(m.hasLinkAddress).toBe(true);
    expect(toHex(m.target)).toBe(toHex(me));
    const na = new Uint8Array(86);
    buildNeighbourAdvert(na, m, MY_MAC, solicitorMac);
    expect(toHex(na.subarray(0, 12))).toBe(`${toHex(solicitorMac)}02a7ca000001`);
    expect(na[54]).toBe(136);
    expect(na[58]).toBe(NA_SOLICITED | NA_OVERRIDE);
    expect(toHex(na.subarray(22, 38))).toBe(toHex(me));
    expect(toHex(na.subarray(38, 54))).toBe(toHex(rs));
    expect(checksumProblems(na)).toEqual([]);
    const back = new NdMessage();
    expect(parseNd(na, 14, 54, 32, back)).toBe(true);
    expect(toHex(back.linkAddress)).toBe('02a7ca000001');
  });
  it('unsolicited NA: to ff02::1, O set, S clear', () => {
    const na = new Uint8Array(86);
    buildUnsolicitedAdvert(na, MY_MAC, addr('fd00:a7ca:100::12'));
    expect(toHex(na.subarray(0, 6))).toBe('333300000001');
    expect(toHex(na.subarray(38, 54))).toBe('ff020000000000000000000000000001');
    expect(na[58]).toBe(NA_OVERRIDE);
    expect(checksumProblems(na)).toEqual([]);
  });
  it('refuses a hop limit other than 255, a bad checksum, and a solicited NA to a group', () => {
    const ns = new Uint8Array(86);
    buildNeighbourSolicit(ns, MY_MAC, me, rs, null);
    const m = new NdMessage();
    const hop = Uint8Array.from(ns);
    hop[21] = 64;
    expect(parseNd(hop, 14, 54, 32, m)).toBe(false);
    const ck = Uint8Array.from(ns);
    ck[56] ^= 1;
    expect(parseNd(ck, 14, 54, 32, m)).toBe(false);
    const na = new Uint8Array(86);
    buildUnsolicitedAdvert(na, MY_MAC, me);
    na[58] = NA_SOLICITED | NA_OVERRIDE; // S set to a multicast destination (and checksum now wrong too)
    expect(parseNd(na, 14, 54, 32, m)).toBe(false);
  });
});

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
