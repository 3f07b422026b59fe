/**
 * The HA simulator: what turns the HA fabric (chassis/ha/ha-fabric.ts, every pair of a shelf
 * wired in one process) into a fault-injection bench. Plugged into the fabric as its
 * `FabricSupervisor`, it gives each node two NodeClocks (node-faults.ts: hang, pause,
 * stall-control, NTP slew and wall-clock steps affect one node only), puts every pair on simulated
 * links with injectable faults (links.ts), runs the action language (fault-interpreter.ts over
 * sim-actions.ts), and keeps the timeline (timeline.ts), the takeover ledger with the session-loss
 * oracle (takeover-ledger.ts, oracle.ts) and the invariant audit (invariants.ts).
 *
 * Shared by the count-model simulation (pair-sim.ts: `atcasim chaos`, the model mode of
 * `atcasim scenario`) and the emulator's HA part in scenarios (chassis/runtime/ha-part.ts, which
 * reaches it through the `HaFaultModel` port), so both run the same fault semantics and check the
 * same invariants. The live shelf (`atcasim start`) uses it with `mode: 'live'`: node clocks and the
 * operator faults only (hang, heal, switchover), over the real UDP links, with nothing recorded.
 *
 * Pure over the fabric's clock and seed: the same seed and actions give the same timeline.
 */
import { CommandError } from '../../board/common/errors.ts';
import { SeededRandom } from '../../board/common/random.ts';
import type { PairConfig } from '../config/ha.ts';
import type { FabricNode, FabricPair, FabricSupervisor, HaFabric, LossNote, LostItem, NodeClocks } from '../ha/ha-fabric.ts';
import { seedHash } from '../ha/ha-fabric.ts';
import type { PairLinkFactory, PairLinks } from '../ha/pair-link.ts';
import type { RoleChange } from '../ha/node-ports.ts';
import { addSyncStats, emptySyncStats } from '../ha/sync-types.ts';
import type { SyncSenderStats } from '../ha/sync-types.ts';
import type { WireRole } from '../ha/heartbeat.ts';
import { FaultInterpreter } from './fault-interpreter.ts';
import { InvariantAudit } from './invariants.ts';
import type { Violation } from './invariants.ts';
import { FaultyLink, SimPairLinks } from './links.ts';
import { NodeFaults } from './node-faults.ts';
import type { SimNode } from './node-faults.ts';
import type { SimAction } from './sim-actions.ts';
import { TakeoverLedger } from './takeover-ledger.ts';
import type { DropReport, LossTotals, TakeoverReport } from './takeover-ledger.ts';
import { Timeline } from './timeline.ts';
import type { TimelineEntry } from './timeline.ts';

/** Starting conditions applied by `start`. */
export interface FabricInitial {
  /** Nodes not powered at t = 0. */
  poweredOff?: readonly string[];
  /** Links cut at t = 0, written 'heartbeat PAIR' or 'sync PAIR'. */
  cut?: readonly string[];
  /** Interlock state at t = 0 (default on). */
  interlock?: boolean;
}

/** Simulator options. */
export interface SimulatorOptions {
  /**
   * 'simulate' (default): simulated links, timeline, takeover ledger and invariant audit.
   * 'live': node clocks and operator faults only; the pairs run on the links the fabric is given.
   */
  mode?: 'simulate' | 'live';
  /** One-way latency of the simulated links, default 0.1 ms. */
  linkLatencyMs?: number;
  /** Encode/decode every heartbeat and sync datagram through the wire codecs, default false. */
  wire?: boolean;
  /** Starting conditions. */
  initial?: FabricInitial;
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
  drops: DropReport[];
  lost: LossTotals;
  sync: SyncSenderStats;
  doubleActive: { episodes: number; totalMs: number };
  alarms: Record<string, number>;
  invariants: { checks: number; violations: Violation[] };
}

/** What is recorded while simulating (absent in live mode). */
interface Records {
  timeline: Timeline;
  invariants: InvariantAudit;
  ledger: TakeoverLedger;
}

/** See the module header. */
export class HaSimulator implements FabricSupervisor {
  private fabricRef: HaFabric | undefined;
  private readonly o: SimulatorOptions;
  private readonly nodes = new NodeFaults();
  private readonly pairLinks = new Map<string, SimPairLinks>();
  private rec: Records | null = null;
  private interp: FaultInterpreter | undefined;
  /** Nodes held off by a `power-off` action or the initial conditions (the shelf's M4 does not power them). */
  private readonly heldOff = new Set<string>();

  constructor(o: SimulatorOptions = {}) {
    this.o = o;
    for (const n of o.initial?.poweredOff ?? []) this.heldOff.add(n);
  }

