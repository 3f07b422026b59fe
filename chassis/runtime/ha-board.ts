/**
 * The emulator's HA data model (chassis/ha/ha-fabric.ts `HaDataModel`) over the real data plane:
 * each processor board's session table (board/processor) is the share tables of its HA members,
 * the hubs' shared resilient bucket table (EcmpGroup through share-router.ts)
 * is the share router, and the session-record codec (board/processor/session-record.ts) is the
 * payload of every synced record.
 *
 * Shares of a session. A board's table holds the sessions of every share the hubs send it: its own
 * share (`lb1/slot3` on slot3) and, after a takeover, its buddy's. A session belongs to the share
 * whose home is the bucket its 5-tuple hashes to (the hubs' hash of the key, `homeTable`), so the
 * owner syncs exactly the sessions of the share it owns. A per-board index (creation time, entry,
 * share) is refreshed lazily: incrementally when the sync engine asks for sessions newer than the
 * last scan (every T_s or so), fully after anything was imported into the live table.
 *
 * Standby side. Synced records are decoded into SessionRecords and imported into the board's
 * standby table of the share (ProcessorBoard.importSession; deletes with deleteStandbySession); a
 * key map of the records held serves the full-resync sweep. Takeover: ProcessorBoard.promote.
 *
 * Leaving service (the DataPlane's `handover` hook, called while the board's table still holds its
 * sessions — a board leaving M4, or a node reset / power loss, which takes its payload out of
 * service):
 * - planned (deactivation: handle opened, Set FRU Activation): a final sync done in-process — every
 *   session of the leaving board is imported into the buddy's standby table and promoted at once,
 *   so nothing is lost, young sessions included; the HA members then hand the shares over;
 * - unplanned (failure, extraction, reset, power loss): the hubs move the board's buckets to its
 *   buddy at once (the ECMP failover target), and the buddy's synced sessions of the shares the
 *   board owned become live (ProcessorBoard.promote); the rest are lost — kept as the takeover's
 *   loss for the HA claim that follows (ha.md §5.5 oracle, t_f = now).
 * Sessions in TIME_WAIT or CLOSE are not counted as lost (no longer open).
 *
 * Limits: docs/ha.md "Known limits of the emulator's HA part". Live path: the translations travel
 * with the sessions (SessionBindings, session-payload.ts).
 */
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import { FlowTuple } from '../../board/packet/flow-tuple.ts';
import type { ProcessorBoard } from '../../board/processor/processor-board.ts';
import { newSessionRecord } from '../../board/processor/session-record.ts';
import { decodePayload, encodePayload, payloadBinding, sessionKey } from './session-payload.ts';
import type { SessionBindings } from './session-payload.ts';
export type { SessionBindings } from './session-payload.ts';
import type { SessionRecord } from '../../board/processor/session-record.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import { shareRouter } from './share-router.ts';
import type { HaFabric, HaDataModel, LostItem, MoveFacts, NodeDataEvent } from '../ha/ha-fabric.ts';
import { sharesOfPair } from '../ha/ha-fabric.ts';
import type { PairConfig } from '../config/ha.ts';
import { emptyShareDataPlane } from '../ha/node-ports.ts';
import type { ShareDataPlane, ShareRouter } from '../ha/node-ports.ts';
import type { SessionSink, SessionSource, SyncRecord } from '../ha/sync-types.ts';
import type { LostByAge } from './ha-seam.ts';
import { LostByAgeCounter } from './lost-by-age.ts';
import { BoardIndex, isOpen } from './board-index.ts';

/** What the model asks of the emulator's HA part. */
export interface BoardModelHooks {
  /** The node's software state is being lost (reset, power loss): take its board out of service. */
  gateOut(slot: number): void;
  /** True while the board in `slot` is leaving by a planned deactivation (set by the hot-swap listener). */
  plannedLeave(slot: number): boolean;
}

/** Logical slot of `slotN`, or -1. */
export function slotNumber(node: string): number {
  const m = /^slot([0-9]{1,3})$/.exec(node);
  return m ? Number(m[1]) : -1;
}

