/**
 * Deterministic simulation of redundant pairs in simulated time: the engine under
 * `atcasim scenario` and `atcasim chaos` (issue 6), after corosync-vqsim's pattern (in-process,
 * scripted, an oracle after every step; ha.md §2.5).
 *
 * For every node of every pair it wires a NodeController (pair-controller.ts: one pair-member
 * machine per share, heartbeats, session sync, watchdog kicks) over per-node clocks (NodeClock:
 * hang, pause, stall-control, reset, NTP slew, wall-clock steps), an IPMI watchdog on the hardware
 * clock, the pair's Backplane (PRESENT/HEALTHY/ACTIVE + interlock), simulated heartbeat and sync
 * links (cut both ways or one way, delay, jitter, flap, loss), a fake share router (the hubs'
 * resilient bucket table) and a session model: sessions as counts with ages (cohorts created by a
 * generator of new flows per second with a log-normal duration distribution), held in per-node
 * share tables that the sync engine copies to the standby.
 *
 * API: `const sim = createPairSim({ seed, ha, pairs, traffic })`, `sim.apply(action, atMs)`,
 * `sim.run(untilMs)`, `sim.report()`. Invariants are audited after every role change, line change
 * and generator tick: at most one owner per share and one ACTIVE line per channel (unless the
 * interlock is off), epochs never decrease, HEALTHY low throughout a reset, no protected session
 * lost in a takeover while at most one component is faulty. The same seed gives the same report.
 */
import { CommandError } from '../../board/common/errors.ts';
import { SeededRandom } from '../../board/common/random.ts';
import type { Random } from '../../board/common/random.ts';
import { SimClock } from '../../board/common/sim-clock.ts';
import { Backplane } from './backplane.ts';
import type { HaConfig, PairConfig, ResolvedHaConfig } from './ha-config.ts';
import { resolveHaConfig } from './ha-config.ts';
import type { CompatVersion, Heartbeat, WireRole } from './heartbeat.ts';
import { heartbeatCodec, parseVersion } from './heartbeat.ts';
import { NodeClock } from './node-clock.ts';
import { classifyLoss } from './oracle.ts';
import type { LossSummary } from './oracle.ts';
import { NodeController } from './pair-controller.ts';
import type { RoleChange, ShareDataPlane, ShareRouter } from './pair-controller.ts';
import type { ActivationKind } from './pair-machine.ts';
import { recordWireBytes, IP_UDP_OVERHEAD, SYNC_HEADER_BYTES, syncCodec } from './session-sync.ts';
import type { SessionSink, SessionSource, SyncDatagram, SyncRecord } from './session-sync.ts';
import { formatAction, parseAction } from './sim-actions.ts';
import type { LinkName, SimAction } from './sim-actions.ts';
import { IpmiWatchdog } from './watchdog.ts';

/** The session model (per processor share). */
export interface TrafficConfig {
  /** New sessions per second per share, default 200. */
  flowsPerSec: number;
  /** Median session duration, default 5000 ms (log-normal). */
  durationMedianMs: number;
  /** Longest session, default 120000 ms. */
  durationMaxMs: number;
  /** Log-normal sigma, default 1.2. */
  durationSigma: number;
  /** Sync record bytes per session (the processor codec's record size), default 64. */
  recordBytes: number;
  /** Generator granularity, default 50 ms. */
  tickMs: number;
  /** Duration classes per tick (cohorts of equal duration), default 16. */
  classes: number;
}

/** Defaults of TrafficConfig. */
export const DEFAULT_TRAFFIC: Readonly<TrafficConfig> = {
  flowsPerSec: 200, durationMedianMs: 5000, durationMaxMs: 120_000, durationSigma: 1.2, recordBytes: 64, tickMs: 50, classes: 16,
};

/** Options of createPairSim. */
export interface PairSimOptions {
  /** Seed of every random choice (jitter, loss, incarnations, stream ids, traffic). */
  seed: number;
  ha?: Partial<HaConfig>;
  /** Default: shmc (shmc-a, shmc-b) and lb1 (slot3, slot4). */
  pairs?: PairConfig[];
  /** Session model for processor shares; false = no sessions. */
  traffic?: Partial<TrafficConfig> | false;
  /** One-way link latency, default 0.1 ms. */
  linkLatencyMs?: number;
  /** Software version every node starts with, default '1.0'. */
  version?: string;
  /** Starting conditions. */
  initial?: {
    /** Nodes not powered at t = 0 (power them with `power-on`). */
    poweredOff?: string[];
    /** Links cut at t = 0, written 'heartbeat PAIR' or 'sync PAIR'. */
    cut?: string[];
    /** Interlock state at t = 0 (default on). */
    interlock?: boolean;
  };
  /** Encode/decode every heartbeat and sync datagram through the wire codecs (slower), default false. */
  wire?: boolean;
  /** TEST-ONLY planted bug: firmware ignores the interlock (guard (c) dropped, refused claims unchecked). */
  unsafeNoInterlockGuard?: boolean;
}

/** One entry of the timeline (times in simulated ms). */
export type TimelineEntry =
  | { t: number; type: 'action'; text: string; ok: boolean; error?: string }
  | { t: number; type: 'role'; node: string; share: string; from: WireRole; to: WireRole; epoch: number; activation: ActivationKind | null; notHot: boolean }
  | { t: number; type: 'alarm'; node: string; share: string; alarm: string; raised: boolean }
  | { t: number; type: 'watchdog'; node: string; event: 'pretimeout' | 'expired'; action: number }
  | { t: number; type: 'hardware'; node: string; what: string; cause: string }
  | { t: number; type: 'takeover'; share: string; from: string | null; to: string; kind: ActivationKind | null }
  | { t: number; type: 'double-active'; share: string; nodes: string[]; until: number | null }
  | { t: number; type: 'violation'; invariant: string; detail: string };

/** One change of a share's owner as the router saw it, with the oracle's verdict. */
export interface TakeoverReport {
  share: string;
  from: string | null;
  to: string;
  kind: ActivationKind | null;
  epoch: number;
  /** The new owner was standby.ready, not hot (TAKEOVER_NOT_HOT). */
  notHot: boolean;
  /** Time of the fault (or operator request) that led to it, ms. */
  faultAt: number;
  /** The new owner claimed the share (decision), ms. */
  claimAt: number;
  /** The new owner forwards from, ms (claim + activation). */
  forwardingAt: number;
  /** t_f: the old owner stopped forwarding, ms. */
  tf: number;
  detectionMs: number;
  takeoverMs: number;
  /** detectionMs in heartbeat intervals. */
  detectionIntervals: number;
  /** Components faulty at t_f (nodes, links, interlock). */
  faultsAtTf: number;
  loss: LossSummary;
}

