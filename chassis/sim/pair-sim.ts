/**
 * Deterministic simulation of redundant pairs in simulated time with sessions as counts with
 * ages: the engine under `atcasim chaos` and the `sessions: model` mode of `atcasim scenario`
 * (docs/ha.md), after corosync-vqsim's pattern (in-process, scripted, an oracle after every step;
 * ha.md §2.5).
 *
 * The pairs and nodes are the HA fabric's (chassis/ha/ha-fabric.ts); clocks, links, faults, the
 * timeline, the takeover ledger and the invariant audit the simulator's (ha-simulator.ts), both
 * shared with the emulator's HA part. The data plane is the count model (count-model.ts).
 *
 * API: `const sim = createPairSim({ seed, ha, pairs, traffic })`, `sim.apply(action, atMs)`,
 * `sim.run(untilMs)`, `sim.report()`. The same seed gives the same report.
 */
import { SimClock } from '../../board/common/sim-clock.ts';
import type { HaConfig, PairConfig, ResolvedHaConfig } from '../config/ha.ts';
import { resolveHaConfig } from '../config/ha.ts';
import { HaFabric } from '../ha/ha-fabric.ts';
import type { WireRole } from '../ha/heartbeat.ts';
import type { NodeController } from '../ha/node-controller.ts';
import type { Backplane } from '../model/backplane.ts';
import type { IpmiWatchdog } from '../model/ipmi-watchdog.ts';
import { CountModel, DEFAULT_TRAFFIC } from './count-model.ts';
import type { TrafficConfig } from './count-model.ts';
import { HaSimulator } from './ha-simulator.ts';
import type { ShareSummary } from './ha-simulator.ts';
import type { SimAction } from './sim-actions.ts';
import type { TakeoverReport } from './takeover-ledger.ts';
import type { TimelineEntry } from './timeline.ts';

export type { TakeoverReport } from './takeover-ledger.ts';
export type { TimelineEntry } from './timeline.ts';

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

/** The report of a count-model run (JSON-safe). */
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

/** The simulation. Create with `createPairSim`. */
export class PairSim {
  readonly clock = new SimClock();
  readonly cfg: ResolvedHaConfig;
  private readonly fabricRef: HaFabric;
  private readonly sim: HaSimulator;
  private readonly model: CountModel;

  constructor(readonly options: PairSimOptions) {
    this.cfg = resolveHaConfig(options.ha ?? {});
    const traffic = options.traffic === false ? null : { ...DEFAULT_TRAFFIC, ...(options.traffic ?? {}) };
    const pairs = options.pairs ?? [
      { name: 'shmc', kind: 'shmc', members: ['shmc-a', 'shmc-b'] },
      { name: 'lb1', kind: 'processor', members: ['slot3', 'slot4'] },
    ];
    this.sim = new HaSimulator({
      ...(options.linkLatencyMs !== undefined ? { linkLatencyMs: options.linkLatencyMs } : {}),
      wire: options.wire === true,
      initial: options.initial ?? {},
    });
    this.model = new CountModel(options.seed, traffic, this.cfg, pairs, this.sim);
    this.fabricRef = new HaFabric({
      seed: options.seed, cfg: this.cfg, pairs, clock: this.clock, model: this.model, links: this.sim.links,
      ...(options.version !== undefined ? { version: options.version } : {}),
      unsafeNoInterlockGuard: options.unsafeNoInterlockGuard === true,
      supervisor: this.sim,
    });
    this.sim.start();
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
    return this.sim.apply(action, atMs);
  }

  /** Runs simulated time up to `untilMs`. */
  run(untilMs: number): void {
    this.clock.runUntil(untilMs);
  }

  /** The simulator under the simulation (faults, timeline, takeovers, invariants, report parts). */
  get ha(): HaSimulator {
    return this.sim;
  }

  /** The fabric (pairs, nodes, roles) under the simulation. */
  get fabric(): HaFabric {
    return this.fabricRef;
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
    return this.model.liveSessions(share);
  }

  /** The timeline so far (live array; copy before mutating). */
  get events(): readonly TimelineEntry[] {
    return this.sim.events;
  }

  /** The report (JSON-safe). */
  report(): PairSimReport {
    const now = this.clock.now();
    const parts = this.sim.reportParts();
    const { created, ended, live } = this.model.totals();
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
