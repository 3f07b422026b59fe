/**
 * The forwarding-mode translations (board/processor/forwarding/) over real frames: dr, nat and
 * fullnat in both directions, IPv4 and IPv6, TCP and UDP; the incremental checksums (RFC 1624)
 * checked by an independent full recomputation (test/support/frames.ts); ICMP errors quoting a
 * translated datagram translated back; the local address pool (allocation per address and RS,
 * exhaustion as a reason and a counter, partitions by share, reservations of synced sessions, a
 * VIP refused as a local address) and the local-binding codec a sync record appends.
 */
import { describe, expect, it } from 'vitest';
import { IpLayout, locateIp } from '../../../board/packet/ip-layout.ts';
import { buildFragNeeded, buildPacketTooBig } from '../../../board/packet/icmp-error.ts';
import { drForward } from '../../../board/processor/forwarding/dr.ts';
import { natInbound, natOutbound } from '../../../board/processor/forwarding/nat.ts';
import { translateIcmpFromClient, translateIcmpFromServer } from '../../../board/processor/forwarding/icmp-translate.ts';
import { LocalAddressPool } from '../../../board/processor/forwarding/local-address-pool.ts';
import {
  decodeLocalBinding, encodeLocalBinding, newTranslation, XlateResult, type ForwardingMode, type Translation,
} from '../../../board/processor/forwarding/translation.ts';
import { DecodeError } from '../../../board/common/errors.ts';
import { addr, checksumProblems, frame, toHex } from '../../support/frames.ts';

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

describe('ICMP errors about translated connections', () => {
  for (const v6 of [false, true]) {
    const C = v6 ? 'fd00:a7ca::2' : '198.18.0.2';
    const V = v6 ? 'fd00:a7ca:100::12' : '198.18.100.12';
    const R = v6 ? 'fd00:a7ca:10::121' : '198.18.10.121';
    const L = v6 ? 'fd00:a7ca:10::30' : '198.18.10.30';
    const me = Uint8Array.from([2, 0xa7, 0xca, 0, 0, 3]);
    it(`${v6 ? 'IPv6' : 'IPv4'}: the RS's error about a fullnat datagram reaches the client as the VIP's, quoting client → VIP`, () => {
      const t = translation('fullnat', v6);
      const sent = frame({ src: L, dst: R, proto: 6, sport: 2001, dport: 8080, payload: new Array(1400).fill(1) });
      const out = new Uint8Array(14 + 1280);
      const n = v6 ? buildPacketTooBig(out, sent, ipOf(sent), 1280, addr(R), me) : buildFragNeeded(out, sent, ipOf(sent), 1400, addr(R), me, 1);
      const err = out.slice(0, n);
      const outer = ipOf(err);
      expect(translateIcmpFromServer(err, outer, t, new IpLayout())).toBe(XlateResult.OK);
      const o = ipOf(err);
      const an = v6 ? 16 : 4;
      const so = 14 + (v6 ? 8 : 12);
      expect(toHex(err.subarray(so, so + an))).toBe(toHex(addr(V).subarray(0, an)));
      expect(toHex(err.subarray(so + an, so + 2 * an))).toBe(toHex(addr(C).subarray(0, an)));
      const q = new IpLayout();
      locateIp(err, o.l4 + 8, o.end, q, true);
      const qs = q.l3 + (v6 ? 8 : 12);
      expect(toHex(err.subarray(qs, qs + an))).toBe(toHex(addr(C).subarray(0, an)));
      expect(toHex(err.subarray(qs + an, qs + 2 * an))).toBe(toHex(addr(V).subarray(0, an)));
      expect([(err[q.l4]! << 8) | err[q.l4 + 1]!, (err[q.l4 + 2]! << 8) | err[q.l4 + 3]!]).toEqual([40000, 80]);
      expect(checksumProblems(err)).toEqual([]);
    });
    it(`${v6 ? 'IPv6' : 'IPv4'}: the client side's error about a reply reaches the RS quoting RS → local`, () => {
      const t = translation('fullnat', v6);
      const reply = frame({ src: V, dst: C, proto: 6, sport: 80, dport: 40000, payload: new Array(1400).fill(1) });
      const out = new Uint8Array(14 + 1280);
      const n = v6 ? buildPacketTooBig(out, reply, ipOf(reply), 1280, addr(C), me) : buildFragNeeded(out, reply, ipOf(reply), 1400, addr(C), me, 1);
      const err = out.slice(0, n);
      expect(translateIcmpFromClient(err, ipOf(err), t, new IpLayout())).toBe(XlateResult.OK);
      const an = v6 ? 16 : 4;
      const so = 14 + (v6 ? 8 : 12);
      expect(toHex(err.subarray(so, so + an))).toBe(toHex(addr(L).subarray(0, an)));
      expect(toHex(err.subarray(so + an, so + 2 * an))).toBe(toHex(addr(R).subarray(0, an)));
      expect(checksumProblems(err)).toEqual([]);
    });
    it(`${v6 ? 'IPv6' : 'IPv4'}: an error quoting another connection is a QUOTE_MISMATCH, untouched`, () => {
      const t = translation('fullnat', v6);
      const other = frame({ src: L, dst: R, proto: 6, sport: 2002, dport: 8080 });
      const out = new Uint8Array(14 + 1280);
      const n = v6 ? buildPacketTooBig(out, other, ipOf(other), 1280, addr(R), me) : buildFragNeeded(out, other, ipOf(other), 1400, addr(R), me, 1);
      const err = out.slice(0, n);
      const before = toHex(err);
      expect(translateIcmpFromServer(err, ipOf(err), t, new IpLayout())).toBe(XlateResult.QUOTE_MISMATCH);
      expect(toHex(err)).toBe(before);
    });
  }
});

