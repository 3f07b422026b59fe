/**
 * Every real capture of ../shared/pcap through the real parser and a processor board with a
 * catch-all service: no crash, every packet accounted for, and the frames the board emits decode
 * in tshark with a good outer IPv4 checksum and no malformation that the original frame did not
 * already have (the oracle's `_ws.malformed` column, tshark 4.0.17 on the original capture).
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CaptureReader } from '../../board/packet/capture-reader.ts';
import { PacketParser } from '../../board/packet/parse.ts';
import { ProcessorBoard, DROP_REASONS } from '../../board/processor/processor-board.ts';
import { shared, sharedCaptures } from '../support/shared.ts';
import { pcapFile } from '../support/processor-packets.ts';
import { config, servers, service } from '../support/processor-config.ts';

interface Emitted {
  bytes: Uint8Array;
  tsMs: number;
  origLen: number;
  file: string;
  frame: number;
  /** 0: tunnelled to the RS (outer headers written by atcasim); 1: a reply passed through as captured. */
  dir: number;
}

/** Oracle rows of a capture: frame.number → { malformed, expert } text (tshark on the original). */
function oracle(file: string): Map<number, { malformed: string; expert: string }> {
  const lines = readFileSync(`${file}.fields.csv`, 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const iNum = head.indexOf('frame.number');
  const iMal = head.indexOf('_ws.malformed');
  const iExp = head.indexOf('_ws.expert');
  const out = new Map<number, { malformed: string; expert: string }>();
  for (const l of lines.slice(1)) {
    const cells: string[] = [];
    for (const m of l.matchAll(/"((?:[^"]|"")*)"|([^,]*)/g)) {
      if (m.index! > 0 && l[m.index! - 1] !== ',') continue;
      cells.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2] ?? '');
    }
    out.set(Number(cells[iNum]), { malformed: cells[iMal] ?? '', expert: cells[iExp] ?? '' });
  }
  return out;
}

/** Error/warning expert items of a `_ws.expert` text (comma-aggregated 'Expert Info (Sev/Group): msg'). */
function serious(expert: string): string[] {
  return expert.split(/,(?=Expert Info )/).filter((x) => /^Expert Info \((Error|Warning)\//.test(x));
}

describe('replaying the shared captures through a processor board', () => {
  it('handles every packet and emits frames tshark accepts', () => {
    const emitted: Emitted[] = [];
    let current = { file: '', frame: 0 };
    const files = sharedCaptures();
    let total = 0;
    for (const file of files) {
      const b = new ProcessorBoard(config([
        service({ name: 'web', vip: '0.0.0.0/0', port: 80, protocol: 'tcp', scheduler: 'wlc', pool: servers(4, 'w') }),
        service({ name: 'gre', vip: '*', port: 0, protocol: 'udp', encapsulation: 'gre', scheduler: 'maglev', maglevTableSize: 251, pool: servers(3, 'u') }),
        service({ name: 'all', vip: '*', port: 0, protocol: 'any', scheduler: 'sh', pool: [...servers(2, 'a'), { name: 'a6', address: '2001:db8::a6', weight: 1 }] }),
      ], {}, 5000), {
        slot: 3,
        emit: { emit: (bytes, len, ts, wire) => emitted.push({ bytes: bytes.slice(0, len), tsMs: ts, origLen: wire, ...current, dir: -1 }) },
      });
      const parser = new PacketParser();
      let seen = 0;
      const reader = new CaptureReader({
        packet: (rec) => {
          seen++;
          const v = parser.parse(rec.data, rec.linkType, rec.origLen);
          current = { file, frame: rec.number };
          const n = emitted.length;
          const verdict = b.handle(v, rec.tsSec * 1000 + rec.tsNsec / 1e6);
          if (emitted.length > n) emitted[n]!.dir = verdict.kind === 'forward' ? verdict.dir : -1;
        },
      });
      try {
        reader.push(readFileSync(file));
        reader.end();
      } catch (e) {
        expect((e as Error).name, `${basename(file)}: ${(e as Error).message}`).toBe('DecodeError');
      }
      const drops = b.drops();
      const dropped = DROP_REASONS.reduce((s, r) => s + drops[r], 0);
      expect(b.packets, basename(file)).toBe(seen);
      expect(b.forwarded + dropped, basename(file)).toBe(seen);
      expect(drops.no_rule + drops.table_full + drops.rs_down + drops.no_session + drops.acl + drops.encap_fail, basename(file)).toBe(0);
      total += seen;
    }
    expect(total).toBeGreaterThan(1000);
    expect(emitted.length).toBeGreaterThan(total * 0.8);

    const dir = mkdtempSync(join(tmpdir(), 'atcasim-replay-'));
    try {
      const out = join(dir, 'out.pcap');
      writeFileSync(out, pcapFile(emitted));
      const heur = readFileSync(shared('pcap', 'tshark-disabled-heuristics.txt'), 'utf8').trim().split('\n').filter(Boolean)
        .flatMap((h) => ['--disable-heuristic', h.trim()]);
      const text = execFileSync('tshark', [
        '-n', '-r', out,
        '-o', 'ip.defragment:FALSE', '-o', 'ipv6.defragment:FALSE', '-o', 'tcp.desegment_tcp_streams:FALSE',
        '-o', 'tcp.analyze_sequence_numbers:FALSE', '-o', 'ip.check_checksum:TRUE',
        '-o', 'sctp.reassembly:FALSE', '-o', 'sctp.tsn_analysis:FALSE',
        ...heur,
        '-T', 'fields', '-E', 'separator=|', '-E', 'occurrence=a', '-E', 'aggregator=,',
        '-e', 'frame.number', '-e', 'eth.type', '-e', 'ip.checksum.status', '-e', '_ws.malformed', '-e', 'frame.protocols', '-e', '_ws.expert',
      ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C.UTF-8', TZ: 'UTC' } });
      const rows = text.trim().split('\n').map((l) => l.split('|'));
      expect(rows.length).toBe(emitted.length);
      const oracles = new Map(files.map((f) => [f, oracle(f)]));
      const problems: string[] = [];
      let checked = 0;
      rows.forEach(([, ethType, ipck, malformed, protos, expert], i) => {
        const src = emitted[i]!;
        const where = `${basename(src.file)} frame ${src.frame}`;
        if (src.dir < 0) problems.push(`${where}: emitted but not forwarded`);
        // the outer IPv4 header of a tunnelled frame is ours: its checksum is always good
        // (a reply's first header is the captured one, right or wrong)
        if (src.dir === 0 && ethType === '0x0800' && ipck!.split(',')[0] !== '1') problems.push(`${where}: outer IPv4 checksum status ${ipck}`);
        const orig = oracles.get(src.file)!.get(src.frame);
        if (!orig) {
          problems.push(`${where}: no oracle row`);
          return;
        }
        if (malformed && !orig.malformed) problems.push(`${where}: ${malformed} (${protos})`);
        // every error/warning tshark raises on our frame was already raised on the original
        // (checksum items aside: the oracle ran with checksum checks off; ours are checked above)
        for (const x of serious(expert ?? '')) {
          // analysis across frames of the concatenated output (DNS ids reused by another capture)
          // and checksums (checked above for our headers) are not about one frame's headers
          if (/checksum|retransmission/i.test(x)) continue;
          checked++;
          if (!orig.expert.includes(x.replace(/^Expert Info \([^)]*\): /, ''))) problems.push(`${where}: new expert item ${x}`);
        }
      });
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0); // the comparison did run on frames that carry expert items
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
