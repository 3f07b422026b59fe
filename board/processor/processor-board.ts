/**
 * ProcessorBoard: the stateful stage of the appliance, one per processor (node) slot. It keeps
 * every conversation on one real server (RS) and spreads new ones over the services' pools.
 *
 * Per packet (`handle(pkt, now)`), the ATCA processor card's pipeline (parse, look up, rewrite):
 *  1. session table (exact match, direction-insensitive) — a hit goes to the pinned RS, moves
 *     the TCP state, refreshes the entry's LRU place and age;
 *  2. on a miss: ACL (ternary) → rule table (most specific VIP:port:protocol) → persistence
 *     template → scheduler among the RS health allows → insert (or `table_full`);
 *  3. the packet is forwarded: towards the RS inside an IPIP/GRE tunnel (client → server), or
 *     as it came (server → client replies), through the EmitSink when one is attached.
 * Policies:
 *  - A TCP segment other than a bare SYN that finds no session is picked up mid-stream
 *    (`midstreamPickup`, default true: replayed captures start mid-connection) or dropped as
 *    `no_session` (strict mode, the SYN-flood defence of issue 3).
 *  - Port reuse (IPVS conn_reuse_mode): a bare SYN on a session in FIN_WAIT, TIME_WAIT or CLOSE,
 *    or whose RS is drained (weight 0) or down, ends that session and is scheduled afresh.
 *  - Weight 0 drains: existing sessions stay on the RS, new ones go elsewhere.
 *  - RS down: no new sessions; a packet of an existing TCP session to it is dropped (`rs_down`)
 *    and the session ended (IPVS expire_nodest_conn); a UDP/other session is rescheduled
 *    (dataplane.md P7).
 *  - An ICMP/ICMPv6 error quoting a packet of a known session goes to that session's RS.
 *  - `parse_error`: no usable IP header in a malformed packet, or a TCP/UDP/SCTP packet whose
 *    ports could not be read; other malformations deeper in the packet are forwarded as
 *    captured. `not_ip`: a frame without an IP header (ARP, LLDP…).
 * Time comes in as `now` (ms); `handle` runs `tick(now)` itself when a deadline has passed, so a
 * replay needs no timer. The hot path allocates nothing: the verdict objects are reused.
 */
import type { PacketView, FlowTuple } from '../packet/flow-tuple.ts';
import { addressText } from '../packet/flow-tuple.ts';
import type { Logger } from '../common/logger.ts';
import { nullLogger } from '../common/logger.ts';
import type { ProcessorConfig, AclRuleConfig, TimeoutConfig } from './processor-config.ts';
import { DEFAULT_SESSION_TABLE, DEFAULT_TIMEOUTS } from './processor-config.ts';
import { SessionTable, RemoveReason, REMOVE_REASON_NAMES } from './tcam/session-table.ts';
import type { RemoveReasonCode } from './tcam/session-table.ts';
import { PersistenceTable } from './tcam/persistence.ts';
import { Acl } from './acl.ts';
import { RealServer, simulatedLoad } from './real-server.ts';
import { RuleTable, VirtualService } from './vip.ts';
import { createScheduler } from './scheduler/index.ts';
import type { PoolView } from './scheduler/scheduler.ts';
import { loadScore, weightsFromScores } from './scheduler/load-score.ts';
import { HealthChecker } from './health/health-check.ts';
import type { HealthChange } from './health/health-check.ts';
import type { ProbePort } from './health/probe-port.ts';
import type { EmitSink } from './encap.ts';
import { Encapsulator } from './encap.ts';
import { parseAddress } from './ip-address.ts';
import {
  SessionState, STATE_NAMES, TCP_ACK, TCP_RST, TCP_SYN, tcpInitialFlags, tcpInitialState,
} from './tcp-state.ts';
import type { SessionRecord } from './session-record.ts';
import { newSessionRecord } from './session-record.ts';

/** Why the board dropped a packet (snake_case, as `atcasim replay --json` reports them). */
export type DropReason =
  | 'parse_error' | 'not_ip' | 'acl' | 'no_session' | 'no_rule' | 'rs_down' | 'table_full' | 'encap_fail';

