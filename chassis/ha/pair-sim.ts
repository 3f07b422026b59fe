/**
 * Deterministic simulation of redundant pairs in simulated time with sessions as counts with
 * ages: the engine under `atcasim chaos` and the `sessions: model` mode of `atcasim scenario`
 * (issue 6), after corosync-vqsim's pattern (in-process, scripted, an oracle after every step;
 * ha.md §2.5).
 *
 * The pairs, nodes, clocks, links, faults and the invariant audit are the HA fabric's
 * (ha-fabric.ts, shared with the emulator's HA part). This file adds the count model of the data
 * plane: sessions as cohorts (created by a generator of new flows per second with a log-normal
 * duration distribution), held in per-node share tables that the sync engine copies to the
 * standby, a fake share router (who receives each share's new flows), and the loss accounting of
 * each takeover (the ha.md §5.5 oracle, applied by the fabric).
 *
 * API: `const sim = createPairSim({ seed, ha, pairs, traffic })`, `sim.apply(action, atMs)`,
 * `sim.run(untilMs)`, `sim.report()`. The same seed gives the same report.
 */
import { SeededRandom } from '../../board/common/random.ts';
import type { Random } from '../../board/common/random.ts';
import { SimClock } from '../../board/common/sim-clock.ts';
import type { Backplane } from '../model/backplane.ts';
import type { HaConfig, PairConfig, ResolvedHaConfig } from '../config/ha.ts';
import { resolveHaConfig } from '../config/ha.ts';
import { HaFabric, seedHash } from './ha-fabric.ts';
import type { HaDataModel, MoveFacts, NodeDataEvent, ShareSummary, TakeoverReport, TimelineEntry } from './ha-fabric.ts';
import type { WireRole } from './heartbeat.ts';
import type { LostItem } from './oracle.ts';
import type { NodeController, ShareDataPlane } from './pair-controller.ts';
import { recordWireBytes, IP_UDP_OVERHEAD, SYNC_HEADER_BYTES } from './session-sync.ts';
import type { SessionSink, SessionSource, SyncRecord } from './session-sync.ts';
import type { SimAction } from './sim-actions.ts';
import type { IpmiWatchdog } from '../model/ipmi-watchdog.ts';

export type { TakeoverReport, TimelineEntry } from './ha-fabric.ts';

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

export interface PairSimReport {
  seed: number;
  durationMs: number;
  config: { heartbeatMs: number; missedHeartbeats: number; watchdogTimeoutMs: number; syncMinAgeMs: number; syncBatchMs: number };
  timeline: TimelineEntry[];
  shares: Record<string, ShareSummary>;
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
// The count model as the fabric's data model

class CountModel implements HaDataModel {
  private fabric!: HaFabric;
  /** node → share → table. */
  private readonly tables = new Map<string, Map<string, ShareTable>>();
  /** share → ledger (processor shares with traffic). */
  readonly ledgers = new Map<string, Ledger>();
  /** Fraction of its own nominal new flows each share keeps (blue/green shift); the rest go to the buddy share. */
  private readonly fraction = new Map<string, number>();
  private readonly carry = new Map<string, number>();
  private readonly randoms = new Map<string, Random>();
  /** New flows that found no forwarding owner (outage windows). */
  refused = 0;
  private readonly maxCohortSessions: number;
  private readonly classDurations: number[];

  constructor(
    private readonly seed: number,
    private readonly traffic: TrafficConfig | null,
    cfg: ResolvedHaConfig,
    private readonly pairs: readonly PairConfig[],
  ) {
    const maxPayload = cfg.syncMtu - IP_UDP_OVERHEAD - SYNC_HEADER_BYTES;
    const rb = traffic?.recordBytes ?? 64;
    this.maxCohortSessions = Math.max(1, Math.floor((maxPayload - recordWireBytes({ key: 'c' + 'z'.repeat(11), size: 0 })) / rb));
    this.classDurations = traffic ? durationClasses(traffic) : [];
  }

  attach(fabric: HaFabric): void {
    this.fabric = fabric;
  }

  dataPlane(node: string, share: string): ShareDataPlane {
    const pair = this.fabric.pairOf(share);
    if (!this.fraction.has(share)) {
      if (pair.cfg.kind === 'processor' && this.traffic) this.ledgers.set(share, new Ledger(share));
      this.fraction.set(share, 1);
      this.carry.set(share, 0);
    }
    let byShare = this.tables.get(node);
    if (!byShare) this.tables.set(node, (byShare = new Map()));
    const t = new ShareTable(
      node, this.ledgers.get(share) ?? null, this.traffic?.recordBytes ?? 64, () => this.fabric.now(),
      () => this.fabric.controller(node).sender(share)?.ackedWatermark() ?? -Infinity, () => this.fabric.faultCount(),
    );
    byShare.set(share, t);
    return t;
  }