/** The report of a run (JSON-safe; the same seed and script give the same report). */
export interface PairSimReport {
  seed: number;
  durationMs: number;
  config: { heartbeatMs: number; missedHeartbeats: number; watchdogTimeoutMs: number; syncMinAgeMs: number; syncBatchMs: number };
  timeline: TimelineEntry[];
  shares: Record<string, {
    pair: string;
    owner: string | null;
    roles: Record<string, WireRole>;
    epochs: Record<string, number>;
    /** Changes of owner (takeovers and handovers; the first activation is not counted). */
    ownerChanges: number;
    /** Role transitions into or out of 'active' by any member after the first activation. */
    activeRoleChanges: number;
  }>;
  takeovers: TakeoverReport[];
  sessions: {
    created: number;
    ended: number;
    live: number;
    lost: number;
    lostProtected: number;
    lostEstablished: number;
    lostByAge: Record<string, number>;
    maxLostAgeMs: number;
    /** New flows that found no forwarding owner (outage windows). */
    refusedFlows: number;
  };
  sync: {
    datagrams: number;
    bytes: number;
    incrementalSessions: number;
    bulkSessions: number;
    finalSessions: number;
    deletes: number;
    retransmits: number;
    /** Sessions that ended before they were old enough to sync. */
    filteredSessions: number;
    /** 1 − incrementally synced sessions / sessions created: the reduction from the age filter. */
    ageFilterReduction: number;
  };
  doubleActive: { episodes: number; totalMs: number };
  alarms: Record<string, number>;
  invariants: { checks: number; violations: Array<{ t: number; invariant: string; detail: string }> };
}

// ------------------------------------------------------------------------------------------------
// Session model

interface Cohort {
  key: string;
  share: string;
  createdAt: number;
  endsAt: number;
  sessions: number;
  holder: string | null;
  /** The sync record for this cohort (built once). */
  rec?: SyncRecord;
}

class Ledger {
  readonly alive = new Map<string, Cohort>();
  private heap: Cohort[] = [];
  private nextId = 0;
  created = 0;
  ended = 0;

  constructor(readonly share: string) {}

  newKey(): string {
    return `c${(this.nextId++).toString(36)}`;
  }

  add(c: Cohort): void {
    this.alive.set(c.key, c);
    this.created += c.sessions;
    const h = this.heap;
    let i = h.length;
    h.push(c);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p]!;
      if (parent.endsAt <= c.endsAt) break;
      h[i] = parent;
      i = p;
    }
    h[i] = c;
  }

  /** Cohorts whose end is due, removed from the alive set. */
  popEnded(now: number): Cohort[] {
    const out: Cohort[] = [];
    const h = this.heap;
    while (h.length && h[0]!.endsAt <= now) {
      const top = h[0]!;
      const last = h.pop()!;
      const n = h.length;
      if (n) {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= n) break;
          const r = l + 1;
          const m = r < n && h[r]!.endsAt < h[l]!.endsAt ? r : l;
          if (h[m]!.endsAt >= last.endsAt) break;
          h[i] = h[m]!;
          i = m;
        }
        h[i] = last;
      }
      if (this.alive.delete(top.key)) {
        this.ended += top.sessions;
        out.push(top);
      }
    }
    return out;
  }

  /** A lost cohort leaves the model (its sessions broke). */
  kill(c: Cohort): void {
    this.alive.delete(c.key);
  }
}

/** A node's table for one share: live (owner) or standby; implements the controller's data-plane port. */
class ShareTable implements ShareDataPlane {
  mode: 'idle' | 'live' | 'standby' = 'idle';
  private arr: Cohort[] = [];
  readonly live = new Map<string, Cohort>();
  readonly standby = new Map<string, SyncRecord>();
  private endedQ: Array<{ key: string; createdAt: number; sessions: number }> = [];
  private dead = 0;
  forwardFrom = Infinity;
  held = false;
  /** First reason the table stopped forwarding while live: when, the owner's acknowledged watermark and the faulty components then. */
  stop: { at: number; watermark: number; faults: number } | null = null;

  constructor(
    private readonly node: string,
    private readonly ledger: Ledger | null,
    private readonly recordBytes: number,
    private readonly now: () => number,
    private readonly watermark: () => number,
    private readonly faults: () => number,
  ) {}

  readonly source: SessionSource = {
    createdBetween: (after, upTo) => this.between(after, upTo),
    all: () => this.between(-Infinity, Infinity),
    drainEnded: () => {
      const q = this.endedQ;
      this.endedQ = [];
      return q;
    },
  };

  readonly sink: SessionSink = {
    upsert: (records) => {
      for (const r of records) this.standby.set(r.key, r);
    },
    remove: (keys) => {
      for (const k of keys) this.standby.delete(k);
    },
    keys: () => this.standby.keys(),
    clear: () => this.standby.clear(),
  };