/** Every drop reason, in report order. */
export const DROP_REASONS: readonly DropReason[] = [
  'parse_error', 'not_ip', 'acl', 'no_session', 'no_rule', 'rs_down', 'table_full', 'encap_fail',
];
const D_PARSE = 0;
const D_NOT_IP = 1;
const D_ACL = 2;
const D_NO_SESSION = 3;
const D_NO_RULE = 4;
const D_RS_DOWN = 5;
const D_TABLE_FULL = 6;
const D_ENCAP = 7;

/** Verdict: the packet goes to `rs` of `service`. Reused by the next `handle` call. */
export interface Forward {
  readonly kind: 'forward';
  rs: RealServer;
  service: VirtualService;
  /** 0: client → server (tunnelled to the RS); 1: server → client (passed through). */
  dir: 0 | 1;
  /** True when this packet created the session. */
  newSession: boolean;
  /** Session table entry index (valid until the entry is removed). */
  session: number;
}

/** Verdict: the packet is dropped. Reused by the next `handle` call. */
export interface Drop {
  readonly kind: 'drop';
  reason: DropReason;
}

export type Verdict = Forward | Drop;

/** Events the board raises (dotted lower-case types). */
export type ProcessorEvent =
  | { type: 'rs.down' | 'rs.up'; slot: number; service: string; rs: string; atMs: number; detail: string }
  | { type: 'pool.alarm.raised' | 'pool.alarm.cleared'; slot: number; service: string; liveShare: number; threshold: number; atMs: number }
  | { type: 'weights.changed'; slot: number; service: string; weights: Record<string, number>; atMs: number };

/** Options of a ProcessorBoard besides its configuration. */
export interface ProcessorBoardOptions {
  /** Logical slot (1 … 255): names the board in events, derives its MAC and tunnel source. */
  slot: number;
  /** Board start time (ms). Default: the first `now` it sees. Health probes start one interval later. */
  startMs?: number;
  log?: Logger;
  /** Real probes for RS with `address: host:port` and kind tcp/http (chassis/io/health-probe.ts). */
  probe?: ProbePort;
  /** Where forwarded frames go; none = decide and count only. */
  emit?: EmitSink;
  onEvent?: (ev: ProcessorEvent) => void;
  /** Called when a live session leaves the table (expired, evicted, reused, rs_down, deleted),
   * with a reused record (copy to keep): the HA layer's delete sync. */
  onSessionRemoved?: (rec: SessionRecord, reason: string) => void;
  /** Maximum entries a sweep removes per tick, default 1024. */
  sweepBudget?: number;
}

/** Per-RS figures in a stats snapshot. */
export interface RealServerStats {
  id: number;
  name: string;
  address: string;
  weight: number;
  effectiveWeight: number;
  up: boolean;
  active: number;
  inactive: number;
  packets: number;
}

/** A board's counters (a fresh object per call). */
export interface ProcessorStats {
  slot: number;
  packets: number;
  bytes: number;
  forwarded: number;
  /** Sessions created (a conversation = one flow). */
  flows: number;
  drops: Record<DropReason, number>;
  sessions: {
    created: number; active: number; evicted: number; expired: number; reused: number;
    capacity: number; byState: Record<string, number>; memoryBytes: number;
  };
  hot: { size: number; capacity: number; hits: number; coldHits: number; ratio: number; promotions: number; demotions: number };
  services: Array<{
    name: string; vip: string; port: number; scheduler: string; liveShare: number; alarm: boolean; rs: RealServerStats[];
  }>;
}

/** The processor board. */
export class ProcessorBoard {
  readonly slot: number;
  readonly services: readonly VirtualService[];
  readonly realServers: readonly RealServer[];
  /** The live session table. */
  readonly table: SessionTable;
  readonly acl: Acl;
  readonly midstreamPickup: boolean;