  /** The simulated links, for the fabric (simulate mode only). */
  readonly links: PairLinkFactory = {
    links: (p: PairConfig): PairLinks => {
      if (this.o.mode === 'live') throw new CommandError('bad_action', 'a live simulator has no simulated links');
      const f = this.fabric;
      const latency = this.o.linkLatencyMs ?? 0.1;
      const l = new SimPairLinks(
        new FaultyLink('heartbeat', p.members, f.clock, new SeededRandom(seedHash(`${f.seed}:hb:${p.name}`)), latency),
        new FaultyLink('sync', p.members, f.clock, new SeededRandom(seedHash(`${f.seed}:sync:${p.name}`)), latency),
        this.o.wire === true,
      );
      this.pairLinks.set(p.name, l);
      return l;
    },
  };

  /** The fabric this simulator supervises. @throws Error before it is attached */
  get fabric(): HaFabric {
    if (!this.fabricRef) throw new Error('HaSimulator: not attached to a fabric yet');
    return this.fabricRef;
  }

  // ---------------------------------------------------------------- FabricSupervisor

  attach(fabric: HaFabric): void {
    this.fabricRef = fabric;
    this.nodes.attach(fabric);
    if (this.o.mode !== 'live') {
      const timeline = new Timeline();
      const invariants = new InvariantAudit(fabric, timeline, () => this.interpreter.interlockIsOff);
      const ledger = new TakeoverLedger(fabric, {
        lastFaultAt: (node) => this.nodes.node(node).lastFaultAt,
        lastActionAt: (share) => this.nodes.lastActionAt(fabric.pairOf(share).cfg.name),
        faultCount: () => this.faultCount(),
      }, timeline, invariants);
      this.rec = { timeline, invariants, ledger };
    }
    const rec = this.rec;
    this.interp = new FaultInterpreter(fabric, this.nodes, this.o.mode === 'live' ? null : this.pairLinks, rec && {
      action: (t, text, error) => rec.timeline.action(t, text, error),
      audit: () => rec.invariants.audit(),
    });
  }

  pairAdded(pair: FabricPair): void {
    if (!this.rec) return;
    for (const s of pair.shares) this.rec.invariants.addShare(s);
    pair.backplane.onChange(() => this.audit());
  }

  nodeClocks(node: string): NodeClocks {
    return this.nodes.clocks(node);
  }

  nodeAdded(_node: FabricNode): void {}

  softwareLost(node: string): void {
    this.nodes.softwareLost(node);
  }

  softwareBoot(node: string): void {
    this.nodes.softwareBoot(node);
  }

  roleChanged(e: RoleChange): void {
    const f = this.fabric;
    this.rec?.timeline.role(f.now(), e);
    this.rec?.invariants.onRole(e);
    // Recovery: a node is back when all its members are active or hot.
    const n = this.nodes.node(e.node);
    if (n.recovering && f.controller(n.name).isPowered) {
      const ok = f.pairOfNode(n.name).shares.every((s) => {
        const r = f.rolesOf(s).get(n.name);
        return r === 'active' || r === 'standby.hot';
      });
      if (ok) n.recovering = false;
    }
    this.audit();
  }

  handoverAborted(e: { node: string; share: string; reason: string }): void {
    this.rec?.timeline.push({ t: this.fabric.now(), type: 'handover-aborted', node: e.node, share: e.share, reason: e.reason });
  }

  alarm(e: { at: number; node: string; share: string; alarm: string; raised: boolean }): void {
    this.rec?.timeline.alarm(this.fabric.now(), e);
  }

  watchdog(e: { at: number; node: string; event: { kind: 'pretimeout' | 'expired'; action: number } }): void {
    this.rec?.timeline.push({ t: this.fabric.now(), type: 'watchdog', node: e.node, event: e.event.kind, action: e.event.action });
  }

  hardware(e: { at: number; node: string; what: 'reset' | 'power-on' | 'power-off'; cause: string }): void {
    const now = this.fabric.now();
    this.rec?.timeline.push({ t: now, type: 'hardware', node: e.node, what: e.what, cause: e.cause });
    if (e.what !== 'power-on') {
      const n = this.nodes.node(e.node);
      n.recovering = true;
      if (e.cause === 'watchdog') n.lastFaultAt ??= now;
    }
  }

  assigned(share: string, node: string, prev: string | null): void {
    this.rec?.ledger.assigned(share, node, prev);
  }

  /** Components faulty now: nodes with an active fault or still recovering, impaired links, the interlock off. */
  faultCount(): number {
    let n = 0;
    for (const node of this.nodes.all()) if (this.nodes.faulty(node)) n++;
    for (const l of this.pairLinks.values()) {
      if (l.heartbeat.impaired()) n++;
      if (l.sync.impaired()) n++;
    }
    if (this.interpreter.interlockIsOff) n++;
    return n;
  }

  noteLoss(items: readonly LostItem[], share: string, tf: number, note?: LossNote): void {
    this.rec?.ledger.noteLoss(items, share, tf, note);
  }

