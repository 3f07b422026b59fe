/**
 * tshark (the oracle) over frames the live-mode modules produce, with checksum validation on
 * (`-o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE`; ICMP and
 * ICMPv6 checksums are always checked): every forwarding mode (dr, nat, fullnat) in both
 * directions, IPv4 and IPv6, TCP and UDP, ICMP errors translated back, and the L2/L3 frames (ARP,
 * NS/NA, echo replies, Fragmentation Needed, Packet Too Big). 0 malformed, 0 bad checksums, and
 * tshark reads the translated addresses and ports where they should be.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PcapEncoder } from '../../board/packet/pcap-writer.ts';
import { IpLayout, locateIp } from '../../board/packet/ip-layout.ts';
import { ArpMessage, buildArpAnnouncement, buildArpReply, buildArpRequest, parseArp } from '../../board/packet/arp.ts';
import { buildNeighbourAdvert, buildNeighbourSolicit, buildUnsolicitedAdvert, NdMessage, parseNd } from '../../board/packet/ndp.ts';
import { echoReplyInPlace } from '../../board/packet/icmp-echo.ts';
import { buildFragNeeded, buildPacketTooBig } from '../../board/packet/icmp-error.ts';
import { drForward } from '../../board/processor/forwarding/dr.ts';
import { natInbound, natOutbound } from '../../board/processor/forwarding/nat.ts';
import { translateIcmpFromClient, translateIcmpFromServer } from '../../board/processor/forwarding/icmp-translate.ts';
import { newTranslation, XlateResult, type ForwardingMode } from '../../board/processor/forwarding/translation.ts';
import { addr, frame } from '../support/frames.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-live-tshark-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ME = Uint8Array.from([2, 0xa7, 0xca, 0, 0, 3]);
const RS_MAC = Uint8Array.from([2, 0, 0, 0, 1, 0x21]);

interface Made {
  label: string;
  bytes: Uint8Array;
  /** Expected `src:sport>dst:dport` as tshark prints it (ip.src/ipv6.src, tcp/udp ports). */
  expect?: string;
}

function ipOf(f: Uint8Array): IpLayout {
  const ip = new IpLayout();
  if (!locateIp(f, 14, f.length, ip)) throw new Error('bad test frame');
  return ip;
}

function plan(v6: boolean) {
  return {
    C: v6 ? 'fd00:a7ca::2' : '198.18.0.2', V: v6 ? 'fd00:a7ca:100::12' : '198.18.100.12',
    R: v6 ? 'fd00:a7ca:10::121' : '198.18.10.121', L: v6 ? 'fd00:a7ca:10::30' : '198.18.10.30',
  };
}