  private *between(after: number, upTo: number): Generator<SyncRecord> {
    // Binary search for the first createdAt > after.
    let lo = 0;
    let hi = this.arr.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.arr[mid]!.createdAt > after) hi = mid;
      else lo = mid + 1;
    }
    for (let i = lo; i < this.arr.length; i++) {
      const c = this.arr[i]!;
      if (c.createdAt > upTo) break;
      if (!this.live.has(c.key)) continue;
      yield (c.rec ??= { key: c.key, createdAt: c.createdAt, sessions: c.sessions, size: c.sessions * this.recordBytes });
    }
  }

  /** A cohort created on this (owner) node. */
  addLive(c: Cohort): void {
    this.live.set(c.key, c);
    this.arr.push(c);
    c.holder = this.node;
  }

  endCohort(c: Cohort): void {
    if (!this.live.delete(c.key)) return;
    this.endedQ.push({ key: c.key, createdAt: c.createdAt, sessions: c.sessions });
    if (++this.dead > 4096 && this.dead > this.arr.length / 2) this.compact();
  }

  dropLive(c: Cohort): void {
    if (this.live.delete(c.key)) this.dead++;
  }

  private compact(): void {
    this.arr = this.arr.filter((c) => this.live.has(c.key));
    this.dead = 0;
  }

  forwarding(now: number): boolean {
    return this.mode === 'live' && !this.held && now >= this.forwardFrom;
  }

  noteStop(at: number): void {
    if (this.mode === 'live' && !this.stop) this.stop = { at, watermark: this.watermark(), faults: this.faults() };
  }

  promote(forwardFrom: number): void {
    if (this.mode === 'live') {
      // Reclaim after an aborted handover: the table is still live.
      this.held = false;
      this.stop = null;
      this.forwardFrom = Math.min(this.forwardFrom, forwardFrom);
      return;
    }
    const cohorts: Cohort[] = [];
    if (this.ledger) {
      for (const k of this.standby.keys()) {
        const c = this.ledger.alive.get(k);
        if (c) cohorts.push(c);
      }
    }
    cohorts.sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1));
    this.arr = cohorts;
    this.live.clear();
    for (const c of cohorts) this.live.set(c.key, c);
    this.dead = 0;
    this.standby.clear();
    this.endedQ = [];
    this.mode = 'live';
    this.held = false;
    this.stop = null;
    this.forwardFrom = forwardFrom;
  }

  demote(keep: boolean): void {
    if (this.mode === 'live') this.noteStop(this.now());
    if (keep && this.mode === 'live') {
      for (const c of this.live.values()) this.standby.set(c.key, { key: c.key, createdAt: c.createdAt, sessions: c.sessions, size: c.sessions * this.recordBytes });
    }
    this.arr = [];
    this.live.clear();
    this.dead = 0;
    this.endedQ = [];
    this.mode = 'standby';
    this.held = false;
    this.forwardFrom = Infinity;
  }

  hold(): void {
    this.noteStop(this.now());
    this.held = true;
  }

  resume(): void {
    this.held = false;
    this.stop = null;
  }

  reset(): void {
    if (this.mode === 'live') this.noteStop(this.now());
    this.arr = [];
    this.live.clear();
    this.standby.clear();
    this.endedQ = [];
    this.dead = 0;
    this.mode = 'idle';
    this.held = false;
    this.forwardFrom = Infinity;
  }
}

// ------------------------------------------------------------------------------------------------
// Links

interface Direction {
  cut: boolean;
  delayMs: number;
  jitterMs: number;
  lossPct: number;
  flap: { periodMs: number; since: number } | null;
}

class SimLink {
  private readonly dirs = new Map<string, Direction>();
  sent = 0;
  dropped = 0;

  constructor(
    readonly name: LinkName,
    readonly nodes: readonly [string, string],
    private readonly clock: SimClock,
    private readonly random: Random,
    private readonly latencyMs: number,
  ) {
    for (const [a, b] of [[nodes[0], nodes[1]], [nodes[1], nodes[0]]] as const) this.dirs.set(`${a}>${b}`, fresh());
  }

  dir(from: string, to: string): Direction {
    return this.dirs.get(`${from}>${to}`)!;
  }

  /** Directions matching an optional one-way spec. */
  select(from?: string, to?: string): Direction[] {
    if (from === undefined) return [...this.dirs.values()];
    const d = this.dirs.get(`${from}>${to}`);
    if (!d) throw new CommandError('bad_action', `${this.name} link: no direction ${from}->${to} (nodes ${this.nodes.join(', ')})`);
    return [d];
  }

  restore(): void {
    for (const k of [...this.dirs.keys()]) this.dirs.set(k, fresh());
  }

  impaired(): boolean {
    for (const d of this.dirs.values()) if (d.cut || d.delayMs || d.jitterMs || d.lossPct || d.flap) return true;
    return false;
  }

  send(from: string, to: string, deliver: () => void): void {
    const d = this.dir(from, to);
    const now = this.clock.now();
    this.sent++;
    if (d.cut || (d.flap && Math.floor((now - d.flap.since) / d.flap.periodMs) % 2 === 0)) {
      this.dropped++;
      return;
    }
    if (d.lossPct > 0 && this.random.next() * 100 < d.lossPct) {
      this.dropped++;
      return;
    }
    const delay = this.latencyMs + d.delayMs + (d.jitterMs > 0 ? this.random.next() * d.jitterMs : 0);
    this.clock.setTimeout(deliver, delay);
  }
}

function fresh(): Direction {
  return { cut: false, delayMs: 0, jitterMs: 0, lossPct: 0, flap: null };
}

// ------------------------------------------------------------------------------------------------
// Nodes and pairs

interface SimNode {
  name: string;
  pair: SimPair;
  control: NodeClock;
  data: NodeClock;
  watchdog: IpmiWatchdog;
  controller: NodeController;
  tables: Map<string, ShareTable>;
  uplink: boolean;
  hung: boolean;
  stallControl: boolean;
  pauseGen: number;
  paused: boolean;
  lastFaultAt: number | null;
  /** Had a node fault (crash, reset, power loss, upgrade) and is not yet back to active / standby.hot everywhere. */
  recovering: boolean;
}

interface SimPair {
  cfg: PairConfig;
  shares: string[];
  home: Map<string, string>;
  backplane: Backplane;
  links: Record<LinkName, SimLink>;
  ledgers: Map<string, Ledger>;
  /** Fraction of its own nominal new flows each share keeps (blue/green shift); the rest go to the buddy share. */
  fraction: Map<string, number>;
  carry: Map<string, number>;
  lastActionAt: number;
  random: Random;
  /** The fake hub router of this pair's shares. */
  router: ShareRouter;
}

interface ShareState {
  pair: SimPair;
  roles: Map<string, WireRole>;
  epochs: Map<string, number>;
  owner: string | null;
  routerTarget: string | null;
  ownerEpoch: number;
  ownerNode: string | null;
  ownerChanges: number;
  activeRoleChanges: number;
  firstActivation: boolean;
  doubleSince: number | null;
  doubleEntry: Extract<TimelineEntry, { type: 'double-active' }> | null;
}

/** The simulation. Create with `createPairSim`. */
export class PairSim {
  readonly clock = new SimClock();
  readonly cfg: ResolvedHaConfig;
  private readonly traffic: TrafficConfig | null;
  private readonly nodes = new Map<string, SimNode>();
  private readonly pairs = new Map<string, SimPair>();
  private readonly shares = new Map<string, ShareState>();
  private readonly timeline: TimelineEntry[] = [];
  private readonly takeovers: TakeoverReport[] = [];
  private readonly violations: Array<{ t: number; invariant: string; detail: string }> = [];
  private readonly alarmCounts: Record<string, number> = {};
  private checks = 0;
  private refused = 0;
  private lostTotals = { lost: 0, lostProtected: 0, lostEstablished: 0, maxLostAgeMs: 0, byAge: {} as Record<string, number> };
  private doubleEpisodes = 0;
  private doubleMs = 0;
  private interlockOff = false;
  private readonly wire: boolean;
  private readonly maxCohortSessions: number;
  private readonly classDurations: number[];
  private readonly epochSeen = new Map<string, number>();
  private disposed = false;

