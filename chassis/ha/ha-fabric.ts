/**
 * The HA fabric: every redundant pair of a shelf wired together on one base Clock, with the faults
 * of issue 6's action list and the invariant audit — shared by the count-model simulation
 * (pair-sim.ts: `atcasim chaos`, the model mode of `atcasim scenario`) and the emulator's HA part
 * (chassis/runtime/ha-part.ts: `atcasim start` and the emulator mode of `atcasim scenario`), so
 * both run the same fault semantics and check the same invariants.
 *
 * For every node of every pair it wires a NodeController (pair-controller.ts: one pair-member
 * machine per share, heartbeats, session sync, watchdog kicks) over two NodeClocks (control and
 * data: hang, pause, stall-control, reset, NTP slew, wall-clock steps affect one node only), an
 * IPMI watchdog on the base ("hardware") clock, the pair's Backplane (PRESENT/HEALTHY/ACTIVE +
 * interlock) and two FaultyLinks (heartbeat, sync). What is forwarded and synced is the data
 * model's (`HaDataModel`): session tables per node and share, the hubs' router, and the loss of
 * a takeover (the ha.md §5.5 oracle is applied here).
 *
 * Invariants, audited after every role change, line change and action (and whenever the model
 * calls `audit()`): at most one owner per share and one ACTIVE line per channel while the
 * interlock is on; epochs never decrease and a new owner's epoch exceeds the previous owner's;
 * HEALTHY low throughout a reset; no protected session lost in a takeover while at most one
 * component is faulty. Violations land in the timeline and the report.
 *
 * Pure over its Clock and the seed: the same seed and actions give the same timeline.
 */
import type { Clock } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { Backplane } from '../model/backplane.ts';
import type { PairConfig, ResolvedHaConfig } from '../config/ha.ts';
import type { CompatVersion, Heartbeat, WireRole } from './heartbeat.ts';
import { heartbeatCodec, parseVersion } from './heartbeat.ts';
import { FaultyLink } from './links.ts';
import { NodeClock } from './node-clock.ts';
import { classifyLoss } from './oracle.ts';
import type { LossSummary, LostItem } from './oracle.ts';
import { NodeController } from './pair-controller.ts';
import type { HaObserver, RoleChange, ShareDataPlane, ShareRouter } from './pair-controller.ts';
import type { ActivationKind } from './pair-machine.ts';
import { syncCodec } from './session-sync.ts';
import type { SyncDatagram, SyncSenderStats } from './session-sync.ts';
import { formatAction, parseAction } from './sim-actions.ts';
import type { LinkName, SimAction } from './sim-actions.ts';
import { IpmiWatchdog } from '../model/ipmi-watchdog.ts';

/** One entry of the timeline (times in base-clock ms). */
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
  /** Lost sessions by their age at the fault instant (faultAt − creation, ms; negative when created after the fault): [age, sessions], oldest first. */
  lostAges: Array<[number, number]>;
}

/** What the data model reports about a move of a share between nodes. */
export interface MoveFacts {
  /** t_f: the old owner stopped forwarding, ms. */
  tf: number;
  /** The old owner's acknowledged sync watermark at t_f (−Infinity: none). */
  watermark: number;
  /** Components faulty when the old owner stopped (null: not recorded; the fabric counts now). */
  stopFaults: number | null;
  /** The new owner forwards from, ms. */
  forwardingAt: number;
  /** Sessions of the old owner's table that the new owner does not hold. */
  lost: LostItem[];
}

/** Node events the fabric tells the data model about. */
export type NodeDataEvent =
  /** The node's data path stopped at `at` (hang, pause, uplink lost, software lost). */
  | 'data-stopped'
  /** It runs again (thawed with a working uplink). */
  | 'data-resumed'
  /** Its software state is about to be lost (reset, power loss, upgrade reboot): senders still exist. */
  | 'software-lost';

/**
 * The data side of the fabric: session tables and the hubs. The count model (pair-sim.ts) and
 * the emulator's real boards (chassis/runtime/ha-board.ts) implement it.
 */
