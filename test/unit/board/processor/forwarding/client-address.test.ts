/**
 * The client-address stage (board/processor/forwarding/client-address.ts) over a connection's
 * segments: TOA on the SYN and the first segment after it and nowhere else, the MSS lowered;
 * the PROXY header before the first data byte (again on its retransmission), the shift on every
 * later segment both ways, mid-stream pickup and no room counted; the state's sync bytes.
 */
import { describe, expect, it } from 'vitest';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import {
  ClientAddressStage, decodeClientAddressState, encodeClientAddressState, newClientAddressState, ProxyPhase,
} from '../../../../../board/processor/forwarding/client-address.ts';
import { findToa } from '../../../../../board/processor/forwarding/toa.ts';
import { newTranslation, type Translation } from '../../../../../board/processor/forwarding/translation.ts';
import { addr, checksumProblems, toHex } from '../../../../support/frames.ts';
import { LINUX_SYN_OPTIONS, segment, type SegmentSpec, tcpFields } from '../../../../support/tcp-segment.ts';

function tr(): Translation {
  const t = newTranslation('fullnat', 4);
  t.client.set(addr('198.18.0.2'));
  t.clientPort = 40000;
  t.vip.set(addr('198.18.100.12'));
  t.vipPort = 80;
  t.rs.set(addr('198.18.10.121'));
  t.rsPort = 8080;
  t.local.set(addr('198.18.10.30'));
  t.localPort = 2001;
  return t;
}

const IN = { src: '198.18.10.30', dst: '198.18.10.121', sport: 2001, dport: 8080 };
const OUT = { src: '198.18.100.12', dst: '198.18.0.2', sport: 80, dport: 40000 };

function run(stage: ClientAddressStage, mode: 'toa' | 'proxy-protocol', spec: SegmentSpec, st = newClientAddressState(), dir: 'in' | 'out' = 'in'): { f: Uint8Array; n: number } {
  const [f, len] = segment(spec, 128);
  const ip = new IpLayout();
  expect(locateIp(f, 14, len, ip)).toBe(true);
  if (dir === 'out') {
    stage.outbound(mode, f, ip, st);
    return { f: f.subarray(0, len), n: len };
  }
  const n = stage.inbound(mode, f, ip, len, tr(), st);
  return { f: n < 0 ? f : f.subarray(0, n), n };
}

describe('client address: toa', () => {
  it('SYN and the first segment after it carry the option; later segments not; MSS 1460 → 1452', () => {
    const s = new ClientAddressStage(1500);
    const st = newClientAddressState();
    const syn = run(s, 'toa', { ...IN, seq: 100, flags: 0x02, options: LINUX_SYN_OPTIONS }, st);
    expect(findToa(syn.f, 34)?.port).toBe(40000);
    expect(tcpFields(syn.f).options.slice(8, 12)).toEqual([2, 4, 0x05, 0xac]);
    expect(checksumProblems(syn.f)).toEqual([]);
    const ack = run(s, 'toa', { ...IN, seq: 101, ack: 1, flags: 0x10 }, st);
    expect(toHex(Uint8Array.from(tcpFields(ack.f).options))).toBe('fe089c40c6120002');
    const data = run(s, 'toa', { ...IN, seq: 101, ack: 1, flags: 0x18, payload: [1, 2] }, st);
    expect(findToa(data.f, 34)).toBeNull();
    expect(s.counters).toMatchObject({ toaOnSyn: 1, toaOnFirstAck: 1, toaNoRoom: 0, mssLowered: 1 });
  });
  it('a SYN with no option room goes out unchanged and is counted', () => {
    const s = new ClientAddressStage(1500);
    const full = [...LINUX_SYN_OPTIONS, ...new Array<number>(20).fill(1)];
    const r = run(s, 'toa', { ...IN, seq: 1, flags: 0x02, options: full });
    expect(findToa(r.f, 34)).toBeNull();
    expect(checksumProblems(r.f)).toEqual([]);
    expect(s.counters.toaNoRoom).toBe(1);
  });
});

