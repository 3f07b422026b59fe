/**
 * Runs a scenario (format.ts) in simulated time and checks its expectations (expectations.ts).
 *
 * Engines:
 * - `emulator` (default): the full emulator (chassis/runtime/emulator.ts `Emulator.start`) on a
 *   SimClock with a MemoryStore, no sockets and no TUI, the HA part (chassis/runtime/ha-part.ts) on the HA simulator (chassis/sim),
 *   the IPMI face without a listener (for `ipmi` actions), and the scenario's traffic (the bundled
 *   capture, a capture file, or the flow generator). Session tables are sized to the traffic.
 * - `model`: the count model (chassis/sim/pair-sim.ts) — the HA fabric with sessions as counts
 *   with ages, the engine `atcasim chaos` uses; the generator's rate is spread over the shares.
 *
 * Everything is derived from the scenario's seed: the same file gives the same report. Files are
 * read through the `ScenarioIo` port (chassis/cli/scenario.ts provides the node:fs one).
 */
import { CommandError, ConfigError } from '../../board/common/errors.ts';
import { nullLogger } from '../../board/common/logger.ts';
import type { Logger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { SimClock } from '../../board/common/sim-clock.ts';
import { parseShelfConfig } from '../config/shelf-config.ts';
import type { ShelfConfig } from '../config/types.ts';
import { MemoryFeed, memoryInput } from '../dataplane/traffic.ts';
import type { Pacing, TrafficInput } from '../dataplane/traffic.ts';
import { sharesOfPair, seedHash } from '../ha/ha-fabric.ts';
import { HaSimulator } from '../sim/ha-simulator.ts';
import type { FabricReport } from '../sim/ha-simulator.ts';
import { createPairSim } from '../sim/pair-sim.ts';
import { MemoryStore } from '../persistence/store.ts';
import { seededCryptoRandom } from '../platform.ts';
import { Emulator } from '../runtime/emulator.ts';
import { EmulatorHa } from '../runtime/ha-part.ts';
import { formatScenarioAction, isSimAction } from './actions.ts';
import { runEmulatorAction } from './emulator-actions.ts';
import type { ScenarioAction } from './actions.ts';
import type { Expectation } from './expectations.ts';
import { impliedInvariants } from './expectations.ts';
import { checkNames, parseScenario } from './format.ts';
import type { Scenario } from './format.ts';
import { generatorInput } from './generator.ts';
import type { IpmiResult, RunResult } from './result.ts';

/** File access of the runner (I/O lives at the edge). */
export interface ScenarioIo {
  /** A text file (a shelf YAML). @throws what reading throws */
  readText(path: string): string;
  /** A binary file (a capture). @throws what reading throws */
  readBytes(path: string): Uint8Array;
  /** The shipped default shelf YAML. */
  defaultShelfYaml(): string;
  /** The shipped capture. */
  bundledCapture(): Uint8Array;
  /** Resolves `relative` against the folder of `file`. */
  resolve(file: string, relative: string): string;
}

/** A scenario ready to run. */
export interface LoadedScenario {
  scenario: Scenario;
  shelfYaml: string;
  shelfSource: string;
  shelf: ShelfConfig;
  /** Problems that do not stop the run (a capture cut short), each `file:line:column: message`. */
  warnings: string[];
}

/** The outcome of one expectation. */
export interface ExpectationOutcome {
  kind: string;
  line: number;
  text: string;
  ok: boolean;
  detail: string;
}

/** The report of one scenario run (JSON-safe; identical for the same file). */
export interface ScenarioReport {
  file: string;
  name: string;
  engine: 'emulator' | 'model';
  seed: number;
  passed: boolean;
  runForMs: number;
  expectations: ExpectationOutcome[];
  result: RunResult;
}

/**
 * Parses a scenario file and checks its names against its shelf.
 * @throws ConfigError (file:line:column) for anything invalid, the shelf YAML included
 */
export function loadScenario(text: string, file: string, io: ScenarioIo): LoadedScenario {
  const scenario = parseScenario(text, file, (rel) => io.resolve(file, rel));
  let shelfYaml: string;
  let shelfSource: string;
  if (scenario.shelf === 'default') {
    shelfYaml = io.defaultShelfYaml();
    shelfSource = 'default-shelf.yaml';
  } else {
    try {
      shelfYaml = io.readText(scenario.shelf);
    } catch (e) {
      throw new ConfigError(file, 1, 1, `shelf: cannot read ${scenario.shelf}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message ?? String(e)}`);
    }
    shelfSource = scenario.shelf;
  }
  const shelf = parseShelfConfig(shelfYaml, shelfSource);
  const warnings: string[] = [];
  if (scenario.traffic.kind === 'pcap' && scenario.traffic.path !== 'bundled') {
    // Located at the `pcap:` value (1:1 when the document has no such node, which cannot happen).
    const node = scenario.src.doc.getIn(['traffic', 'pcap'], true) as { range?: [number, number, number] } | undefined;
    const p = scenario.src.pos(node?.range?.[0] ?? 0);
    const path = scenario.traffic.path;
    let bytes: Uint8Array;
    try {
      bytes = io.readBytes(path);
    } catch (e) {
      throw new ConfigError(file, p.line, p.col, `traffic.pcap: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message ?? String(e)}`);
    }
    const scan = scanCapture(bytes);
    // The emulator loops its traffic for ever: an input without a single packet is refused here
    // (exit 2) instead of failing the run; one cut short is replayed up to the cut, with a warning.
    if (scan.packets === 0) throw new ConfigError(file, p.line, p.col, `traffic.pcap: ${path} is not a usable capture: ${scan.problem ?? 'the capture holds no packet'}`);
    if (scan.problem !== undefined) {
      warnings.push(`${file}:${p.line}:${p.col}: traffic.pcap: ${path}: ${scan.problem}; the ${scan.packets} packet(s) before it are replayed`);
    }
  }
  const pairs = new Set<string>(['all']);
  const nodes = new Set<string>();
  for (const p of shelf.ha.pairs) {
    pairs.add(p.name);
    for (const s of sharesOfPair(p)) pairs.add(s);
    for (const m of p.members) nodes.add(m);
  }
  checkNames(scenario, { frus: new Set(shelf.frus.map((f) => f.name)), nodes, pairs });
  return { scenario, shelfYaml, shelfSource, shelf, warnings };
}

/**
 * Reads a whole capture held in memory (pcap or pcapng, board/packet/capture-reader.ts).
 * @returns the packets read and, when the file is refused, corrupt or cut short, the reader's
 *   DecodeError message (`layer: field at offset N: detail`, N in bytes from the file start)
 */
export function scanCapture(bytes: Uint8Array): { packets: number; problem?: string } {
  let packets = 0;
  const feed = new MemoryFeed(bytes, { packet: () => { packets++; } });
  try {
    feed.pump();
  } catch (e) {
    return { packets, problem: e instanceof Error ? e.message : String(e) };
  }
  return { packets };
}

/** Names shared by both engines' results. */
function names(shelf: ShelfConfig): Pick<RunResult, 'sharesOf' | 'pairOfNode' | 'homeShare'> {
  const sharesOf: Record<string, string[]> = {};
  const pairOfNode: Record<string, string> = {};
  const homeShare: Record<string, string> = {};
  const all: string[] = [];
  for (const p of shelf.ha.pairs) {
    const shares = sharesOfPair(p);
    sharesOf[p.name] = shares;
    for (const s of shares) sharesOf[s] = [s];
    all.push(...shares);
    for (const m of p.members) {
      pairOfNode[m] = p.name;
      homeShare[m] = p.kind === 'shmc' ? p.name : `${p.name}/${m}`;
    }
  }
  sharesOf.all = all;
  return { sharesOf, pairOfNode, homeShare };
}

/** Outcomes of the labelled actions, found in the timeline by time and canonical text. */
function labelled(s: Pick<Scenario, 'timeline'>, timeline: RunResult['timeline']): RunResult['actions'] {
  const out: RunResult['actions'] = {};
  for (const item of s.timeline) {
    if (item.label === undefined) continue;
    const text = formatScenarioAction(item.action);
    const e = timeline.find((x) => x.type === 'action' && x.t === item.atMs && x.text === text);
    if (e && e.type === 'action') out[item.label] = { text: e.text, ok: e.ok, ...(e.error !== undefined ? { error: e.error } : {}) };
  }
  return out;
}

function fromFabric(parts: FabricReport): Pick<RunResult, 'timeline' | 'takeovers' | 'drops' | 'shares' | 'doubleActive' | 'alarms' | 'invariants'> {
  return {
    timeline: parts.timeline, takeovers: parts.takeovers, drops: parts.drops, shares: parts.shares,
    doubleActive: parts.doubleActive, alarms: parts.alarms, invariants: parts.invariants,
  };
}

/** Mean of the generator's (clipped) log-normal durations, ms. */
function meanDurationMs(t: Extract<Scenario['traffic'], { kind: 'generator' }>): number {
  return Math.min(t.durationMaxMs, t.durationMedianMs * Math.exp((t.sigma * t.sigma) / 2));
}

/** Session-table capacity per board for a scenario's traffic (a few MB, not hundreds). */
export function sessionCapacityFor(s: Scenario, boards: number): number {
  if (s.sessionCapacity !== undefined) return s.sessionCapacity;
  if (s.traffic.kind === 'generator') {
    // A board holds its share and, after a takeover, its buddy's: flows alive plus 10 s of TIME_WAIT.
    const alive = (s.traffic.flowsPerSec * (meanDurationMs(s.traffic) + 12_000)) / 1000;
    const need = (2.5 * alive) / Math.max(1, boards);
    return Math.min(1 << 21, Math.max(4096, 2 ** Math.ceil(Math.log2(need))));
  }
  return s.traffic.kind === 'pcap' ? 65_536 : 4096;
}

/**
 * Runs a loaded scenario and evaluates its expectations.
 * @param log where the emulator logs (default nowhere)
 */
export async function runScenario(l: LoadedScenario, io: ScenarioIo, log: Logger = nullLogger): Promise<ScenarioReport> {
  const s = l.scenario;
  const expects: Expectation[] = [...s.expect];
  if (!expects.some((e) => e.kind === 'invariants')) expects.push(impliedInvariants(1));
  const result = s.engine === 'model' ? runModel(s, l.shelf) : await runEmulator(l, io, expects, log);
  const expectations = expects.map((e): ExpectationOutcome => {
    const c = e.check(result);
    return { kind: e.kind, line: e.line, text: e.text, ok: c.ok, detail: c.detail };
  });
  return {
    file: s.file, name: s.name, engine: s.engine, seed: s.seed, passed: expectations.every((x) => x.ok), runForMs: s.runForMs,
    expectations, result,
  };
}

// ------------------------------------------------------------------------------------------------
// model engine

/** What the model engine needs of a scenario (chaos builds it directly). */
export type ModelRunInput = Pick<Scenario, 'seed' | 'ha' | 'version' | 'traffic' | 'initial' | 'timeline' | 'runForMs' | 'unsafeNoInterlockGuard'>;

/**
 * Runs a scenario on the count model (pair-sim): the generator's rate is the whole shelf's, spread
 * evenly over the processor shares. Actions that need the emulator are skipped (the parser refuses
 * them in model scenarios).
 */
export function runModel(s: ModelRunInput, shelf: ShelfConfig): RunResult {
  const shares = shelf.ha.pairs.filter((p) => p.kind === 'processor').length * 2;
  const t = s.traffic;
  const sim = createPairSim({
    seed: s.seed,
    ha: { ...shelf.ha.timing, ...s.ha },
    pairs: shelf.ha.pairs,
    traffic: t.kind === 'generator'
      ? { flowsPerSec: t.flowsPerSec / Math.max(1, shares), durationMedianMs: t.durationMedianMs, durationMaxMs: t.durationMaxMs, durationSigma: t.sigma }
      : false,
    ...(s.version !== undefined ? { version: s.version } : {}),
    initial: { poweredOff: s.initial.poweredOff, cut: s.initial.cut, ...(s.initial.interlock !== undefined ? { interlock: s.initial.interlock } : {}) },
    unsafeNoInterlockGuard: s.unsafeNoInterlockGuard,
  });
  try {
    for (const item of s.timeline) {
      if (!isSimAction(item.action)) continue;
      sim.apply(item.action, item.atMs);
    }
    sim.run(s.runForMs);
    const rep = sim.report();
    const parts = sim.ha.reportParts();
    return {
      engine: 'model', durationMs: s.runForMs, heartbeatMs: sim.cfg.heartbeatMs, ...fromFabric(parts), ...names(shelf),
      sessions: {
        created: rep.sessions.created, lost: rep.sessions.lost, lostProtected: rep.sessions.lostProtected,
        lostEstablished: rep.sessions.lostEstablished, byAge: rep.sessions.lostByAge, maxLostAgeMs: rep.sessions.maxLostAgeMs,
      },
      sync: {
        datagrams: rep.sync.datagrams, bytes: rep.sync.bytes, incrementalSessions: rep.sync.incrementalSessions, bulkSessions: rep.sync.bulkSessions,
        finalSessions: rep.sync.finalSessions, filteredSessions: rep.sync.filteredSessions, ageFilterReduction: rep.sync.ageFilterReduction,
      },
      sel: null, responses: {}, packets: {}, actions: labelled(s, parts.timeline),
    };
  } finally {
    sim.dispose();
  }
}

// ------------------------------------------------------------------------------------------------
// emulator engine

/** `ipmitool sel elist`-style line: `   1 | 01/01/2025 | 00:00:05 | <text>`. */
function elistLine(id: number, ts: number, text: string): string {
  const d = new Date(ts * 1000);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const date = `${p2(d.getUTCMonth() + 1)}/${p2(d.getUTCDate())}/${d.getUTCFullYear()}`;
  const time = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
  return `${id.toString(16).padStart(4, ' ')} | ${date} | ${time} | ${text}`;
}

async function runEmulator(l: LoadedScenario, io: ScenarioIo, expects: readonly Expectation[], log: Logger): Promise<RunResult> {
  const s = l.scenario;
  const clock = new SimClock();
  const random = new SeededRandom(seedHash(`${s.seed}:platform`));
  const bytesRandom = new SeededRandom(seedHash(`${s.seed}:bytes`));
  let ha: EmulatorHa | undefined;
  const sim = new HaSimulator({ initial: { poweredOff: s.initial.poweredOff, cut: s.initial.cut, ...(s.initial.interlock !== undefined ? { interlock: s.initial.interlock } : {}) } });
  let traffic: { inputs: TrafficInput[]; label: string; pacing: Extract<Pacing, { mode: 'capture' } | { mode: 'rate' }> } | false = false;
  const t = s.traffic;
  if (t.kind === 'generator') {
    traffic = {
      inputs: [generatorInput({ flowsPerSec: t.flowsPerSec, durationMedianMs: t.durationMedianMs, durationMaxMs: t.durationMaxMs, sigma: t.sigma, keepaliveMs: t.keepaliveMs, seed: seedHash(`${s.seed}:traffic`) })],
      label: 'generator', pacing: { mode: 'capture' },
    };
  } else if (t.kind === 'pcap') {
    const bytes = t.path === 'bundled' ? io.bundledCapture() : io.readBytes(t.path);
    traffic = { inputs: [memoryInput(t.path, bytes)], label: t.path, pacing: t.ratePps !== undefined ? { mode: 'rate', pps: t.ratePps } : { mode: 'capture' } };
  }
  const boards = l.shelf.frus.filter((f) => f.kind === 'processor').length;
  const em = await Emulator.start({
    platform: { clock, log, random, cryptoRandom: seededCryptoRandom(bytesRandom) },
    store: new MemoryStore(),
    ownsStore: true,
    defaultShelf: { yaml: io.defaultShelfYaml(), source: 'default-shelf.yaml' },
    ...(s.shelf !== 'default' ? { configInput: { yaml: l.shelfYaml, source: l.shelfSource } } : {}),
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: sessionCapacityFor(s, boards),
    traffic,
    admin: { password: 'scenario-admin-1' },
    ipmi: {},
    consoles: false,
    ha: (ctx) => (ha = new EmulatorHa(ctx, {
      seed: seedHash(`${s.seed}:ha`),
      timing: s.ha,
      ...(s.version !== undefined ? { version: s.version } : {}),
      unsafeNoInterlockGuard: s.unsafeNoInterlockGuard,
      env: { links: sim.links, faults: sim },
    })),
  });
  const part = ha!;
  const responses: Record<string, IpmiResult> = {};
  const packets: Record<string, Array<[number, number]>> = {};
  try {
    for (const item of s.timeline) {
      clock.setTimeout(() => {
        const r = perform(em, part, sim, item.action);
        if (item.label !== undefined && r) responses[item.label] = r;
      }, item.atMs);
    }
    for (const e of expects) {
      for (const p of e.samples?.() ?? []) {
        clock.setTimeout(() => {
          (packets[p.node] ??= []).push([clock.now(), em.nodePackets(p.node)]);
        }, p.t);
      }
    }
    clock.runUntil(s.runForMs);
    const parts = sim.reportParts();
    const st = em.sampleTraffic();
    const rep = parts;
    const sync = parts.sync;
    return {
      engine: 'emulator', durationMs: s.runForMs, heartbeatMs: part.fabric.cfg.heartbeatMs, ...fromFabric(rep), ...names(l.shelf),
      sessions: {
        created: st.totals.sessions.created, lost: parts.lost.lost, lostProtected: parts.lost.lostProtected, lostEstablished: parts.lost.lostEstablished,
        byAge: parts.lost.byAge, maxLostAgeMs: parts.lost.maxLostAgeMs, dataPlaneLost: st.totals.sessions.lost,
      },
      sync: {
        datagrams: sync.datagrams, bytes: sync.bytes, incrementalSessions: sync.incrementalSessions, bulkSessions: sync.bulkSessions,
        finalSessions: sync.finalSessions, filteredSessions: sync.filteredSessions,
        ageFilterReduction: st.totals.sessions.created > 0 ? 1 - sync.incrementalSessions / st.totals.sessions.created : 0,
      },
      sel: em.shelf.sel.records().map((r) => elistLine(r.recordId, r.timestamp ?? 0, em.shelf.sel.describe(r))),
      responses, packets, actions: labelled(s, parts.timeline),
      traffic: { packets: st.totals.packets, forwarded: st.totals.forwarded, dropped: st.totals.dropped, pps: st.totals.pps },
    };
  } finally {
    await em.stop();
  }
}

/** Runs one timeline action on the emulator; refusals are recorded in the timeline, not thrown. */
function perform(em: Emulator, ha: EmulatorHa, sim: HaSimulator, a: ScenarioAction): IpmiResult | undefined {
  const now = ha.fabric.now();
  const text = formatScenarioAction(a);
  const note = (ok: boolean, error?: string) => sim.note({ t: now, type: 'action', text, ok, ...(error !== undefined ? { error } : {}) });
  try {
    if (isSimAction(a)) {
      runEmulatorAction(em.shelf, ha, sim, a);
      return undefined;
    }
    if (a.op === 'rs-down' || a.op === 'rs-up') {
      for (const b of em.dataPlane.boards) {
        try {
          b.setFailing(a.vip, a.rs, a.op === 'rs-down');
        } catch (e) {
          throw new CommandError('bad_action', (e as Error).message);
        }
      }
      note(true);
      return undefined;
    }
    const r = ipmiRequest(em, ha, a as Extract<ScenarioAction, { op: 'ipmi' }>);
    note(true);
    return r;
  } catch (e) {
    if (!(e instanceof CommandError)) throw e;
    if (!isSimAction(a)) note(false, `${e.code}: ${e.message}`);
    return undefined;
  }
}

/** An `ipmi` action: LAN requests through the controllers' command tables, or a node's in-band watchdog. */
function ipmiRequest(em: Emulator, ha: EmulatorHa, a: Extract<ScenarioAction, { op: 'ipmi' }>): IpmiResult {
  const data = Uint8Array.from(a.data);
  if (a.via === 'local') {
    const node = a.node!;
    if (!ha.fabric.hasNode(node)) throw new CommandError('not_ha_node', `${node} has no HA watchdog`);
    if (a.netFn !== 0x06 || ![0x22, 0x24, 0x25].includes(a.cmd)) return { cc: 0xc1, data: [] };
    const r = ha.fabric.watchdog(node).handle(a.cmd, data);
    return { cc: r.cc, data: [...r.data] };
  }
  const r = em.ipmi({ address: a.address, netFn: a.netFn, cmd: a.cmd, data });
  return { cc: r.cc, data: [...r.data] };
}