function translated(): Made[] {
  const out: Made[] = [];
  for (const v6 of [false, true]) {
    const { C, V, R, L } = plan(v6);
    for (const mode of ['dr', 'nat', 'fullnat'] as ForwardingMode[]) {
      const t = newTranslation(mode, v6 ? 6 : 4);
      t.client.set(addr(C));
      t.clientPort = 40000;
      t.vip.set(addr(V));
      t.vipPort = 80;
      t.rs.set(addr(R));
      t.rsPort = mode === 'dr' ? 80 : 8080;
      t.local.set(addr(L));
      t.localPort = 2001;
      for (const proto of [6, 17] as const) {
        const tag = `${mode} ${v6 ? 'v6' : 'v4'} ${proto === 6 ? 'tcp' : 'udp'}`;
        const f = frame({ src: C, dst: V, proto, sport: 40000, dport: 80, payload: new Array(64).fill(0x61) });
        if (mode === 'dr') {
          drForward(f, f.length, RS_MAC, ME);
          out.push({ label: `${tag} in`, bytes: f, expect: `${C}:40000>${V}:80` });
          continue;
        }
        expect(natInbound(f, ipOf(f), t)).toBe(XlateResult.OK);
        const bs = mode === 'fullnat' ? `${L}:2001` : `${C}:40000`;
        out.push({ label: `${tag} in`, bytes: f, expect: `${bs}>${R}:8080` });
        const r = frame({ src: R, dst: mode === 'fullnat' ? L : C, proto, sport: 8080, dport: mode === 'fullnat' ? 2001 : 40000, flags: 0x12, payload: new Array(33).fill(0x62) });
        expect(natOutbound(r, ipOf(r), t)).toBe(XlateResult.OK);
        out.push({ label: `${tag} out`, bytes: r, expect: `${V}:80>${C}:40000` });
      }
      if (mode === 'dr') continue;
      // ICMP errors quoting translated datagrams, both sides. The quotes hold the whole datagram
      // (200 bytes of payload), so tshark verifies the quoted TCP checksum too; a quote cut short
      // (as every full-size datagram's is) gets "Bad checksum" from tshark even untranslated, since
      // it checks the quoted segment over the bytes quoted.
      const sent = frame({ src: mode === 'fullnat' ? L : C, dst: R, proto: 6, sport: mode === 'fullnat' ? 2001 : 40000, dport: 8080, payload: new Array(200).fill(1) });
      const e1 = new Uint8Array(14 + 1280);
      const n1 = v6 ? buildPacketTooBig(e1, sent, ipOf(sent), 1280, addr(R), ME) : buildFragNeeded(e1, sent, ipOf(sent), 200, addr(R), ME, 1);
      const err1 = e1.slice(0, n1);
      expect(translateIcmpFromServer(err1, ipOf(err1), t, new IpLayout())).toBe(XlateResult.OK);
      out.push({ label: `${mode} ${v6 ? 'v6' : 'v4'} icmp error from server`, bytes: err1 });
      const reply = frame({ src: V, dst: C, proto: 6, sport: 80, dport: 40000, payload: new Array(200).fill(2) });
      const e2 = new Uint8Array(14 + 1280);
      const n2 = v6 ? buildPacketTooBig(e2, reply, ipOf(reply), 1280, addr(C), ME) : buildFragNeeded(e2, reply, ipOf(reply), 200, addr(C), ME, 2);
      const err2 = e2.slice(0, n2);
      expect(translateIcmpFromClient(err2, ipOf(err2), t, new IpLayout())).toBe(XlateResult.OK);
      out.push({ label: `${mode} ${v6 ? 'v6' : 'v4'} icmp error from client`, bytes: err2 });
    }
  }
  return out;
}

function l2l3(): Made[] {
  const out: Made[] = [];
  const b = () => new Uint8Array(1500);
  const req = b();
  buildArpRequest(req, ME, addr('198.18.10.3'), addr('198.18.10.101'));
  out.push({ label: 'arp request', bytes: req.slice(0, 60) });
  const m = new ArpMessage();
  parseArp(req, 14, 60, m);
  const rep = b();
  buildArpReply(rep, m, RS_MAC);
  out.push({ label: 'arp reply', bytes: rep.slice(0, 60) });
  const ann = b();
  buildArpAnnouncement(ann, ME, addr('198.18.100.10'));
  out.push({ label: 'gratuitous arp', bytes: ann.slice(0, 60) });
  const ns = b();
  const n = buildNeighbourSolicit(ns, ME, addr('fd00:a7ca:10::3'), addr('fd00:a7ca:10::121'), null);
  out.push({ label: 'ns', bytes: ns.slice(0, n) });
  const nm = new NdMessage();
  expect(parseNd(ns, 14, 54, 32, nm)).toBe(true);
  const na = b();
  out.push({ label: 'na', bytes: na.slice(0, buildNeighbourAdvert(na, nm, RS_MAC, ME)) });
  const una = b();
  out.push({ label: 'unsolicited na', bytes: una.slice(0, buildUnsolicitedAdvert(una, ME, addr('fd00:a7ca:100::12'))) });
  const probe = b();
  out.push({ label: 'ns probe', bytes: probe.slice(0, buildNeighbourSolicit(probe, ME, addr('fd00:a7ca:10::3'), addr('fd00:a7ca:10::121'), RS_MAC)) });
  for (const [src, dst, proto] of [['198.18.0.2', '198.18.100.10', 1], ['fd00:a7ca::2', 'fd00:a7ca:100::12', 58]] as const) {
    const e = frame({ src, dst, proto, payload: new Array(56).fill(0x33) });
    out.push({ label: `echo reply ${proto}`, bytes: e.slice(0, echoReplyInPlace(e, ipOf(e), ME)) });
  }
  return out;
}

