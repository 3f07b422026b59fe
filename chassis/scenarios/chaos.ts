/**
 * Randomised fault schedules (`atcasim chaos`, docs/scenarios.md: beyond the scripted library): for
 * each seed, draw a schedule of actions from the scenario action list (random kinds, targets,
 * parameters and times; faults overlap), run it on the count model in simulated time (the `model`
 * engine of `atcasim scenario`, runner.ts `runModel`) with the invariants audited after every step (the
 * HA fabric: at most one owner per share and one active ShMC, epochs never decrease, HEALTHY low
 * throughout a reset, no protected session lost while at most one component is faulty), and on a
 * violation minimise the schedule — fewest actions and shortest run that still violate the same
 * invariant — into a scenario YAML that `atcasim scenario` replays exactly (same engine, seed, traffic
 * and actions, so the same violation).
 *
 * Pure: no I/O (the CLI writes the YAML files), randomness from SeededRandom(seed).
 */
import { CommandError } from '../../board/common/errors.ts';
import { SeededRandom } from '../../board/common/random.ts';
import type { Random } from '../../board/common/random.ts';
import type { ShelfConfig } from '../config/types.ts';
import { sharesOfPair } from '../ha/ha-fabric.ts';
import { formatDuration } from '../sim/sim-actions.ts';
import type { SimAction } from '../sim/sim-actions.ts';
import { ACTION_NAMES, formatScenarioAction } from './actions.ts';
import type { ScenarioTraffic } from './format.ts';
import { runModel } from './runner.ts';
import type { ModelRunInput } from './runner.ts';

/** Every action kind chaos can draw (model engine: the real-server actions need the emulator). */
export const CHAOS_FAULTS = ACTION_NAMES.filter((a) => a !== 'rs-down' && a !== 'rs-up');
/** The default pool: everything but `interlock-off`, the one documented way to allow two actives (ha.md S24). */
export const DEFAULT_CHAOS_FAULTS = CHAOS_FAULTS.filter((a) => a !== 'interlock-off');

/** Chaos options. */
export interface ChaosOptions {
  /** The shelf (pairs and HA timing). */
  shelf: ShelfConfig;
  /** Shelf YAML path for the minimised scenarios ('default' for the shipped one). */
  shelfPath: string;
  /** Action kinds to draw from (hyphenated names). */
  faults: readonly string[];
  /** Simulated length of each schedule, ms (default 60 s). */
  durationMs: number;
  /** Traffic of every run (default: 200 new flows/s, durations median 5 s, max 60 s). */
  traffic?: Extract<ScenarioTraffic, { kind: 'generator' | 'none' }>;
  /** Most actions per schedule (default 8). */
  maxActions?: number;
  /** TEST-ONLY planted bug: the firmware ignores the interlock (the chaos test shows it is found). */
  unsafeNoInterlockGuard?: boolean;
}

/** A schedule: actions at times. */
export interface ChaosSchedule {
  seed: number;
  runForMs: number;
  actions: Array<{ atMs: number; action: SimAction }>;
}

/** A violation found for a seed, with its minimised schedule. */
export interface ChaosFinding {
  seed: number;
  invariant: string;
  detail: string;
  /** Time of the first violation in the original schedule, ms. */
  at: number;
  original: ChaosSchedule;
  minimised: ChaosSchedule;
  /** The minimised schedule as a scenario file. */
  yaml: string;
}

/** Default chaos traffic. */
export const DEFAULT_CHAOS_TRAFFIC: Extract<ScenarioTraffic, { kind: 'generator' }> = {
  kind: 'generator', flowsPerSec: 200, durationMedianMs: 5000, durationMaxMs: 60_000, sigma: 1.2, keepaliveMs: 1000,
};

/**
 * Checks a `--faults` list.
 * @throws CommandError('bad_faults') naming the unknown entries
 */
export function parseFaults(list: string): string[] {
  const items = list.split(',').map((x) => x.trim()).filter((x) => x.length > 0);
  if (items.length === 0) throw new CommandError('bad_faults', '--faults: give at least one action name');
  const bad = items.filter((x) => !(CHAOS_FAULTS as readonly string[]).includes(x));
  if (bad.length) {
    const emu: string[] = bad.filter((x) => x === 'rs-down' || x === 'rs-up');
    throw new CommandError('bad_faults', `--faults: ${emu.length ? `${emu.join(', ')} need the emulator (chaos runs the count model); ` : ''}unknown: ${bad.filter((x) => !emu.includes(x)).join(', ') || '-'} (known: ${CHAOS_FAULTS.join(', ')})`);
  }
  return items;
}

const pick = <T>(r: Random, xs: readonly T[]): T => xs[r.int(xs.length)]!;