  // counters
  packets = 0;
  bytes = 0;
  forwarded = 0;
  flows = 0;
  reused = 0;
  readonly dropCounts = new Float64Array(DROP_REASONS.length);
  readonly rsPackets: Float64Array;
  /** After `handle`: the session-table entry of the packet's own (outer) conversation when the
   * board found or created one, else −1 (dropped before or without a session, or an ICMP error
   * forwarded by the session it quotes). The data plane reads it for its flow statistics. */
  lastSession = -1;

  private readonly config: ProcessorConfig;
  private readonly log: Logger;
  private readonly rules: RuleTable;
  private readonly persist: PersistenceTable;
  private readonly pools: PoolView[];
  private readonly weight: Int32Array;
  private readonly up: Uint8Array;
  private readonly checkers: HealthChecker[];
  private readonly nextDynamicAt: Float64Array;
  private readonly emitSink: EmitSink | null;
  private readonly enc: Encapsulator;
  private readonly onEvent: ((ev: ProcessorEvent) => void) | null;
  private readonly onSessionRemoved: ((rec: SessionRecord, reason: string) => void) | null;
  private readonly sweepBudget: number;
  private readonly removedRec = newSessionRecord();
  private readonly standby = new Map<string, SessionTable>();
  private started = false;
  /** Latest `now` seen (ms). */
  private now = 0;
  private nextTickAt = -Infinity;
  private nextSweepAt = -Infinity;
  private nextHealthAt = -Infinity;

  private readonly fwd: Forward = { kind: 'forward', rs: null as unknown as RealServer, service: null as unknown as VirtualService, dir: 0, newSession: false, session: -1 };
  private readonly drp: Drop = { kind: 'drop', reason: 'parse_error' };

  /**
   * @param config the processor section of the shelf configuration (chassis/config); missing
   *   session/timeout fields take the defaults of processor-config.ts
   * @throws TypeError / RangeError on an invalid configuration (message names the service or RS)
   */
  constructor(config: ProcessorConfig, opts: ProcessorBoardOptions) {
    if (!Number.isInteger(opts.slot) || opts.slot < 0 || opts.slot > 255) throw new TypeError(`processor board slot must be 0..255, got ${opts.slot}`);
    const sessions = { ...DEFAULT_SESSION_TABLE, ...config.sessions };
    const timeouts: TimeoutConfig = { ...DEFAULT_TIMEOUTS, ...config.timeouts };
    this.config = { ...config, sessions, timeouts };
    this.slot = opts.slot;
    this.log = (opts.log ?? nullLogger).child({ module: 'board.processor', slot: opts.slot });
    this.midstreamPickup = config.midstreamPickup ?? true;
    this.sweepBudget = opts.sweepBudget ?? 1024;
    if (config.services.length > 0xffff) throw new RangeError('at most 65535 virtual services per board');

    // real servers and services
    const rs: RealServer[] = [];
    const services: VirtualService[] = [];
    config.services.forEach((sc, si) => {
      const kind = sc.health?.kind ?? 'icmp';
      const members = sc.pool.map((rc) => {
        const r = new RealServer(rs.length, si, rc, kind, (rc.forwarding ?? sc.forwarding ?? 'tunnel') !== 'tunnel');
        rs.push(r);
        return r;
      });
      const sched = createScheduler(sc.scheduler, { maglevTableSize: sc.maglevTableSize });
      services.push(new VirtualService(si, sc, sched, members));
    });
    if (rs.length > 0xffff) throw new RangeError('at most 65535 real servers per board');
    this.services = services;
    this.realServers = rs;
    this.weight = Int32Array.from(rs, (r) => r.weight);
    this.up = new Uint8Array(rs.length).fill(1);
    this.rsPackets = new Float64Array(rs.length);

    this.table = this.newTable();
    this.table.onRemove = (e, reason) => this.sessionRemoved(e, reason);
    this.persist = new PersistenceTable(sessions.persistenceCapacity ?? 262_144, Math.max(1, services.length));
    this.acl = new Acl(sessions.aclCapacity);
    for (const rule of config.acl) this.acl.add(rule);
    this.rules = new RuleTable(services);

    this.pools = services.map((s) => ({
      size: s.members.length,
      ids: Int32Array.from(s.members, (m) => m.id),
      keys: s.members.map((m) => m.key),
      weight: this.weight,
      up: this.up,
      active: this.table.rsActive,
      inactive: this.table.rsInactive,
    }));
    this.checkers = services.map((s, si) => new HealthChecker({
      config: s.health,
      targets: s.members.map((m) => ({
        id: m.id, name: m.name, real: m.real, host: addressText(m.family, m.address), port: m.port, sim: m.sim,
      })),
      startMs: opts.startMs ?? 0,
      probe: opts.probe ?? null,
      onChange: (c) => this.healthChanged(si, c),
    }));
    this.nextDynamicAt = new Float64Array(services.length).fill(Infinity);
    services.forEach((s, si) => s.scheduler.rebuild(this.pools[si]!));

    const mac = Uint8Array.of(0x02, 0xa7, 0xca, 0x00, 0x00, opts.slot & 0xff);
    const gw = Uint8Array.of(0x02, 0xa7, 0xca, 0xff, 0xff, 0xfe);
    const v4 = parseAddress(config.tunnelSourceV4 ?? `10.255.0.${opts.slot}`);
    const v6 = parseAddress(config.tunnelSourceV6 ?? `fd00:a7ca::${opts.slot.toString(16)}`);
    if (v4.family !== 4 || v6.family !== 6) throw new TypeError('tunnelSourceV4 must be IPv4 and tunnelSourceV6 IPv6');
    this.enc = new Encapsulator(mac, gw, v4.bytes.subarray(0, 4), v6.bytes);
    this.emitSink = opts.emit ?? null;
    this.onEvent = opts.onEvent ?? null;
    this.onSessionRemoved = opts.onSessionRemoved ?? null;
    if (opts.startMs !== undefined) this.begin(opts.startMs);
  }

