/**
 * The HA links on real UDP (chassis/io/udp-pair-link.ts):
 * - the adapter on its own: a pair's flows deliver heartbeats and sync datagrams of each share to
 *   the peer's receiver through the codecs, drop datagrams from any other source, count garbage,
 *   and close their sockets;
 * - `atcasim start`: every pair's members exchange their heartbeats as UDP datagrams on 127.0.0.1
 *   (the ports the `ha-links` log line names are bound by the emulator's own sockets, and tcpdump — a peer
 *   nobody here wrote — sees 'AH' heartbeat datagrams between them), and a planned switchover of
 *   the shelf managers, which needs a hot standby (bulk sync done over the sync flow), works.
 * The tcpdump part needs root (CI is root) and prints a SKIP line otherwise.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../chassis/ha/heartbeat.ts';
import type { PairLinkReceiver } from '../../chassis/ha/pair-link.ts';
import type { SyncDatagram } from '../../chassis/ha/sync-types.ts';
import { UdpPairLinks } from '../../chassis/io/udp-pair-link.ts';
import { startHeadless, type HeadlessEmulator } from '../support/headless.ts';

const running: HeadlessEmulator[] = [];
afterAll(async () => {
  for (const e of running) await e.kill();
  for (const e of running) e.cleanup();
});

function hb(share: string, node: string, seq: number): Heartbeat {
  return {
    share, node, incarnation: 7, seq, epoch: 1, role: 'active', syncSeq: 0, healthy: true, hearsPeer: true, handover: false,
    wantsBulk: false, uplink: true, version: { major: 1, minor: 0 }, wallMs: 0,
  };
}

/** UDP ports on 127.0.0.1 bound by sockets of process `pid` (/proc/net/udp and the process's fds). */
function udpPortsOf(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const [addr, port] = f[1]!.split(':');
    if (addr === '0100007F' && inodes.has(f[9]!)) ports.add(parseInt(port!, 16));
  }
  return ports;
}

function until(pred: () => boolean, ms = 3000): Promise<void> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (pred()) return resolve();
      if (Date.now() - t0 > ms) return reject(new Error('timed out'));
      setTimeout(tick, 10);
    };
    tick();
  });
}

describe('UDP pair links', () => {
  it('one flow per node and share: heartbeats and sync reach the peer through the codecs; a datagram from a stranger is dropped', async () => {
    const pair = { name: 'lb1', kind: 'processor' as const, members: ['slot3', 'slot4'] as [string, string] };
    const links = await UdpPairLinks.open([pair]);
    try {
      const eps = links.endpoints();
      expect(eps).toHaveLength(4);
      for (const e of eps) {
        expect(e.address.host).toBe('127.0.0.1');
        expect(e.address.port).toBeGreaterThan(0);
        const peer = eps.find((x) => x.share === e.share && x.node !== e.node)!;
        expect(e.peer).toEqual(peer.address);
      }
      const got: Array<{ kind: string; share: string; seq?: number }> = [];
      const rx = (_node: string): PairLinkReceiver => ({
        receiveHeartbeat: (h) => void got.push({ kind: 'hb', share: h.share, seq: h.seq }),
        receiveSync: (share, d: SyncDatagram) => void got.push({ kind: 'sync', share, seq: d.seq }),
      });
      const l = links.links(pair);
      l.connect('slot3', rx('slot3'));
      l.connect('slot4', rx('slot4'));
      l.endpoint('slot3').sendHeartbeat(hb('lb1/slot4', 'slot3', 5));
      l.endpoint('slot3').sendSync('lb1/slot3', { kind: 'idle', schema: 1, epoch: 1, stream: 9, seq: 42 });
      await until(() => got.length === 2);
      expect(got).toEqual(expect.arrayContaining([{ kind: 'hb', share: 'lb1/slot4', seq: 5 }, { kind: 'sync', share: 'lb1/slot3', seq: 42 }]));

      // A stranger's datagram (a valid heartbeat, from another port) is not delivered.
      const target = eps.find((e) => e.node === 'slot4' && e.share === 'lb1/slot4')!.address;
      const s = createSocket('udp4');
      const { heartbeatCodec } = await import('../../chassis/ha/heartbeat.ts');
      await new Promise<void>((r) => s.send(heartbeatCodec.encode(hb('lb1/slot4', 'slot3', 6)), target.port, target.host, () => r()));
      await new Promise((r) => setTimeout(r, 100));
      s.close();
      expect(got).toHaveLength(2);
      expect(links.stats().foreign).toBe(1);
      expect(links.stats().received).toBe(2);
    } finally {
      await links.close();
    }
  });
});

describe('atcasim start: the pairs on UDP', () => {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;

  it('heartbeats cross 127.0.0.1 as datagrams; a planned ShMC switchover works over them', async () => {
    const e = await startHeadless({ stdinCommands: true, statsInterval: '500ms' });
    running.push(e);
    const line = await e.waitFor((l) => l.category === 'ha-links', 5000, 'the ha-links line');
    const flows = line.links as Array<{ pair: string; share: string; node: string; port: number; peer_port: number }>;
    // the default shelf: shmc (1 share) and lb1, lb2 (2 shares each), 2 members: 10 flows
    expect(flows).toHaveLength(10);
    const owned = udpPortsOf(e.pid);
    for (const f of flows) expect(owned.has(f.port), `UDP port ${f.port} held by the emulator`).toBe(true);

    const shmc = flows.find((f) => f.pair === 'shmc' && f.node === 'shmc-a')!;
    if (!root) {
      console.log('SKIP tcpdump part of the HA UDP test: needs root to capture on lo');
    } else {
      // tcpdump sees the ShMC heartbeats between the two flows: 'AH' (41 48) datagrams, both ways.
      const dump = spawn('tcpdump', ['-i', 'lo', '-nn', '-x', '-c', '12', `udp and port ${shmc.port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      dump.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => dump.kill(), 10_000);
        dump.on('exit', () => {
          clearTimeout(t);
          resolve();
        });
      });
      const hex = (p: string) => [...p.matchAll(/^\s+0x[0-9a-f]{4}:\s+(.*)$/gm)].map((m) => m[1]!.replace(/\s+/g, '')).join('');
      // the payload starts after the 20-byte IP and 8-byte UDP headers (offset 0x1c): 'AH' heartbeat, 'AS' sync
      const packets = out.split(/\n(?=\S)/).filter((p) => /UDP, length/.test(p)).map((p) => ({ out: p.includes(`127.0.0.1.${shmc.port} >`), tag: hex(p).slice(56, 60) }));
      expect(packets.length).toBeGreaterThanOrEqual(6);
      for (const p of packets) expect(['4148', '4153']).toContain(p.tag);
      const heartbeats = packets.filter((p) => p.tag === '4148');
      expect(new Set(heartbeats.map((p) => p.out))).toEqual(new Set([true, false]));
    }

    await e.waitFor((l) => l.event === 'stats' && l.shmc === 'shmc-a', 15_000, 'shmc-a active');
    // the standby must be hot (bulk sync over the sync flow) before a switchover is allowed
    let r = await e.send('switchover shmc');
    for (let i = 0; i < 40 && r.ok !== true; i++) {
      await new Promise((res) => setTimeout(res, 250));
      r = await e.send('switchover shmc');
    }
    expect(r).toMatchObject({ ok: true });
    await e.waitFor((l) => l.event === 'stats' && l.shmc === 'shmc-b', 10_000, 'shmc-b active');
    expect(await e.stop()).toBe(0);
  });
});