export interface HaDataModel {
  /** Called once, first thing in the fabric's constructor. */
  attach(fabric: HaFabric): void;
  /** The data plane of `node` for `share` (called while the fabric builds its nodes). */
  dataPlane(node: string, share: string): ShareDataPlane;
  /** The hubs: every new flow of `share` goes to `node` from now on. */
  route(share: string, node: string): void;
  /** Blue/green: `share` keeps `percent` of its own new flows, its buddy share takes the rest. */
  shift(share: string, percent: number): void;
  /**
   * The router moved `share` from `prev` to `node` (prev ≠ null). Returns what moved, or null when
   * nothing did (the owner re-claimed with its table intact after an aborted handover).
   */
  moved(share: string, prev: string, node: string, planned: boolean): MoveFacts | null;
  /** A node event (see NodeDataEvent). */
  nodeEvent?(node: string, ev: NodeDataEvent, at: number): void;
}

/** Fabric construction options. */
export interface FabricOptions {
  /** Seed of every random choice (jitter, loss, incarnations, stream ids). */
  seed: number;
  cfg: ResolvedHaConfig;
  pairs: readonly PairConfig[];
  /** The base ("hardware") clock. */
  clock: Clock;
  model: HaDataModel;
  /** One-way link latency, default 0.1 ms. */
  linkLatencyMs?: number;
  /** Software version every node starts with, default '1.0'. */
  version?: string;
  /** Encode/decode every heartbeat and sync datagram through the wire codecs, default false. */
  wire?: boolean;
  /** TEST-ONLY planted bug: firmware ignores the interlock. */
  unsafeNoInterlockGuard?: boolean;
  /** Extra observer (the emulator: shelf roles, SEL). Called after the fabric recorded the event. */
  observer?: HaObserver;
  /** Persisted epochs per node (fencing tokens survive restarts). */
  epochs?: (node: string) => Record<string, number> | undefined;
  /** The node's wall clock offset source, default the NodeClock's wallNow. */
  log?: Logger;
}

/** Starting conditions applied by `start`. */
export interface FabricInitial {
  /** Nodes not powered at t = 0. */
  poweredOff?: readonly string[];
  /** Links cut at t = 0, written 'heartbeat PAIR' or 'sync PAIR'. */
  cut?: readonly string[];
  /** Interlock state at t = 0 (default on). */
  interlock?: boolean;
}

/** A node of the fabric (internal state, read-only outside). */
export interface FabricNode {
  readonly name: string;
  readonly pair: FabricPair;
  readonly control: NodeClock;
  readonly data: NodeClock;
  readonly watchdog: IpmiWatchdog;
  controller: NodeController;
  uplink: boolean;
  hung: boolean;
  stallControl: boolean;
  pauseGen: number;
  paused: boolean;
  /** Time of the last fault injected into this node (null after an operator switchover). */
  lastFaultAt: number | null;
  /** Had a node fault and is not yet back to active / standby.hot everywhere. */
  recovering: boolean;
}

/** A pair of the fabric. */
export interface FabricPair {
  readonly cfg: PairConfig;
  readonly shares: readonly string[];
  /** Share → its home node. */
  readonly home: ReadonlyMap<string, string>;
  readonly backplane: Backplane;
  readonly links: Record<LinkName, FaultyLink>;
  lastActionAt: number;
  readonly router: ShareRouter;
}

interface ShareState {
  pair: FabricPair;
  roles: Map<string, WireRole>;
  epochs: Map<string, number>;
  routerTarget: string | null;
  ownerEpoch: number;
  ownerNode: string | null;
  ownerChanges: number;
  activeRoleChanges: number;
  firstActivation: boolean;
  doubleSince: number | null;
  doubleEntry: Extract<TimelineEntry, { type: 'double-active' }> | null;
}

/** Per-share summary in a report. */
export interface ShareSummary {
  pair: string;
  owner: string | null;
  roles: Record<string, WireRole>;
  epochs: Record<string, number>;
  /** Changes of owner (takeovers and handovers; the first activation is not counted). */
  ownerChanges: number;
  /** Role transitions into or out of 'active' by any member after the first activation. */
  activeRoleChanges: number;
}

/** The model-independent part of a run's report. */
export interface FabricReport {
  timeline: TimelineEntry[];
  shares: Record<string, ShareSummary>;
  takeovers: TakeoverReport[];
  /** Losses outside takeovers (noteLoss). */
  drops: Array<{ t: number; share: string; lost: number; lostAges: Array<[number, number]> }>;
  lost: { lost: number; lostProtected: number; lostEstablished: number; maxLostAgeMs: number; byAge: Record<string, number> };
  sync: SyncSenderStats;
  doubleActive: { episodes: number; totalMs: number };
  alarms: Record<string, number>;
  invariants: { checks: number; violations: Array<{ t: number; invariant: string; detail: string }> };
}