  private newTable(): SessionTable {
    const s = this.config.sessions;
    return new SessionTable({
      capacity: s.capacity,
      hotCapacity: Math.min(s.hotCapacity, s.capacity),
      promoteAfterHits: s.promoteAfterHits,
      timeouts: this.config.timeouts,
      seed: this.config.hashSeed,
      maxRealServers: Math.max(1, this.realServers.length),
    });
  }

  private begin(now: number): void {
    this.started = true;
    for (const c of this.checkers) c.restart(now);
    this.services.forEach((s, si) => {
      if (s.scheduler.name === 'dynamic') {
        this.nextDynamicAt[si] = now;
      }
    });
  }

  // ------------------------------------------------------------------ data path

  /**
   * Classifies and forwards one packet.
   * @param pkt the parsed packet (board/packet); only `outer` is keyed (tunnelled input is
   *   balanced on its outer header)
   * @param now packet time, ms
   * @returns a reused Forward or Drop (valid until the next call)
   */
  handle(pkt: PacketView, now: number): Verdict {
    if (now >= this.nextTickAt) this.tick(now);
    if (now > this.now) this.now = now;
    this.lastSession = -1;
    this.packets++;
    this.bytes += pkt.origLen;
    const t = pkt.outer;
    if (t.family === 0) return this.drop(pkt.malformed === true ? D_PARSE : D_NOT_IP);
    // A malformation the balancer can live with (deeper in the packet) is forwarded as captured;
    // one that hides the ports of a TCP/UDP/SCTP packet leaves nothing to key on. (Booleans read
    // from objects are compared with true/false: one word compare instead of V8's ToBoolean.)
    const hasPorts = t.hasPorts === true;
    const fragment = t.fragment === true;
    if (pkt.malformed === true && !hasPorts && !fragment && (t.proto === 6 || t.proto === 17 || t.proto === 132)) return this.drop(D_PARSE);
    const table = this.table;
    if (pkt.icmpError === true && pkt.quoted.family !== 0) {
      // An ICMP error about a session (e.g. "fragmentation needed") goes to that session's RS,
      // as IPVS relays ICMP for its connections; the session's state is left alone.
      table.loadKey(pkt.quoted);
      const q = table.find();
      if (q >= 0) return this.forward(pkt, t, q, table.rsOf(q), table.serviceOf(q), 0, false, table.hashOf(q), now);
    }
    // int32 flow hash (loadKey's u32 would be a heap number half the time): the schedulers get
    // it as u32 below; the encapsulator uses its low 20 bits.
    const hash = table.loadKeyI32(t);
    const hashPorts = hasPorts && !fragment;
    const isTcp = t.proto === 6 && hashPorts;
    const flags = isTcp ? t.tcpFlags : -1;
    const bareSyn = flags >= 0 && (flags & (TCP_SYN | TCP_ACK | TCP_RST)) === TCP_SYN;
    let e = table.find();
    if (e >= 0) {
      const rs = table.rsOf(e);
      const state = table.stateOf(e);
      if (bareSyn && (state === SessionState.FIN_WAIT || state === SessionState.TIME_WAIT || state === SessionState.CLOSE
        || this.up[rs] === 0 || this.weight[rs] === 0)) {
        table.remove(e, RemoveReason.REUSED);
        this.reused++;
        e = -1;
      } else if (this.up[rs] === 0) {
        table.remove(e, RemoveReason.RS_DOWN);
        if (isTcp) return this.drop(D_RS_DOWN);
        e = -1;
      } else {
        const fromClient = table.isFromClient(e);
        table.applyPacket(e, flags, fromClient, now);
        this.lastSession = e;
        return this.forward(pkt, t, e, rs, table.serviceOf(e), fromClient ? 0 : 1, false, hash, now);
      }
    }
    // miss: a new connection
    if (this.acl.drops(t)) return this.drop(D_ACL);
    if (isTcp && !bareSyn && !this.midstreamPickup) return this.drop(D_NO_SESSION);
    const si = this.rules.lookup(t);
    if (si < 0) return this.drop(D_NO_RULE);
    const svc = this.services[si]!;
    let rs = -1;
    if (svc.persistenceMs > 0) {
      const p = this.persist.lookup(si, t.family, t.src, now);
      if (p >= 0 && this.up[p] === 1 && this.weight[p]! > 0) rs = p;
    }
    if (rs < 0) {
      const pool = this.pools[si]!;
      const pos = svc.scheduler.pick(pool, hash >>> 0, srcHash(t));
      if (pos < 0) return this.drop(D_RS_DOWN);
      rs = pool.ids[pos]!;
    }
    let state: number;
    let ef = 0;
    if (isTcp) {
      state = tcpInitialState(flags);
      ef = tcpInitialFlags(flags);
    } else {
      state = t.proto === 17 && hashPorts ? SessionState.UDP_NEW : SessionState.OTHER_NEW;
    }
    e = table.insert(now, si, rs, state, ef);
    if (e < 0) return this.drop(D_TABLE_FULL);
    if (svc.persistenceMs > 0) this.persist.put(si, t.family, t.src, rs, now, svc.persistenceMs);
    this.flows++;
    this.lastSession = e;
    return this.forward(pkt, t, e, rs, si, 0, true, hash, now);
  }