/** A standby store: the records held for a share on one board (keys for the sweep). */
class StandbyStore {
  readonly held = new Map<string, Uint8Array>();
}

/** See the module header. */
export class BoardDataModel implements HaDataModel {
  private fabric!: HaFabric;
  private readonly router: ShareRouter;
  private readonly indexes = new Map<string, BoardIndex>();
  private readonly stores = new Map<string, StandbyStore>();
  private readonly pairOfShare = new Map<string, PairConfig>();
  private readonly peerOf = new Map<string, string>();
  /** Loss of a move recorded before the HA claim (board left service), per share; `to`: where the hubs sent it. */
  private readonly pendingMove = new Map<string, MoveFacts & { to: string }>();
  /**
   * Share → the node whose live table holds its sessions (the last claim, or the buddy the hubs
   * moved it to when its owner left service; null: nobody). Absent until the first claim.
   */
  private readonly holder = new Map<string, string | null>();
  /** What a node owned when its software was lost: share → acknowledged watermark. */
  private readonly lostSoftware = new Map<string, { at: number; faults: number; shares: Map<string, number> }>();
  private readonly tuple = new FlowTuple();
  private homeTable: Int32Array | null = null;
  private homeVersion = -1;
  private readonly homeShare = new Map<number, string>();
  /** Sessions handed to a buddy by planned deactivations, and lost by board failures (reports). */
  handedOver = 0;
  lostOnFailure = 0;
  /** Open sessions lost since start, by age at t_f. */
  private readonly lostCounter = new LostByAgeCounter(() => (this.fabric ? this.fabric.cfg.syncMinAgeMs + this.fabric.cfg.syncBatchMs : Infinity));
  private bindings: SessionBindings | null = null;
  /** Sessions a new owner took over with their synced translation (live path). */
  adoptedBindings = 0;

  /**
   * @param dp    the shelf's data plane (built with buddy failover)
   * @param pairs the shelf's HA pairs
   */
  constructor(
    private readonly dp: DataPlane,
    pairs: readonly PairConfig[],
    private readonly clock: Clock,
    private readonly hooks: BoardModelHooks,
    private readonly log: Logger,
  ) {
    this.router = shareRouter(dp.group, pairs);
    for (const p of pairs) {
      for (const s of sharesOfPair(p)) this.pairOfShare.set(s, p);
      this.peerOf.set(p.members[0], p.members[1]);
      this.peerOf.set(p.members[1], p.members[0]);
      if (p.kind === 'processor') {
        for (const m of p.members) {
          const slot = slotNumber(m);
          if (slot >= 0) this.homeShare.set(slot, `${p.name}/${m}`);
        }
      }
    }
  }

  attach(fabric: HaFabric): void {
    this.fabric = fabric;
  }

  /** Connects the live path's translations: sync payloads carry them, new owners adopt them. */
  setBindings(b: SessionBindings | null): void {
    this.bindings = b;
  }

  /** The new owner `node` adopts the translations its standby copies of `share` carry. */
  private adoptHeld(node: string, share: string): void {
    const bd = this.bindings;
    const slot = slotNumber(node);
    if (bd === null || slot < 0) return;
    const now = this.clock.now();
    const scratch = newSessionRecord();
    for (const [key, payload] of this.store(node, share).held) {
      const t = payloadBinding(payload);
      if (t === null) continue;
      const rec = decodePayload({ key, createdAt: now, sessions: 1, size: payload.length, payload }, now, scratch);
      if (rec && bd.adopt(slot, rec, t)) this.adoptedBindings++;
    }
  }

  /** The buddy took over `from`'s live sessions in-process (a final sync): it adopts their translations. */
  private adoptFrom(from: number, to: number, r: SessionRecord): void {
    const t = this.bindings?.bindingOf(from, r);
    if (t && this.bindings!.adopt(to, r, t)) this.adoptedBindings++;
  }

  private isBoardShare(share: string): boolean {
    return this.pairOfShare.get(share)?.kind === 'processor';
  }