  constructor(readonly options: PairSimOptions) {
    this.cfg = resolveHaConfig(options.ha ?? {});
    this.wire = options.wire === true;
    this.traffic = options.traffic === false ? null : { ...DEFAULT_TRAFFIC, ...(options.traffic ?? {}) };
    const maxPayload = this.cfg.syncMtu - IP_UDP_OVERHEAD - SYNC_HEADER_BYTES;
    const rb = this.traffic?.recordBytes ?? 64;
    this.maxCohortSessions = Math.max(1, Math.floor((maxPayload - recordWireBytes({ key: 'c' + 'z'.repeat(11), size: 0 })) / rb));
    this.classDurations = this.traffic ? durationClasses(this.traffic) : [];
    const pairs = options.pairs ?? [
      { name: 'shmc', kind: 'shmc', members: ['shmc-a', 'shmc-b'] },
      { name: 'lb1', kind: 'processor', members: ['slot3', 'slot4'] },
    ];
    const version = parseVersion(options.version ?? '1.0');
    const seen = new Set<string>();
    for (const p of pairs) {
      if (this.pairs.has(p.name)) throw new CommandError('bad_pair', `pair ${p.name} defined twice`);
      for (const m of p.members) {
        if (seen.has(m)) throw new CommandError('bad_pair', `node ${m} is in two pairs`);
        seen.add(m);
      }
      this.addPair(p, version);
    }
    if (options.initial?.interlock === false) this.setInterlock(false);
    for (const c of options.initial?.cut ?? []) {
      const [link, pair, ...rest] = c.trim().split(/\s+/);
      if ((link !== 'heartbeat' && link !== 'sync') || !pair || rest.length) throw new CommandError('bad_action', `initial cut "${c}": expected "heartbeat PAIR" or "sync PAIR"`);
      this.execute({ op: 'cut', link, pair }, false);
    }
    const off = new Set(options.initial?.poweredOff ?? []);
    for (const n of off) this.node(n);
    for (const n of this.nodes.values()) {
      if (off.has(n.name)) {
        n.controller.powerOff('off', 'initial');
        n.recovering = true;
      } else {
        n.controller.powerOn('initial');
      }
    }
    if (this.traffic) this.genLoop();
  }

  // ---------------------------------------------------------------- public API

  /** Current simulated time, ms. */
  now(): number {
    return this.clock.now();
  }

  /**
   * Schedules an action at absolute simulated time `atMs` (default now). Names are checked now.
   * @throws CommandError('bad_action' | 'bad_duration' | 'unknown_node' | 'unknown_pair') for
   *   unparsable text, unknown nodes or pairs, or a time in the past. Refusals at run time (e.g. a
   *   switchover to a standby that is not hot) are recorded in the timeline, not thrown.
   */
  apply(action: SimAction | string, atMs: number = this.clock.now()): SimAction {
    const a = typeof action === 'string' ? parseAction(action) : action;
    this.validate(a);
    if (!(atMs >= this.clock.now())) throw new CommandError('bad_action', `action "${formatAction(a)}" at ${atMs} ms is in the past (now ${this.clock.now()} ms)`);
    this.clock.setTimeout(() => this.execute(a, true), atMs - this.clock.now());
    return a;
  }

  /** Runs simulated time up to `untilMs`. */
  run(untilMs: number): void {
    this.clock.runUntil(untilMs);
  }

  /** Role of `node` for `share` ('failed' when unknown). */
  roleOf(node: string, share?: string): WireRole {
    const n = this.node(node);
    const s = share ?? n.pair.shares[0]!;
    return this.share(s).roles.get(node) ?? 'failed';
  }

  /** The node that owns `share` now (role active), or null. With two owners, the first found. */
  ownerOf(share: string): string | null {
    const st = this.share(share);
    for (const [n, r] of st.roles) if (r === 'active') return n;
    return null;
  }

  /** Epoch of a member. */
  epochOf(node: string, share?: string): number {
    const n = this.node(node);
    return this.share(share ?? n.pair.shares[0]!).epochs.get(node) ?? 0;
  }

  /** The controller of a node (for inspection). */
  controller(node: string): NodeController {
    return this.node(node).controller;
  }

  /** The IPMI watchdog of a node. */
  watchdog(node: string): IpmiWatchdog {
    return this.node(node).watchdog;
  }

  /** The backplane of a pair (name or share). */
  backplane(pair: string): Backplane {
    return this.pair(pair).backplane;
  }

  /** Shares of a pair (name or share). */
  sharesOf(pair: string): string[] {
    return [...this.pair(pair).shares];
  }

  /** Live sessions of a share (the model's ground truth). */
  liveSessions(share: string): number {
    const l = this.share(share).pair.ledgers.get(share);
    let n = 0;
    if (l) for (const c of l.alive.values()) n += c.sessions;
    return n;
  }

  /** The timeline so far (live array; copy before mutating). */
  get events(): readonly TimelineEntry[] {
    return this.timeline;
  }

  /** The report (JSON-safe). */
  report(): PairSimReport {
    const now = this.clock.now();
    const shares: PairSimReport['shares'] = {};
    for (const [name, st] of this.shares) {
      shares[name] = {
        pair: st.pair.cfg.name, owner: this.ownerOf(name),
        roles: Object.fromEntries(st.roles), epochs: Object.fromEntries(st.epochs),
        ownerChanges: st.ownerChanges, activeRoleChanges: st.activeRoleChanges,
      };
    }
    let created = 0;
    let ended = 0;
    let live = 0;
    for (const p of this.pairs.values()) {
      for (const l of p.ledgers.values()) {
        created += l.created;
        ended += l.ended;
        for (const c of l.alive.values()) live += c.sessions;
      }
    }
    const sync = { datagrams: 0, bytes: 0, incrementalSessions: 0, bulkSessions: 0, finalSessions: 0, deletes: 0, retransmits: 0, filteredSessions: 0 };
    for (const n of this.nodes.values()) {
      const st = n.controller.syncStats();
      for (const k of Object.keys(sync) as Array<keyof typeof sync>) sync[k] += st[k];
    }
    return {
      seed: this.options.seed,
      durationMs: now,
      config: {
        heartbeatMs: this.cfg.heartbeatMs, missedHeartbeats: this.cfg.missedHeartbeats, watchdogTimeoutMs: this.cfg.watchdogTimeoutMs,
        syncMinAgeMs: this.cfg.syncMinAgeMs, syncBatchMs: this.cfg.syncBatchMs,
      },
      timeline: this.timeline.map((e) => ({ ...e })),
      shares,
      takeovers: this.takeovers.map((t) => ({ ...t, loss: { ...t.loss, byAge: { ...t.loss.byAge } } })),
      sessions: {
        created, ended, live, lost: this.lostTotals.lost, lostProtected: this.lostTotals.lostProtected,
        lostEstablished: this.lostTotals.lostEstablished, lostByAge: { ...this.lostTotals.byAge },
        maxLostAgeMs: this.lostTotals.maxLostAgeMs, refusedFlows: this.refused,
      },
      sync: { ...sync, ageFilterReduction: created > 0 ? 1 - sync.incrementalSessions / created : 0 },
      doubleActive: { episodes: this.doubleEpisodes, totalMs: this.doubleMs + this.openDoubleMs(now) },
      alarms: { ...this.alarmCounts },
      invariants: { checks: this.checks, violations: this.violations.map((v) => ({ ...v })) },
    };
  }