describe('local address pool (fullnat)', () => {
  it('allocates per (address, RS), round-robin over addresses, never reusing a port in use', () => {
    const pool = new LocalAddressPool({ addresses: ['198.18.10.30', '198.18.10.31'], portMin: 2000, portMax: 2003 });
    const out = { address: new Uint8Array(16), port: 0 };
    const got: string[] = [];
    for (let i = 0; i < 8; i++) {
      expect(pool.allocate(0, 4, 6, 'fnat1@198.18.10.121', out)).toBe(true);
      got.push(`${out.address[3]}:${out.port}`);
    }
    expect(new Set(got).size).toBe(8);
    expect(pool.allocate(0, 4, 6, 'fnat1@198.18.10.121', out)).toBe(false);
    expect(pool.lastFailure).toBe('local_ports_exhausted');
    expect(pool.stats.exhausted).toBe(1);
    // another RS has its own ports on the same addresses; UDP too
    expect(pool.allocate(0, 4, 6, 'fnat2@198.18.10.122', out)).toBe(true);
    expect(pool.allocate(0, 4, 17, 'fnat1@198.18.10.121', out)).toBe(true);
    pool.release(4, 6, 'fnat1@198.18.10.121', addr('198.18.10.31'), 2002);
    expect(pool.allocate(0, 4, 6, 'fnat1@198.18.10.121', out)).toBe(true);
    expect(`${out.address[3]}:${out.port}`).toBe('31:2002');
    expect(pool.stats.inUse).toBe(10);
  });
  it('partitions by share: two owners never hand out the same port', () => {
    const a = new LocalAddressPool({ addresses: ['198.18.10.30'], portMin: 1024, portMax: 1123, shares: 2 });
    const b = new LocalAddressPool({ addresses: ['198.18.10.30'], portMin: 1024, portMax: 1123, shares: 2 });
    const out = { address: new Uint8Array(16), port: 0 };
    const pa = new Set<number>();
    const pb = new Set<number>();
    while (a.allocate(0, 4, 6, 'rs', out)) pa.add(out.port);
    while (b.allocate(1, 4, 6, 'rs', out)) pb.add(out.port);
    expect(pa.size).toBe(50);
    expect(pb.size).toBe(50);
    expect([...pa].filter((p) => pb.has(p))).toEqual([]);
    expect([...pa].every((p) => a.shareOf(p) === 0)).toBe(true);
  });
  it('reserves synced ports (a conflict is counted) and refuses unknown addresses', () => {
    const pool = new LocalAddressPool({ addresses: ['fd00:a7ca:10::30'], portMin: 5000, portMax: 5001 });
    expect(pool.reserve(6, 6, 'rs', addr('fd00:a7ca:10::30'), 5000)).toBe(true);
    expect(pool.reserve(6, 6, 'rs', addr('fd00:a7ca:10::30'), 5000)).toBe(false);
    expect(pool.stats.conflicts).toBe(1);
    expect(pool.reserve(6, 6, 'rs', addr('fd00:a7ca:10::31'), 5000)).toBe(false);
    const out = { address: new Uint8Array(16), port: 0 };
    expect(pool.allocate(0, 6, 6, 'rs', out)).toBe(true);
    expect(out.port).toBe(5001);
    expect(pool.allocate(0, 4, 6, 'rs', out)).toBe(false);
    expect(pool.lastFailure).toBe('no_local_address');
  });
  it('refuses a local address that is a VIP, naming both', () => {
    expect(() => new LocalAddressPool({ addresses: ['198.18.100.12'] }, [{ service: 'web-fullnat', vip: '198.18.100.12' }]))
      .toThrow("local address pool: address 198.18.100.12 is the VIP of service 'web-fullnat'");
    expect(() => new LocalAddressPool({ addresses: ['10.0.0.1', '10.0.0.1'] })).toThrow('listed twice');
    expect(() => new LocalAddressPool({ addresses: ['10.0.0.1'], portMin: 10, portMax: 5 })).toThrow('bad port range');
  });
});

describe('local binding codec (what a sync record appends)', () => {
  it('IPv4 and IPv6 round trip, exact bytes', () => {
    const t = translation('fullnat', false);
    const buf = new Uint8Array(7);
    expect(encodeLocalBinding(t, buf, 0)).toBe(7);
    expect(toHex(buf)).toBe('0307d1c6120a1e');
    const back = newTranslation('nat', 4);
    expect(decodeLocalBinding(buf, 0, back)).toBe(7);
    expect([back.mode, back.localPort, toHex(back.local.subarray(0, 4))]).toEqual(['fullnat', 2001, 'c6120a1e']);
    const t6 = translation('nat', true);
    const b6 = new Uint8Array(19);
    encodeLocalBinding(t6, b6, 0);
    expect(toHex(b6)).toBe(`02${'00'.repeat(18)}`);
  });
  it('refuses a short buffer and an unknown mode', () => {
    const into = newTranslation('nat', 4);
    expect(() => decodeLocalBinding(new Uint8Array(3), 0, into)).toThrow(DecodeError);
    expect(() => decodeLocalBinding(Uint8Array.from([9, 0, 0, 0, 0, 0, 0]), 0, into)).toThrow(/unknown forwarding mode 9/);
  });
});
