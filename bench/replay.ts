/**
 * Full-data-path benchmark (the full-path target of the README's "Performance" table; dataplane.md
 * §4.1, §4.3): `atcasim replay` of ../shared/pcap/bench/loopback-mix.pcap (398,892 real packets,
 * snaplen 128) with `--loop` so a run lasts seconds, through the default shelf (both hubs, Pearson +
 * resilient ECMP, four processor boards with the dynamic scheduler, sessions, GRE encapsulation decided
 * but not written), in packets/s and ns/packet — wall clock and process CPU time — with:
 * - the reference measured in the same run: `tcpdump -r FILE -w /dev/null` on the same file
 *   (libpcap reading and writing every record: the floor of any tool that touches each packet);
 * - where the time goes: the same replay cut at each stage (file read only; read + parse;
 *   read + parse + both hubs; the full path), each on the same loops, so the differences are the
 *   cost of each stage per packet;
 * - garbage collections during the full path (0 expected from the data path itself).
 * Every figure is the best of `repeats` runs (default 3), separately for CPU time and wall
 * clock: on a shared machine the slowest runs measure the other jobs, the fastest this code.
 *
 * `benchReplay()` returns the figures as a flat record (dotted keys) and prints a table.
 * Run alone: `node bin/run-ts.mjs bench/replay.ts [LOOPS] [REPEATS]`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PacketParser } from '../board/packet/parse.ts';
import type { PacketView } from '../board/packet/flow-tuple.ts';
import { runReplay } from '../chassis/cli/replay.ts';
import { TrafficSource, type PacketSink } from '../chassis/dataplane/traffic.ts';
import { DataPlane, symmetricHash } from '../chassis/dataplane/data-plane.ts';
import { CaptureFileReader } from '../chassis/io/capture-file.ts';
import { loadDefaultShelf } from '../chassis/io/data-dir.ts';
import { nullLogger } from '../board/common/logger.ts';
import { SeededRandom } from '../board/common/random.ts';
import { SimClock } from '../board/common/sim-clock.ts';
import { seededCryptoRandom } from '../chassis/platform.ts';

/** The bench capture (../shared beside the clone, or ATCASIM_SHARED). */
export const BENCH_CAPTURE = join(
  process.env.ATCASIM_SHARED ?? resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared'),
  'pcap', 'bench', 'loopback-mix.pcap',
);

/** Default passes over the bench capture (≈ 2.4 M packets). */
export const DEFAULT_LOOPS = 6;
/** Default runs of each measurement; the best is kept. */
export const DEFAULT_REPEATS = 3;

interface Timing {
  packets: number;
  wallMs: number;
  cpuMs: number;
}

function timed(fn: () => number): Timing {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const packets = fn();
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return { packets, wallMs, cpuMs: (c.user + c.system) / 1000 };
}

/** The stage cut: read only, read + parse, + hubs (a data plane whose boards do nothing). */
function stage(kind: 'read' | 'parse' | 'hubs', loops: number): Timing {
  return timed(() => {
    if (kind === 'hubs') {
      const shelf = loadDefaultShelf();
      const dp = new DataPlane({ config: shelf, platform: { clock: new SimClock(), log: nullLogger, random: new SeededRandom(1), cryptoRandom: seededCryptoRandom(new SeededRandom(1)) }, sessionCapacity: 1024 });
      const hubs = dp.hubs;
      const sink: PacketSink = {
        deliver(pkt: PacketView, now: number): number {
          return hubs[symmetricHash(pkt) & 1]!.ingress(pkt, now).port;
        },
      };
      const src = new TrafficSource({
        inputs: [{ name: BENCH_CAPTURE, open: (h) => new CaptureFileReader(BENCH_CAPTURE, h) }],
        sink, loops,
      });
      src.runAll();
      src.close();
      return src.counters().packets;
    }
    const parser = new PacketParser();
    let n = 0;
    let x = 0;
    for (let l = 0; l < loops; l++) {
      const rd = new CaptureFileReader(BENCH_CAPTURE, {
        packet: kind === 'read'
          ? (r) => {
            n++;
            x ^= r.caplen;
          }
          : (r) => {
            n++;
            x ^= parser.parseAt(r.buf, r.offset, r.caplen, r.linkType, r.origLen).outer.proto;
          },
      });
      rd.pump();
      rd.close();
    }
    if (x === 0.5) console.log(x);
    return n;
  });
}

