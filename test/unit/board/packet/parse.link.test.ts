/**
 * Link layers by capture link type (board/packet/linux-sll.ts, null-loop.ts, ppp.ts, parse.ts
 * raw IP): SLL and SLL2 (sll.etype, not eth.type), BSD NULL/LOOP families, PPP, raw IP (101, 12,
 * 228, 229), and an unsupported link type.
 */
import { describe, expect, it } from 'vitest';
import { cat, hex } from '../../../support/packet-builders.ts';
import { ipv4, ipv6, parse, tcp, udp } from './parse-helpers.ts';

const ip = ipv4('10.1.1.1', '10.1.1.2', 17, udp(68, 67));
const ip6 = ipv6(1, 2, 6, tcp(443, 5555, 0x10));

describe('link types', () => {
  it('Linux SLL (113): protocol 0x0800, no eth.type', () => {
    const { v, f } = parse(cat(hex`00 00 00 01 00 06  00 11 22 33 44 55 00 00  08 00`, ip), 113);
    expect(f['eth.type']).toBeUndefined();
    expect([v.outer.l3Offset, v.outer.sport, v.ethOffset]).toEqual([16, 68, -1]);
  });

  it('Linux SLL2 (276)', () => {
    const { v } = parse(cat(hex`86 dd 00 00  00 00 00 02  00 01 00 06  00 11 22 33 44 55 00 00`, ip6), 276);
    expect([v.outer.family, v.outer.l3Offset, v.outer.sport]).toEqual([6, 20, 443]);
  });

  it.each([
    ['little-endian AF_INET', hex`02 00 00 00`, ip, 4],
    ['big-endian AF_INET', hex`00 00 00 02`, ip, 4],
    ['AF_INET6 NetBSD/OpenBSD 24', hex`18 00 00 00`, ip6, 6],
    ['AF_INET6 FreeBSD 28', hex`1c 00 00 00`, ip6, 6],
    ['AF_INET6 macOS 30', hex`1e 00 00 00`, ip6, 6],
  ])('NULL (0): %s', (_n, hdr, payload, family) => {
    expect(parse(cat(hdr, payload), 0).v.outer.family).toBe(family);
  });

  it('LOOP (108): family in network byte order', () => {
    expect(parse(cat(hex`00 00 00 02`, ip), 108).v.outer.family).toBe(4);
    expect(parse(cat(hex`02 00 00 00`, ip), 108).v.outer.family).toBe(0);
  });

  it('PPP (9): FF 03 address/control, protocol 0x0021 / 0x0281 MPLS', () => {
    expect(parse(cat(hex`ff 03 00 21`, ip), 9).v.outer.dport).toBe(67);
    expect(parse(cat(hex`ff 03 02 81  00 01 21 40`, ip), 9).v.outer.dport).toBe(67);
    expect(parse(cat(hex`21`, ip), 9).v.outer.dport).toBe(67); // protocol-field compression
  });

  it.each([101, 12])('raw IP (%i): version nibble picks the family', (lt) => {
    expect(parse(ip, lt).v.outer.family).toBe(4);
    expect(parse(ip6, lt).v.outer.family).toBe(6);
  });

  it('raw IP reads 8 bytes before deciding (tshark), so a 7-byte capture lists nothing', () => {
    expect(parse(ip6.subarray(0, 7), 101, 72).f).toEqual({});
    expect(parse(ip6.subarray(0, 8), 101, 72).f).toEqual({ 'ipv6.nxt': '6' });
  });

  it('IPv4 (228) and IPv6 (229) link types', () => {
    expect(parse(ip, 228).v.outer.family).toBe(4);
    expect(parse(ip6, 229).v.outer.family).toBe(6);
  });

  it('an unsupported link type is a typed error for the packet', () => {
    const { v } = parse(ip, 147);
    expect([v.malformed, v.error?.kindName, v.error?.layer, v.outer.family]).toEqual([true, 'unsupported-link-type', 'link', 0]);
  });
});