  private forward(pkt: PacketView, t: FlowTuple, e: number, rsId: number, si: number, dir: 0 | 1, created: boolean, hash: number, now: number): Verdict {
    const rs = this.realServers[rsId]!;
    const svc = this.services[si]!;
    if (this.emitSink !== null) {
      const enc = this.enc;
      const n = dir === 0
        ? enc.encapsulate(pkt.frame, t, svc.encapsulation, rs.family, rs.address, rs.mac, hash)
        : enc.passThrough(pkt.frame, t);
      if (n < 0) return this.drop(D_ENCAP);
      this.emitSink.emit(enc.out, n, now, enc.wireLength);
    }
    this.forwarded++;
    this.rsPackets[rsId]!++;
    const f = this.fwd;
    f.rs = rs;
    f.service = svc;
    f.dir = dir;
    f.newSession = created;
    f.session = e;
    return f;
  }

  private drop(code: number): Drop {
    this.dropCounts[code]!++;
    this.drp.reason = DROP_REASONS[code]!;
    return this.drp;
  }

  // ------------------------------------------------------------------ time

  /**
   * Runs what is due at `now`: session aging (bounded work), persistence expiry, health probes,
   * dynamic weights. `handle` calls it by itself when a deadline passed; a wall-clock shelf
   * also calls it from a Clock timer at the returned deadline.
   * @returns the next deadline, ms
   */
  tick(now: number): number {
    if (!(now === now)) return this.nextTickAt;
    if (now > this.now) this.now = now;
    if (!this.started) this.begin(now);
    if (now >= this.nextSweepAt) {
      const d1 = this.table.sweep(now, this.sweepBudget);
      const d2 = this.persist.sweep(now, this.sweepBudget);
      let d = Math.min(d1, d2);
      for (const st of this.standby.values()) d = Math.min(d, st.sweep(now, this.sweepBudget));
      // Aging to the millisecond buys nothing: sweep at most every 100 ms of board time (again
      // soon when the budget ran out), and at least every second, since entries inserted after
      // this sweep bring deadlines of their own.
      this.nextSweepAt = d <= now ? now + 1 : Math.min(Math.max(d, now + 100), now + 1000);
    }
    if (now >= this.nextHealthAt) {
      let d = Infinity;
      for (let si = 0; si < this.checkers.length; si++) {
        d = Math.min(d, this.checkers[si]!.tick(now));
        if (this.nextDynamicAt[si]! <= now) {
          this.updateDynamicWeights(si, now);
          this.nextDynamicAt[si] = now + this.services[si]!.health.intervalMs;
        }
        d = Math.min(d, this.nextDynamicAt[si]!);
      }
      this.nextHealthAt = d;
    }
    this.nextTickAt = Math.min(this.nextSweepAt, this.nextHealthAt);
    return this.nextTickAt;
  }