  private board(node: string): ProcessorBoard | null {
    const slot = slotNumber(node);
    if (slot < 0 || !this.dp.boardSlots.includes(slot)) return null;
    return this.dp.board(slot);
  }

  /** The share a session belongs to: the home of the bucket its key hashes to. */
  shareOf(rec: SessionRecord): string | null {
    const g = this.dp.group;
    if (g.mapping !== 'resilient') return null;
    if (this.homeVersion !== g.version || !this.homeTable) {
      this.homeTable = g.homeTable();
      this.homeVersion = g.version;
    }
    const t = this.tuple;
    t.family = rec.family;
    t.src.set(rec.client);
    t.dst.set(rec.server);
    t.proto = rec.proto;
    t.hasPorts = rec.hasPorts;
    t.fragment = false;
    t.sport = rec.hasPorts ? rec.clientPort : 0;
    t.dport = rec.hasPorts ? rec.serverPort : 0;
    const hub = this.dp.hubs[0];
    if (!hub) return null;
    const bucket = g.bucketOf(hub.hashTuple(t));
    const port = bucket >= 0 ? this.homeTable[bucket]! : -1;
    return port >= 0 ? (this.homeShare.get(g.slotOf(port)) ?? null) : null;
  }

  private index(node: string): BoardIndex | null {
    let ix = this.indexes.get(node);
    if (ix) return ix;
    const b = this.board(node);
    if (!b) return null;
    ix = new BoardIndex(b, (r) => this.shareOf(r), () => this.clock.now());
    this.indexes.set(node, ix);
    return ix;
  }

  private store(node: string, share: string): StandbyStore {
    const k = `${node}|${share}`;
    let s = this.stores.get(k);
    if (!s) this.stores.set(k, (s = new StandbyStore()));
    return s;
  }

  /** Sessions lost since start by age cohort (LostByAgeCounter). @returns counts and the boundary, ms */
  lostByAge(): LostByAge {
    return this.lostCounter.snapshot();
  }

  // ---------------------------------------------------------------- HaDataModel

  dataPlane(node: string, share: string): ShareDataPlane {
    if (!this.isBoardShare(share) || !this.board(node)) return emptyShareDataPlane();
    return new BoardShare(this, node, share);
  }

  route(share: string, node: string): void {
    if (!this.isBoardShare(share)) return;
    const target = this.fabric.routerTarget(share);
    // Where the share's sessions are: the last owner, or the buddy the hubs moved them to in
    // hardware when that owner left service (a takeover may not have followed).
    const prev = this.holder.has(share) ? this.holder.get(share)! : target;
    try {
      this.router.assign(share, node);
    } catch (e) {
      this.log.error({ category: 'ha-router', share, node, err: String(e) }, 'the hubs refused a share move');
    }
    this.holder.set(share, node);
    if (prev === null || prev === node) return;
    const pending = this.pendingMove.get(share);
    if (pending && pending.to !== node) {
      // The hubs had moved the share to `prev` and nobody took it over there; now it moves on.
      this.flushPending(share, `the hubs moved it to ${prev} and ${node} claimed it from there`);
    }
    if (!this.pendingMove.has(share)) {
      // A move without a board leaving service (planned switchover, a claim over a live peer, a
      // reclaim while the buddy holds the share): what `prev` holds that the new owner does not is lost.
      const now = this.clock.now();
      const lost = this.lostCounter.count(this.missing(prev, node, share), now);
      this.pendingMove.set(share, {
        tf: now, watermark: this.fabric.controller(prev).sender(share)?.ackedWatermark() ?? -Infinity, stopFaults: null, forwardingAt: now, lost,
        to: node, ...(prev !== target ? { from: prev } : {}),
      });
    }
    this.purge(prev, share);
  }