  /** Stops every actor (end of a run; the sim cannot run afterwards). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const n of this.nodes.values()) n.controller.dispose();
  }

  // ---------------------------------------------------------------- construction

  private addPair(p: PairConfig, version: CompatVersion): void {
    const shares = p.kind === 'shmc' ? [p.name] : p.members.map((m) => `${p.name}/${m}`);
    const home = new Map<string, string>();
    for (const s of shares) home.set(s, p.kind === 'shmc' ? p.members[0] : s.slice(p.name.length + 1));
    const pairRandom = new SeededRandom(hash(`${this.options.seed}:pair:${p.name}`));
    const pair: SimPair = {
      cfg: p, shares, home, backplane: new Backplane(p.members, shares),
      links: {
        heartbeat: new SimLink('heartbeat', p.members, this.clock, new SeededRandom(hash(`${this.options.seed}:hb:${p.name}`)), this.options.linkLatencyMs ?? 0.1),
        sync: new SimLink('sync', p.members, this.clock, new SeededRandom(hash(`${this.options.seed}:sync:${p.name}`)), this.options.linkLatencyMs ?? 0.1),
      },
      ledgers: new Map(), fraction: new Map(), carry: new Map(), lastActionAt: 0, random: pairRandom,
      router: undefined as unknown as ShareRouter,
    };
    this.pairs.set(p.name, pair);
    for (const s of shares) {
      if (p.kind === 'processor' && this.traffic) pair.ledgers.set(s, new Ledger(s));
      pair.fraction.set(s, 1);
      pair.carry.set(s, 0);
      this.shares.set(s, {
        pair, roles: new Map(), epochs: new Map(), owner: null, routerTarget: null, ownerEpoch: 0, ownerNode: null,
        ownerChanges: 0, activeRoleChanges: 0, firstActivation: true, doubleSince: null, doubleEntry: null,
      });
    }
    pair.backplane.onChange(() => this.audit());
    const router: ShareRouter = {
      assign: (share, node) => this.onAssign(share, node),
      shift: (share, percent) => this.setFraction(pair, share, percent / 100),
    };
    pair.router = router;
    for (const name of p.members) {
      const peer = p.members[0] === name ? p.members[1] : p.members[0];
      const control = new NodeClock(this.clock);
      const data = new NodeClock(this.clock);
      const watchdog = new IpmiWatchdog(this.clock);
      const tables = new Map<string, ShareTable>();
      const node = { name, pair, control, data, watchdog, tables, uplink: true, hung: false, stallControl: false, pauseGen: 0, paused: false, lastFaultAt: null, recovering: false } as unknown as SimNode;
      for (const s of shares) {
        tables.set(s, new ShareTable(name, pair.ledgers.get(s) ?? null, this.traffic?.recordBytes ?? 64, () => this.clock.now(), () => node.controller.sender(s)?.ackedWatermark() ?? -Infinity, () => this.faultCount()));
      }
      node.controller = new NodeController({
        node: name,
        shares: shares.map((s) => ({ share: s, peer, home: home.get(s) === name })),
        version, cfg: this.cfg, control, data, hardware: this.clock, backplane: pair.backplane, watchdog, router,
        dataPlane: (s) => tables.get(s)!,
        sendHeartbeat: (hb) => this.sendHeartbeat(pair, name, peer, hb),
        sendSync: (s, d) => this.sendSync(pair, name, peer, s, d),
        random: new SeededRandom(hash(`${this.options.seed}:node:${name}`)),
        wallNow: () => control.wallNow(),
        unsafeNoInterlockGuard: this.options.unsafeNoInterlockGuard === true,
        softwareLost: () => this.onSoftwareLost(node),
        observer: {
          roleChanged: (e) => this.onRole(e),
          alarm: (e) => {
            this.timeline.push({ t: this.clock.now(), type: 'alarm', node: e.node, share: e.share, alarm: e.alarm, raised: e.raised });
            if (e.raised) this.alarmCounts[e.alarm] = (this.alarmCounts[e.alarm] ?? 0) + 1;
          },
          watchdog: (e) => this.timeline.push({ t: this.clock.now(), type: 'watchdog', node: e.node, event: e.event.kind, action: e.event.action }),
          hardware: (e) => {
            this.timeline.push({ t: this.clock.now(), type: 'hardware', node: e.node, what: e.what, cause: e.cause });
            if (e.what !== 'power-on') {
              node.recovering = true;
              if (e.cause === 'watchdog') node.lastFaultAt ??= this.clock.now();
            }
          },
        },
      });
      this.nodes.set(name, node);
    }
  }

  // ---------------------------------------------------------------- links

  private sendHeartbeat(pair: SimPair, from: string, to: string, hb: Heartbeat): void {
    const payload = this.wire ? heartbeatCodec.encode(hb) : null;
    pair.links.heartbeat.send(from, to, () => {
      const n = this.nodes.get(to)!;
      n.controller.receiveHeartbeat(payload ? heartbeatCodec.decode(payload).value : hb);
    });
  }

  private sendSync(pair: SimPair, from: string, to: string, share: string, d: SyncDatagram): void {
    const payload = this.wire ? syncCodec.encode(d) : null;
    pair.links.sync.send(from, to, () => {
      const n = this.nodes.get(to)!;
      n.controller.receiveSync(share, payload ? syncCodec.decode(payload).value : d);
    });
  }

  // ---------------------------------------------------------------- traffic

  private genLoop(): void {
    const t = this.traffic!;
    const tick = () => {
      const now = this.clock.now();
      for (const pair of this.pairs.values()) {
        if (pair.cfg.kind !== 'processor') continue;
        for (const share of pair.shares) this.genShare(pair, share, now, t);
      }
      this.audit();
      this.clock.setTimeout(tick, t.tickMs);
    };
    this.clock.setTimeout(tick, t.tickMs);
  }

  private genShare(pair: SimPair, share: string, now: number, t: TrafficConfig): void {
    const ledger = pair.ledgers.get(share)!;
    for (const c of ledger.popEnded(now)) {
      if (c.holder) this.nodes.get(c.holder)?.tables.get(share)?.endCohort(c);
    }
    // A share keeps `fraction` of its own flows and receives what its buddy gives away.
    const buddy = pair.shares.find((x) => x !== share);
    const rate = t.flowsPerSec * (pair.fraction.get(share)! + (buddy ? 1 - pair.fraction.get(buddy)! : 0));
    const acc = pair.carry.get(share)! + (rate * t.tickMs) / 1000;
    const n = Math.floor(acc);
    pair.carry.set(share, acc - n);
    if (n === 0) return;
    const target = this.share(share).routerTarget;
    const node = target ? this.nodes.get(target)! : null;
    const table = node?.tables.get(share);
    if (!node || !table || !this.forwarding(node, table, now)) {
      this.refused += n;
      return;
    }
    const k = this.classDurations.length;
    const base = Math.floor(n / k);
    const rem = n - base * k;
    const off = pair.random.int(k);
    for (let i = 0; i < k; i++) {
      let count = base + (((i - off + k) % k) < rem ? 1 : 0);
      while (count > 0) {
        const s = Math.min(count, this.maxCohortSessions);
        count -= s;
        const dur = this.classDurations[i]! * (0.9 + 0.2 * pair.random.next());
        const c: Cohort = { key: ledger.newKey(), share, createdAt: now, endsAt: now + dur, sessions: s, holder: null };
        ledger.add(c);
        table.addLive(c);
      }
    }
  }

  private forwarding(node: SimNode, table: ShareTable, now: number): boolean {
    return node.controller.isPowered && node.pair.backplane.nodeLines(node.name).power === 'on' &&
      !node.data.isFrozen && node.uplink && table.forwarding(now);
  }

  private setFraction(pair: SimPair, share: string, f: number): void {
    if (pair.shares.length === 1) return;
    pair.fraction.set(share, f);
  }

  // ---------------------------------------------------------------- router and the oracle

  private onAssign(share: string, node: string): void {
    const st = this.share(share);
    const prev = st.routerTarget;
    st.routerTarget = node;
    const now = this.clock.now();
    const newNode = this.nodes.get(node)!;
    const act = newNode.controller.lastActivation(share) ?? { epoch: 0, kind: null, notHot: false };
    const kind = act.kind;
    if (prev === null) {
      this.timeline.push({ t: now, type: 'takeover', share, from: null, to: node, kind });
      return;
    }
    const old = this.nodes.get(prev)!;
    const oldTable = old.tables.get(share)!;
    if (prev === node && oldTable.mode === 'live' && [...(st.pair.ledgers.get(share)?.alive.values() ?? [])].every((c) => oldTable.live.has(c.key))) {
      return; // the owner re-claimed with its table intact (an aborted handover): nothing moved
    }
    const planned = kind === 'planned';
    const stop = oldTable.stop;
    const tf = stop ? stop.at : now;
    const watermark = stop ? stop.watermark : (old.controller.sender(share)?.ackedWatermark() ?? -Infinity);
    const newTable = newNode.tables.get(share)!;
    const forwardingAt = newTable.forwardFrom;
    const ledger = st.pair.ledgers.get(share);
    const lost: Cohort[] = [];
    if (ledger) {
      for (const c of [...ledger.alive.values()]) {
        if (newTable.live.has(c.key)) {
          if (c.holder && c.holder !== node) this.nodes.get(c.holder)?.tables.get(share)?.dropLive(c);
          c.holder = node;
          continue;
        }
        if (c.endsAt <= forwardingAt) continue; // would have ended during the outage anyway
        lost.push(c);
        ledger.kill(c);
        if (c.holder) this.nodes.get(c.holder)?.tables.get(share)?.dropLive(c);
      }
    }
    const oracle = { tf, syncMinAgeMs: this.cfg.syncMinAgeMs, syncBatchMs: this.cfg.syncBatchMs, watermark, planned };
    const loss = classifyLoss(lost, oracle);
    const faultAt = old.lastFaultAt ?? st.pair.lastActionAt;
    const faultsAtTf = stop ? Math.max(stop.faults, this.faultCount()) : this.faultCount();
    const rep: TakeoverReport = {
      share, from: prev, to: node, kind, epoch: act.epoch, notHot: act.notHot,
      faultAt, claimAt: now, forwardingAt, tf, detectionMs: now - faultAt, takeoverMs: forwardingAt - faultAt,
      detectionIntervals: (now - faultAt) / this.cfg.heartbeatMs, faultsAtTf, loss,
    };
    this.takeovers.push(rep);
    this.timeline.push({ t: now, type: 'takeover', share, from: prev, to: node, kind });
    this.lostTotals.lost += loss.lost;
    this.lostTotals.lostProtected += loss.lostProtected;
    this.lostTotals.lostEstablished += loss.lostEstablished;
    this.lostTotals.maxLostAgeMs = Math.max(this.lostTotals.maxLostAgeMs, loss.maxLostAgeMs);
    for (const [k, v] of Object.entries(loss.byAge)) this.lostTotals.byAge[k] = (this.lostTotals.byAge[k] ?? 0) + v;
    if (loss.lostProtected > 0 && faultsAtTf <= 1) {
      this.violate('protected-sessions', `${share}: ${loss.lostProtected} protected sessions lost in the takeover ${prev} → ${node} (faults at t_f: ${faultsAtTf})`);
    }
  }

  // ---------------------------------------------------------------- faults

  private validate(a: SimAction): void {
    switch (a.op) {
      case 'interlock':
        return;
      case 'cut':
      case 'restore':
      case 'delay':
      case 'jitter':
      case 'flap':
      case 'lossy': {
        const p = this.pair(a.pair);
        if (a.op === 'cut' && a.from !== undefined) p.links[a.link].select(a.from, a.to);
        return;
      }
      case 'switchover':
      case 'shift': {
        const p = this.pair(a.pair);
        if (a.op === 'shift' && p.cfg.kind === 'shmc') throw new CommandError('bad_action', `shift: ${a.pair} carries no traffic (shelf managers)`);
        return;
      }
      case 'upgrade':
        this.node(a.node);
        parseVersion(a.version);
        return;
      default:
        this.node(a.node);
    }
  }

  private execute(a: SimAction, record: boolean): void {
    const now = this.clock.now();
    const text = formatAction(a);
    try {
      this.perform(a, now);
      if (record) this.timeline.push({ t: now, type: 'action', text, ok: true });
    } catch (e) {
      if (!(e instanceof CommandError)) throw e;
      if (record) this.timeline.push({ t: now, type: 'action', text, ok: false, error: `${e.code}: ${e.message}` });
    }
    this.audit();
  }

  private perform(a: SimAction, now: number): void {
    const fault = (n: SimNode) => {
      n.lastFaultAt = now;
      n.pair.lastActionAt = now;
    };
    switch (a.op) {
      case 'crash': {
        const n = this.node(a.node);
        fault(n);
        n.controller.hardwareReset('crash');
        return;
      }
      case 'power-off':
      case 'deactivate':
      case 'extract':
      case 'fail': {
        const n = this.node(a.node);
        fault(n);
        const kind = a.op === 'extract' ? 'extracted' : a.op === 'fail' ? 'failed' : 'off';
        n.controller.powerOff(kind, a.op);
        return;
      }
      case 'power-on':
      case 'activate':
      case 'insert':
      case 'repair': {
        const n = this.node(a.node);
        n.pair.lastActionAt = now;
        n.controller.powerOn(a.op);
        return;
      }
      case 'hang': {
        const n = this.node(a.node);
        fault(n);
        n.hung = true;
        this.freezeData(n, now);
        n.control.freeze();
        return;
      }
      case 'stall-control': {
        const n = this.node(a.node);
        fault(n);
        n.stallControl = true;
        n.control.freeze();
        return;
      }
      case 'pause': {
        const n = this.node(a.node);
        fault(n);
        n.paused = true;
        this.freezeData(n, now);
        n.control.freeze();
        const gen = ++n.pauseGen;
        this.clock.setTimeout(() => {
          if (n.pauseGen !== gen || !n.paused) return;
          n.paused = false;
          if (!n.hung) this.thaw(n);
          this.audit();
        }, a.ms);
        return;
      }
      case 'heal': {
        const n = this.node(a.node);
        n.hung = false;
        n.stallControl = false;
        n.paused = false;
        n.pauseGen++;
        this.thaw(n);
        return;
      }
      case 'cut':
      case 'restore':
      case 'delay':
      case 'jitter':
      case 'flap':
      case 'lossy': {
        const p = this.pair(a.pair);
        p.lastActionAt = now;
        const link = p.links[a.link];
        if (a.op === 'restore') {
          link.restore();
          return;
        }
        for (const d of link.select(a.op === 'cut' ? a.from : undefined, a.op === 'cut' ? a.to : undefined)) {
          if (a.op === 'cut') d.cut = true;
          else if (a.op === 'delay') d.delayMs = a.ms;
          else if (a.op === 'jitter') d.jitterMs = a.ms;
          else if (a.op === 'flap') d.flap = { periodMs: a.periodMs, since: now };
          else if (a.op === 'lossy') d.lossPct = a.percent;
        }
        return;
      }
      case 'cut-uplink':
      case 'restore-uplink': {
        const n = this.node(a.node);
        const up = a.op === 'restore-uplink';
        if (!up) fault(n);
        n.uplink = up;
        if (!up) for (const t of n.tables.values()) t.noteStop(now);
        n.controller.setUplink(up);
        return;
      }
      case 'stick-healthy': {
        const n = this.node(a.node);
        if (a.level !== 'off') fault(n);
        n.pair.backplane.stickHealthy(n.name, a.level === 'off' ? null : a.level);
        return;
      }
      case 'interlock':
        this.setInterlock(a.on);
        return;
      case 'clock-jump':
        this.node(a.node).control.jump(a.ms);
        this.node(a.node).data.jump(a.ms);
        return;
      case 'ntp-slew':
        this.node(a.node).control.setSlewPpm(a.ppm);
        this.node(a.node).data.setSlewPpm(a.ppm);
        return;
      case 'switchover': {
        const p = this.pair(a.pair);
        p.lastActionAt = now;
        const targets = p.shares.includes(a.pair) ? [a.pair] : p.shares;
        let done = 0;
        let lastErr: CommandError | null = null;
        for (const s of targets) {
          const owner = this.ownerOf(s);
          if (!owner) {
            lastErr = new CommandError('no_active', `switchover ${s}: no active member`);
            continue;
          }
          for (const n of p.cfg.members) this.node(n).lastFaultAt = null;
          try {
            this.node(owner).controller.switchover(s);
            done++;
          } catch (e) {
            if (!(e instanceof CommandError)) throw e;
            lastErr = e;
          }
        }
        if (lastErr && done === 0) throw lastErr;
        return;
      }
      case 'shift': {
        const p = this.pair(a.pair);
        p.lastActionAt = now;
        let share = a.pair;
        if (!p.shares.includes(share)) {
          // The pair: the green node's (newest version; the second member on a tie) home share keeps PERCENT of its flows.
          const [m0, m1] = p.cfg.members;
          const v0 = this.node(m0).controller.softwareVersion;
          const v1 = this.node(m1).controller.softwareVersion;
          const green = v0.major > v1.major || (v0.major === v1.major && v0.minor > v1.minor) ? m0 : m1;
          share = `${p.cfg.name}/${green}`;
        }
        p.router.shift(share, a.percent);
        return;
      }
      case 'upgrade': {
        const n = this.node(a.node);
        fault(n);
        n.controller.upgrade(parseVersion(a.version));
        return;
      }
    }
  }

  private freezeData(n: SimNode, now: number): void {
    for (const t of n.tables.values()) t.noteStop(now);
    n.data.freeze();
  }

  private thaw(n: SimNode): void {
    n.data.thaw();
    if (!n.stallControl && !n.hung && !n.paused) n.control.thaw();
    for (const t of n.tables.values()) if (t.mode === 'live' && !t.held && n.uplink) t.stop = null;
  }

  private onSoftwareLost(n: SimNode): void {
    const now = this.clock.now();
    for (const t of n.tables.values()) t.noteStop(now);
    n.control.discard();
    n.data.discard();
    n.hung = false;
    n.stallControl = false;
    n.paused = false;
    n.pauseGen++;
  }

  private setInterlock(on: boolean): void {
    this.interlockOff = !on;
    for (const p of this.pairs.values()) p.backplane.setInterlock(on);
  }

  /** Components faulty now: nodes with an active fault or still recovering, impaired links, the interlock off. */
  private faultCount(): number {
    let n = 0;
    for (const node of this.nodes.values()) {
      const stuck = node.pair.backplane.stuckHealthy(node.name) !== null;
      const slewed = node.control.slewPpm !== 0;
      if (node.hung || node.paused || node.stallControl || !node.uplink || stuck || slewed || node.recovering) n++;
    }
    for (const p of this.pairs.values()) for (const l of Object.values(p.links)) if (l.impaired()) n++;
    if (this.interlockOff) n++;
    return n;
  }