  markFault(node: string): void {
    this.nodes.fault(this.nodes.node(node), this.fabric.now());
  }

  // ---------------------------------------------------------------- running

  /**
   * Applies the starting conditions and powers the nodes.
   * @param powered which nodes start powered (besides the initial conditions' poweredOff: default all)
   * @throws CommandError('bad_action' | 'unknown_node' | 'unknown_pair') for a bad initial block
   */
  start(powered: (node: string) => boolean = () => true): void {
    const initial = this.o.initial ?? {};
    if (initial.interlock === false) this.interpreter.setInterlock(false);
    for (const c of initial.cut ?? []) {
      const [link, pair, ...rest] = c.trim().split(/\s+/);
      if ((link !== 'heartbeat' && link !== 'sync') || !pair || rest.length) throw new CommandError('bad_action', `initial cut "${c}": expected "heartbeat PAIR" or "sync PAIR"`);
      this.fabric.pairOf(pair);
      this.interpreter.execute({ op: 'cut', link, pair }, false);
    }
    const off = new Set(initial.poweredOff ?? []);
    for (const n of off) this.fabric.node(n);
    this.fabric.start((n) => !off.has(n) && powered(n), (n) => {
      this.nodes.node(n).recovering = true;
    });
  }

  /** See FaultInterpreter.validate. */
  validate(a: SimAction): void {
    this.interpreter.validate(a);
  }

  /** See FaultInterpreter.apply. */
  apply(action: SimAction | string, atMs?: number): SimAction {
    return this.interpreter.apply(action, atMs);
  }

  /** See FaultInterpreter.perform. */
  perform(a: SimAction): void {
    this.interpreter.perform(a);
  }

  /** True while a `power-off` action (or the initial conditions) holds the node's payload off. */
  holdsOff(node: string): boolean {
    return this.heldOff.has(node);
  }

  /** Holds the node's payload off (a `power-off` action) or releases it (`power-on`). */
  hold(node: string, off: boolean): void {
    if (off) this.heldOff.add(node);
    else this.heldOff.delete(node);
  }

  /** Checks every invariant now (no-op in live mode). */
  audit(): void {
    this.rec?.invariants.audit();
  }

  /** A node's simulated state (clocks, faults). @throws CommandError('unknown_node') */
  nodeState(name: string): Readonly<SimNode> {
    return this.nodes.node(name);
  }

  /** True while the node's data path runs: powered on, not frozen, uplink up. */
  dataRunning(node: string): boolean {
    const n = this.nodes.node(node);
    const f = this.fabric;
    return f.controller(node).isPowered && f.pairOfNode(node).backplane.nodeLines(node).power === 'on' && !n.data.isFrozen && n.uplink;
  }

  /** The timeline so far (live array; empty in live mode). */
  get events(): readonly TimelineEntry[] {
    return this.rec?.timeline.entries ?? [];
  }

  /** Takeovers so far (live array; empty in live mode). */
  get takeovers(): readonly TakeoverReport[] {
    return this.rec?.ledger.takeovers ?? [];
  }

  /** Invariant violations so far (live array; empty in live mode). */
  get violationList(): readonly Violation[] {
    return this.rec?.invariants.violations ?? [];
  }

  /** Adds an entry to the timeline (the emulator's own events, e.g. refused operator actions). */
  note(e: TimelineEntry): void {
    this.rec?.timeline.push(e);
  }

  /**
   * Model-independent report parts.
   * @throws Error in live mode (nothing is recorded)
   */
  reportParts(): FabricReport {
    const rec = this.rec;
    if (!rec) throw new Error('HaSimulator: a live simulator records no report');
    const f = this.fabric;
    const now = f.now();
    f.model.settle?.();
    const shares: Record<string, ShareSummary> = {};
    for (const name of f.allShares()) {
      shares[name] = {
        pair: f.pairOf(name).cfg.name, owner: f.ownerOf(name),
        roles: Object.fromEntries(f.rolesOf(name)), epochs: Object.fromEntries(f.epochsOf(name)),
        ...rec.invariants.summary(name),
      };
    }
    const sync = emptySyncStats();
    for (const n of f.nodeNames()) addSyncStats(sync, f.controller(n).syncStats());
    const { takeovers, drops, lost } = rec.ledger.report();
    return {
      timeline: rec.timeline.copy(),
      shares,
      takeovers,
      drops,
      lost,
      sync,
      doubleActive: rec.invariants.doubleActive(now),
      alarms: { ...rec.timeline.alarms },
      invariants: { checks: rec.invariants.checks, violations: rec.invariants.violations.map((v) => ({ ...v })) },
    };
  }

  private get interpreter(): FaultInterpreter {
    if (!this.interp) throw new Error('HaSimulator: not attached to a fabric yet');
    return this.interp;
  }
}
