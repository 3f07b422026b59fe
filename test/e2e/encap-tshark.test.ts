// tshark reads the frames a processor board encapsulates (board/processor/encap.ts) without errors.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessorBoard } from '../../board/processor/processor-board.ts';
import { ACK, PSH, SYN, packet, pcapFile, tcp, udp } from '../support/processor-packets.ts';
import type { TestPacket } from '../support/processor-packets.ts';
import { config, servers, service } from '../support/processor-config.ts';

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

describe('tshark reads the emitted frames without errors', () => {
  it('no malformed packet or checksum expert info for the headers atcasim writes', () => {
    const { b, out } = board();
    const pkts: TestPacket[] = [
      tcp('10.0.0.1', 40000, '192.0.2.10', 80, SYN),
      tcp('192.0.2.10', 80, '10.0.0.1', 40000, SYN | ACK),
      tcp('10.0.0.1', 40000, '192.0.2.10', 80, ACK | PSH, 300),
      packet({ src: '10.0.0.1', dst: '192.0.2.10', sport: 40000, dport: 80, flags: ACK, payload: 1400, snap: 128 }),
      udp('10.0.0.2', 40000, '192.0.2.20', 9999, 64),
      packet({ src: '10.0.0.2', dst: '192.0.2.20', sport: 40001, dport: 9999, proto: 17, payload: 1200, snap: 70 }),
      tcp('10.0.0.3', 40000, '192.0.2.30', 80, SYN, 20),
      udp('2001:db8::1', 40000, '2001:db8::99', 9999, 40),
      packet({ src: '2001:db8::1', dst: '2001:db8::99', sport: 40002, dport: 9999, proto: 17, payload: 1000, snap: 100 }),
      tcp('2001:db8:4::1', 1, '2001:db8:4::80', 80, SYN),
    ];
    pkts.forEach((p, i) => expect(b.handle(p, 1_700_000_000_000 + i).kind).toBe('forward'));
    expect(out.length).toBe(pkts.length);
    const dir = mkdtempSync(join(tmpdir(), 'atcasim-encap-'));
    try {
      const file = join(dir, 'out.pcap');
      writeFileSync(file, pcapFile(out));
      const fields = execFileSync('tshark', [
        '-r', file, '-o', 'ip.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE',
        // sequence analysis judges the inner conversation (passed through as captured), not our headers
        '-o', 'tcp.analyze_sequence_numbers:FALSE',
        '-T', 'fields', '-E', 'separator=|', '-e', 'frame.number', '-e', 'ip.proto', '-e', 'ipv6.nxt', '-e', 'ip.checksum.status',
        '-e', '_ws.malformed', '-e', '_ws.expert.severity', '-e', '_ws.expert.message',
      ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const rows = fields.trim().split('\n').map((l) => l.split('|'));
      expect(rows.length).toBe(pkts.length);
      const ERROR = 8388608;
      const WARN = 6291456;
      for (const [n, , , ipck, malformed, sev, msg] of rows) {
        expect(malformed, `frame ${n}: ${msg}`).toBe('');
        for (const s of (sev ?? '').split(',').filter(Boolean)) {
          expect(Number(s) < WARN, `frame ${n}: ${msg}`).toBe(true);
        }
        // every IPv4 header in the frame (outer and inner) has a good checksum (status 1)
        for (const st of (ipck ?? '').split(',').filter(Boolean)) expect(st, `frame ${n}`).toBe('1');
        expect(Number(sev || 0) < ERROR).toBe(true);
      }
      // tshark sees the tunnels we built: IPIP, reply, IPIP, IPIP, GRE, GRE, 4in6, GRE in IPv6 (×2), 6in4
      expect(rows.map((r) => `${r[1]}/${r[2]}`)).toEqual([
        '4,6/', '6/', '4,6/', '4,6/', '47,17/', '47,17/', '6/4', '/47,17', '/47,17', '41/6',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