  /**
   * Records the loss of a pending move that no takeover claimed (HaFabric.noteLoss with `reason`)
   * and forgets it.
   */
  private flushPending(share: string, reason: string, bothDown = false): void {
    const p = this.pendingMove.get(share);
    if (!p) return;
    this.pendingMove.delete(share);
    // Both members of the pair left service: two faulty components at least (a powered-off board
    // is not counted by the simulator's fault count).
    const faults = bothDown ? Math.max(2, p.stopFaults ?? 0) : p.stopFaults;
    this.fabric.noteLoss(p.lost, share, p.tf, { reason, node: p.from ?? this.fabric.routerTarget(share) ?? p.to, watermark: p.watermark, faults });
  }

  settle(): void {
    for (const share of [...this.pendingMove.keys()]) this.flushPending(share, `the hubs moved it to ${this.pendingMove.get(share)!.to} and no takeover followed`);
  }

  shift(share: string, percent: number): void {
    if (!this.isBoardShare(share)) return;
    this.router.shift(share, percent);
  }

  moved(share: string, prev: string, node: string): MoveFacts | null {
    const f = this.pendingMove.get(share);
    this.pendingMove.delete(share);
    if (prev === node && !f) return null;
    if (!f) {
      const now = this.clock.now();
      return { tf: now, watermark: -Infinity, stopFaults: null, forwardingAt: now, lost: [] };
    }
    const { to: _to, ...facts } = f;
    return facts;
  }

  /** The node holding `share`'s sessions (see `holder`). */
  private holderOf(share: string): string | null {
    return this.holder.has(share) ? this.holder.get(share)! : this.fabric.routerTarget(share);
  }

  nodeEvent(node: string, ev: NodeDataEvent, at: number): void {
    if (ev !== 'software-lost') return;
    const slot = slotNumber(node);
    if (slot < 0 || !this.board(node)) return;
    const shares = new Map<string, number>();
    for (const s of this.fabric.pairOfNode(node).shares) {
      if (this.holderOf(s) === node) shares.set(s, this.fabric.controller(node).sender(s)?.ackedWatermark() ?? -Infinity);
    }
    this.lostSoftware.set(node, { at, faults: this.fabric.faultCount(), shares });
    this.hooks.gateOut(slot);
    this.lostSoftware.delete(node);
  }

  /**
   * The board in `slot` leaves service with sessions in its table (DataPlane `handover` hook).
   * @returns how many sessions its buddy took over (the rest are counted lost by the data plane)
   */
  handover(slot: number, board: ProcessorBoard): number {
    const node = `slot${slot}`;
    if (!this.fabric?.hasNode(node)) return 0;
    const buddy = this.peerOf.get(node)!;
    const buddySlot = slotNumber(buddy);
    const buddyUp = buddySlot >= 0 && this.dp.isInService(buddySlot);
    const buddyBoard = buddyUp ? this.dp.board(buddySlot) : null;
    const now = this.clock.now();
    let taken = 0;
    if (this.hooks.plannedLeave(slot)) {
      // Final sync in-process: everything moves to the buddy, young sessions included.
      const touched = new Set<string>();
      board.forEachSession((r) => {
        const share = this.shareOf(r);
        if (share === null || !buddyBoard) return;
        if (buddyBoard.importSession(share, r, now)) {
          touched.add(share);
          taken++;
          this.adoptFrom(slot, buddySlot, r);
        }
      });
      if (buddyBoard) for (const s of touched) buddyBoard.promote(s, now);
      for (const s of touched) {
        this.store(buddy, s).held.clear();
        if (this.holderOf(s) !== node) continue;
        this.flushPending(s, `the hubs moved it to ${node} and no takeover followed before ${node} left service`, true);
        this.pendingMove.set(s, { tf: now, watermark: Infinity, stopFaults: null, forwardingAt: now, lost: [], to: buddy, ...(this.fabric.routerTarget(s) !== node ? { from: node } : {}) });
        this.holder.set(s, buddy);
      }
      this.index(buddy)?.invalidate();
      this.index(node)?.invalidate();
      this.handedOver += taken;
      this.log.info({ category: 'ha-handover', slot, to: buddy, sessions: taken }, `slot${slot} deactivated: ${taken} sessions handed to ${buddy}`);
      return taken;
    }
    const lostSw = this.lostSoftware.get(node);
    this.lostSoftware.delete(node);
    const owned = lostSw?.shares ?? new Map([...this.fabric.pairOfNode(node).shares].filter((s) => this.holderOf(s) === node).map((s) => [s, this.fabric.controller(node).sender(s)?.ackedWatermark() ?? -Infinity] as [string, number]));
    const ix = this.index(node)!;
    ix.invalidate();
    for (const [share, watermark] of owned) {
      const standby = this.store(buddy, share).held;
      const lost: LostItem[] = [];
      let held = 0;
      for (const it of ix.between(share, -Infinity, Infinity)) {
        const r = ix.record(it);
        if (!isOpen(r.state)) continue;
        held++;
        if (buddyBoard && standby.has(sessionKey(r))) continue;
        lost.push({ createdAt: r.createdMs, sessions: 1 });
      }
      if (buddyBoard) {
        this.adoptHeld(buddy, share);
        buddyBoard.promote(share, now);
        standby.clear();
        this.index(buddy)?.invalidate();
      }
      taken += held - lost.length;
      this.lostOnFailure += lost.length;
      this.lostCounter.count(lost, lostSw?.at ?? now);
      // An earlier move of this share that no takeover claimed ends here: its sessions were on `node`.
      this.flushPending(share, `the hubs moved it to ${node} and no takeover followed before ${node} left service`, true);
      const from = this.fabric.routerTarget(share) !== node ? { from: node } : {};
      this.pendingMove.set(share, { tf: lostSw?.at ?? now, watermark, stopFaults: lostSw?.faults ?? null, forwardingAt: now, lost, to: buddy, ...from });
      this.holder.set(share, buddyBoard ? buddy : null);
      if (!buddyBoard) this.flushPending(share, `${node} left service and its buddy ${buddy} is out of service`, true);
    }
    return taken;
  }