  // ---------------------------------------------------------------- roles and invariants

  private onRole(e: RoleChange): void {
    const now = this.clock.now();
    const st = this.share(e.share);
    this.timeline.push({ t: now, type: 'role', node: e.node, share: e.share, from: e.from, to: e.to, epoch: e.epoch, activation: e.activation, notHot: e.takeoverNotHot });
    st.roles.set(e.node, e.to);
    const key = `${e.node}|${e.share}`;
    const prevEpoch = this.epochSeen.get(key) ?? 0;
    if (e.epoch < prevEpoch) this.violate('epoch-monotonic', `${e.node} ${e.share}: epoch ${prevEpoch} → ${e.epoch}`);
    this.epochSeen.set(key, Math.max(prevEpoch, e.epoch));
    st.epochs.set(e.node, e.epoch);
    if (e.to === 'active' || e.from === 'active') {
      if (!st.firstActivation) st.activeRoleChanges++;
    }
    if (e.to === 'active') {
      if (st.ownerNode !== null && st.ownerNode !== e.node && e.epoch <= st.ownerEpoch) {
        this.violate('epoch-increase', `${e.share}: ${e.node} became active with epoch ${e.epoch} after ${st.ownerNode} at ${st.ownerEpoch}`);
      }
      if (st.ownerNode !== null && st.ownerNode !== e.node) st.ownerChanges++;
      if (st.ownerNode === null && !st.firstActivation) st.ownerChanges++;
      st.firstActivation = false;
      st.ownerNode = e.node;
      st.ownerEpoch = Math.max(st.ownerEpoch, e.epoch);
    }
    // Recovery: a node is back when all its members are active or hot.
    const node = this.nodes.get(e.node);
    if (node?.recovering && node.controller.isPowered) {
      const ok = node.pair.shares.every((s) => {
        const r = this.shares.get(s)!.roles.get(node.name);
        return r === 'active' || r === 'standby.hot';
      });
      if (ok) node.recovering = false;
    }
    this.audit();
  }

