/**
 * The scenario file format of `atcasim scenario` (docs/scenarios.md is the reference):
 *
 *   name: hung active shelf manager        # required
 *   description: …                         # optional, free text
 *   seed: 7                                # default 1; the run is deterministic for a seed
 *   shelf: default                         # or a path to a shelf YAML (relative to this file)
 *   engine: emulator                       # emulator (default) | model (sessions as counts with ages)
 *   heartbeat_ms: 100                      # optional override of ha.heartbeat
 *   ha: { watchdog_timeout: 1s, … }        # optional overrides, keys as in the shelf YAML's ha section
 *   version: "1.0"                         # software version every node starts with
 *   traffic:                               # optional (no traffic when absent)
 *     pcap: bundled                        # or a capture path relative to this file; `rate: PPS` paces it
 *     generator: { flows_per_s: 2000, duration_s: { median: 5, max: 120 }, keepalive: 1s }
 *   session_capacity: 65536                # per processor board (default: sized to the traffic)
 *   run_for: 30s                           # required
 *   initial: { powered_off: [shmc-b], cut: ["heartbeat shmc"], interlock: off }
 *   timeline:                              # actions at times since the start of the run
 *     - { at: 10s, do: hang shmc-a, label: h }
 *   expect: [ … ]                          # see expectations.ts
 *
 * Parsing is strict: unknown keys, bad durations, unknown actions, node or pair names that the
 * shelf does not have are errors with file:line:column (ConfigError). Names are checked against
 * the shelf once it is loaded (`checkNames`).
 */
import { didYouMean } from '../../board/common/did-you-mean.ts';
import { ConfigError, CommandError } from '../../board/common/errors.ts';
import type { Value } from '../config/yaml-reader.ts';
import { YamlSource } from '../config/yaml-reader.ts';
import type { HaConfig } from '../config/ha.ts';
import { parseScenarioAction } from './actions.ts';
import type { ScenarioAction } from './actions.ts';
import type { Expectation } from './expectations.ts';
import { parseExpectation } from './expectations.ts';

/** Traffic of a scenario. */
export type ScenarioTraffic =
  | { kind: 'none' }
  | { kind: 'pcap'; path: 'bundled' | string; ratePps?: number }
  | { kind: 'generator'; flowsPerSec: number; durationMedianMs: number; durationMaxMs: number; sigma: number; keepaliveMs: number };

/** A timeline entry. */
export interface TimelineItem {
  atMs: number;
  action: ScenarioAction;
  text: string;
  label?: string;
  /** 1-based line of the entry (reports). */
  line: number;
  /** 1-based line and column where the `do:` text starts (errors point at the word inside it). */
  doAt?: { line: number; col: number };
}

/** A parsed scenario. */
export interface Scenario {
  file: string;
  name: string;
  description?: string;
  seed: number;
  /** 'default' or an absolute path. */
  shelf: string;
  engine: 'emulator' | 'model';
  /** HA timing overrides. */
  ha: Partial<HaConfig>;
  version?: string;
  traffic: ScenarioTraffic;
  sessionCapacity?: number;
  runForMs: number;
  initial: { poweredOff: string[]; cut: string[]; interlock?: boolean };
  timeline: TimelineItem[];
  expect: Expectation[];
  /** TEST-ONLY: the planted interlock bug (chaos tests). Never documented for users. */
  unsafeNoInterlockGuard: boolean;
  /** Source, for positions in later checks. */
  src: YamlSource;
}

const TOP_KEYS = ['name', 'description', 'seed', 'shelf', 'engine', 'heartbeat_ms', 'ha', 'version', 'traffic', 'session_capacity', 'run_for', 'initial', 'timeline', 'expect', 'unsafe_no_interlock_guard'];