  /** Live, open sessions of `share` on `from`'s board that `to`'s live table does not hold. */
  private missing(from: string, to: string, share: string): LostItem[] {
    const ix = this.index(from);
    const toBoard = this.board(to);
    if (!ix || !toBoard) return [];
    const out: LostItem[] = [];
    for (const it of ix.between(share, -Infinity, Infinity)) {
      const r = ix.record(it);
      if (!isOpen(r.state)) continue;
      toBoard.table.loadRecordKey(r);
      if (toBoard.table.find() < 0) out.push({ createdAt: r.createdMs, sessions: 1 });
    }
    return out;
  }

  /** The share left `node`: its live sessions of the share become standby copies there. */
  private purge(node: string, share: string): void {
    const ix = this.index(node);
    const b = this.board(node);
    if (!ix || !b) return;
    const st = this.store(node, share);
    const recs: SessionRecord[] = [];
    for (const it of ix.between(share, -Infinity, Infinity)) {
      const r = ix.record(it);
      recs.push({ ...r, client: Uint8Array.from(r.client), server: Uint8Array.from(r.server) });
    }
    const now = this.clock.now();
    const to = slotNumber(this.holderOf(share) ?? '');
    for (const r of recs) {
      b.table.deleteRecord(r);
      if (b.importSession(share, r, now)) st.held.set(sessionKey(r), encodePayload(r, now, this.bindings?.bindingOf(to, r) ?? null));
    }
    ix.invalidate();
  }

  /** BoardShare: the live source of (node, share). */
  source(node: string, share: string): SessionSource {
    return {
      createdBetween: (after, upTo) => this.records(node, share, after, upTo),
      all: () => this.records(node, share, -Infinity, Infinity),
      drainEnded: () => this.index(node)?.drainEnded(share) ?? [],
    };
  }

  private *records(node: string, share: string, after: number, upTo: number): Generator<SyncRecord> {
    const ix = this.index(node);
    if (!ix) return;
    const now = this.clock.now();
    for (const it of ix.between(share, after, upTo)) {
      const r = ix.record(it);
      it.key ??= sessionKey(r);
      it.sent = true;
      const payload = encodePayload(r, now, this.bindings?.bindingOf(slotNumber(node), r) ?? null);
      yield { key: it.key, createdAt: it.created, sessions: 1, size: payload.length, payload };
    }
  }

