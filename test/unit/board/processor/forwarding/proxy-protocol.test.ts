/**
 * The PROXY v2 header (board/processor/forwarding/proxy-protocol.ts) against bytes worked out by
 * hand from HAProxy's specification (§2.2), and the sequence shift: client sequence numbers after
 * the first data byte up by the header's length, the RS's acknowledgements and SACK edges down,
 * modulo 2^32, checksums right by an independent recomputation.
 */
import { describe, expect, it } from 'vitest';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import {
  encodeProxyV2, proxyV2Length, seqAfter, shiftAckOutbound, shiftSeqInbound,
} from '../../../../../board/processor/forwarding/proxy-protocol.ts';
import { addr, checksumProblems, toHex } from '../../../../support/frames.ts';
import { segment, tcpFields } from '../../../../support/tcp-segment.ts';

const SIG = '0d0a0d0a000d0a515549540a';

function layout(f: Uint8Array, len: number): IpLayout {
  const ip = new IpLayout();
  expect(locateIp(f, 14, len, ip)).toBe(true);
  return ip;
}

describe('PROXY v2 header', () => {
  it('TCP over IPv4: 28 bytes (hand-computed)', () => {
    const b = new Uint8Array(28);
    const n = encodeProxyV2({ family: 4, proto: 6, src: addr('198.18.0.2'), srcPort: 40000, dst: addr('198.18.100.12'), dstPort: 80 }, b, 0);
    expect(n).toBe(28);
    // sig | 21 (v2, PROXY) | 11 (INET, STREAM) | 000c | c6120002 | c612640c | 9c40 | 0050
    expect(toHex(b)).toBe(`${SIG}2111000cc6120002c612640c9c400050`);
  });
  it('TCP over IPv6: 52 bytes (hand-computed)', () => {
    const b = new Uint8Array(52);
    encodeProxyV2({ family: 6, proto: 6, src: addr('fd00:a7ca::2'), srcPort: 40000, dst: addr('fd00:a7ca:100::12'), dstPort: 443 }, b, 0);
    expect(toHex(b)).toBe(`${SIG}21210024fd00a7ca000000000000000000000002fd00a7ca0100000000000000000000129c4001bb`);
  });
  it('UDP families and refusals', () => {
    const b = new Uint8Array(52);
    encodeProxyV2({ family: 4, proto: 17, src: addr('10.0.0.1'), srcPort: 1, dst: addr('10.0.0.2'), dstPort: 2 }, b, 0);
    expect(b[13]).toBe(0x12);
    encodeProxyV2({ family: 6, proto: 17, src: addr('::1'), srcPort: 1, dst: addr('::2'), dstPort: 2 }, b, 0);
    expect(b[13]).toBe(0x22);
    expect(proxyV2Length(4)).toBe(28);
    expect(proxyV2Length(6)).toBe(52);
    expect(() => encodeProxyV2({ family: 4, proto: 1, src: addr('::1'), srcPort: 1, dst: addr('::2'), dstPort: 2 }, b, 0)).toThrow(/protocol 1/);
    expect(() => encodeProxyV2({ family: 6, proto: 6, src: addr('::1'), srcPort: 1, dst: addr('::2'), dstPort: 2 }, b, 1)).toThrow(/need 52/);
  });
});

describe('sequence shift', () => {
  it('seqAfter compares modulo 2^32', () => {
    expect(seqAfter(5, 0xfffffff0)).toBe(true);
    expect(seqAfter(0xfffffff0, 5)).toBe(false);
    expect(seqAfter(7, 7)).toBe(false);
  });
  it('client → RS: after F moved up by 28 (wrapping), at F unchanged; checksum right', () => {
    const F = 0xffffffff; // ISN 0xfffffffe
    const [a, alen] = segment({ src: '198.18.10.30', dst: '198.18.10.121', sport: 2001, dport: 8080, seq: F, ack: 9, flags: 0x10 });
    expect(shiftSeqInbound(a, layout(a, alen), F, 28)).toBe(false);
    expect(tcpFields(a).seq).toBe(F);
    const [b, blen] = segment({ src: '198.18.10.30', dst: '198.18.10.121', sport: 2001, dport: 8080, seq: 99, ack: 9, flags: 0x18, payload: [1, 2, 3] });
    expect(shiftSeqInbound(b, layout(b, blen), F, 28)).toBe(true);
    expect(tcpFields(b).seq).toBe(99 + 28);
    expect(checksumProblems(b)).toEqual([]);
  });
  it('RS → client: ack and SACK edges down by 52 (IPv6), inside the header → F, before F untouched', () => {
    const F = 1000;
    // SACK block [F+52+100, F+52+200) and [F+10, F+30) (inside the header); NOP NOP first.
    const r32 = (v: number) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    const sack = [1, 1, 5, 18, ...r32(F + 152), ...r32(F + 252), ...r32(F + 10), ...r32(F + 30)];
    const [f, len] = segment({ src: 'fd00:a7ca:100::12', dst: 'fd00:a7ca::2', sport: 80, dport: 40000, seq: 7, ack: F + 52 + 5, flags: 0x10, options: sack });
    expect(shiftAckOutbound(f, layout(f, len), F, 52)).toBe(true);
    const tf = tcpFields(f);
    expect(tf.ack).toBe(F + 5);
    expect(tf.options.slice(4)).toEqual([...r32(F + 100), ...r32(F + 200), ...r32(F), ...r32(F)]);
    expect(checksumProblems(f)).toEqual([]);
    const [g, glen] = segment({ src: 'fd00:a7ca:100::12', dst: 'fd00:a7ca::2', sport: 80, dport: 40000, seq: 7, ack: F, flags: 0x10 });
    expect(shiftAckOutbound(g, layout(g, glen), F, 52)).toBe(false);
    // no ACK flag: the acknowledgement field is not a number to shift
    const [h, hlen] = segment({ src: 'fd00:a7ca:100::12', dst: 'fd00:a7ca::2', sport: 80, dport: 40000, seq: 7, ack: F + 999, flags: 0x04 });
    expect(shiftAckOutbound(h, layout(h, hlen), F, 52)).toBe(false);
  });
});