/** Keys of the `ha:` override block → HaConfig field and kind. */
const HA_KEYS: Record<string, { field: keyof HaConfig; kind: 'dur' | 'int' }> = {
  heartbeat: { field: 'heartbeatMs', kind: 'dur' },
  missed_heartbeats: { field: 'missedHeartbeats', kind: 'int' },
  watchdog_timeout: { field: 'watchdogTimeoutMs', kind: 'dur' },
  watchdog_pretimeout: { field: 'watchdogPretimeoutMs', kind: 'dur' },
  watchdog_kick: { field: 'watchdogKickMs', kind: 'dur' },
  reset_time: { field: 'resetMs', kind: 'dur' },
  boot_time: { field: 'bootMs', kind: 'dur' },
  sync_min_age: { field: 'syncMinAgeMs', kind: 'dur' },
  sync_batch: { field: 'syncBatchMs', kind: 'dur' },
  sync_mtu: { field: 'syncMtu', kind: 'int' },
  sync_full_resync: { field: 'syncFullResyncMs', kind: 'dur' },
  settle: { field: 'settleMs', kind: 'dur' },
  activation: { field: 'activationMs', kind: 'dur' },
  handover_timeout: { field: 'handoverTimeoutMs', kind: 'dur' },
  sync_stale: { field: 'syncStaleMs', kind: 'dur' },
  sync_bulk_rate: { field: 'syncBulkBytesPerSec', kind: 'int' },
};

/** Resolves a path written in a scenario against the scenario file's folder. */
export type PathResolver = (relative: string) => string;

/**
 * Parses a scenario file.
 * @param text the YAML text
 * @param file its path (messages, and the base of relative paths through `resolve`)
 * @throws ConfigError (file:line:column) on any problem
 */
