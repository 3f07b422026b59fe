/**
 * HA figures for `npm run bench` (the targets of docs/ha.md "Measured figures"; called at the HA hook
 * of bench/run.ts, which adds the rows to the summary table):
 *
 * - speed: a 60 s scenario with 2,000 new flows/s on the full emulator must finish in under a tenth
 *   of its simulated time (wall time / simulated time reported);
 * - chaos: 1,000 random schedules (60 s each, default pool) on the default shelf — violations and
 *   schedules/s;
 * - detection time in heartbeat intervals for a crash (target ≤ 3) and for a hang (target ≤ watchdog
 *   timeout + 1 interval), over many seeds on the count model and on the emulator;
 * - sessions older than the sync threshold lost on any single fault (target 0), over single-fault
 *   runs of every kind;
 * - double-active instants over the whole scenario library (target 0 with the interlock on);
 * - sync volume and the reduction from the age filter (the 60 s run);
 * each next to keepalived's defaults (about 3.6 s to detect a crash; a hang is not detected without
 * a check script — ha.md §1.3, §5.4).
 *
 * Run alone: `node bin/run-ts.mjs bench/ha.ts [chaosSeeds]`.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadScenarioFile, nodeScenarioIo } from '../chassis/cli/scenario.ts';
import { loadDefaultShelf } from '../chassis/io/data-dir.ts';
import { DEFAULT_CHAOS_FAULTS, runChaos } from '../chassis/scenarios/chaos.ts';
import { loadScenario, runModel, runScenario } from '../chassis/scenarios/runner.ts';
import type { ModelRunInput } from '../chassis/scenarios/runner.ts';
import { parseScenarioAction } from '../chassis/scenarios/actions.ts';
import type { SummaryRow } from './summary.ts';

const here = dirname(fileURLToPath(import.meta.url));
const library = join(here, '..', 'chassis', 'scenarios', 'library');
const io = nodeScenarioIo();

const SPEED_SCENARIO = `name: bench 60 s at 2000 new flows/s
seed: 1
traffic:
  generator: { flows_per_s: 2000, duration_s: { median: 5, max: 120 } }
run_for: 60s
timeline:
  - { at: 30s, do: crash slot3 }
expect:
  - never_two_active: all
  - sessions_lost: { protected: true, max: 0 }
`;

/** Single faults on the node that owns lb1/slot3 (A = slot3), at t = 20 s of a 30 s run. */
const SINGLE_FAULTS = ['crash slot3', 'power-off slot3', 'hang slot3', 'pause slot3 1.5s', 'stall-control slot3', 'extract slot3', 'fail slot3', 'upgrade slot3 2.0', 'cut uplink slot3', 'deactivate slot3', 'switchover lb1/slot3'];

/** T_s + B of the default shelf, ms: "established" sessions (ha.md §5.3 N_est), by age at the fault instant. */
const EST_MS = 3100;

/** Lost sessions at least `ms` old at the fault instant. */
function olderThan(ages: ReadonlyArray<[number, number]>, ms: number): number {
  let n = 0;
  for (const [age, c] of ages) if (age >= ms) n += c;
  return n;
}

function modelRun(seed: number, fault: string, shelf = loadDefaultShelf()) {
  const input: ModelRunInput = {
    seed, ha: {}, traffic: { kind: 'generator', flowsPerSec: 800, durationMedianMs: 5000, durationMaxMs: 120_000, sigma: 1.2, keepaliveMs: 1000 },
    initial: { poweredOff: [], cut: [] }, timeline: [{ atMs: 20_000, action: parseScenarioAction(fault), text: fault, line: 1 }], runForMs: 30_000,
    unsafeNoInterlockGuard: false,
  };
  return runModel(input, shelf);
}