  private healthChanged(si: number, c: HealthChange): void {
    const rs = this.realServers[c.id]!;
    const svc = this.services[si]!;
    this.up[c.id] = c.up ? 1 : 0;
    svc.scheduler.rebuild(this.pools[si]!);
    this.log.info({ category: c.up ? 'rs-up' : 'rs-down', service: svc.name, rs: rs.name, detail: c.detail }, `real server ${rs.name} ${c.up ? 'up' : 'down'}`);
    this.onEvent?.({ type: c.up ? 'rs.up' : 'rs.down', slot: this.slot, service: svc.name, rs: rs.name, atMs: c.atMs, detail: c.detail });
    this.checkAlarm(si, c.atMs);
  }

  /** Live share of a pool: configured weight of the members that are up / total configured
   * weight (by member count when every weight is 0). */
  liveShare(si: number): number {
    const svc = this.services[si]!;
    let total = 0;
    let live = 0;
    for (const m of svc.members) {
      total += m.weight;
      if (this.up[m.id] === 1) live += m.weight;
    }
    if (total === 0) {
      const n = svc.members.length;
      return svc.members.filter((m) => this.up[m.id] === 1).length / n;
    }
    return live / total;
  }

  private checkAlarm(si: number, at: number): void {
    const svc = this.services[si]!;
    const share = this.liveShare(si);
    const below = share < svc.alarmBelow;
    if (below === svc.alarmRaised) return;
    svc.alarmRaised = below;
    const type = below ? 'pool.alarm.raised' : 'pool.alarm.cleared';
    (below ? this.log.warn : this.log.info).call(this.log, { category: 'pool-alarm', service: svc.name, liveShare: share }, `pool of ${svc.name}: live share ${(share * 100).toFixed(1)}% ${below ? 'below' : 'back above'} ${svc.alarmBelow * 100}%`);
    this.onEvent?.({ type, slot: this.slot, service: svc.name, liveShare: share, threshold: svc.alarmBelow, atMs: at });
  }