/** tcpdump -r FILE -w /dev/null, best of `runs` (wall ms). */
function tcpdumpMs(runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync('tcpdump', ['-r', BENCH_CAPTURE, '-w', '/dev/null'], { stdio: 'ignore' });
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

function capturePackets(): number {
  // the summary written beside the capture (tshark's count), so no extra pass is needed
  const s = readFileSync(BENCH_CAPTURE.replace(/\.pcap$/, '.summary.txt'), 'utf8');
  const head = s.split('\n').find((l) => l.startsWith('File name\t'))?.split('\t') ?? [];
  const row = s.split('\n').find((l) => l.startsWith('loopback-mix.pcap\t'))?.split('\t') ?? [];
  const n = Number(row[head.indexOf('Number of packets')]);
  if (!(n > 0)) throw new Error('cannot read the packet count from loopback-mix.summary.txt');
  return n;
}

/**
 * Runs the replay benchmark. Keys of the result:
 * - `replay.packets`, `replay.loops`, `replay.pps`, `replay.ns_per_packet` (wall clock),
 *   `replay.cpu_pps`, `replay.cpu_ns_per_packet` (process CPU time), `replay.flows`,
 *   `replay.imbalance`, `replay.gc_events`
 * - `reference.tcpdump.pps` (best of 3 `tcpdump -r FILE -w /dev/null`, wall), `replay.ratio_to_tcpdump`
 * - `stage.<read|parse|hubs|full>.cpu_ns_per_packet`: cumulative CPU ns per packet at each cut
 * - `replay.repeats`: runs per figure (each figure is the best of them)
 * @param loops passes over the capture (default 6)
 * @param repeats runs of each measurement, best kept (default 3)
 */
export async function benchReplay(loops = DEFAULT_LOOPS, repeats = DEFAULT_REPEATS): Promise<Record<string, number>> {
  if (!existsSync(BENCH_CAPTURE)) throw new Error(`bench capture not found: ${BENCH_CAPTURE}`);
  const r: Record<string, number> = {};
  // warm-up: one pass through every stage (JIT), not measured
  runReplay({ files: [BENCH_CAPTURE], loops: 1 });
  for (const k of ['read', 'parse', 'hubs'] as const) stage(k, 1);

  let gcs = 0;
  const obs = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  let bestWall = Infinity;
  let bestCpu = Infinity;
  for (let i = 0; i < repeats; i++) {
    if (i === 0) obs.observe({ entryTypes: ['gc'] });
    const { report } = runReplay({ files: [BENCH_CAPTURE], loops });
    if (i === 0) {
      await new Promise((res) => setImmediate(res));
      obs.disconnect();
      r['replay.loops'] = loops;
      r['replay.packets'] = report.packets;
      r['replay.flows'] = report.flows;
      r['replay.sessions_created'] = report.sessions.created;
      r['replay.imbalance'] = report.imbalance;
      r['replay.gc_events'] = gcs;
    }
    bestWall = Math.min(bestWall, report.elapsed_ms);
    bestCpu = Math.min(bestCpu, report.cpu_ms);
  }
  const packets = r['replay.packets']!;
  r['replay.repeats'] = repeats;
  r['replay.pps'] = (packets * 1000) / bestWall;
  r['replay.ns_per_packet'] = (bestWall * 1e6) / packets;
  r['replay.cpu_pps'] = (packets * 1000) / bestCpu;
  r['replay.cpu_ns_per_packet'] = (bestCpu * 1e6) / packets;

  const one = capturePackets();
  const td = tcpdumpMs(3);
  r['reference.tcpdump.ms'] = td;
  r['reference.tcpdump.pps'] = (one * 1000) / td;
  r['replay.ratio_to_tcpdump'] = r['replay.pps']! / r['reference.tcpdump.pps']!;

  for (const k of ['read', 'parse', 'hubs'] as const) {
    let cpu = Infinity;
    let wall = Infinity;
    for (let i = 0; i < repeats; i++) {
      const t = stage(k, loops);
      cpu = Math.min(cpu, (t.cpuMs * 1e6) / t.packets);
      wall = Math.min(wall, (t.wallMs * 1e6) / t.packets);
    }
    r[`stage.${k}.cpu_ns_per_packet`] = cpu;
    r[`stage.${k}.ns_per_packet`] = wall;
  }
  r['stage.full.cpu_ns_per_packet'] = r['replay.cpu_ns_per_packet'];
  r['stage.full.ns_per_packet'] = r['replay.ns_per_packet'];
  printTable(r);
  return r;
}

function printTable(r: Record<string, number>): void {
  const M = (x: number | undefined) => `${((x ?? 0) / 1e6).toFixed(3)} Mpps`;
  const ns = (x: number | undefined) => `${(x ?? 0).toFixed(0)} ns`;
  const L: string[] = [];
  L.push(`Full data path: atcasim replay of bench/loopback-mix.pcap × ${r['replay.loops']} loops (${(r['replay.packets'] ?? 0).toLocaleString('en')} packets, ${(r['replay.flows'] ?? 0).toLocaleString('en')} flows, default shelf, session tables 262,144/board); best of ${r['replay.repeats']} runs`);
  L.push(`  wall clock ${M(r['replay.pps'])}, ${ns(r['replay.ns_per_packet'])}/packet; CPU time ${M(r['replay.cpu_pps'])}, ${ns(r['replay.cpu_ns_per_packet'])}/packet; ${r['replay.gc_events']} GCs; board imbalance ${(r['replay.imbalance'] ?? 0).toFixed(4)}`);
  L.push(`  reference tcpdump -r FILE -w /dev/null: ${M(r['reference.tcpdump.pps'])} (${(r['reference.tcpdump.ms'] ?? 0).toFixed(0)} ms per pass) → atcasim / tcpdump = ×${(r['replay.ratio_to_tcpdump'] ?? 0).toFixed(3)}`);
  L.push(`  where the time goes (CPU ns per packet, cumulative, best of ${r['replay.repeats']}; the difference is the stage):`);
  let prev = 0;
  for (const [k, name] of [['read', 'file read (1 MiB chunks) + record framing'], ['parse', '+ header parser'], ['hubs', '+ traffic source + hub (hash, ECMP)'], ['full', '+ flow count + processor board (sessions, scheduling)']] as const) {
    const v = r[`stage.${k}.cpu_ns_per_packet`] ?? 0;
    L.push(`    ${name.padEnd(56)} ${ns(v).padStart(8)}   (+${(v - prev).toFixed(0)})`);
    prev = v;
  }
  process.stdout.write(`${L.join('\n')}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchReplay(process.argv[2] ? Number(process.argv[2]) : DEFAULT_LOOPS, process.argv[3] ? Number(process.argv[3]) : DEFAULT_REPEATS);
}
