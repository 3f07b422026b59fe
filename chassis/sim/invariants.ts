/**
 * The invariant audit of a simulated run, over the fabric's roles and backplane lines: at most one
 * owner per share and one ACTIVE line per channel while the interlock is on; epochs never decrease
 * and a new owner's epoch exceeds the previous owner's; HEALTHY low throughout a reset. (The fourth,
 * no protected session lost in a takeover while at most one component is faulty, is the takeover
 * ledger's: takeover-ledger.ts.) Violations and double-active episodes land in the timeline.
 *
 * It also keeps each share's owner history for the report: changes of owner (takeovers and
 * handovers; the first activation is not counted) and role transitions into or out of 'active'.
 *
 * Audited after every role change, line change and action, and whenever the model calls `audit()`
 * (ha-simulator.ts wires the calls). Pure.
 */
import type { HaFabric } from '../ha/ha-fabric.ts';
import type { RoleChange } from '../ha/node-ports.ts';
import type { Timeline, TimelineEntry } from './timeline.ts';

/** Per-share history. */
interface ShareHistory {
  ownerEpoch: number;
  ownerNode: string | null;
  ownerChanges: number;
  activeRoleChanges: number;
  firstActivation: boolean;
  doubleSince: number | null;
  doubleEntry: Extract<TimelineEntry, { type: 'double-active' }> | null;
}

/** A violation of an invariant. */
export interface Violation {
  t: number;
  invariant: string;
  detail: string;
}

/** See the module header. */
export class InvariantAudit {
  private readonly history = new Map<string, ShareHistory>();
  private readonly epochSeen = new Map<string, number>();
  private readonly list: Violation[] = [];
  private checkCount = 0;
  private doubleEpisodes = 0;
  private doubleMs = 0;

  /**
   * @param fabric      the wired pairs
   * @param timeline    where violations and double-active episodes are recorded
   * @param interlockOff true while the simulation has the interlock off (two owners are then allowed)
   */
  constructor(private readonly fabric: HaFabric, private readonly timeline: Timeline, private readonly interlockOff: () => boolean) {}

  /** Violations so far (live array). */
  get violations(): readonly Violation[] {
    return this.list;
  }

  /** Audits so far. */
  get checks(): number {
    return this.checkCount;
  }

  /** Starts the history of a share. */
  addShare(share: string): void {
    this.history.set(share, {
      ownerEpoch: 0, ownerNode: null, ownerChanges: 0, activeRoleChanges: 0, firstActivation: true, doubleSince: null, doubleEntry: null,
    });
  }

  /** A role change: epoch invariants and the owner history (the caller audits afterwards). */
  onRole(e: RoleChange): void {
    const st = this.history.get(e.share)!;
    const key = `${e.node}|${e.share}`;
    const prevEpoch = this.epochSeen.get(key) ?? 0;
    if (e.epoch < prevEpoch) this.violate('epoch-monotonic', `${e.node} ${e.share}: epoch ${prevEpoch} → ${e.epoch}`);
    this.epochSeen.set(key, Math.max(prevEpoch, e.epoch));
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
  }

  /** Records a violation now (an identical one at the same instant is recorded once). */
  violate(invariant: string, detail: string): void {
    const t = this.fabric.now();
    const last = this.list[this.list.length - 1];
    if (last && last.invariant === invariant && last.detail === detail && last.t === t) return;
    this.list.push({ t, invariant, detail });
    this.timeline.push({ t, type: 'violation', invariant, detail });
  }

  /** Checks every invariant now (nothing once the fabric is disposed). */
  audit(): void {
    if (this.fabric.isDisposed) return;
    this.checkCount++;
    const now = this.fabric.now();
    for (const name of this.fabric.allShares()) this.auditShare(name, now);
    for (const node of this.fabric.nodeNames()) {
      const bp = this.fabric.pairOfNode(node).backplane;
      const l = bp.nodeLines(node);
      if (l.power === 'reset' && (bp.drivenHealthy(node) || (l.healthy && bp.stuckHealthy(node) !== 'high'))) {
        this.violate('healthy-low-in-reset', `${node}: HEALTHY high during a reset`);
      }
    }
  }

  /** Owner changes and active-role changes of a share (report). */
  summary(share: string): { ownerChanges: number; activeRoleChanges: number } {
    const st = this.history.get(share)!;
    return { ownerChanges: st.ownerChanges, activeRoleChanges: st.activeRoleChanges };
  }

  /** Double-active episodes and their total length up to `now`, ms. */
  doubleActive(now: number): { episodes: number; totalMs: number } {
    let open = 0;
    for (const st of this.history.values()) if (st.doubleSince !== null) open += now - st.doubleSince;
    return { episodes: this.doubleEpisodes, totalMs: this.doubleMs + open };
  }

  private auditShare(name: string, now: number): void {
    const st = this.history.get(name)!;
    const owners = this.fabric.ownersOf(name);
    if (owners.length >= 2) {
      if (st.doubleSince === null) {
        st.doubleSince = now;
        this.doubleEpisodes++;
        st.doubleEntry = { t: now, type: 'double-active', share: name, nodes: owners, until: null };
        this.timeline.push(st.doubleEntry);
        if (!this.interlockOff()) this.violate('single-owner', `${name}: two owners ${owners.join(' and ')}`);
      }
    } else if (st.doubleSince !== null) {
      this.doubleMs += now - st.doubleSince;
      if (st.doubleEntry) st.doubleEntry.until = now;
      st.doubleSince = null;
      st.doubleEntry = null;
    }
    const pair = this.fabric.pairOf(name);
    const bp = pair.backplane;
    if (bp.interlock) {
      const high = pair.cfg.members.filter((m) => bp.lines(m, name).active);
      if (high.length > 1) this.violate('single-active-line', `${name}: ACTIVE high on ${high.join(' and ')} with the interlock on`);
    }
  }
}