  /** BoardShare: the standby sink of (node, share). */
  sink(node: string, share: string): SessionSink {
    const b = this.board(node)!;
    const st = this.store(node, share);
    const scratch = newSessionRecord(); // importSession copies it into the table
    return {
      upsert: (records) => {
        const now = this.clock.now();
        for (const r of records) {
          if (!r.payload) continue;
          const rec = decodePayload(r, now, scratch);
          if (!rec) continue;
          if (b.importSession(share, rec, now)) st.held.set(r.key, r.payload);
        }
      },
      remove: (keys) => {
        const now = this.clock.now();
        for (const k of keys) {
          const p = st.held.get(k);
          if (!p) continue;
          st.held.delete(k);
          const rec = decodePayload({ key: k, createdAt: now, sessions: 1, size: p.length, payload: p }, now, scratch);
          if (rec) b.deleteStandbySession(share, rec);
        }
      },
      keys: () => st.held.keys(),
      clear: () => {
        st.held.clear();
        b.discardStandby(share);
      },
    };
  }

  /** BoardShare: takeover of (node, share). A planned one also takes what the old owner created since its final sync. */
  promote(node: string, share: string): void {
    const b = this.board(node)!;
    const now = this.clock.now();
    const act = this.fabric.controller(node).lastActivation(share);
    const peer = this.peerOf.get(node)!;
    if (act?.kind === 'planned') {
      const pix = this.index(peer);
      if (pix && this.board(peer)) {
        for (const it of pix.between(share, -Infinity, Infinity)) {
          const r = pix.record(it);
          this.adoptFrom(slotNumber(peer), slotNumber(node), r);
          b.table.loadRecordKey(r);
          if (b.table.find() >= 0) continue;
          b.importSession(share, r, now);
        }
      }
    } else {
      this.adoptHeld(node, share);
    }
    b.promote(share, now);
    this.store(node, share).held.clear();
    this.index(node)?.invalidate();
  }

  /** BoardShare: a split-brain loser drops its live sessions of the share (they are lost). */
  drop(node: string, share: string): void {
    const ix = this.index(node);
    const b = this.board(node);
    if (!ix || !b) return;
    const lost: LostItem[] = [];
    const recs: SessionRecord[] = [];
    for (const it of ix.between(share, -Infinity, Infinity)) {
      const r = ix.record(it);
      if (isOpen(r.state)) lost.push({ createdAt: r.createdMs, sessions: 1 });
      recs.push({ ...r, client: Uint8Array.from(r.client), server: Uint8Array.from(r.server) });
    }
    for (const r of recs) b.table.deleteRecord(r);
    ix.invalidate();
    this.lostCounter.count(lost, this.clock.now());
    this.fabric.noteLoss(lost, share, this.clock.now());
  }

  /** BoardShare: the node lost its memory (standby copies gone; the live table is cleared by the data plane). */
  reset(node: string, share: string): void {
    this.store(node, share).held.clear();
    this.board(node)?.discardStandby(share);
    this.index(node)?.invalidate();
  }
}

/** The ShareDataPlane of one (node, share) on a processor board. */
class BoardShare implements ShareDataPlane {
  readonly source: SessionSource;
  readonly sink: SessionSink;

  constructor(private readonly m: BoardDataModel, private readonly node: string, private readonly share: string) {
    this.source = m.source(node, share);
    this.sink = m.sink(node, share);
  }

  promote(): void {
    this.m.promote(this.node, this.share);
  }

  demote(keep: boolean): void {
    // Kept sessions stay live until the hubs move the share (the model's route() makes them
    // standby copies then); a split-brain loser drops them.
    if (!keep) this.m.drop(this.node, this.share);
  }

  hold(): void {
    // The board keeps forwarding; a planned takeover collects what it created meanwhile.
  }

  resume(): void {}

  reset(): void {
    this.m.reset(this.node, this.share);
  }
}


