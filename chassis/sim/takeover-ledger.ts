/**
 * The takeover ledger of a simulated run: each time the hubs move a share to another node it asks
 * the data model what moved (`HaDataModel.moved`: t_f, the old owner's acknowledged watermark, the
 * sessions the new owner lacks), applies the session-loss oracle (oracle.ts, ha.md §5.5), measures
 * detection and takeover time from the fault that led to it, and records the takeover in the
 * timeline. A protected session lost while at most one component was faulty is a violation of the
 * invariant 'protected-sessions'. Losses outside takeovers (a split-brain loser dropping its
 * table) are kept as drops. Totals by age feed the report. Pure.
 */
import type { HaFabric, LossNote, LostItem } from '../ha/ha-fabric.ts';
import type { ActivationKind } from '../ha/pair-machine.ts';
import type { InvariantAudit } from './invariants.ts';
import { classifyLoss } from './oracle.ts';
import type { LossSummary } from './oracle.ts';
import type { Timeline } from './timeline.ts';

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

/** A loss outside a takeover. */
export interface DropReport {
  t: number;
  share: string;
  lost: number;
  lostAges: Array<[number, number]>;
  /** With a LossNote's reason only: lost sessions the oracle protects (from its watermark). */
  lostProtected?: number;
  /** Why no takeover saved them (a move nobody claimed); absent for a split-brain loser's drop. */
  reason?: string;
  /** The node whose table lost them (with a reason). */
  node?: string;
}

/** Loss totals over a run. */
export interface LossTotals {
  lost: number;
  lostProtected: number;
  lostEstablished: number;
  maxLostAgeMs: number;
  byAge: Record<string, number>;
}

/** Where the ledger reads fault times and counts. */
export interface LedgerFaults {
  /** Time of the last fault injected into `node` (null after an operator switchover). */
  lastFaultAt(node: string): number | null;
  /** Time of the last action on the pair of `share`. */
  lastActionAt(share: string): number;
  /** Components faulty now. */
  faultCount(): number;
}

/** See the module header. */
export class TakeoverLedger {
  private readonly takeoverList: TakeoverReport[] = [];
  private readonly dropList: DropReport[] = [];
  private totals: LossTotals = { lost: 0, lostProtected: 0, lostEstablished: 0, maxLostAgeMs: 0, byAge: {} };

  constructor(
    private readonly fabric: HaFabric,
    private readonly faults: LedgerFaults,
    private readonly timeline: Timeline,
    private readonly invariants: InvariantAudit,
  ) {}

  /** Takeovers so far (live array). */
  get takeovers(): readonly TakeoverReport[] {
    return this.takeoverList;
  }

  /** The hubs moved `share` from `prev` (null: first activation) to `node`. */
  assigned(share: string, node: string, prev: string | null): void {
    const now = this.fabric.now();
    const act = this.fabric.controller(node).lastActivation(share) ?? { epoch: 0, kind: null, notHot: false };
    const kind = act.kind;
    if (prev === null) {
      this.timeline.push({ t: now, type: 'takeover', share, from: null, to: node, kind });
      return;
    }
    const planned = kind === 'planned';
    const facts = this.fabric.model.moved?.(share, prev, node, planned) ?? null;
    if (!facts) return;
    const cfg = this.fabric.cfg;
    const oracle = { tf: facts.tf, syncMinAgeMs: cfg.syncMinAgeMs, syncBatchMs: cfg.syncBatchMs, watermark: facts.watermark, planned };
    const loss = classifyLoss(facts.lost, oracle);
    const faultAt = this.faults.lastFaultAt(prev) ?? this.faults.lastActionAt(share);
    const faultsAtTf = facts.stopFaults !== null ? Math.max(facts.stopFaults, this.faults.faultCount()) : this.faults.faultCount();
    const lostAges = facts.lost.map((c): [number, number] => [faultAt - c.createdAt, c.sessions]).sort((a, b) => b[0] - a[0]);
    const from = facts.from ?? prev;
    const rep: TakeoverReport = {
      share, from, to: node, kind, epoch: act.epoch, notHot: act.notHot,
      faultAt, claimAt: now, forwardingAt: facts.forwardingAt, tf: facts.tf, detectionMs: now - faultAt, takeoverMs: facts.forwardingAt - faultAt,
      detectionIntervals: (now - faultAt) / cfg.heartbeatMs, faultsAtTf, loss, lostAges,
    };
    this.takeoverList.push(rep);
    this.timeline.push({ t: now, type: 'takeover', share, from, to: node, kind });
    this.addLoss(loss);
    if (loss.lostProtected > 0 && faultsAtTf <= 1) {
      this.invariants.violate('protected-sessions', `${share}: ${loss.lostProtected} protected sessions lost in the takeover ${from} → ${node} (faults at t_f: ${faultsAtTf})`);
    }
  }

  /**
   * Records a loss outside a takeover: a split-brain loser dropping its table (no note), or sessions
   * the hubs moved to a buddy that never took the share over (`note`: why, where, the last owner's
   * acknowledged watermark — a timeline entry, and a 'protected-sessions' violation when protected
   * sessions were lost while at most one component was faulty).
   */
  noteLoss(items: readonly LostItem[], share: string, tf: number, note?: LossNote): void {
    if (items.length === 0) return;
    const cfg = this.fabric.cfg;
    const loss = classifyLoss(items, { tf, syncMinAgeMs: cfg.syncMinAgeMs, syncBatchMs: cfg.syncBatchMs, watermark: note?.watermark ?? -Infinity, planned: false });
    this.addLoss(loss);
    const lostAges = items.map((c): [number, number] => [tf - c.createdAt, c.sessions]).sort((a, b) => b[0] - a[0]);
    if (note?.reason === undefined) {
      this.dropList.push({ t: tf, share, lost: loss.lost, lostAges });
      return;
    }
    this.dropList.push({ t: tf, share, lost: loss.lost, lostAges, lostProtected: loss.lostProtected, reason: note.reason, ...(note.node ? { node: note.node } : {}) });
    this.timeline.push({ t: this.fabric.now(), type: 'loss', share, node: note.node ?? null, lost: loss.lost, protected: loss.lostProtected, reason: note.reason });
    const faults = Math.max(note.faults ?? 0, this.faults.faultCount());
    if (loss.lostProtected > 0 && faults <= 1) {
      this.invariants.violate('protected-sessions', `${share}: ${loss.lostProtected} protected sessions lost with no takeover (${note.reason}; faults at t_f: ${faults})`);
    }
  }

  /** Copies of the takeovers, drops and totals (JSON-safe). */
  report(): { takeovers: TakeoverReport[]; drops: DropReport[]; lost: LossTotals } {
    return {
      takeovers: this.takeoverList.map((t) => ({ ...t, loss: { ...t.loss, byAge: { ...t.loss.byAge } }, lostAges: t.lostAges.map((x): [number, number] => [x[0], x[1]]) })),
      drops: this.dropList.map((d) => ({ ...d, lostAges: d.lostAges.map((x): [number, number] => [x[0], x[1]]) })),
      lost: { ...this.totals, byAge: { ...this.totals.byAge } },
    };
  }

  private addLoss(loss: LossSummary): void {
    this.totals.lost += loss.lost;
    this.totals.lostProtected += loss.lostProtected;
    this.totals.lostEstablished += loss.lostEstablished;
    this.totals.maxLostAgeMs = Math.max(this.totals.maxLostAgeMs, loss.maxLostAgeMs);
    for (const [k, v] of Object.entries(loss.byAge)) this.totals.byAge[k] = (this.totals.byAge[k] ?? 0) + v;
  }
}