  route(): void {
    // The fabric keeps the router target; the generator reads it.
  }

  shift(share: string, percent: number): void {
    if (this.fabric.pairOf(share).shares.length === 1) return;
    this.fraction.set(share, percent / 100);
  }

  private table(node: string, share: string): ShareTable {
    return this.tables.get(node)!.get(share)!;
  }

  moved(share: string, prev: string, node: string): MoveFacts | null {
    const now = this.fabric.now();
    const oldTable = this.table(prev, share);
    const ledger = this.ledgers.get(share);
    if (prev === node && oldTable.mode === 'live' && [...(ledger?.alive.values() ?? [])].every((c) => oldTable.live.has(c.key))) {
      return null; // the owner re-claimed with its table intact (an aborted handover): nothing moved
    }
    const stop = oldTable.stop;
    const tf = stop ? stop.at : now;
    const watermark = stop ? stop.watermark : (this.fabric.controller(prev).sender(share)?.ackedWatermark() ?? -Infinity);
    const newTable = this.table(node, share);
    const forwardingAt = newTable.forwardFrom;
    const lost: LostItem[] = [];
    if (ledger) {
      for (const c of [...ledger.alive.values()]) {
        if (newTable.live.has(c.key)) {
          if (c.holder && c.holder !== node) this.tables.get(c.holder)?.get(share)?.dropLive(c);
          c.holder = node;
          continue;
        }
        if (c.endsAt <= forwardingAt) continue; // would have ended during the outage anyway
        lost.push({ createdAt: c.createdAt, sessions: c.sessions });
        ledger.kill(c);
        if (c.holder) this.tables.get(c.holder)?.get(share)?.dropLive(c);
      }
    }
    return { tf, watermark, stopFaults: stop ? stop.faults : null, forwardingAt, lost };
  }

  nodeEvent(node: string, ev: NodeDataEvent, at: number): void {
    const tables = this.tables.get(node);
    if (!tables) return;
    for (const t of tables.values()) {
      if (ev === 'data-resumed') {
        if (t.mode === 'live' && !t.held) t.stop = null;
      } else {
        t.noteStop(at);
      }
    }
  }

  /** Starts the generator of new flows. */
  genLoop(): void {
    const t = this.traffic!;
    const clock = this.fabric.clock;
    const tick = () => {
      const now = clock.now();
      for (const pair of this.pairs) {
        if (pair.kind !== 'processor') continue;
        const shares = this.fabric.sharesOf(pair.name);
        for (const share of shares) this.genShare(pair, shares, share, now, t);
      }
      this.fabric.audit();
      clock.setTimeout(tick, t.tickMs);
    };
    clock.setTimeout(tick, t.tickMs);
  }

  private random(pair: string): Random {
    let r = this.randoms.get(pair);
    if (!r) this.randoms.set(pair, (r = new SeededRandom(seedHash(`${this.seed}:pair:${pair}`))));
    return r;
  }

  private genShare(pair: PairConfig, shares: readonly string[], share: string, now: number, t: TrafficConfig): void {
    const ledger = this.ledgers.get(share)!;
    for (const c of ledger.popEnded(now)) {
      if (c.holder) this.tables.get(c.holder)?.get(share)?.endCohort(c);
    }
    // A share keeps `fraction` of its own flows and receives what its buddy gives away.
    const buddy = shares.find((x) => x !== share);
    const rate = t.flowsPerSec * (this.fraction.get(share)! + (buddy ? 1 - this.fraction.get(buddy)! : 0));
    const acc = this.carry.get(share)! + (rate * t.tickMs) / 1000;
    const n = Math.floor(acc);
    this.carry.set(share, acc - n);
    if (n === 0) return;
    const target = this.fabric.routerTarget(share);
    const table = target ? this.table(target, share) : undefined;
    if (!target || !table || !this.fabric.dataRunning(target) || !table.forwarding(now)) {
      this.refused += n;
      return;
    }
    const random = this.random(pair.name);
    const k = this.classDurations.length;
    const base = Math.floor(n / k);
    const rem = n - base * k;
    const off = random.int(k);
    for (let i = 0; i < k; i++) {
      let count = base + (((i - off + k) % k) < rem ? 1 : 0);
      while (count > 0) {
        const s = Math.min(count, this.maxCohortSessions);
        count -= s;
        const dur = this.classDurations[i]! * (0.9 + 0.2 * random.next());
        const c: Cohort = { key: ledger.newKey(), share, createdAt: now, endsAt: now + dur, sessions: s, holder: null };
        ledger.add(c);
        table.addLive(c);
      }
    }
  }
}

/** The simulation. Create with `createPairSim`. */
export class PairSim {
  readonly clock = new SimClock();
  readonly cfg: ResolvedHaConfig;
  private readonly fabric: HaFabric;
  private readonly model: CountModel;

