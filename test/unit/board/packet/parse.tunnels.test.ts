/**
 * Tunnels (board/packet/gre.ts, udp-tunnel.ts, mpls.ts, ppp.ts, IP-in-IP in parse.ts): `outer`
 * is the first IP header, `inner` the innermost after every tunnel, `tunnelDepth` the levels
 * stripped; every occurrence is listed for `fields`, outermost first.
 */
import { describe, expect, it } from 'vitest';
import { PacketParser } from '../../../../board/packet/parse.ts';
import { cat, hex } from '../../../support/packet-builders.ts';
import { eth, ipv4, ipv6, parse, tcp, tupleText, udp } from './parse-helpers.ts';

const innerIp = ipv4('192.168.1.1', '192.168.1.2', 6, tcp(5000, 80, 0x02));
const innerFrame = eth(0x0800, innerIp);
const outer = (proto: number, payload: Uint8Array) => eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', proto, payload));

describe('IP in IP', () => {
  it.each([
    ['4in4', outer(4, innerIp), '10.0.0.1,192.168.1.1'],
    ['6in4 (proto 41)', outer(41, ipv6(1, 2, 6, tcp(5000, 80, 2))), '10.0.0.1'],
  ])('%s: outer is the transit header, inner the tunnelled one', (_n, frame, ipSrc) => {
    const { v, f } = parse(frame);
    expect(f['ip.src']).toBe(ipSrc);
    expect(tupleText(v.outer)).toMatch(/^10\.0\.0\.1 > 10\.0\.0\.2 proto (4|41)$/);
    expect([v.tunnelDepth, v.inner.sport, v.inner.dport, v.inner.tcpFlags]).toEqual([1, 5000, 80, 2]);
  });

  it('IPv4-in-IPv6-in-IPv6: two levels, inner is the innermost', () => {
    const { v, f } = parse(eth(0x86dd, ipv6(1, 2, 41, ipv6(3, 4, 4, innerIp))));
    expect(f['ipv6.nxt']).toBe('41,4');
    expect([v.tunnelDepth, v.inner.family, v.outer.proto]).toEqual([2, 4, 41]);
    expect(tupleText(v.inner)).toBe('192.168.1.1:5000 > 192.168.1.2:80 proto 6');
  });

  it('nesting deeper than the parser follows ends in a too-deep error, not a stack overflow', () => {
    let p: Uint8Array = udp(1, 2);
    for (let i = 0; i < 200; i++) p = ipv4('10.0.0.1', '10.0.0.2', i === 0 ? 17 : 4, p);
    const v = new PacketParser().parse(eth(0x0800, p), 1);
    expect([v.malformed, v.error?.kindName]).toEqual([true, 'too-deep']);
  });
});