describe('client address: proxy-protocol', () => {
  it('header before the first data byte, retransmitted again, shift both ways after it', () => {
    const s = new ClientAddressStage(1500);
    const st = newClientAddressState();
    run(s, 'proxy-protocol', { ...IN, seq: 0xfffffff0, flags: 0x02, options: LINUX_SYN_OPTIONS }, st);
    expect(st).toEqual({ toaPending: false, proxy: ProxyPhase.WAITING, first: 0xfffffff1 });
    // the handshake's ACK has no data: no header, no shift
    const ack = run(s, 'proxy-protocol', { ...IN, seq: 0xfffffff1, ack: 1, flags: 0x10 }, st);
    expect(tcpFields(ack.f).payload).toEqual([]);
    const get = [0x47, 0x45, 0x54];
    const first = run(s, 'proxy-protocol', { ...IN, seq: 0xfffffff1, ack: 1, flags: 0x18, payload: get }, st);
    const p = tcpFields(first.f).payload;
    expect(toHex(Uint8Array.from(p))).toBe('0d0a0d0a000d0a515549540a2111000cc6120002c612640c9c400050474554');
    expect(checksumProblems(first.f)).toEqual([]);
    const again = run(s, 'proxy-protocol', { ...IN, seq: 0xfffffff1, ack: 1, flags: 0x18, payload: get }, st);
    expect(tcpFields(again.f).payload.length).toBe(31);
    const next = run(s, 'proxy-protocol', { ...IN, seq: 0xfffffff4, ack: 1, flags: 0x18, payload: [1] }, st);
    expect(tcpFields(next.f).seq).toBe((0xfffffff4 + 28) >>> 0);
    // the RS acknowledged header + GET: 0xfffffff1 + 31 in its space → 0xfffffff1 + 3 for the client
    const reply = run(s, 'proxy-protocol', { ...OUT, seq: 1, ack: (0xfffffff1 + 31) >>> 0, flags: 0x10 }, st, 'out');
    expect(tcpFields(reply.f).ack).toBe(0xfffffff4);
    expect(checksumProblems(reply.f)).toEqual([]);
    expect(s.counters).toMatchObject({ proxyHeaders: 1, proxyResent: 1, mssLowered: 1 });
  });
  it('mid-stream pickup: no header and no shift, counted', () => {
    const s = new ClientAddressStage(1500);
    const st = newClientAddressState();
    const r = run(s, 'proxy-protocol', { ...IN, seq: 500, ack: 1, flags: 0x18, payload: [1, 2] }, st);
    expect(tcpFields(r.f)).toMatchObject({ seq: 500, payload: [1, 2] });
    expect(st.proxy).toBe(ProxyPhase.OFF);
    expect(s.counters.proxyMidstream).toBe(1);
  });
  it('no room for the header in the first segment: the connection goes without it (counted); a retransmission that no longer fits is dropped', () => {
    const s = new ClientAddressStage(100);
    const st = newClientAddressState();
    run(s, 'proxy-protocol', { ...IN, seq: 9, flags: 0x02 }, st);
    const big = new Array<number>(60).fill(0x61);
    const r = run(s, 'proxy-protocol', { ...IN, seq: 10, ack: 1, flags: 0x18, payload: big }, st);
    expect(tcpFields(r.f).payload.length).toBe(60);
    expect(st.proxy).toBe(ProxyPhase.OFF);
    expect(s.counters.proxyNoRoom).toBe(1);
    const st2 = { toaPending: false, proxy: ProxyPhase.SENT, first: 10 };
    expect(run(s, 'proxy-protocol', { ...IN, seq: 10, ack: 1, flags: 0x18, payload: big }, st2).n).toBe(-1);
    expect(s.counters.proxyDropped).toBe(1);
  });
});

describe('client address state sync bytes', () => {
  it('round trip; hand-computed bytes; bad bytes refused', () => {
    const b = new Uint8Array(8);
    expect(encodeClientAddressState({ toaPending: true, proxy: ProxyPhase.SENT, first: 0xdeadbeef }, b, 1)).toBe(7);
    expect(toHex(b)).toBe('000102deadbeef00');
    const into = newClientAddressState();
    expect(decodeClientAddressState(b, 1, into)).toBe(7);
    expect(into).toEqual({ toaPending: true, proxy: ProxyPhase.SENT, first: 0xdeadbeef });
    expect(() => decodeClientAddressState(Uint8Array.of(0, 9, 0, 0, 0, 0), 0, into)).toThrow(/PROXY phase 9/);
    expect(() => decodeClientAddressState(Uint8Array.of(0, 1), 0, into)).toThrow(/need 6 bytes/);
  });
});