/** The bench. @returns figures (keys without prefix; run.ts adds `ha.`) and summary rows. */
export async function benchHa(chaosSeeds = 1000): Promise<{ figures: Record<string, number>; rows: SummaryRow[] }> {
  const f: Record<string, number> = {};
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out('HA (bench/ha.ts):');

  // 1. speed of a 60 s emulator scenario at 2,000 new flows/s
  const loaded = loadScenario(SPEED_SCENARIO, join(here, 'bench-speed.yaml'), io);
  const t0 = performance.now();
  const speed = await runScenario(loaded, io);
  const wall = performance.now() - t0;
  f['speed.wall_ms'] = wall;
  f['speed.ratio'] = wall / 60_000;
  f['speed.packets'] = speed.result.traffic?.packets ?? 0;
  f['speed.sessions_created'] = speed.result.sessions.created;
  f['sync.bytes_per_s'] = speed.result.sync.bytes / 60;
  f['sync.datagrams_per_s'] = speed.result.sync.datagrams / 60;
  f['sync.age_filter_reduction'] = speed.result.sync.ageFilterReduction;
  f['sync.filtered_sessions'] = speed.result.sync.filteredSessions;
  f['speed.protected_lost'] = speed.result.sessions.lostProtected;
  out(`  60 s scenario, 2,000 new flows/s, full emulator: ${(wall / 1000).toFixed(2)} s wall = ${f['speed.ratio']!.toFixed(3)} × simulated time (${f['speed.packets']} packets, ${f['speed.sessions_created']} sessions); ${speed.passed ? 'expectations met' : 'EXPECTATIONS FAILED'}`);
  out(`  sync: ${Math.round(f['sync.bytes_per_s']!)} bytes/s (${(8 * f['sync.bytes_per_s']! / 1e6).toFixed(2)} Mbit/s), ${Math.round(f['sync.datagrams_per_s']!)} datagrams/s; the age filter saved ${(100 * f['sync.age_filter_reduction']!).toFixed(1)} % of the sessions`);

  // 2. detection in heartbeat intervals and established sessions lost, single faults (count model)
  let crashMax = 0;
  let hangMax = 0;
  let estLost = 0;
  let protLost = 0;
  let runs = 0;
  const seeds = 40;
  for (const fault of SINGLE_FAULTS) {
    for (let seed = 1; seed <= seeds; seed++) {
      const r = modelRun(seed, fault);
      runs++;
      for (const t of r.takeovers.filter((x) => x.share === 'lb1/slot3')) {
        estLost += olderThan(t.lostAges, EST_MS);
        protLost += t.loss.lostProtected;
        if (fault.startsWith('crash') || fault.startsWith('power-off') || fault.startsWith('extract') || fault.startsWith('fail')) crashMax = Math.max(crashMax, t.detectionIntervals);
        if (fault.startsWith('hang') || fault.startsWith('stall-control')) hangMax = Math.max(hangMax, t.detectionIntervals);
      }
    }
  }
  // … and the emulator's library runs of the same faults
  const files = readdirSync(library).filter((x) => x.endsWith('.yaml')).sort();
  let doubleOn = 0;
  let doubleOnMs = 0;
  let doubleOff = 0;
  let libFailed = 0;
  const tl0 = performance.now();
  for (const file of files) {
    const r = await runScenario(loadScenarioFile(join(library, file), io), io);
    if (!r.passed) libFailed++;
    const interlockOff = r.result.timeline.some((e) => e.type === 'action' && e.text === 'interlock off');
    if (interlockOff) doubleOff += r.result.doubleActive.episodes;
    else {
      doubleOn += r.result.doubleActive.episodes;
      doubleOnMs += r.result.doubleActive.totalMs;
    }
    for (const t of r.result.takeovers) {
      if (file.startsWith('s03') || file.startsWith('s04') || file === 'board-failure.yaml') crashMax = Math.max(crashMax, t.detectionIntervals);
      if (file.startsWith('s05') || file.startsWith('s06')) hangMax = Math.max(hangMax, t.detectionIntervals);
      if (/^(s0[2-8]|s21|board)/.test(file)) estLost += olderThan(t.lostAges, EST_MS);
    }
  }
  f['library.scenarios'] = files.length;
  f['library.failed'] = libFailed;
  f['library.wall_ms'] = performance.now() - tl0;
  f['detect.crash_intervals_max'] = crashMax;
  f['detect.hang_intervals_max'] = hangMax;
  f['single_fault.runs'] = runs;
  f['single_fault.established_lost'] = estLost;
  f['single_fault.protected_lost'] = protLost;
  f['double_active.interlock_on'] = doubleOn;
  f['double_active.interlock_on_ms'] = doubleOnMs;
  f['double_active.interlock_off_s24'] = doubleOff;
  out(`  detection: crash / power loss / extraction ≤ ${crashMax.toFixed(2)} heartbeat intervals; hang ≤ ${hangMax.toFixed(2)} intervals (${runs} single-fault model runs + the library)`);
  out(`  sessions at least T_s + B old at the fault instant lost on single faults: ${estLost}; protected sessions (ha.md §5.5 oracle) lost: ${protLost}`);
  out(`  library: ${files.length} scenarios, ${libFailed} failed, ${(f['library.wall_ms']! / 1000).toFixed(1)} s; double-active episodes with the interlock on: ${doubleOn} (${doubleOnMs} ms); with it off (S24): ${doubleOff}`);

  // 3. chaos
  const shelf = loadDefaultShelf();
  const tc = performance.now();
  const found = runChaos({ shelf, shelfPath: 'default', faults: DEFAULT_CHAOS_FAULTS, durationMs: 60_000, seeds: chaosSeeds, fromSeed: 1 });
  const secs = (performance.now() - tc) / 1000;
  f['chaos.schedules'] = chaosSeeds;
  f['chaos.violations'] = found.length;
  f['chaos.schedules_per_s'] = chaosSeeds / secs;
  out(`  chaos: ${chaosSeeds} schedules (60 s each), ${found.length} violations, ${f['chaos.schedules_per_s']!.toFixed(2)} schedules/s${found.map((x) => `\n    seed ${x.seed}: ${x.invariant}: ${x.detail}`).join('')}`);

  const hb = shelf.ha.timing.heartbeatMs;
  const wIntervals = shelf.ha.timing.watchdogTimeoutMs / hb + 1;
  const rows: SummaryRow[] = [
    { metric: 'HA: 60 s scenario, 2,000 new flows/s (full emulator)', target: '< 0.1 × simulated time', measured: `${(wall / 1000).toFixed(2)} s = ${f['speed.ratio']!.toFixed(3)} ×`, reference: `${f['speed.packets']} packets, ${f['speed.sessions_created']} sessions`, met: f['speed.ratio']! < 0.1 },
    { metric: 'HA: detect a crash / power loss', target: '≤ 3 heartbeat intervals', measured: `${crashMax.toFixed(2)} intervals (${(crashMax * hb).toFixed(0)} ms)`, reference: 'keepalived defaults: ≈ 3.6 s (3 × 1 s adverts + skew)', met: crashMax <= 3 },
    { metric: 'HA: detect a hang (alive, stuck)', target: `≤ watchdog + 1 interval (${wIntervals} intervals)`, measured: `${hangMax.toFixed(2)} intervals (${(hangMax * hb).toFixed(0)} ms)`, reference: 'keepalived: not detected without a check script', met: hangMax <= wIntervals },
    { metric: 'HA: sessions older than T_s + B lost, any single fault', target: '0', measured: `${estLost} (${runs} model runs + library)`, reference: 'keepalived without conntrackd: all', met: estLost === 0 },
    { metric: 'HA: double-active instants over the scenario library', target: '0 (interlock on)', measured: `${doubleOn} (S24, interlock off: ${doubleOff} episode(s), as designed)`, reference: 'keepalived: possible (split brain)', met: doubleOn === 0 },
    { metric: `HA: chaos, ${chaosSeeds} schedules on the default shelf`, target: '0 violations', measured: `${found.length} violations, ${f['chaos.schedules_per_s']!.toFixed(2)} schedules/s`, reference: '', met: found.length === 0 },
    { metric: 'HA: session sync volume at 2,000 new flows/s', target: 'reported', measured: `${Math.round(f['sync.bytes_per_s']!).toLocaleString('en')} bytes/s; age filter saves ${(100 * f['sync.age_filter_reduction']!).toFixed(1)} % of sessions`, reference: 'IPVS sync threshold "3 50" (packets)', met: true },
  ];
  return { figures: f, rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await benchHa(Number(process.argv[2] ?? 1000));
  for (const row of r.rows) process.stdout.write(`${row.met ? 'met ' : 'NOT '} ${row.metric}: ${row.measured}\n`);
}
