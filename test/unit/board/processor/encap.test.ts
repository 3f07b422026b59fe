// The processor board's tunnel encapsulation (board/processor/encap.ts): IPIP, GRE, 4in6, 6in4 and
// their outer headers; tshark reading the emitted frames is in test/e2e/encap-tshark.test.ts.
import { describe, expect, it } from 'vitest';
import { ProcessorBoard } from '../../../../board/processor/processor-board.ts';
import { ipv4HeaderChecksum } from '../../../../board/processor/encap.ts';
import { ACK, SYN, packet, tcp, udp } from '../../../support/processor-packets.ts';
import type { TestPacket } from '../../../support/processor-packets.ts';
import { config, servers, service } from '../../../support/processor-config.ts';

interface Out {
  bytes: Uint8Array;
  tsMs: number;
  origLen: number;
}

function board(): { b: ProcessorBoard; out: Out[] } {
  const out: Out[] = [];
  const b = new ProcessorBoard(config([
    service({ name: 'ipip', vip: '192.0.2.10', port: 0, protocol: 'any', encapsulation: 'ipip', pool: servers(1, 'i') }),
    service({ name: 'gre', vip: '192.0.2.20', port: 0, protocol: 'any', encapsulation: 'gre', pool: [{ name: 'g', address: '10.2.0.1', weight: 1 }] }),
    service({ name: 'v6rs', vip: '192.0.2.30', port: 0, protocol: 'any', encapsulation: 'ipip', pool: [{ name: 'x', address: '2001:db8::100', weight: 1 }] }),
    service({ name: 'v6', vip: '::/0', port: 0, protocol: 'any', encapsulation: 'gre', pool: [{ name: 'y', address: '2001:db8::200', weight: 1 }] }),
    service({ name: 'v6ipip4', vip: '2001:db8:4::/48', port: 0, protocol: 'any', encapsulation: 'ipip', pool: [{ name: 'z', address: '10.3.0.1', weight: 1 }] }),
  ]), { slot: 3, startMs: 0, emit: { emit: (bytes, len, ts, wire) => out.push({ bytes: bytes.slice(0, len), tsMs: ts, origLen: wire }) } });
  return { b, out };
}

const u16 = (b: Uint8Array, o: number) => (b[o]! << 8) | b[o + 1]!;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** The IP datagram of a test packet as captured (no Ethernet padding). */
const datagram = (p: TestPacket) => p.frame.subarray(14, Math.min(p.frame.length, 14 + p.outer.ipLength));

describe('encapsulation', () => {
  it('IPIP: IPv4 outer with a correct checksum, inner datagram passed through', () => {
    const { b, out } = board();
    const p = tcp('10.0.0.1', 40000, '192.0.2.10', 80, SYN, 12);
    b.handle(p, 1000);
    const f = out[0]!.bytes;
    expect(hex(f.subarray(0, 6))).toBe(hex(b.realServers[0]!.mac));
    expect(hex(f.subarray(6, 12))).toBe('02a7ca000003');
    expect(u16(f, 12)).toBe(0x0800);
    expect(f[14]).toBe(0x45);
    expect(u16(f, 16)).toBe(20 + p.outer.ipLength); // total length
    expect(f[14 + 6]! & 0x40).toBe(0x40); // DF copied from the inner header
    expect(f[14 + 8]).toBe(64);
    expect(f[14 + 9]).toBe(4); // IPIP
    expect(ipv4HeaderChecksum(f, 14, 20)).toBe(0); // a correct header sums to 0xffff
    expect(Array.from(f.subarray(26, 30))).toEqual([10, 255, 0, 3]);
    expect(Array.from(f.subarray(30, 34))).toEqual([10, 1, 0, 1]);
    expect(hex(f.subarray(34))).toBe(hex(datagram(p)));
    expect(out[0]!.origLen).toBe(f.length);
    expect(out[0]!.tsMs).toBe(1000);
  });

  it('GRE: protocol 47, 4-byte header naming the inner ethertype', () => {
    const { b, out } = board();
    const p = udp('10.0.0.2', 40000, '192.0.2.20', 9999, 30);
    b.handle(p, 0);
    const f = out[0]!.bytes;
    expect(f[14 + 9]).toBe(47);
    expect(u16(f, 16)).toBe(20 + 4 + p.outer.ipLength);
    expect(hex(f.subarray(34, 38))).toBe('00000800');
    expect(hex(f.subarray(38))).toBe(hex(datagram(p)));
  });

  it('IPv6 outer for an IPv6 RS (4in6), and 6in4 / 6in6 for IPv6 clients', () => {
    const { b, out } = board();
    const p4 = tcp('10.0.0.3', 1, '192.0.2.30', 80, SYN);
    b.handle(p4, 0);
    let f = out[0]!.bytes;
    expect(u16(f, 12)).toBe(0x86dd);
    expect(f[14]! >> 4).toBe(6);
    expect(u16(f, 18)).toBe(p4.outer.ipLength); // payload length
    expect(f[20]).toBe(4); // IPv4-in-IPv6
    expect(hex(f.subarray(38, 54))).toBe('20010db8000000000000000000000100');
    expect(hex(f.subarray(54))).toBe(hex(datagram(p4)));

    const p6 = tcp('2001:db8:4::1', 1, '2001:db8:4::80', 80, SYN);
    b.handle(p6, 0);
    f = out[1]!.bytes;
    expect(u16(f, 12)).toBe(0x0800);
    expect(f[14 + 9]).toBe(41); // IPv6-in-IPv4
    expect(hex(f.subarray(34))).toBe(hex(datagram(p6)));

    const g6 = udp('2001:db8::1', 1, '2001:db8::99', 9999, 20);
    b.handle(g6, 0);
    f = out[2]!.bytes;
    expect(f[20]).toBe(47);
    expect(u16(f, 18)).toBe(4 + g6.outer.ipLength);
    expect(hex(f.subarray(54, 58))).toBe('000086dd');
  });

  it('truncated capture: carries the captured bytes, lengths count the whole datagram', () => {
    const { b, out } = board();
    const p = packet({ src: '10.0.0.1', dst: '192.0.2.10', sport: 1, dport: 2, flags: ACK, payload: 1400, snap: 96 });
    expect(p.frame.length).toBe(96);
    b.handle(p, 0);
    const o = out[0]!;
    expect(o.bytes.length).toBe(14 + 20 + (96 - 14));
    expect(o.origLen).toBe(14 + 20 + p.outer.ipLength);
    expect(u16(o.bytes, 16)).toBe(20 + p.outer.ipLength);
  });

  it('does not carry Ethernet padding; replies pass through unchanged', () => {
    const { b, out } = board();
    const p = tcp('10.0.0.1', 5, '192.0.2.10', 80, SYN);
    const padded = new Uint8Array(p.frame.length + 6);
    padded.set(p.frame);
    p.frame = padded;
    b.handle(p, 0);
    expect(out[0]!.bytes.length).toBe(14 + 20 + p.outer.ipLength);
    const r = tcp('192.0.2.10', 80, '10.0.0.1', 5, SYN | ACK);
    b.handle(r, 1);
    const f = out[1]!.bytes;
    expect(hex(f.subarray(0, 6))).toBe('02a7cafffffe');
    expect(u16(f, 12)).toBe(0x0800);
    expect(hex(f.subarray(14))).toBe(hex(datagram(r)));
  });
});
