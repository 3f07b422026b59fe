/**
 * Ethernet II / 802.3 / 802.1Q / 802.1ad / LLC-SNAP (board/packet/ethernet.ts). Expected field
 * lists are what tshark 4.0 prints for the same bytes (checked with the oracle's options).
 */
import { describe, expect, it } from 'vitest';
import { cat, hex } from '../../../support/packet-builders.ts';
import { eth, ipv4, parse, tupleText, udp } from './parse-helpers.ts';

const ipUdp = ipv4('10.0.0.1', '10.0.0.2', 17, udp(1000, 53));

describe('Ethernet II', () => {
  it('Ethernet + IPv4 + UDP: outer = inner, eth.type, ports', () => {
    const frame = hex`
      02 00 00 00 00 02  02 00 00 00 00 01  08 00   # dst MAC, src MAC, type IPv4
      45 00 00 20  12 34 00 00  40 11 00 00          # IPv4: IHL 5, total length 32, proto 17
      c0 a8 01 01  c0 a8 01 02                       # 192.168.1.1 > 192.168.1.2
      30 39 00 35  00 0c 00 00  de ad be ef          # UDP 12345 > 53, length 12
    `;
    const { v, f } = parse(frame);
    expect(f).toEqual({ 'eth.type': '0x0800', 'ip.src': '192.168.1.1', 'ip.dst': '192.168.1.2', 'ip.proto': '17', 'ip.flags.mf': '0', 'ip.frag_offset': '0', 'udp.srcport': '12345', 'udp.dstport': '53' });
    expect(tupleText(v.outer)).toBe('192.168.1.1:12345 > 192.168.1.2:53 proto 17');
    expect(tupleText(v.inner)).toBe(tupleText(v.outer));
    expect([v.ethOffset, v.outer.l3Offset, v.outer.l4Offset, v.tunnelDepth, v.malformed, v.error]).toEqual([0, 14, 34, 0, false, null]);
  });

  it('802.1Q tag: vlan.id, vlanIds', () => {
    const { v, f } = parse(eth(0x8100, cat(hex`00 64 08 00`, ipUdp)));
    expect(f['vlan.id']).toBe('100');
    expect(f['eth.type']).toBe('0x8100');
    expect([v.vlanCount, v.vlanIds[0]]).toEqual([1, 100]);
    expect(v.outer.l3Offset).toBe(18);
  });

  it('802.1ad S-tag + C-tag: only the C-tag is a vlan.id (tshark lists the S-VID as ieee8021ad.id), both in vlanIds', () => {
    const { v, f } = parse(eth(0x88a8, cat(hex`00 1e 81 00  00 64 08 00`, ipUdp)));
    expect(f['eth.type']).toBe('0x88a8');
    expect(f['vlan.id']).toBe('100');
    expect(Array.from(v.vlanIds.subarray(0, v.vlanCount))).toEqual([30, 100]);
  });

  it('three stacked 802.1Q tags and a 0x9100 tag, outer first; a priority tag (VID 0) counts', () => {
    const { v, f } = parse(eth(0x8100, cat(hex`20 1e 91 00  00 14 81 00  e0 00 08 00`, ipUdp)));
    expect(f['vlan.id']).toBe('30,20,0');
    expect(v.vlanCount).toBe(3);
  });

  it('802.3 length + LLC (STP): no eth.type, nothing decoded, not malformed', () => {
    const { v, f } = parse(eth(0x0026, cat(hex`42 42 03  # DSAP, SSAP (STP), UI`, new Uint8Array(35))));
    expect(f).toEqual({});
    expect([v.outer.family, v.malformed]).toEqual([0, false]);
  });

  it('802.3 length + LLC/SNAP with OUI 0 carries an ethertype (RFC 1042)', () => {
    const payload = cat(hex`aa aa 03 00 00 00 08 00`, ipUdp);
    const { v, f } = parse(eth(payload.length, payload));
    expect(f['eth.type']).toBeUndefined();
    expect(f['ip.src']).toBe('10.0.0.1');
    expect(v.outer.dport).toBe(53);
  });

  it('an 802.3 length past the frame is malformed, yet the payload is decoded (as tshark)', () => {
    const payload = cat(hex`aa aa 03 00 00 00 08 00`, ipUdp);
    const { v, f } = parse(eth(payload.length + 30, payload));
    expect(f['ip.src']).toBe('10.0.0.1');
    expect(v.malformed).toBe(true);
    expect([v.error?.kindName, v.error?.layer, v.error?.field, v.error?.offset]).toEqual(['bad-length', 'ethernet', 'length', 12]);
  });

  it('an LLC header that does not fit its 802.3 length is malformed', () => {
    expect(parse(eth(2, hex`aa aa 03 00 00 00 08 00`)).v.error?.layer).toBe('llc');
  });

  it('type 0 is an unknown ethertype (listed), 1501-1535 are neither length nor type (not listed)', () => {
    expect(parse(eth(0x0000, ipUdp)).f).toEqual({ 'eth.type': '0x0000' });
    expect(parse(eth(0x05dd, ipUdp)).f).toEqual({});
  });

  it('a frame cut inside the Ethernet header: truncated if the wire frame was longer, malformed if not', () => {
    const frame = eth(0x0800, ipUdp).subarray(0, 12);
    const cut = parse(frame, 1, 60).v;
    expect([cut.truncated, cut.malformed, cut.error?.kindName, cut.error?.layer]).toEqual([true, false, 'truncated', 'ethernet']);
    const short = parse(frame).v;
    expect([short.truncated, short.malformed, short.error?.kindName]).toEqual([false, true, 'overrun']);
  });
});