function tshark(file: string, fields: string[]): string[][] {
  const r = spawnSync('tshark', ['-n', '-r', file, '-o', 'tcp.check_checksum:TRUE', '-o', 'ip.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE',
    '-T', 'fields', '-E', 'separator=|', '-E', 'occurrence=a', '-E', 'aggregator=,', ...fields.flatMap((f) => ['-e', f])], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tshark failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => l.split('|'));
}

describe('tshark over live-mode frames (checksum validation on)', () => {
  const frames = [...translated(), ...l2l3()];
  const file = join(dir, 'live.pcap');
  const enc = new PcapEncoder();
  const parts: Uint8Array[] = [enc.header];
  frames.forEach((f, i) => {
    const rec = new Uint8Array(enc.recordLength(f.bytes.length));
    enc.encodeRecord(rec, 0, f.bytes, 0, f.bytes.length, f.bytes.length, 1_800_000_000 + i, 0);
    parts.push(rec);
  });
  writeFileSync(file, Buffer.concat(parts));

  it('0 malformed frames, 0 bad checksums (IP, TCP, UDP, ICMP, ICMPv6, quoted headers included)', () => {
    const rows = tshark(file, ['frame.number', '_ws.malformed', '_ws.expert.message', 'ip.checksum.status', 'tcp.checksum.status', 'udp.checksum.status', 'icmp.checksum.status', 'icmpv6.checksum.status']);
    expect(rows.length).toBe(frames.length);
    const problems: string[] = [];
    let checked = 0;
    rows.forEach((r, i) => {
      const [, malformed, expert, ...status] = r;
      if (malformed !== '') problems.push(`${frames[i]!.label}: malformed`);
      if (/checksum/i.test(expert ?? '') && /bad|incorrect/i.test(expert ?? '')) problems.push(`${frames[i]!.label}: ${expert}`);
      for (const s of status) {
        for (const v of s.split(',').filter((x) => x !== '')) {
          checked++;
          if (v !== '1') problems.push(`${frames[i]!.label}: checksum status ${v} in ${s}`);
        }
      }
    });
    expect(problems).toEqual([]);
    // every frame had at least one checksum tshark verified (ARP has none)
    expect(checked).toBeGreaterThan(frames.length);
  });

  it('tshark reads the translated addresses and ports', () => {
    const rows = tshark(file, ['ip.src', 'ipv6.src', 'tcp.srcport', 'udp.srcport', 'ip.dst', 'ipv6.dst', 'tcp.dstport', 'udp.dstport']);
    frames.forEach((f, i) => {
      if (f.expect === undefined) return;
      const [s4, s6, ts, us, d4, d6, td, ud] = rows[i]!.map((x) => x.split(',')[0]!);
      const got = `${s4 || s6}:${ts || us}>${d4 || d6}:${td || ud}`;
      expect(`${f.label} ${got}`).toBe(`${f.label} ${f.expect}`);
    });
  });

  it('translated ICMP errors quote the connection as the receiver knows it', () => {
    const rows = tshark(file, ['icmp.type', 'icmpv6.type', 'ip.src', 'ipv6.src', 'tcp.srcport', 'tcp.dstport']);
    const fromServer = frames.map((f, i) => [f, rows[i]!] as const).filter(([f]) => f.label.endsWith('from server'));
    expect(fromServer.length).toBe(4);
    for (const [f, r] of fromServer) {
      const v6 = f.label.includes('v6');
      const { C, V } = plan(v6);
      const srcs = (v6 ? r[3] : r[2])!.split(',');
      expect(`${f.label}: ${srcs.join(' ')} ${r[4]}>${r[5]}`).toBe(`${f.label}: ${V} ${C} 40000>80`);
    }
  });
});