  private updateDynamicWeights(si: number, now: number): void {
    const svc = this.services[si]!;
    const scores = svc.members.map((m) => {
      const l = simulatedLoad(m.sim, this.table.rsActive[m.id]!, this.table.rsInactive[m.id]!);
      return loadScore(l.cpu, l.mem, l.queue);
    });
    const eligible = svc.members.map((m) => m.weight > 0);
    const w = weightsFromScores(scores, eligible);
    let changed = false;
    svc.members.forEach((m, k) => {
      if (this.weight[m.id] !== w[k]) {
        this.weight[m.id] = w[k]!;
        changed = true;
      }
    });
    if (!changed) return;
    svc.scheduler.rebuild(this.pools[si]!);
    const weights: Record<string, number> = {};
    svc.members.forEach((m) => (weights[m.name] = this.weight[m.id]!));
    this.onEvent?.({ type: 'weights.changed', slot: this.slot, service: svc.name, weights, atMs: now });
  }

  // ------------------------------------------------------------------ operator controls

  private member(service: string, rs: string): { si: number; r: RealServer } {
    const si = this.services.findIndex((s) => s.name === service || s.vip === service);
    if (si < 0) throw new TypeError(`no virtual service '${service}' on slot ${this.slot}`);
    const r = this.services[si]!.members.find((m) => m.name === rs);
    if (!r) throw new TypeError(`no real server '${rs}' in service '${service}'`);
    return { si, r };
  }

  /**
   * Sets an RS's configured weight (0 drains it: existing sessions stay, new ones go elsewhere).
   * @param service service name or VIP text; `rs` the RS name
   * @throws TypeError for an unknown service/RS or a weight outside 0..65535
   */
  setWeight(service: string, rs: string, weight: number): void {
    if (!Number.isInteger(weight) || weight < 0 || weight > 65535) throw new TypeError(`weight must be 0..65535, got ${weight}`);
    const { si, r } = this.member(service, rs);
    r.weight = weight;
    const svc = this.services[si]!;
    if (svc.scheduler.name === 'dynamic') {
      if (weight === 0) this.weight[r.id] = 0;
      else this.updateDynamicWeights(si, this.now);
    } else {
      this.weight[r.id] = weight;
    }
    svc.scheduler.rebuild(this.pools[si]!);
  }

  /**
   * Injects (or clears) a failure of a simulated RS: its probes fail until cleared, so health
   * checks mark it down after `fall` probes (scenario action `rs-down VIP RS`).
   * @throws TypeError for an unknown service/RS
   */
  setFailing(service: string, rs: string, failing: boolean): void {
    const { si, r } = this.member(service, rs);
    this.checkers[si]!.setFailing(this.services[si]!.members.indexOf(r), failing);
  }

  /** Adds an ACL rule at run time (a blacklist entry). @returns its id @throws TernaryTableFullError */
  addAclRule(rule: AclRuleConfig): number {
    return this.acl.add(rule);
  }

  /** Removes an ACL rule by id. */
  removeAclRule(id: number): boolean {
    return this.acl.remove(id);
  }

  /** True when health checks say the RS is up. */
  isUp(service: string, rs: string): boolean {
    return this.up[this.member(service, rs).r.id] === 1;
  }

  // ------------------------------------------------------------------ HA hooks

  private sessionRemoved(e: number, reason: RemoveReasonCode): void {
    if (!this.onSessionRemoved) return;
    this.table.readRecord(e, this.removedRec);
    this.onSessionRemoved(this.removedRec, REMOVE_REASON_NAMES[reason]!);
  }

  /**
   * Calls `cb` for every live session with a reused record (copy what you keep). The sync layer
   * filters by `rec.createdMs` (age ≥ T_s). Do not call handle() from cb.
   */
  forEachSession(cb: (rec: SessionRecord) => void): void {
    const rec = newSessionRecord();
    this.table.forEach((e) => cb(this.table.readRecord(e, rec)));
  }

  private checkRecord(rec: SessionRecord): boolean {
    const r = this.realServers[rec.rs];
    return r !== undefined && r.service === rec.service;
  }

