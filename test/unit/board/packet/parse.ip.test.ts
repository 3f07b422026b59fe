/**
 * IPv4 (board/packet/ipv4.ts) and IPv6 with its extension headers (board/packet/ipv6.ts).
 * Field lists for cut and broken headers are what tshark 4.0 prints for the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { cat, hex } from '../../../support/packet-builders.ts';
import { eth, ipv4, ipv6, parse, tcp, tupleText, udp } from './parse-helpers.ts';

describe('IPv4', () => {
  it('options: the L4 offset comes from IHL', () => {
    const { v, f } = parse(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 17, udp(1, 2), { ihl: 6 })));
    expect(v.outer.l4Offset).toBe(14 + 24);
    expect(f['udp.srcport']).toBe('1');
  });

  it('first fragment: ports read (fields) but fragment set so hashPorts is false', () => {
    const { v, f } = parse(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 17, udp(1000, 2049, new Uint8Array(16), 4000), { flags: 0x2000 })));
    expect([v.outer.fragment, v.outer.hasPorts, v.outer.hashPorts]).toEqual([true, true, false]);
    expect([f['ip.flags.mf'], f['ip.frag_offset'], f['udp.srcport']]).toEqual(['1', '0', '1000']);
    expect(v.malformed).toBe(false); // a UDP length beyond a fragment is normal
  });

  it('later fragment: no L4 header, offset in 8-octet units, proto from the header', () => {
    const { v, f } = parse(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 17, new Uint8Array(24), { flags: 185 })));
    expect(tupleText(v.outer)).toBe('10.0.0.1 > 10.0.0.2 proto 17 frag');
    expect([f['ip.frag_offset'], f['ip.flags.mf'], f['udp.srcport']]).toEqual(['185', '0', undefined]);
  });

  it.each([
    ['IHL 4', { ihl: 4 }, 'bad-header-length', 'ihl', 14],
    ['version 5', { ver: 5 }, 'bad-version', 'version', 14],
    ['total length 10 < IHL', { tl: 10 }, 'bad-length', 'total_length', 16],
    ['total length 36 < IHL 60', { ihl: 15, tl: 36 }, 'bad-length', 'total_length', 16],
  ])('unusable header (%s): no ip.* fields, family 0, typed error', (_n, opts, kind, field, offset) => {
    const { v, f } = parse(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 17, udp(1, 2), opts)));
    expect(f).toEqual({ 'eth.type': '0x0800' });
    expect(v.outer.family).toBe(0);
    expect([v.malformed, v.error?.kindName, v.error?.layer, v.error?.field, v.error?.offset]).toEqual([true, kind, 'ipv4', field, offset]);
  });

  it('version 6 under ethertype 0x0800 is decoded as IPv6 (tshark hands it over)', () => {
    const { v } = parse(eth(0x0800, ipv6(1, 2, 17, udp(5, 6))));
    expect([v.outer.family, v.outer.sport]).toEqual([6, 5]);
  });

  it('total length 0 (TSO capture) uses the frame length', () => {
    const { v } = parse(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 6, tcp(80, 443, 0x18), { tl: 0 })));
    expect([v.outer.sport, v.outer.tcpFlags, v.malformed]).toEqual([80, 0x18, false]);
  });

  it('total length beyond the frame: decoded with what is there (tcpreplay test.pcap frame 11)', () => {
    const { v } = parse(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 17, udp(7, 9), { tl: 255 })));
    expect(v.outer.dport).toBe(9);
  });

  it('no payload (total length 20): no L4 fields at all', () => {
    const { f } = parse(eth(0x0800, cat(ipv4('10.0.0.1', '10.0.0.2', 17, new Uint8Array(0)), udp(1, 2))));
    expect(f['udp.srcport']).toBeUndefined();
  });

  it.each([
    [8, { 'ip.flags.mf': '0', 'ip.frag_offset': '0' }],
    [10, { 'ip.flags.mf': '0', 'ip.frag_offset': '0', 'ip.proto': '17' }],
    [15, { 'ip.flags.mf': '0', 'ip.frag_offset': '0', 'ip.proto': '17' }],
    [16, { 'ip.flags.mf': '0', 'ip.frag_offset': '0', 'ip.proto': '17', 'ip.src': '10.0.0.1' }],
    [19, { 'ip.flags.mf': '0', 'ip.frag_offset': '0', 'ip.proto': '17', 'ip.src': '10.0.0.1' }],
  ])('header cut after %i bytes: the fields tshark shows', (n, fields) => {
    const frame = eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 17, udp(1, 2))).subarray(0, 14 + n);
    const { v, f } = parse(frame, 1, 60);
    expect(f).toEqual({ 'eth.type': '0x0800', ...fields });
    expect([v.outer.family, v.truncated, v.malformed]).toEqual([0, true, false]);
  });
});

describe('IPv6', () => {
  it('hop-by-hop, destination options and routing headers are walked to UDP; ipv6.nxt is the fixed header\'s', () => {
    const chain = cat(
      hex`3c 00 01 04 00 00 00 00`, // HBH: next 60, len 0, PadN(4)
      hex`2b 00 01 04 00 00 00 00`, // DstOpts: next 43
      hex`11 00 00 00 00 00 00 00`, // Routing: next 17, type 0, segments left 0
      udp(546, 547),
    );
    const { v, f } = parse(eth(0x86dd, ipv6(1, 2, 0, chain)));
    expect(f['ipv6.nxt']).toBe('0');
    expect(tupleText(v.outer)).toBe('2001:db8::1:546 > 2001:db8::2:547 proto 17');
    expect(v.outer.l4Offset).toBe(14 + 40 + 24);
  });

  it('AH is walked (length in 4-octet units + 2)', () => {
    const ah = cat(hex`06 04 00 00  00 00 01 00  00 00 00 01  00 00 00 00 00 00 00 00 00 00 00 00`, tcp(22, 5000, 0x10));
    expect(parse(eth(0x86dd, ipv6(1, 2, 51, ah))).v.outer.sport).toBe(22);
  });

  it('fragments: first has ports, later ones the fragment header\'s next header; atomic is not a fragment', () => {
    const first = parse(eth(0x86dd, ipv6(1, 2, 44, cat(hex`11 00 00 01 00 00 00 2a`, udp(53, 5353))))).v;
    expect([first.outer.proto, first.outer.hasPorts, first.outer.fragment]).toEqual([17, true, true]);
    const later = parse(eth(0x86dd, ipv6(1, 2, 44, cat(hex`11 00 05 c8 00 00 00 2a`, new Uint8Array(16))))).v;
    expect([later.outer.proto, later.outer.hasPorts, later.outer.fragment]).toEqual([17, false, true]);
    const atomic = parse(eth(0x86dd, ipv6(1, 2, 44, cat(hex`06 00 00 00 00 00 00 2a`, tcp(80, 1, 2))))).v;
    expect([atomic.outer.proto, atomic.outer.sport, atomic.outer.fragment, atomic.outer.hashPorts]).toEqual([6, 80, false, true]);
  });

  it('payload length 0 without a jumbo option: an empty payload, so the UDP header is an overrun', () => {
    const { v, f } = parse(eth(0x86dd, ipv6(1, 2, 17, udp(1, 2), 0)));
    expect(f['udp.srcport']).toBeUndefined();
    expect([v.malformed, v.error?.layer, v.outer.proto]).toEqual([true, 'udp', 17]);
  });

  it('payload length 0 with a hop-by-hop Jumbo Payload option (RFC 2675) takes the jumbo length', () => {
    const pl = cat(hex`11 00 c2 04 00 00 00 14`, udp(1, 2)); // HBH: next UDP, jumbo 20 (8 + 12)
    const { v } = parse(eth(0x86dd, ipv6(1, 2, 0, pl, 0)));
    expect([v.outer.sport, v.outer.ipLength, v.malformed]).toEqual([1, 60, false]);
  });

  it('a fixed-length option with the wrong length is malformed, and the chain is still walked', () => {
    const pl = cat(hex`11 00 30 02 00 00 01 00`, udp(1, 2)); // Path MTU option must be 4 bytes
    const { v } = parse(eth(0x86dd, ipv6(1, 2, 0, pl)));
    expect([v.malformed, v.error?.kindName, v.outer.sport]).toEqual([true, 'bad-option', 1]);
  });

  it('a header cut after 24 bytes lists ipv6.nxt and ipv6.src only', () => {
    const frame = eth(0x86dd, ipv6(1, 2, 6, tcp(1, 2, 2))).subarray(0, 14 + 24);
    expect(parse(frame, 1, 100).f).toEqual({ 'eth.type': '0x86dd', 'ipv6.nxt': '6', 'ipv6.src': '2001:db8::1' });
  });

  it('version 4 under ethertype 0x86dd is malformed, no fields', () => {
    const { v, f } = parse(eth(0x86dd, ipv4('1.1.1.1', '2.2.2.2', 59, new Uint8Array(0))));
    expect(f).toEqual({ 'eth.type': '0x86dd' });
    expect(v.error?.kindName).toBe('bad-version');
  });
});