  constructor(readonly options: PairSimOptions) {
    this.cfg = resolveHaConfig(options.ha ?? {});
    const traffic = options.traffic === false ? null : { ...DEFAULT_TRAFFIC, ...(options.traffic ?? {}) };
    const pairs = options.pairs ?? [
      { name: 'shmc', kind: 'shmc', members: ['shmc-a', 'shmc-b'] },
      { name: 'lb1', kind: 'processor', members: ['slot3', 'slot4'] },
    ];
    this.model = new CountModel(options.seed, traffic, this.cfg, pairs);
    this.fabric = new HaFabric({
      seed: options.seed, cfg: this.cfg, pairs, clock: this.clock, model: this.model,
      ...(options.linkLatencyMs !== undefined ? { linkLatencyMs: options.linkLatencyMs } : {}),
      ...(options.version !== undefined ? { version: options.version } : {}),
      wire: options.wire === true,
      unsafeNoInterlockGuard: options.unsafeNoInterlockGuard === true,
    });
    this.fabric.start(options.initial ?? {});
    if (traffic) this.model.genLoop();
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
    return this.fabric.apply(action, atMs);
  }

  /** Runs simulated time up to `untilMs`. */
  run(untilMs: number): void {
    this.clock.runUntil(untilMs);
  }

  /** The fabric (nodes, pairs, invariants) under the simulation. */
  get ha(): HaFabric {
    return this.fabric;
  }

  /** Role of `node` for `share` ('failed' when unknown). */
  roleOf(node: string, share?: string): WireRole {
    return this.fabric.roleOf(node, share);
  }

  /** The node that owns `share` now (role active), or null. With two owners, the first found. */
  ownerOf(share: string): string | null {
    return this.fabric.ownerOf(share);
  }

  /** Epoch of a member. */
  epochOf(node: string, share?: string): number {
    return this.fabric.epochOf(node, share);
  }

  /** The controller of a node (for inspection). */
  controller(node: string): NodeController {
    return this.fabric.controller(node);
  }

  /** The IPMI watchdog of a node. */
  watchdog(node: string): IpmiWatchdog {
    return this.fabric.watchdog(node);
  }

  /** The backplane of a pair (name or share). */
  backplane(pair: string): Backplane {
    return this.fabric.backplane(pair);
  }

  /** Shares of a pair (name or share). */
  sharesOf(pair: string): string[] {
    return this.fabric.sharesOf(pair);
  }

  /** Live sessions of a share (the model's ground truth). */
  liveSessions(share: string): number {
    this.fabric.sharesOf(share);
    const l = this.model.ledgers.get(share);
    let n = 0;
    if (l) for (const c of l.alive.values()) n += c.sessions;
    return n;
  }

  /** The timeline so far (live array; copy before mutating). */
  get events(): readonly TimelineEntry[] {
    return this.fabric.events;
  }

  /** The report (JSON-safe). */
  report(): PairSimReport {
    const now = this.clock.now();
    const parts = this.fabric.reportParts();
    let created = 0;
    let ended = 0;
    let live = 0;
    for (const l of this.model.ledgers.values()) {
      created += l.created;
      ended += l.ended;
      for (const c of l.alive.values()) live += c.sessions;
    }
    const s = parts.sync;
    const sync = {
      datagrams: s.datagrams, bytes: s.bytes, incrementalSessions: s.incrementalSessions, bulkSessions: s.bulkSessions,
      finalSessions: s.finalSessions, deletes: s.deletes, retransmits: s.retransmits, filteredSessions: s.filteredSessions,
    };
    return {
      seed: this.options.seed,
      durationMs: now,
      config: {
        heartbeatMs: this.cfg.heartbeatMs, missedHeartbeats: this.cfg.missedHeartbeats, watchdogTimeoutMs: this.cfg.watchdogTimeoutMs,
        syncMinAgeMs: this.cfg.syncMinAgeMs, syncBatchMs: this.cfg.syncBatchMs,
      },
      timeline: parts.timeline,
      shares: parts.shares,
      takeovers: parts.takeovers,
      sessions: {
        created, ended, live, lost: parts.lost.lost, lostProtected: parts.lost.lostProtected,
        lostEstablished: parts.lost.lostEstablished, lostByAge: parts.lost.byAge,
        maxLostAgeMs: parts.lost.maxLostAgeMs, refusedFlows: this.model.refused,
      },
      sync: { ...sync, ageFilterReduction: created > 0 ? 1 - sync.incrementalSessions / created : 0 },
      doubleActive: parts.doubleActive,
      alarms: parts.alarms,
      invariants: parts.invariants,
    };
  }

  /** Stops every actor (end of a run; the sim cannot run afterwards). */
  dispose(): void {
    this.fabric.dispose();
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
