/**
 * `npm run bench` (not part of `npm test`): every performance figure (the targets of the README's
 * "Performance" table), each next to a reference measured in the same run, then a summary table of the
 * targets and whether each is met, as Markdown (docs/bench.md keeps a copy of the last run).
 *
 * Parts (each a module that also runs alone):
 * - bench/packet.ts: capture reader and header parser alone (read, read + parse), vs tcpdump;
 * - bench/replay.ts: full data path (`atcasim replay` of bench/loopback-mix.pcap with --loop),
 *   packets/s and ns/packet, ratio to `tcpdump -r FILE -w /dev/null`, stage breakdown;
 * - bench/processor.ts: session table at 1.5 M entries (bytes/entry IPv4 and IPv6, inserts/s,
 *   lookups/s, reference Map<string>), SYN flood, ProcessorBoard.handle, maglev remap;
 * - bench/switch.ts: max/mean load for each hash over 2..16 ports with 1,000,000 random
 *   5-tuples, modulo/resilient remap on removing 1 of 8 and adding a 9th, hash throughput;
 * - HA figures: see the HA HOOK below.
 *
 * The machine's load is printed first (uptime): the figures are wall-clock rates on a shared
 * machine unless marked CPU. Usage: `npm run bench [-- --loops N] [-- --repeats N] [-- --only packet,replay,switch,processor,ha]`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchPacket } from './packet.ts';
import { benchProcessor } from './processor.ts';
import { benchReplay, DEFAULT_LOOPS, DEFAULT_REPEATS } from './replay.ts';
import { benchSwitch } from './switch.ts';
import { formatSummary, summaryRows, type SummaryRow } from './summary.ts';

const here = dirname(fileURLToPath(import.meta.url));

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function load(): string {
  const [a, b, c] = loadavg();
  return `load average ${a!.toFixed(2)}, ${b!.toFixed(2)}, ${c!.toFixed(2)} on ${cpus().length} CPUs`;
}

const only = new Set((arg('only') ?? 'packet,replay,processor,switch,ha,live').split(','));
const loops = Number(arg('loops') ?? DEFAULT_LOOPS);
const repeats = Number(arg('repeats') ?? DEFAULT_REPEATS);
const version = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')).version as string;

process.stdout.write(`atcasim ${version} bench — node ${process.version}, ${cpus()[0]?.model ?? 'cpu'}; ${load()} at start\n\n`);
const figures: Record<string, number> = {};
const put = (prefix: string, r: Record<string, number>) => {
  for (const [k, v] of Object.entries(r)) figures[`${prefix}.${k}`] = v;
};

if (only.has('packet')) {
  // bench/packet.ts returns its figures without printing them: list them here
  const r = await benchPacket();
  put('packet', r);
  const lines = Object.entries(r).map(([k, v]) => `  ${k.padEnd(44)} ${Number.isInteger(v) ? v.toLocaleString('en') : v.toFixed(3)}`);
  process.stdout.write(`Capture reader + header parser (bench/packet.ts; pps = packets/s, ns = per packet, best of 3):\n${lines.join('\n')}\n(${load()})\n\n`);
}
if (only.has('replay')) {
  put('replay', await benchReplay(loops, repeats));
  process.stdout.write(`(${load()})\n\n`);
}
if (only.has('processor')) {
  put('processor', await benchProcessor());
  process.stdout.write(`(${load()})\n\n`);
}
if (only.has('switch')) {
  put('switch', await benchSwitch());
  process.stdout.write(`(${load()})\n\n`);
}

if (only.has('live')) {
  put('live', await (await import('./live.ts')).benchLive());
  put('live_appliance', await (await import('./live-appliance.ts')).benchAppliance());
}

// ------------------------------------------------------------------ HA HOOK
// The HA figures (the targets of docs/ha.md "Measured figures": detection time in heartbeat
// intervals for a crash and a hang, sessions older than the sync threshold lost on any single fault,
// double-active instants over the scenario library, 60 s scenario speed, chaos schedules/s) are
// added by the HA work as bench/ha.ts exporting
//   benchHa(): Promise<{ figures: Record<string, number>; rows: SummaryRow[] }>
// (SummaryRow from bench/summary.ts). When that file exists it is run here and its rows join
// the summary table; nothing else needs to change.
const extraRows: SummaryRow[] = [];
const haFile = join(here, 'ha.ts');
if (only.has('ha') && existsSync(haFile)) {
  const mod = (await import(pathToFileURL(haFile).href)) as { benchHa?: () => Promise<{ figures: Record<string, number>; rows: SummaryRow[] }> };
  if (typeof mod.benchHa === 'function') {
    const ha = await mod.benchHa();
    put('ha', ha.figures);
    extraRows.push(...ha.rows);
    process.stdout.write(`(${load()})\n\n`);
  }
} else if (only.has('ha')) {
  process.stdout.write('HA figures: not measured yet (bench/ha.ts is added by the HA work)\n\n');
}
// ------------------------------------------------------------------ end of HA HOOK

const rows = [...summaryRows(figures), ...extraRows];
process.stdout.write(`${formatSummary(rows, load())}\n`);