describe('GRE', () => {
  it('GRE with checksum, key and sequence (RFC 2784/2890) carrying IPv4', () => {
    const gre = cat(hex`b0 00 08 00  00 00 00 00  00 00 00 2a  00 00 00 07`, innerIp);
    const { v, f } = parse(outer(47, gre));
    expect(f['gre.proto']).toBe('0x0800');
    expect([v.outer.proto, v.outer.hasPorts, v.tunnelDepth, v.inner.sport]).toEqual([47, false, 1, 5000]);
  });

  it('transparent Ethernet bridging (0x6558): a second eth.type, inner VLANs not in vlanIds', () => {
    const { v, f } = parse(outer(47, cat(hex`20 00 65 58  00 00 00 01`, eth(0x8100, cat(hex`00 05 08 00`, innerIp)))));
    expect(f['eth.type']).toBe('0x0800,0x8100');
    expect(f['vlan.id']).toBe('5');
    expect([v.vlanCount, v.ethOffset, v.inner.dport]).toEqual([0, 0, 80]);
  });

  it('ERSPAN type II (0x88be, S bit) and type III (0x22eb) with the platform sub-header; type I without S', () => {
    const t2 = cat(hex`10 00 88 be  00 00 00 01   10 65 c0 01 00 08 40 65`, innerFrame);
    expect(parse(outer(47, t2)).v.inner.sport).toBe(5000);
    const t3 = cat(hex`10 00 22 eb  00 00 00 01   20 65 c0 01  00 00 00 00  00 00 00 01  00 00 00 00 00 00 00 00`, innerFrame);
    expect(parse(outer(47, t3)).f['eth.type']).toBe('0x0800,0x0800');
    const t1 = cat(hex`00 00 88 be`, innerFrame);
    expect(parse(outer(47, t1)).v.inner.dport).toBe(80);
  });

  it('PPTP enhanced GRE v1 (key = payload length + call ID, sequence, acknowledgment) → PPP → IPv4', () => {
    const gre = cat(hex`30 81 88 0b  00 2c 00 01  00 00 00 05  00 00 00 04   ff 03 00 21`, innerIp);
    const { v, f } = parse(outer(47, gre));
    expect(f['gre.proto']).toBe('0x880b');
    expect(tupleText(v.inner)).toBe('192.168.1.1:5000 > 192.168.1.2:80 proto 6');
  });

  it('the acknowledgment number exists only for PPP payloads (tshark): A bit on IPv4 is ignored', () => {
    expect(parse(outer(47, cat(hex`00 81 08 00`, innerIp))).v.inner.sport).toBe(5000);
  });

  it('a keepalive (type 0) is not decoded further; Cisco MetaData (0x8909) is', () => {
    const ka = parse(outer(47, cat(hex`00 00 00 00`, innerIp)));
    expect([ka.f['gre.proto'], ka.v.tunnelDepth]).toEqual(['0x0000', 0]);
    const cmd = parse(outer(47, cat(hex`20 00 89 09  00 00 00 28   08 00 01 01 00 01 00 00`, innerIp)));
    expect([cmd.f['gre.proto'], cmd.v.inner.sport]).toEqual(['0x8909', 5000]);
  });

  it('a cut GRE header: no gre.proto without all 4 base bytes', () => {
    const frame = outer(47, cat(hex`00 00 08 00`, innerIp));
    expect(parse(frame.subarray(0, 34 + 3), 1, frame.length).f['gre.proto']).toBeUndefined();
  });
});

describe('UDP tunnels', () => {
  it('VXLAN on 4789 (either port, lower one first): Ethernet inside', () => {
    const { v, f } = parse(outer(17, udp(51000, 4789, cat(hex`08 00 00 00 00 12 34 00`, innerFrame))));
    expect(f['eth.type']).toBe('0x0800,0x0800');
    expect(f['udp.dstport']).toBe('4789');
    expect([v.outer.dport, v.tunnelDepth, v.inner.sport]).toEqual([4789, 1, 5000]);
  });

  it('Geneve on 6081 with 8 bytes of options, protocol 0x6558', () => {
    const gen = cat(hex`02 00 65 58  00 12 34 00  01 02 03 04 05 06 07 08`, innerFrame);
    expect(parse(outer(17, udp(51000, 6081, gen))).v.inner.dport).toBe(80);
  });

  it('port 4789 as destination with DNS (53) as source: tshark tries 53 first, so no VXLAN', () => {
    expect(parse(outer(17, udp(53, 4789, cat(hex`08 00 00 00 00 12 34 00`, innerFrame)))).v.tunnelDepth).toBe(0);
  });
});

describe('MPLS, PPPoE', () => {
  it('label stack then IPv4 (first nibble 4): the IP header is outer, no tunnel', () => {
    const { v, f } = parse(eth(0x8847, cat(hex`00 01 20 ff  00 01 01 ff`, innerIp)));
    expect(f['eth.type']).toBe('0x8847');
    expect([v.outer.family, v.tunnelDepth, v.outer.sport]).toEqual([4, 0, 5000]);
  });

  it('Ethernet pseudo-wire (first nibble 0: control word, then Ethernet; tcpreplay test.pcap)', () => {
    const { v, f } = parse(eth(0x8847, cat(hex`00 01 30 fe  00 01 01 ff  00 00 00 00`, eth(0x8100, cat(hex`00 01 08 00`, innerIp)))));
    expect(f['eth.type']).toBe('0x8847,0x8100');
    expect(f['vlan.id']).toBe('1');
    expect(v.outer.dport).toBe(80);
  });

  it('PPPoE session (0x8864) → PPP IPv6', () => {
    const ppp = cat(hex`00 57`, ipv6(1, 2, 17, udp(546, 547)));
    const { v } = parse(eth(0x8864, cat(hex`11 00 00 01`, new Uint8Array([ppp.length >> 8, ppp.length & 0xff]), ppp)));
    expect([v.outer.family, v.outer.dport]).toEqual([6, 547]);
  });
});