  private audit(): void {
    if (this.disposed) return;
    this.checks++;
    const now = this.clock.now();
    for (const [name, st] of this.shares) {
      const owners = [...st.roles].filter(([, r]) => r === 'active').map(([n]) => n);
      if (owners.length >= 2) {
        if (st.doubleSince === null) {
          st.doubleSince = now;
          this.doubleEpisodes++;
          st.doubleEntry = { t: now, type: 'double-active', share: name, nodes: owners, until: null };
          this.timeline.push(st.doubleEntry);
          if (!this.interlockOff) this.violate('single-owner', `${name}: two owners ${owners.join(' and ')}`);
        }
      } else if (st.doubleSince !== null) {
        this.doubleMs += now - st.doubleSince;
        if (st.doubleEntry) st.doubleEntry.until = now;
        st.doubleSince = null;
        st.doubleEntry = null;
      }
      const bp = st.pair.backplane;
      if (bp.interlock) {
        const high = st.pair.cfg.members.filter((m) => bp.lines(m, name).active);
        if (high.length > 1) this.violate('single-active-line', `${name}: ACTIVE high on ${high.join(' and ')} with the interlock on`);
      }
    }
    for (const n of this.nodes.values()) {
      const l = n.pair.backplane.nodeLines(n.name);
      if (l.power === 'reset' && (n.pair.backplane.drivenHealthy(n.name) || (l.healthy && n.pair.backplane.stuckHealthy(n.name) !== 'high'))) {
        this.violate('healthy-low-in-reset', `${n.name}: HEALTHY high during a reset`);
      }
    }
  }