/** Draws one action of kind `kind`. */
function drawAction(r: Random, kind: string, nodes: readonly string[], pairs: readonly string[], pairNodes: Record<string, readonly [string, string]>): SimAction {
  const node = pick(r, nodes);
  const pair = pick(r, pairs);
  const ms = (lo: number, hi: number) => Math.round(lo + r.next() * (hi - lo));
  switch (kind) {
    case 'crash': case 'power-off': case 'power-on': case 'hang': case 'heal': case 'stall-control':
    case 'deactivate': case 'activate': case 'extract': case 'insert': case 'fail': case 'repair':
      return { op: kind, node };
    case 'cut-uplink':
      return { op: 'cut-uplink', node };
    case 'restore-uplink':
      return { op: 'restore-uplink', node };
    case 'pause':
      return { op: 'pause', node, ms: ms(100, 3000) };
    case 'cut-heartbeat':
    case 'cut-sync': {
      const link = kind === 'cut-heartbeat' ? 'heartbeat' : 'sync';
      if (r.next() < 0.3) {
        const [a, b] = pairNodes[pair]!;
        const [from, to] = r.next() < 0.5 ? [a, b] : [b, a];
        return { op: 'cut', link, pair, from, to };
      }
      return { op: 'cut', link, pair };
    }
    case 'restore-heartbeat':
      return { op: 'restore', link: 'heartbeat', pair };
    case 'restore-sync':
      return { op: 'restore', link: 'sync', pair };
    case 'delay-heartbeat':
      return { op: 'delay', link: 'heartbeat', pair, ms: ms(20, 1500) };
    case 'flap-heartbeat':
      return { op: 'flap', link: 'heartbeat', pair, periodMs: ms(50, 600) };
    case 'lossy-sync':
      return { op: 'lossy', link: 'sync', pair, percent: ms(1, 30) };
    case 'stick-healthy':
      return { op: 'stick-healthy', node, level: pick(r, ['low', 'high', 'off'] as const) };
    case 'interlock-off':
      return { op: 'interlock', on: false };
    case 'interlock-on':
      return { op: 'interlock', on: true };
    case 'clock-jump':
      return { op: 'clock-jump', node, ms: (r.next() < 0.5 ? -1 : 1) * ms(1000, 7_200_000) };
    case 'ntp-slew':
      return { op: 'ntp-slew', node, ppm: (r.next() < 0.5 ? -1 : 1) * ms(10, 1000) };
    case 'switchover':
      return { op: 'switchover', pair };
    case 'shift':
      return { op: 'shift', pair: pick(r, pairs.filter((p) => !p.startsWith('shmc'))) ?? pair, percent: ms(0, 100) };
    case 'upgrade':
      return { op: 'upgrade', node, version: r.next() < 0.2 ? '2.0' : `1.${1 + r.int(3)}` };
    default:
      throw new CommandError('bad_faults', `unknown action kind ${kind}`);
  }
}

/** The nodes, pairs and shares of a shelf. */
function targets(shelf: ShelfConfig): { nodes: string[]; pairs: string[]; pairNodes: Record<string, readonly [string, string]> } {
  const nodes: string[] = [];
  const pairs: string[] = [];
  const pairNodes: Record<string, readonly [string, string]> = {};
  for (const p of shelf.ha.pairs) {
    nodes.push(...p.members);
    pairs.push(p.name);
    pairNodes[p.name] = p.members;
    if (p.kind === 'processor') {
      for (const s of sharesOfPair(p)) {
        pairs.push(s);
        pairNodes[s] = p.members;
      }
    }
  }
  return { nodes, pairs, pairNodes };
}

/**
 * Draws the schedule of a seed: 1..maxActions actions of the pool's kinds at random times in
 * [3 s, duration − 2 s] (after the pairs settled, before the end), sorted by time.
 */
export function drawSchedule(seed: number, o: ChaosOptions): ChaosSchedule {
  const r = new SeededRandom(seed);
  const t = targets(o.shelf);
  if (t.nodes.length === 0) throw new CommandError('bad_shelf', 'the shelf has no HA pair');
  const n = 1 + r.int(o.maxActions ?? 8);
  const lo = Math.min(3000, o.durationMs / 4);
  const hi = Math.max(lo, o.durationMs - 2000);
  const actions: ChaosSchedule['actions'] = [];
  for (let i = 0; i < n; i++) {
    const kind = pick(r, o.faults);
    const atMs = Math.round(lo + r.next() * (hi - lo));
    actions.push({ atMs, action: drawAction(r, kind, t.nodes, t.pairs, t.pairNodes) });
  }
  actions.sort((a, b) => a.atMs - b.atMs);
  return { seed, runForMs: o.durationMs, actions };
}

function modelInput(s: ChaosSchedule, o: ChaosOptions): ModelRunInput {
  return {
    seed: s.seed,
    ha: {},
    traffic: o.traffic ?? DEFAULT_CHAOS_TRAFFIC,
    initial: { poweredOff: [], cut: [] },
    timeline: s.actions.map((a, i) => ({ atMs: a.atMs, action: a.action, text: formatScenarioAction(a.action), line: i + 1 })),
    runForMs: s.runForMs,
    unsafeNoInterlockGuard: o.unsafeNoInterlockGuard === true,
  };
}