  /**
   * Imports a session synced from the buddy into the standby table of `share` (created on first
   * use, with this board's session capacity). An existing entry with the same key is replaced.
   * @returns false when the record names an unknown service/RS or the standby table is full
   */
  importSession(share: string, rec: SessionRecord, now: number): boolean {
    if (!this.checkRecord(rec)) return false;
    let st = this.standby.get(share);
    if (!st) {
      st = this.newTable();
      this.standby.set(share, st);
    }
    return st.upsertRecord(rec, now) >= 0;
  }

  /** Removes a synced session from the standby table of `share` (delete sync). */
  deleteStandbySession(share: string, rec: SessionRecord): boolean {
    return this.standby.get(share)?.deleteRecord(rec) ?? false;
  }

  /** Sessions held for `share` (0 when none). */
  standbySize(share: string): number {
    return this.standby.get(share)?.size ?? 0;
  }

  /** Drops the standby table of `share` (before a full resync, or when the buddy left). */
  discardStandby(share: string): void {
    this.standby.delete(share);
  }

  /**
   * Takeover: the sessions synced for `share` become live in this board's table (a session the
   * live table already holds keeps its live entry). The standby table is then discarded.
   * Sessions that do not fit (table full of non-evictable entries) are counted in `dropped`.
   */
  promote(share: string, now: number): { promoted: number; dropped: number } {
    const st = this.standby.get(share);
    let promoted = 0;
    let dropped = 0;
    if (st) {
      const rec = newSessionRecord();
      const live = this.table;
      st.forEach((e) => {
        st.readRecord(e, rec);
        live.loadRecordKey(rec);
        if (live.find() >= 0) return;
        if (live.upsertRecord(rec, now) >= 0) promoted++;
        else dropped++;
      });
      this.standby.delete(share);
    }
    this.log.info({ category: 'ha-promote', share, promoted, dropped }, `promoted ${promoted} sessions of ${share}`);
    return { promoted, dropped };
  }

  // ------------------------------------------------------------------ reports

  /** Drop counters by reason (every reason present). */
  drops(): Record<DropReason, number> {
    const d = {} as Record<DropReason, number>;
    DROP_REASONS.forEach((r, i) => (d[r] = this.dropCounts[i]!));
    return d;
  }

  /** A snapshot of the board's counters. */
  stats(): ProcessorStats {
    const t = this.table;
    const byState: Record<string, number> = {};
    for (let s = 1; s < STATE_NAMES.length; s++) byState[STATE_NAMES[s]!] = t.countInState(s);
    return {
      slot: this.slot,
      packets: this.packets,
      bytes: this.bytes,
      forwarded: this.forwarded,
      flows: this.flows,
      drops: this.drops(),
      sessions: {
        created: t.inserted, active: t.size, evicted: t.evicted, expired: t.expired, reused: this.reused,
        capacity: t.capacity, byState, memoryBytes: t.memoryBytes(),
      },
      hot: {
        size: t.hotSize, capacity: t.hotCapacity, hits: t.hotHits, coldHits: t.coldHits, ratio: t.hotHitRatio,
        promotions: t.promotions, demotions: t.demotions,
      },
      services: this.services.map((s, si) => ({
        name: s.name, vip: s.vip, port: s.port, scheduler: s.scheduler.name, liveShare: this.liveShare(si), alarm: s.alarmRaised,
        rs: s.members.map((m) => ({
          id: m.id, name: m.name, address: addressText(m.family, m.address), weight: m.weight,
          effectiveWeight: this.weight[m.id]!, up: this.up[m.id] === 1,
          active: t.rsActive[m.id]!, inactive: t.rsInactive[m.id]!, packets: this.rsPackets[m.id]!,
        })),
      })),
    };
  }
}

/** Hash of a tuple's source address alone (the `sh` scheduler's input). */
function srcHash(t: FlowTuple): number {
  const s = t.src;
  let h = ((s[0]! << 24) | (s[1]! << 16) | (s[2]! << 8) | s[3]!) >>> 0;
  if (t.family === 6) {
    for (let i = 4; i < 16; i += 4) h = (h ^ (((s[i]! << 24) | (s[i + 1]! << 16) | (s[i + 2]! << 8) | s[i + 3]!) >>> 0)) >>> 0;
  }
  return h;
}