export function parseScenario(text: string, file: string, resolve: PathResolver): Scenario {
  const src = new YamlSource(text, file);
  const root = src.root();
  const top = root.map();
  const name = top.req('name').str({ min: 1, max: 200 });
  const description = top.opt('description')?.str();
  const seed = top.opt('seed')?.int({ min: 0, max: 0xffffffff }) ?? 1;
  const shelfV = top.opt('shelf');
  const shelf = shelfV ? shelfV.str({ min: 1 }) : 'default';
  const engine = top.opt('engine')?.oneOf(['emulator', 'model'] as const) ?? 'emulator';
  const ha: Partial<HaConfig> = {};
  const hbV = top.opt('heartbeat_ms');
  if (hbV) ha.heartbeatMs = hbV.num({ min: 1, max: 60_000 });
  const haV = top.opt('ha');
  if (haV) {
    const m = haV.map();
    for (const [k, spec] of Object.entries(HA_KEYS)) {
      const v = m.opt(k);
      if (!v) continue;
      (ha as Record<string, number>)[spec.field] = spec.kind === 'dur' ? v.duration({ min: 0 }) : v.int({ min: 1, max: k === 'sync_bulk_rate' ? 1e10 : 65535 });
    }
    m.done(Object.keys(HA_KEYS));
  }
  const versionV = top.opt('version');
  const version = versionV?.text();
  if (versionV && !/^\d{1,3}\.\d{1,3}(\.\d+)?$/.test(version!)) versionV.fail(`"${version}" is not a version (MAJOR.MINOR)`);
  const traffic = readTraffic(top.opt('traffic'), resolve);
  if (engine === 'model' && traffic.kind === 'pcap') top.req('traffic').fail('engine: model takes a generator (sessions as counts with ages), not a capture');
  const capV = top.opt('session_capacity');
  const sessionCapacity = capV?.int({ min: 64, max: 1 << 24 });
  const runForMs = top.req('run_for').duration({ min: 1, max: 24 * 3_600_000 });
  const initial = readInitial(top.opt('initial'));
  const timeline: TimelineItem[] = [];
  const tlV = top.opt('timeline');
  if (tlV) {
    for (const item of tlV.list()) {
      const m = item.map();
      const atV = m.req('at');
      const atMs = atV.duration({ min: 0 });
      if (atMs > runForMs) atV.fail(`at ${atMs} ms is after run_for (${runForMs} ms)`);
      const doV = m.req('do');
      const textRaw = doV.str({ min: 1 });
      let action: ScenarioAction;
      try {
        action = parseScenarioAction(textRaw);
      } catch (e) {
        if (e instanceof CommandError) doV.fail(e.message);
        throw e;
      }
      const labelV = m.opt('label');
      const label = labelV?.str({ min: 1, max: 64, pattern: /^[A-Za-z0-9_.-]+$/, hint: 'letters, digits, _ . -' });
      if (label !== undefined && timeline.some((t) => t.label === label)) labelV!.fail(`label "${label}" is used twice`);
      if (engine === 'model' && (action.op === 'rs-down' || action.op === 'rs-up' || action.op === 'ipmi')) doV.fail(`${action.op} needs the emulator (engine: emulator)`);
      m.done(['at', 'do', 'label']);
      const line = src.pos(item.node?.range?.[0] ?? 0).line;
      const doStart = doV.node?.range?.[0];
      const quoted = doStart !== undefined && /^["']/.test(src.text.slice(doStart, doStart + 1)) ? 1 : 0;
      const doAt = doStart !== undefined ? (({ line: l, col }) => ({ line: l, col: col + quoted + (textRaw.length - textRaw.trimStart().length) }))(src.pos(doStart)) : undefined;
      timeline.push({ atMs, action, text: textRaw.trim(), ...(label !== undefined ? { label } : {}), line, ...(doAt ? { doAt } : {}) });
    }
  }
  timeline.sort((a, b) => a.atMs - b.atMs || a.line - b.line);
  const expect: Expectation[] = [];
  const exV = top.opt('expect');
  if (exV) {
    for (const item of exV.list()) expect.push(parseExpectation(item, { engine, labels: new Set(timeline.map((t) => t.label).filter((x): x is string => x !== undefined)), runForMs }));
  }
  const unsafe = top.opt('unsafe_no_interlock_guard')?.bool() ?? false;
  top.done(TOP_KEYS);
  return {
    file, name, ...(description !== undefined ? { description } : {}), seed, shelf: shelf === 'default' ? 'default' : resolve(shelf), engine, ha,
    ...(version !== undefined ? { version } : {}), traffic, ...(sessionCapacity !== undefined ? { sessionCapacity } : {}), runForMs, initial,
    timeline, expect, unsafeNoInterlockGuard: unsafe, src,
  };
}

function readTraffic(v: Value | undefined, resolve: PathResolver): ScenarioTraffic {
  if (!v) return { kind: 'none' };
  const m = v.map();
  const pcap = m.opt('pcap');
  const gen = m.opt('generator');
  const rateV = m.opt('rate');
  m.done(['pcap', 'generator', 'rate']);
  if (pcap && gen) v.fail('give either pcap or generator, not both');
  if (pcap) {
    const p = pcap.str({ min: 1 });
    const ratePps = rateV?.num({ min: 1, max: 10_000_000 });
    return { kind: 'pcap', path: p === 'bundled' ? 'bundled' : resolve(p), ...(ratePps !== undefined ? { ratePps } : {}) };
  }
  if (rateV) rateV.fail('rate applies to a pcap');
  if (!gen) return v.fail('expected pcap or generator');
  const g = gen.map();
  const flowsPerSec = g.req('flows_per_s').num({ min: 2, max: 1_000_000 });
  const d = g.req('duration_s').map();
  const median = d.req('median').num({ min: 0.1, max: 86_400 });
  const maxV = d.req('max');
  const max = maxV.num({ min: 0.1, max: 86_400 });
  if (max < median) maxV.fail(`max (${max} s) is below the median (${median} s)`);
  const sigma = d.opt('sigma')?.num({ min: 0, max: 4 }) ?? 1.2;
  d.done(['median', 'max', 'sigma']);
  const keepaliveMs = g.opt('keepalive')?.duration({ min: 10, max: 600_000 }) ?? 1000;
  g.done(['flows_per_s', 'duration_s', 'keepalive']);
  return { kind: 'generator', flowsPerSec, durationMedianMs: median * 1000, durationMaxMs: max * 1000, sigma, keepaliveMs };
}

function readInitial(v: Value | undefined): Scenario['initial'] {
  const out: Scenario['initial'] = { poweredOff: [], cut: [] };
  if (!v) return out;
  const m = v.map();
  const off = m.opt('powered_off');
  if (off) out.poweredOff = off.list().map((x) => x.str({ min: 1 }));
  const cut = m.opt('cut');
  if (cut) {
    out.cut = cut.list().map((x) => {
      const s = x.str({ min: 1 });
      if (!/^(heartbeat|sync)\s+\S+$/.test(s.trim())) x.fail(`"${s}": expected "heartbeat PAIR" or "sync PAIR"`);
      return s.trim();
    });
  }
  const il = m.opt('interlock');
  if (il) {
    const n = il.node as { value?: unknown } | null;
    if (n && typeof n.value === 'boolean') out.interlock = n.value;
    else out.interlock = il.oneOf(['on', 'off'] as const) === 'on';
  }
  m.done(['powered_off', 'cut', 'interlock']);
  return out;
}

/** What the shelf offers to name checks. */
export interface NameSpace {
  /** FRU names (slots with boards, ShMCs, fans, PEMs). */
  frus: ReadonlySet<string>;
  /** HA nodes. */
  nodes: ReadonlySet<string>;
  /** Pairs and shares. */
  pairs: ReadonlySet<string>;
}

/**
 * Checks every node and pair name against the shelf (after it is loaded).
 * @throws ConfigError at the first offending line; its message has every problem, one
 *   `file:line:column: …` line each, with "did you mean" for a near miss
 */
export function checkNames(s: Scenario, ns: NameSpace): void {
  // every problem is reported, in file order, each with a "did you mean" for a near miss
  const errors: Array<{ line: number; col: number; msg: string }> = [];
  const fail = (line: number, msg: string, col = 1): void => {
    errors.push({ line, col, msg });
  };
  const near = (word: string, known: Iterable<string>) => didYouMean(word, known);
  checkEveryName(s, ns, fail, near);
  if (!errors.length) return;
  errors.sort((x, y) => x.line - y.line || x.col - y.col);
  const [first, ...rest] = errors;
  throw new ConfigError(s.file, first!.line, first!.col, first!.msg + rest.map((e) => `\n${s.file}:${e.line}:${e.col}: ${e.msg}`).join(''));
}

/** Line and column of `word` inside a timeline entry's `do:` text (the entry's line, column 1, when unknown). */
function at(t: TimelineItem, word: string): [number, number] {
  const i = ` ${t.text} `.indexOf(` ${word} `);
  return t.doAt && i >= 0 ? [t.doAt.line, t.doAt.col + i] : [t.line, 1];
}

function checkEveryName(s: Scenario, ns: NameSpace, fail: (line: number, msg: string, col?: number) => void, near: (word: string, known: Iterable<string>) => string): void {
  for (const t of s.timeline) {
    const a = t.action;
    if ('node' in a && a.node !== undefined) {
      const hw = a.op === 'deactivate' || a.op === 'activate' || a.op === 'extract' || a.op === 'insert' || a.op === 'fail' || a.op === 'repair';
      const known = hw && s.engine === 'emulator' ? ns.frus : ns.nodes;
      if (!known.has(a.node)) fail(at(t, a.node)[0], `timeline: "${t.text}": unknown ${hw && s.engine === 'emulator' ? 'slot or FRU' : 'node'} "${a.node}"${near(a.node, known)} (known: ${[...known].join(', ')})`, at(t, a.node)[1]);
    }
    if ('pair' in a && !ns.pairs.has(a.pair) && !(a.op === 'switchover' && ns.nodes.has(a.pair))) {
      fail(at(t, a.pair)[0], `timeline: "${t.text}": unknown pair or share "${a.pair}"${near(a.pair, ns.pairs)} (known: ${[...ns.pairs].join(', ')})`, at(t, a.pair)[1]);
    }
    if ('from' in a && a.from !== undefined && (!ns.nodes.has(a.from) || !ns.nodes.has(a.to ?? ''))) fail(t.line, `timeline: "${t.text}": one-way direction names unknown nodes`);
  }
  for (const n of s.initial.poweredOff) if (!ns.nodes.has(n)) fail(1, `initial.powered_off: unknown node "${n}"${near(n, ns.nodes)}`);
  for (const c of s.initial.cut) {
    const p = c.split(/\s+/)[1]!;
    if (!ns.pairs.has(p)) fail(1, `initial.cut: unknown pair "${p}"`);
  }
  for (const e of s.expect) {
    for (const p of e.pairs()) if (!ns.pairs.has(p)) fail(e.line, `expect: unknown pair or share "${p}"${near(p, ns.pairs)} (known: ${[...ns.pairs].join(', ')})`);
    for (const n of e.nodes()) if (!ns.nodes.has(n) && !ns.frus.has(n)) fail(e.line, `expect: unknown node "${n}"${near(n, [...ns.nodes, ...ns.frus])}`);
  }
}
