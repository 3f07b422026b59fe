/**
 * The count model of the data plane under the HA simulation (pair-sim.ts): sessions as cohorts
 * (created by a generator of new flows per second with a log-normal duration distribution), held
 * in per-node share tables that the sync engine copies to the standby, a fake share router (who
 * receives each share's new flows: the fabric's router target), and what each move of a share
 * lost (`moved`, for the takeover ledger's ha.md §5.5 oracle). Randomness: SeededRandom per pair
 * from the seed. Pure.
 */
import { SeededRandom } from '../../board/common/random.ts';
import type { Random } from '../../board/common/random.ts';
import type { PairConfig, ResolvedHaConfig } from '../config/ha.ts';
import { seedHash } from '../ha/ha-fabric.ts';
import type { HaDataModel, HaFabric, LostItem, MoveFacts, NodeDataEvent } from '../ha/ha-fabric.ts';
import type { ShareDataPlane } from '../ha/node-ports.ts';
import { IP_UDP_OVERHEAD, recordWireBytes, SYNC_HEADER_BYTES } from '../ha/sync-codec.ts';
import type { SessionSink, SessionSource, SyncRecord } from '../ha/sync-types.ts';
import type { HaSimulator } from './ha-simulator.ts';

/** The count model's traffic: new sessions per share and their log-normal durations. */
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

/** The live cohorts of one share, with a heap of their end times. */
class SessionLedger {
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
    private readonly ledger: SessionLedger | null,
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

/** The count model as the fabric's data model (see the module header). */
export class CountModel implements HaDataModel {
  private fabric!: HaFabric;
  /** node → share → table. */
  private readonly tables = new Map<string, Map<string, ShareTable>>();
  /** share → ledger (processor shares with traffic). */
  readonly ledgers = new Map<string, SessionLedger>();
  /** Fraction of its own nominal new flows each share keeps (blue/green shift); the rest go to the buddy share. */
  private readonly fraction = new Map<string, number>();
  private readonly carry = new Map<string, number>();
  private readonly randoms = new Map<string, Random>();
  /** New flows that found no forwarding owner (outage windows). */
  refused = 0;
  private readonly maxCohortSessions: number;
  private readonly classDurations: number[];

  /**
   * @param seed    seed of the traffic draws
   * @param traffic the traffic model (null: no sessions)
   * @param cfg     the HA timing (the sync MTU bounds a cohort's size)
   * @param pairs   the shelf's pairs
   * @param sim     the simulator (data-path state of the nodes, the audit after each tick)
   */
  constructor(
    private readonly seed: number,
    private readonly traffic: TrafficConfig | null,
    cfg: ResolvedHaConfig,
    private readonly pairs: readonly PairConfig[],
    private readonly sim: HaSimulator,
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
      if (pair.cfg.kind === 'processor' && this.traffic) this.ledgers.set(share, new SessionLedger(share));
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

  /** Live sessions of a share (the model's ground truth). */
  liveSessions(share: string): number {
    const l = this.ledgers.get(share);
    let n = 0;
    if (l) for (const c of l.alive.values()) n += c.sessions;
    return n;
  }

  /** Sessions created and ended so far, and alive now, over every share. */
  totals(): { created: number; ended: number; live: number } {
    let created = 0;
    let ended = 0;
    let live = 0;
    for (const l of this.ledgers.values()) {
      created += l.created;
      ended += l.ended;
      for (const c of l.alive.values()) live += c.sessions;
    }
    return { created, ended, live };
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
      this.sim.audit();
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
    if (!target || !table || !this.sim.dataRunning(target) || !table.forwarding(now)) {
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