  private violate(invariant: string, detail: string): void {
    const t = this.clock.now();
    const last = this.violations[this.violations.length - 1];
    if (last && last.invariant === invariant && last.detail === detail && last.t === t) return;
    this.violations.push({ t, invariant, detail });
    this.timeline.push({ t, type: 'violation', invariant, detail });
  }

  private openDoubleMs(now: number): number {
    let ms = 0;
    for (const st of this.shares.values()) if (st.doubleSince !== null) ms += now - st.doubleSince;
    return ms;
  }

  // ---------------------------------------------------------------- lookups

  private node(name: string): SimNode {
    const n = this.nodes.get(name);
    if (!n) throw new CommandError('unknown_node', `unknown node "${name}" (known: ${[...this.nodes.keys()].join(', ')})`);
    return n;
  }

  private pair(name: string): SimPair {
    const p = this.pairs.get(name) ?? this.shares.get(name)?.pair;
    if (!p) throw new CommandError('unknown_pair', `unknown pair or share "${name}" (known: ${[...this.pairs.keys(), ...this.shares.keys()].join(', ')})`);
    return p;
  }

  private share(name: string): ShareState {
    const s = this.shares.get(name);
    if (!s) throw new CommandError('unknown_pair', `unknown share "${name}" (known: ${[...this.shares.keys()].join(', ')})`);
    return s;
  }
}

/**
 * Creates a simulation: pairs powered (unless `initial.poweredOff`) at t = 0; nothing runs until `run`.
 * @throws CommandError('bad_pair' | 'bad_action') on an invalid pair list or initial block;
 *   RangeError from resolveHaConfig on invalid timings.
 */
export function createPairSim(options: PairSimOptions): PairSim {
  return new PairSim(options);
}

/** FNV-1a 32-bit hash of a string (derives per-component seeds). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Durations of the traffic model's classes: log-normal quantiles at (k + 0.5) / K, clipped to [100 ms, max]. */
function durationClasses(t: TrafficConfig): number[] {
  const out: number[] = [];
  for (let k = 0; k < t.classes; k++) {
    const z = inverseNormal((k + 0.5) / t.classes);
    out.push(Math.min(t.durationMaxMs, Math.max(100, t.durationMedianMs * Math.exp(t.durationSigma * z))));
  }
  return out;
}

/** Inverse of the standard normal CDF (P. J. Acklam's rational approximation, |error| < 1.2e-9). */
export function inverseNormal(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`inverseNormal: p must be in (0, 1), got ${p}`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}
