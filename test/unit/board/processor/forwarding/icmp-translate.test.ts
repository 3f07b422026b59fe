/** ICMP errors quoting a translated datagram, translated back (board/processor/forwarding/icmp-translate.ts). */
import { describe, expect, it } from 'vitest';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import { buildFragNeeded, buildPacketTooBig } from '../../../../../board/packet/icmp-error.ts';
import { translateIcmpFromClient, translateIcmpFromServer } from '../../../../../board/processor/forwarding/icmp-translate.ts';
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
