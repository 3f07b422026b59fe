/**
 * tshark as the oracle of the client's address under full-NAT (board/processor/forwarding/
 * client-address.ts after nat.ts's translation): 60 connections each way of IPv4 and IPv6 clients
 * go through the `fullnat` rewrite and the stage, the frames the RS would get are written to a
 * pcap, and tshark (checksum validation on) reads them:
 * - `toa`: on every SYN, option 254 (an RFC 6994 experimental option to tshark: ExID = the first
 *   two bytes, data = the rest) whose raw bytes are the client's port and address;
 * - `proxy-protocol`: tshark's PROXY dissector (tried first: port 8080 is also HTTP's) finds the v2 header with the client's address and
 *   port on the first data segment;
 * and no frame is malformed or has a bad checksum.
 * Not a replay's `--out`: replays do not translate by `fullnat` (docs/lb.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IpLayout, locateIp } from '../../board/packet/ip-layout.ts';
import { ClientAddressStage, newClientAddressState, type ClientAddressMode } from '../../board/processor/forwarding/client-address.ts';
import { natInbound } from '../../board/processor/forwarding/nat.ts';
import { newTranslation } from '../../board/processor/forwarding/translation.ts';
import { addr } from '../support/frames.ts';
import { pcapFile } from '../support/processor-packets.ts';
import { LINUX_SYN_OPTIONS, segment } from '../support/tcp-segment.ts';

interface Client {
  family: 4 | 6;
  address: string;
  port: number;
}

function clients(): Client[] {
  const out: Client[] = [];
  for (let i = 0; i < 30; i++) out.push({ family: 4, address: `198.18.${i % 3}.${10 + i}`, port: 30000 + i * 7 });
  for (let i = 0; i < 30; i++) out.push({ family: 6, address: `fd00:a7ca::${(0x100 + i).toString(16)}`, port: 40000 + i * 11 });
  return out;
}

/** The frames the RS gets for one connection (SYN, handshake ACK, first data) under `mode`. */
function connection(c: Client, mode: ClientAddressMode, stage: ClientAddressStage): Uint8Array[] {
  const v6 = c.family === 6;
  const vip = v6 ? 'fd00:a7ca:100::12' : '198.18.100.12';
  const t = newTranslation('fullnat', c.family);
  t.client.set(addr(c.address));
  t.clientPort = c.port;
  t.vip.set(addr(vip));
  t.vipPort = 80;
  t.rs.set(addr(v6 ? 'fd00:a7ca:10::121' : '198.18.10.121'));
  t.rsPort = 8080;
  t.local.set(addr(v6 ? 'fd00:a7ca:10::30' : '198.18.10.30'));
  t.localPort = 2000 + (c.port % 60000);
  const st = newClientAddressState();
  const isn = (c.port * 2654435761) >>> 0;
  const base = { src: c.address, dst: vip, sport: c.port, dport: 80 };
  const specs = [
    { ...base, seq: isn, flags: 0x02, options: LINUX_SYN_OPTIONS },
    { ...base, seq: isn + 1, ack: 1001, flags: 0x10, options: [1, 1, 8, 10, 0, 0, 0, 2, 0, 0, 0, 1] },
    { ...base, seq: isn + 1, ack: 1001, flags: 0x18, options: [1, 1, 8, 10, 0, 0, 0, 3, 0, 0, 0, 1], payload: [...Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')] },
  ];
  return specs.map((s) => {
    const [f, len] = segment(s, 128);
    const ip = new IpLayout();
    expect(locateIp(f, 14, len, ip)).toBe(true);
    expect(natInbound(f, ip, t)).toBe(0);
    const n = stage.inbound(mode, f, ip, len, t, st);
    expect(n).toBeGreaterThan(0);
    return f.slice(0, n);
  });
}

function tshark(frames: Uint8Array[], fields: string[]): string[][] {
  const dir = mkdtempSync(join(tmpdir(), 'atcasim-toa-'));
  try {
    const file = join(dir, 'rs.pcap');
    writeFileSync(file, pcapFile(frames.map((bytes, i) => ({ bytes, tsMs: 1_700_000_000_000 + i, origLen: bytes.length }))));
    const out = execFileSync('tshark', [
      '-n', '-r', file, '-o', 'tcp.try_heuristic_first:TRUE', '-o', 'ip.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE', '-o', 'tcp.analyze_sequence_numbers:FALSE',
      '-T', 'fields', '-E', 'separator=|', ...fields.flatMap((f) => ['-e', f]),
    ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return out.trim().split('\n').map((l) => l.split('|'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('tshark reads the client address atcasim writes under full-NAT', () => {
  it('toa: option 254 on every SYN (and the first ACK) carries the client port and address; 0 malformed, 0 bad checksums', () => {
    const stage = new ClientAddressStage(1500);
    const cs = clients();
    const frames = cs.flatMap((c) => connection(c, 'toa', stage));
    const rows = tshark(frames, ['frame.number', 'tcp.flags.syn', 'tcp.options.experimental.exid', 'tcp.options.experimental.data', 'tcp.checksum.status', 'ip.checksum.status', '_ws.malformed', '_ws.expert.severity']);
    expect(rows).toHaveLength(frames.length);
    let syns = 0;
    rows.forEach(([n, syn, exid, data, tck, ipck, malformed, sev], i) => {
      const c = cs[Math.floor(i / 3)]!;
      const raw = hex(Uint8Array.of(c.port >> 8, c.port & 0xff)) + hex(addr(c.address).subarray(0, c.family === 6 ? 16 : 4));
      expect(malformed, `frame ${n}`).toBe('');
      expect(tck, `frame ${n} tcp checksum`).toBe('1'); // 1 = good (as this tshark writes it)
      if (c.family === 4) expect(ipck, `frame ${n} ip checksum`).toBe('1');
      expect(Number(sev || 0), `frame ${n}`).toBeLessThan(6291456);
      if (i % 3 === 2) {
        expect(exid, `frame ${n}: data segment`).toBe('');
        return;
      }
      // ExID (first two bytes after kind/length) + data = the option's raw bytes
      expect(`${exid!.replace(/^0x/, '').padStart(4, '0')}${(data ?? '').replace(/:/g, '')}`, `frame ${n}`).toBe(raw);
      if (syn === '1' || syn === 'True') syns++;
    });
    expect(syns).toBe(cs.length);
    expect(stage.counters).toMatchObject({ toaOnSyn: 60, toaOnFirstAck: 60, toaNoRoom: 0 });
  });

  it('proxy-protocol: tshark finds the PROXY v2 header with the client address and port in the first data segment', () => {
    const stage = new ClientAddressStage(1500);
    const cs = clients();
    const frames = cs.flatMap((c) => connection(c, 'proxy-protocol', stage));
    const rows = tshark(frames, ['frame.number', 'proxy.v2.version', 'proxy.src.ipv4', 'proxy.src.ipv6', 'proxy.srcport', 'tcp.checksum.status', '_ws.malformed']);
    rows.forEach(([n, version, src4, src6, sport, tck, malformed], i) => {
      const c = cs[Math.floor(i / 3)]!;
      expect(malformed, `frame ${n}`).toBe('');
      expect(tck, `frame ${n}`).toBe('1');
      if (i % 3 !== 2) {
        expect(version, `frame ${n}`).toBe('');
        return;
      }
      expect(version, `frame ${n}`).toBe('2');
      expect(c.family === 4 ? src4 : src6, `frame ${n}`).toBe(c.address);
      expect(sport, `frame ${n}`).toBe(String(c.port));
    });
    expect(stage.counters.proxyHeaders).toBe(60);
  });
});