/** Runs a schedule; returns its violations (time-ordered). */
export function runSchedule(s: ChaosSchedule, o: ChaosOptions): Array<{ t: number; invariant: string; detail: string }> {
  return runModel(modelInput(s, o), o.shelf).invariants.violations;
}

/**
 * Minimises a violating schedule: drops actions after the first violation of `invariant`, then
 * removes actions one at a time while the same invariant is still violated (until no single
 * removal keeps it: 1-minimal), then moves the whole schedule as early as it still violates, and
 * cuts the run just after the violation.
 */
export function minimise(s: ChaosSchedule, invariant: string, o: ChaosOptions): ChaosSchedule {
  const first = (x: ChaosSchedule) => runSchedule(x, o).find((v) => v.invariant === invariant);
  const cut = (x: ChaosSchedule): ChaosSchedule | null => {
    const v = first(x);
    if (!v) return null;
    return { seed: x.seed, runForMs: Math.min(x.runForMs, Math.ceil(v.t) + 1), actions: x.actions.filter((a) => a.atMs <= v.t) };
  };
  let cur = cut(s);
  if (!cur) return s;
  for (let changed = true; changed;) {
    changed = false;
    for (let i = 0; i < cur.actions.length && cur.actions.length > 1; i++) {
      const trial = cut({ ...cur, runForMs: s.runForMs, actions: cur.actions.filter((_, j) => j !== i) });
      if (trial) {
        cur = trial;
        changed = true;
        i--;
      }
    }
  }
  // Earlier: shift every action back so the first one is as early as it still violates.
  const firstAt = cur.actions[0]?.atMs ?? 0;
  for (const target of [1000, 2000, 3000, 5000]) {
    if (target >= firstAt) break;
    const d = firstAt - target;
    const trial = cut({ ...cur, runForMs: s.runForMs, actions: cur.actions.map((a) => ({ ...a, atMs: a.atMs - d })) });
    if (trial) {
      cur = trial;
      break;
    }
  }
  return cur;
}

/** Formats ms as a scenario duration (exact to the millisecond). */
function dur(ms: number): string {
  return formatDuration(ms);
}

/** The scenario YAML of a (minimised) schedule: `atcasim scenario` replays it exactly. */
export function scheduleYaml(s: ChaosSchedule, o: ChaosOptions, finding: { invariant: string; detail: string; at: number }): string {
  const t = o.traffic ?? DEFAULT_CHAOS_TRAFFIC;
  const lines = [
    `# Found by atcasim chaos (seed ${s.seed}): invariant ${finding.invariant} violated at ${dur(finding.at)} —`,
    `# ${finding.detail}`,
    `# Minimised to ${s.actions.length} action(s); replay with: atcasim scenario FILE (it fails with the same violation).`,
    `name: chaos seed ${s.seed} (${finding.invariant})`,
    `seed: ${s.seed}`,
    `shelf: ${o.shelfPath === 'default' ? 'default' : JSON.stringify(o.shelfPath)}`,
    'engine: model',
  ];
  if (t.kind === 'generator') {
    lines.push('traffic:', `  generator: { flows_per_s: ${t.flowsPerSec}, duration_s: { median: ${t.durationMedianMs / 1000}, max: ${t.durationMaxMs / 1000}, sigma: ${t.sigma} } }`);
  }
  if (o.unsafeNoInterlockGuard) lines.push('unsafe_no_interlock_guard: true   # TEST-ONLY planted bug the run was made with');
  lines.push(`run_for: ${dur(s.runForMs)}`, 'timeline:');
  for (const a of s.actions) lines.push(`  - { at: ${dur(a.atMs)}, do: ${JSON.stringify(formatScenarioAction(a.action))} }`);
  lines.push('expect:', '  - invariants: ok', '');
  return lines.join('\n');
}

/** Progress of a chaos run. */
export interface ChaosProgress {
  seed: number;
  actions: number;
  violation: ChaosFinding | null;
}

/**
 * Runs seeds [fromSeed, fromSeed + seeds) and minimises every violating schedule.
 * @param onSeed called after each seed (progress output)
 */
export function runChaos(o: ChaosOptions & { seeds: number; fromSeed: number }, onSeed?: (p: ChaosProgress) => void): ChaosFinding[] {
  const found: ChaosFinding[] = [];
  for (let seed = o.fromSeed; seed < o.fromSeed + o.seeds; seed++) {
    const s = drawSchedule(seed, o);
    const v = runSchedule(s, o)[0];
    let f: ChaosFinding | null = null;
    if (v) {
      const m = minimise(s, v.invariant, o);
      const mv = runSchedule(m, o).find((x) => x.invariant === v.invariant) ?? v;
      f = { seed, invariant: v.invariant, detail: v.detail, at: v.t, original: s, minimised: m, yaml: scheduleYaml(m, o, { invariant: mv.invariant, detail: mv.detail, at: mv.t }) };
      found.push(f);
    }
    onSeed?.({ seed, actions: s.actions.length, violation: f });
  }
  return found;
}