/** FNV-1a 32-bit hash of a string (derives per-component seeds). */
export function seedHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The shares of a pair: 'shmc' for the ShMC pair, `PAIR/MEMBER` for each member of a processor pair. */
export function sharesOfPair(p: PairConfig): string[] {
  return p.kind === 'shmc' ? [p.name] : p.members.map((m) => `${p.name}/${m}`);
}

/** See the module header. */
export class HaFabric {
  readonly cfg: ResolvedHaConfig;
  readonly clock: Clock;
  private readonly o: FabricOptions;
  private readonly model: HaDataModel;
  private readonly nodes = new Map<string, FabricNode>();
  private readonly pairs = new Map<string, FabricPair>();
  private readonly shares = new Map<string, ShareState>();
  private readonly timeline: TimelineEntry[] = [];
  private readonly takeoverList: TakeoverReport[] = [];
  private readonly dropList: Array<{ t: number; share: string; lost: number; lostAges: Array<[number, number]> }> = [];
  private readonly violations: Array<{ t: number; invariant: string; detail: string }> = [];
  private readonly alarmCounts: Record<string, number> = {};
  private readonly epochSeen = new Map<string, number>();
  private lostTotals = { lost: 0, lostProtected: 0, lostEstablished: 0, maxLostAgeMs: 0, byAge: {} as Record<string, number> };
  private checks = 0;
  private doubleEpisodes = 0;
  private doubleMs = 0;
  private interlockOff = false;
  private disposed = false;

  /**
   * Builds every pair and node (nothing powered until `start`).
   * @throws CommandError('bad_pair') when a pair is defined twice or a node is in two pairs
   */
  constructor(o: FabricOptions) {
    this.o = o;
    this.cfg = o.cfg;
    this.clock = o.clock;
    this.model = o.model;
    this.model.attach(this);
    const version = parseVersion(o.version ?? '1.0');
    const seen = new Set<string>();
    for (const p of o.pairs) {
      if (this.pairs.has(p.name)) throw new CommandError('bad_pair', `pair ${p.name} defined twice`);
      for (const m of p.members) {
        if (seen.has(m)) throw new CommandError('bad_pair', `node ${m} is in two pairs`);
        seen.add(m);
      }
      this.addPair(p, version);
    }
  }

  /**
   * Applies the starting conditions and powers the nodes.
   * @param powered which nodes start powered (default all but `initial.poweredOff`)
   * @throws CommandError('bad_action' | 'unknown_node' | 'unknown_pair') for a bad initial block
   */
  start(initial: FabricInitial = {}, powered: (node: string) => boolean = () => true): void {
    if (initial.interlock === false) this.setInterlock(false);
    for (const c of initial.cut ?? []) {
      const [link, pair, ...rest] = c.trim().split(/\s+/);
      if ((link !== 'heartbeat' && link !== 'sync') || !pair || rest.length) throw new CommandError('bad_action', `initial cut "${c}": expected "heartbeat PAIR" or "sync PAIR"`);
      this.pair(pair);
      this.execute({ op: 'cut', link, pair }, false);
    }
    const off = new Set(initial.poweredOff ?? []);
    for (const n of off) this.node(n);
    for (const n of this.nodes.values()) {
      if (off.has(n.name) || !powered(n.name)) {
        n.controller.powerOff('off', 'initial');
        n.recovering = true;
      } else {
        n.controller.powerOn('initial');
      }
    }
  }

  // ---------------------------------------------------------------- public API

  /** Current base-clock time, ms. */
  now(): number {
    return this.clock.now();
  }

  /**
   * Checks an action (names, directions) without running it.
   * @throws CommandError('bad_action' | 'bad_duration' | 'unknown_node' | 'unknown_pair')
   */
  validate(a: SimAction): void {
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

  /**
   * Schedules an action at absolute time `atMs` (default now). Names are checked now.
   * @throws CommandError for unparsable text, unknown nodes or pairs, or a time in the past.
   *   Refusals at run time are recorded in the timeline, not thrown.
   */
  apply(action: SimAction | string, atMs: number = this.clock.now()): SimAction {
    const a = typeof action === 'string' ? parseAction(action) : action;
    this.validate(a);
    if (!(atMs >= this.clock.now())) throw new CommandError('bad_action', `action "${formatAction(a)}" at ${atMs} ms is in the past (now ${this.clock.now()} ms)`);
    this.clock.setTimeout(() => this.execute(a, true), atMs - this.clock.now());
    return a;
  }

  /**
   * Runs an action now and records it in the timeline.
   * @throws CommandError when it is refused (also recorded)
   */
  perform(a: SimAction): void {
    this.validate(a);
    const err = this.execute(a, true);
    if (err) throw err;
  }

  /** Role of `node` for `share` (default its first share); 'failed' when unknown. */
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

  /** The node the hubs send `share` to (the last claim), or null before the first activation. */
  routerTarget(share: string): string | null {
    return this.share(share).routerTarget;
  }

  /** Epoch of a member. */
  epochOf(node: string, share?: string): number {
    const n = this.node(node);
    return this.share(share ?? n.pair.shares[0]!).epochs.get(node) ?? 0;
  }

  /** The controller of a node. @throws CommandError('unknown_node') */
  controller(node: string): NodeController {
    return this.node(node).controller;
  }

  /** The IPMI watchdog of a node. @throws CommandError('unknown_node') */
  watchdog(node: string): IpmiWatchdog {
    return this.node(node).watchdog;
  }

  /** The backplane of a pair (name or share). @throws CommandError('unknown_pair') */
  backplane(pair: string): Backplane {
    return this.pair(pair).backplane;
  }

  /** Shares of a pair (name or share). @throws CommandError('unknown_pair') */
  sharesOf(pair: string): string[] {
    return [...this.pair(pair).shares];
  }

  /** Every share, in pair order. */
  allShares(): string[] {
    return [...this.shares.keys()];
  }

  /** Node names in pair order. */
  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** True when `name` is a node of the fabric. */
  hasNode(name: string): boolean {
    return this.nodes.has(name);
  }

  /** The node's state (read-only use). @throws CommandError('unknown_node') */
  nodeState(name: string): Readonly<FabricNode> {
    return this.node(name);
  }

  /** The pair (by pair or share name). @throws CommandError('unknown_pair') */
  pairOf(name: string): FabricPair {
    return this.pair(name);
  }

  /** The pair config a node belongs to. @throws CommandError('unknown_node') */
  pairOfNode(node: string): FabricPair {
    return this.node(node).pair;
  }

  /** True while the node's data path runs: powered on, not frozen, uplink up. */
  dataRunning(node: string): boolean {
    const n = this.node(node);
    return n.controller.isPowered && n.pair.backplane.nodeLines(n.name).power === 'on' && !n.data.isFrozen && n.uplink;
  }

  /** The timeline so far (live array; copy before mutating). */
  get events(): readonly TimelineEntry[] {
    return this.timeline;
  }

  /** Takeovers so far (live array). */
  get takeovers(): readonly TakeoverReport[] {
    return this.takeoverList;
  }

  /** Invariant violations so far (live array). */
  get violationList(): ReadonlyArray<{ t: number; invariant: string; detail: string }> {
    return this.violations;
  }

  /** Adds an entry to the timeline (the emulator's own events, e.g. refused operator actions). */
  note(e: TimelineEntry): void {
    this.timeline.push(e);
  }

  /** Records a loss outside a takeover (e.g. a split-brain loser dropping its table). */
  noteLoss(items: readonly LostItem[], share: string, tf: number): void {
    if (items.length === 0) return;
    const loss = classifyLoss(items, { tf, syncMinAgeMs: this.cfg.syncMinAgeMs, syncBatchMs: this.cfg.syncBatchMs, watermark: -Infinity, planned: false });
    this.addLoss(loss);
    const lostAges = items.map((c): [number, number] => [tf - c.createdAt, c.sessions]).sort((a, b) => b[0] - a[0]);
    this.dropList.push({ t: tf, share, lost: loss.lost, lostAges });
  }

  /** Model-independent report parts. */
  reportParts(): FabricReport {
    const now = this.clock.now();
    const shares: Record<string, ShareSummary> = {};
    for (const [name, st] of this.shares) {
      shares[name] = {
        pair: st.pair.cfg.name, owner: this.ownerOf(name),
        roles: Object.fromEntries(st.roles), epochs: Object.fromEntries(st.epochs),
        ownerChanges: st.ownerChanges, activeRoleChanges: st.activeRoleChanges,
      };
    }
    const sync = emptySyncStats();
    for (const n of this.nodes.values()) {
      const st = n.controller.syncStats();
      for (const k of Object.keys(sync) as Array<keyof SyncSenderStats>) sync[k] += st[k];
    }
    return {
      timeline: this.timeline.map((e) => ({ ...e })),
      shares,
      takeovers: this.takeoverList.map((t) => ({ ...t, loss: { ...t.loss, byAge: { ...t.loss.byAge } }, lostAges: t.lostAges.map((x): [number, number] => [x[0], x[1]]) })),
      drops: this.dropList.map((d) => ({ ...d, lostAges: d.lostAges.map((x): [number, number] => [x[0], x[1]]) })),
      lost: { ...this.lostTotals, byAge: { ...this.lostTotals.byAge } },
      sync,
      doubleActive: { episodes: this.doubleEpisodes, totalMs: this.doubleMs + this.openDoubleMs(now) },
      alarms: { ...this.alarmCounts },
      invariants: { checks: this.checks, violations: this.violations.map((v) => ({ ...v })) },
    };
  }

  /** Stops every actor and timer of the nodes (the fabric cannot run afterwards). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const n of this.nodes.values()) n.controller.dispose();
  }

  /** True once disposed. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Components faulty now: nodes with an active fault or still recovering, impaired links, the interlock off. */
  faultCount(): number {
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

  /** Marks a node faulty now (the emulator's shelf-driven failures: extraction, payload fault). */
  markFault(node: string): void {
    const n = this.node(node);
    const now = this.clock.now();
    n.lastFaultAt = now;
    n.pair.lastActionAt = now;
  }

  /** Notes an operator request on a pair (switchover): clears the members' fault marks. */
  markOperator(pair: string): void {
    const p = this.pair(pair);
    p.lastActionAt = this.clock.now();
    for (const m of p.cfg.members) this.node(m).lastFaultAt = null;
  }

  /** Checks every invariant now. */
  audit(): void {
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

  // ---------------------------------------------------------------- construction

  private addPair(p: PairConfig, version: CompatVersion): void {
    const shares = sharesOfPair(p);
    const home = new Map<string, string>();
    for (const s of shares) home.set(s, p.kind === 'shmc' ? p.members[0] : s.slice(p.name.length + 1));
    const seed = this.o.seed;
    const latency = this.o.linkLatencyMs ?? 0.1;
    const pair: FabricPair = {
      cfg: p, shares, home, backplane: new Backplane(p.members, shares),
      links: {
        heartbeat: new FaultyLink('heartbeat', p.members, this.clock, new SeededRandom(seedHash(`${seed}:hb:${p.name}`)), latency),
        sync: new FaultyLink('sync', p.members, this.clock, new SeededRandom(seedHash(`${seed}:sync:${p.name}`)), latency),
      },
      lastActionAt: 0,
      router: {
        assign: (share, node) => {
          this.model.route(share, node);
          this.onAssign(share, node);
        },
        shift: (share, percent) => this.model.shift(share, percent),
      },
    };
    this.pairs.set(p.name, pair);
    for (const s of shares) {
      this.shares.set(s, {
        pair, roles: new Map(), epochs: new Map(), routerTarget: null, ownerEpoch: 0, ownerNode: null,
        ownerChanges: 0, activeRoleChanges: 0, firstActivation: true, doubleSince: null, doubleEntry: null,
      });
    }
    pair.backplane.onChange(() => this.audit());
    for (const name of p.members) {
      const peer = p.members[0] === name ? p.members[1] : p.members[0];
      const control = new NodeClock(this.clock);
      const data = new NodeClock(this.clock);
      const watchdog = new IpmiWatchdog(this.clock);
      const node: FabricNode = {
        name, pair, control, data, watchdog, controller: undefined as unknown as NodeController, uplink: true, hung: false,
        stallControl: false, pauseGen: 0, paused: false, lastFaultAt: null, recovering: false,
      };
      const tables = new Map(shares.map((s) => [s, this.model.dataPlane(name, s)]));
      const extra = this.o.observer;
      const epochs = this.o.epochs?.(name);
      node.controller = new NodeController({
        node: name,
        shares: shares.map((s) => ({ share: s, peer, home: home.get(s) === name })),
        version, cfg: this.cfg, control, data, hardware: this.clock, backplane: pair.backplane, watchdog, router: pair.router,
        dataPlane: (s) => tables.get(s)!,
        sendHeartbeat: (hb) => this.sendHeartbeat(pair, name, peer, hb),
        sendSync: (s, d) => this.sendSync(pair, name, peer, s, d),
        random: new SeededRandom(seedHash(`${seed}:node:${name}`)),
        wallNow: () => control.wallNow(),
        unsafeNoInterlockGuard: this.o.unsafeNoInterlockGuard === true,
        softwareLost: () => this.onSoftwareLost(node),
        softwareBoot: () => this.onSoftwareBoot(node),
        ...(epochs ? { epochs } : {}),
        ...(this.o.log ? { log: this.o.log } : {}),
        observer: {
          roleChanged: (e) => {
            this.onRole(e);
            extra?.roleChanged?.(e);
          },
          alarm: (e) => {
            this.timeline.push({ t: this.clock.now(), type: 'alarm', node: e.node, share: e.share, alarm: e.alarm, raised: e.raised });
            if (e.raised) this.alarmCounts[e.alarm] = (this.alarmCounts[e.alarm] ?? 0) + 1;
            extra?.alarm?.(e);
          },
          watchdog: (e) => {
            this.timeline.push({ t: this.clock.now(), type: 'watchdog', node: e.node, event: e.event.kind, action: e.event.action });
            extra?.watchdog?.(e);
          },
          hardware: (e) => {
            this.timeline.push({ t: this.clock.now(), type: 'hardware', node: e.node, what: e.what, cause: e.cause });
            if (e.what !== 'power-on') {
              node.recovering = true;
              if (e.cause === 'watchdog') node.lastFaultAt ??= this.clock.now();
            }
            extra?.hardware?.(e);
          },
        },
      });
      this.nodes.set(name, node);
    }
  }

  // ---------------------------------------------------------------- links

  private sendHeartbeat(pair: FabricPair, from: string, to: string, hb: Heartbeat): void {
    const payload = this.o.wire ? heartbeatCodec.encode(hb) : null;
    pair.links.heartbeat.send(from, to, () => {
      const n = this.nodes.get(to)!;
      n.controller.receiveHeartbeat(payload ? heartbeatCodec.decode(payload).value : hb);
    });
  }

  private sendSync(pair: FabricPair, from: string, to: string, share: string, d: SyncDatagram): void {
    const payload = this.o.wire ? syncCodec.encode(d) : null;
    pair.links.sync.send(from, to, () => {
      const n = this.nodes.get(to)!;
      n.controller.receiveSync(share, payload ? syncCodec.decode(payload).value : d);
    });
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
    const planned = kind === 'planned';
    const facts = this.model.moved(share, prev, node, planned);
    if (!facts) return;
    const old = this.nodes.get(prev)!;
    const oracle = { tf: facts.tf, syncMinAgeMs: this.cfg.syncMinAgeMs, syncBatchMs: this.cfg.syncBatchMs, watermark: facts.watermark, planned };
    const loss = classifyLoss(facts.lost, oracle);
    const faultAt = old.lastFaultAt ?? st.pair.lastActionAt;
    const faultsAtTf = facts.stopFaults !== null ? Math.max(facts.stopFaults, this.faultCount()) : this.faultCount();
    const lostAges = facts.lost.map((c): [number, number] => [faultAt - c.createdAt, c.sessions]).sort((a, b) => b[0] - a[0]);
    const rep: TakeoverReport = {
      share, from: prev, to: node, kind, epoch: act.epoch, notHot: act.notHot,
      faultAt, claimAt: now, forwardingAt: facts.forwardingAt, tf: facts.tf, detectionMs: now - faultAt, takeoverMs: facts.forwardingAt - faultAt,
      detectionIntervals: (now - faultAt) / this.cfg.heartbeatMs, faultsAtTf, loss, lostAges,
    };
    this.takeoverList.push(rep);
    this.timeline.push({ t: now, type: 'takeover', share, from: prev, to: node, kind });
    this.addLoss(loss);
    if (loss.lostProtected > 0 && faultsAtTf <= 1) {
      this.violate('protected-sessions', `${share}: ${loss.lostProtected} protected sessions lost in the takeover ${prev} → ${node} (faults at t_f: ${faultsAtTf})`);
    }
  }

  private addLoss(loss: LossSummary): void {
    this.lostTotals.lost += loss.lost;
    this.lostTotals.lostProtected += loss.lostProtected;
    this.lostTotals.lostEstablished += loss.lostEstablished;
    this.lostTotals.maxLostAgeMs = Math.max(this.lostTotals.maxLostAgeMs, loss.maxLostAgeMs);
    for (const [k, v] of Object.entries(loss.byAge)) this.lostTotals.byAge[k] = (this.lostTotals.byAge[k] ?? 0) + v;
  }

  // ---------------------------------------------------------------- faults

  /** Runs an action; records it; returns the refusal (CommandError) if any. */
  private execute(a: SimAction, record: boolean): CommandError | null {
    const now = this.clock.now();
    const text = formatAction(a);
    let err: CommandError | null = null;
    try {
      this.run(a, now);
      if (record) this.timeline.push({ t: now, type: 'action', text, ok: true });
    } catch (e) {
      if (!(e instanceof CommandError)) throw e;
      err = e;
      if (record) this.timeline.push({ t: now, type: 'action', text, ok: false, error: `${e.code}: ${e.message}` });
    }
    this.audit();
    return err;
  }

  private run(a: SimAction, now: number): void {
    const fault = (n: FabricNode) => {
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
        // A hang freezes running software, which its armed watchdog then resets. Off, in reset or
        // booting there is none (and no armed watchdog): a frozen boot would never end.
        if (!n.controller.isRunning) {
          const why = !n.controller.isPowered ? 'powered off' : n.controller.inReset ? 'in reset' : 'booting (its watchdog is not armed yet)';
          throw new CommandError('not_running', `${n.name} is not running (${why}): nothing to hang`);
        }
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
        this.clearFreezeFlags(n);
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
        if (!up) this.model.nodeEvent?.(n.name, 'data-stopped', now);
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
        const targets = p.shares.includes(a.pair) ? [a.pair] : [...p.shares];
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

  private freezeData(n: FabricNode, now: number): void {
    this.model.nodeEvent?.(n.name, 'data-stopped', now);
    n.data.freeze();
  }

  private thaw(n: FabricNode): void {
    n.data.thaw();
    if (!n.stallControl && !n.hung && !n.paused) n.control.thaw();
    if (n.uplink) this.model.nodeEvent?.(n.name, 'data-resumed', this.clock.now());
  }

  private onSoftwareLost(n: FabricNode): void {
    const now = this.clock.now();
    this.model.nodeEvent?.(n.name, 'software-lost', now);
    this.endFreeze(n);
  }

  /** The payload is powered (again): its software boots fresh, whatever was frozen before. */
  private onSoftwareBoot(n: FabricNode): void {
    if (n.hung || n.stallControl || n.paused || n.control.isFrozen || n.data.isFrozen) this.endFreeze(n);
  }

  /** Drops the node's software timers and ends any hang, pause or control stall. */
  private endFreeze(n: FabricNode): void {
    n.control.discard();
    n.data.discard();
    this.clearFreezeFlags(n);
  }

  /** No hang, control stall or pause any more; a pending pause's end timer is made stale. */
  private clearFreezeFlags(n: FabricNode): void {
    n.hung = false;
    n.stallControl = false;
    n.paused = false;
    n.pauseGen++;
  }

  private setInterlock(on: boolean): void {
    this.interlockOff = !on;
    for (const p of this.pairs.values()) p.backplane.setInterlock(on);
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

  private node(name: string): FabricNode {
    const n = this.nodes.get(name);
    if (!n) throw new CommandError('unknown_node', `unknown node "${name}" (known: ${[...this.nodes.keys()].join(', ')})`);
    return n;
  }

  private pair(name: string): FabricPair {
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

/** Zeroed sync sender counters. */
export function emptySyncStats(): SyncSenderStats {
  return {
    datagrams: 0, bytes: 0, incrementalRecords: 0, incrementalSessions: 0, bulkRecords: 0, bulkSessions: 0, finalRecords: 0,
    finalSessions: 0, deletes: 0, retransmits: 0, queueOverflows: 0, bulks: 0, fullResyncs: 0, filteredRecords: 0, filteredSessions: 0,
  };
}
