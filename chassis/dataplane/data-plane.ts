/**
 * The data plane of a shelf: the two hub (switch) boards sharing ONE ECMP group, the processor
 * boards behind them, and the backplane between them (hub port N leads to the processor board in
 * logical slot N, as chassis/config `ecmpMembers` numbers them). Pure core: no I/O, no timers;
 * time comes in as `now` (ms) from the caller, or from the Platform clock where a method takes
 * none.
 *
 * Per packet (`deliver(pkt, now)`, allocation-free):
 *  1. ingress hub: see IngressPolicy (types.ts) — by default a symmetric hash of the outer
 *     addresses and ports picks one of the hubs in service (the upstream router's ECMP over the
 *     two hubs of the dual-star fabric), so both directions of a conversation enter the same hub;
 *     with one hub out of service everything enters the other (no session is lost: the hubs are
 *     stateless and share the bucket table);
 *  2. the hub hashes and maps to a member port through the shared EcmpGroup (board/switch);
 *  3. the backplane hands the packet to the processor board behind that port, which looks up or
 *     creates the session and forwards (board/processor), through the EmitSink when one is set;
 *  4. a shelf-wide distinct-flow set counts conversations in total, per hub, per board and per
 *     hub port (one probe per packet; see `deliver` for when the probe is skipped because it
 *     cannot change a count).
 * Drops are counted by the board that made them (hub or processor) and summed by reason in
 * `stats()` (DATAPLANE_DROP_REASONS).
 *
 * Service changes (`setInService`, the DataPlanePort the Shelf calls on every M4 entry/exit):
 * a processor board leaving service leaves the ECMP group at once (its buckets go to its buddy
 * when `buddyFailover` is set, else they are spread over the boards in service — board/switch
 * ecmp-group.ts), and the sessions in its table are discarded and counted lost (minus those the
 * `handover` hook says the HA layer took over). A hub leaving service stops taking ingress.
 *
 * HA hooks: `group` (moveShare / restoreShare / shift / setFailover), `board(slot)` (each board's
 * forEachSession / importSession / promote / discardStandby), `handover` option.
 */
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { FlowTuple, PacketView } from '../../board/packet/flow-tuple.ts';
import { addressText } from '../../board/packet/flow-tuple.ts';
import { EcmpGroup } from '../../board/switch/ecmp-group.ts';
import { SwitchBoard } from '../../board/switch/switch-board.ts';
import { ProcessorBoard } from '../../board/processor/processor-board.ts';
import type { ProcessorEvent } from '../../board/processor/processor-board.ts';
import type { ProcessorConfig, VirtualServiceConfig } from '../../board/processor/processor-config.ts';
import { STATE_NAMES } from '../../board/processor/tcp-state.ts';
import { ecmpMembers, hubSlots, processorSlots } from '../config/slots.ts';
import type { DataPlanePort, ServiceChange } from '../model/data-plane-port.ts';
import type { Platform } from '../platform.ts';
import { FlowCounter } from './flow-counter.ts';
import { EPOCH_SHIFT, FlowStamps, MAX_EPOCH } from './flow-stamps.ts';
import { RateWindow } from './rate-window.ts';
import {
  DATAPLANE_DROP_REASONS,
  type BoardStats, type DataPlaneDropReason, type DataPlaneEvent, type DataPlaneEventType, type DataPlaneListener,
  type DataPlaneOptions, type DataPlaneStats, type HubStats, type IngressPolicy, type RsTable, type SessionHandover,
  type SessionListing,
} from './types.ts';

export { DATAPLANE_DROP_REASONS } from './types.ts';
export type * from './types.ts';

/** Highest logical slot the backplane maps (PICMG shelves have at most 16). */
const MAX_SLOT = 255;
/** Default window of the packets/s figures, ms. */
export const DEFAULT_RATE_WINDOW_MS = 2000;

/** The shelf's data plane. See the module header. */
export class DataPlane implements DataPlanePort {
  /** The ECMP group both hubs share (HA: moveShare / restoreShare / shift / setFailover). */
  readonly group: EcmpGroup;
  /** Hub boards in slot order. */
  readonly hubs: readonly SwitchBoard[];
  /** Processor boards in slot order. */
  readonly boards: readonly ProcessorBoard[];
  /** Session capacity of each processor board's table. */
  readonly sessionCapacity: number;

  private readonly platform: Platform;
  private readonly log: Logger;
  private readonly ingress: IngressPolicy;
  private readonly handover: SessionHandover | null;
  private readonly listeners = new Map<DataPlaneEventType, Set<(ev: DataPlaneEvent) => void>>();
  /** Board index by slot (-1 = none). */
  private readonly boardIdx = new Int32Array(MAX_SLOT + 1).fill(-1);
  private readonly hubIdx = new Int32Array(MAX_SLOT + 1).fill(-1);
  private readonly boardIn: Uint8Array;
  private readonly hubIn: Uint8Array;
  /** Hub indexes in service, and how many. */
  private readonly activeHubs: Int32Array;
  private nActiveHubs = 0;
  private preferredHub = -1;

  // counters
  private packets = 0;
  private bytes = 0;
  private flows = 0;
  /** Sized for 98,304 conversations before its first doubling (1.5 MB, touched here: see
   * flow-counter.ts), so a replay of a capture of that many conversations takes no page fault
   * or rehash for it on the packet path. */
  private readonly flowCounter = new FlowCounter(1 << 17);
  private readonly hubFlows: Float64Array;
  private readonly boardFlows: Float64Array;
  /** Flows per (hub, board): index hub × nBoards + board. */
  private readonly hubPortFlows: Float64Array;
  private readonly lost: Float64Array;
  private readonly rates: RateWindow;
  private lastNow = 0;
  /** True when a conversation's (hub, port) is a function of its flow key for a given routing
   * state (symmetric l3/l3l4 hashing of the outer header, at most 8 hubs): then the flow-count
   * probe of a packet whose session already carries the current stamp is skipped (see deliver). */
  private readonly stampFlows: boolean;
  /** Each board's flow stamps, by board index (flow-stamps.ts). */
  private readonly stamps: FlowStamps[];
  /** Routing epoch, 1 … MAX_EPOCH − 1: bumped on every change of the group (its version) and of
   * a hub's links or service (the hubs' onRouteChange; taking a hub in or out of ingress goes
   * through SwitchBoard.setActive too). */
  private epoch = 1;
  private seenGroupVersion = -1;

  /**
   * @throws TypeError/RangeError for an inconsistent data-plane configuration (no hub, bad
   *   service definitions, a capacity outside 1..2^26)
   */
  constructor(opts: DataPlaneOptions) {
    const cfg = opts.config;
    this.platform = opts.platform;
    this.log = opts.platform.log.child({ module: 'chassis.dataplane' });
    this.ingress = opts.ingress ?? 'hash';
    this.handover = opts.handover ?? null;
    const hubList = hubSlots(cfg);
    const procList = processorSlots(cfg);
    if (hubList.length === 0) throw new TypeError('the shelf has no hub board: the data plane needs at least one');
    this.group = new EcmpGroup(cfg.dataplane.ecmp, ecmpMembers(cfg, { buddyFailover: opts.buddyFailover ?? false }), { log: this.log });
    const onRouteChange = () => this.routeChanged();
    this.hubs = hubList.map((slot) => new SwitchBoard({ slot, group: this.group, countFlows: false, log: this.log, onRouteChange }));
    const ecmp = this.group.config;
    this.stampFlows = ecmp.symmetric && ecmp.tunnel === 'outer' && ecmp.fields !== 'l2' && hubList.length <= 8;
    this.seenGroupVersion = this.group.version;
    hubList.forEach((s, i) => (this.hubIdx[s] = i));

    const base = cfg.dataplane.processor;
    const capacity = opts.sessionCapacity ?? base.sessions.capacity;
    const hot = Math.min(opts.hotCapacity ?? base.sessions.hotCapacity, capacity);
    this.sessionCapacity = capacity;
    const pcfg: ProcessorConfig = { ...base, sessions: { ...base.sessions, capacity, hotCapacity: hot } };
    const onEvent = (ev: ProcessorEvent) => this.emit(ev);
    const probe = opts.probe;
    this.boards = procList.map((slot) => new ProcessorBoard(pcfg, { slot, log: this.log, emit: opts.emit, onEvent, ...(probe ? { probe: probe(slot) } : {}) }));
    procList.forEach((s, i) => (this.boardIdx[s] = i));
    this.stamps = this.boards.map((b) => {
      const st = new FlowStamps(b.table.capacity);
      b.table.onCreate = (e) => st.reset(e);
      return st;
    });

    const nb = this.boards.length;
    const nh = this.hubs.length;
    this.boardIn = new Uint8Array(nb).fill(1);
    this.hubIn = new Uint8Array(nh).fill(1);
    this.activeHubs = new Int32Array(nh);
    this.hubFlows = new Float64Array(nh);
    this.boardFlows = new Float64Array(nb);
    this.hubPortFlows = new Float64Array(nh * nb);
    this.lost = new Float64Array(nb);
    // rate series: 0 total packets, 1 total bytes, then per hub (packets, bytes), then per board
    this.rates = new RateWindow(2 + 2 * nh + 2 * nb, opts.rateWindowMs ?? DEFAULT_RATE_WINDOW_MS);
    if (typeof this.ingress === 'number') {
      const i = this.hubIdx[this.ingress] ?? -1;
      if (!Number.isInteger(this.ingress) || i < 0) throw new TypeError(`ingress hub slot${this.ingress} is not a hub of the shelf`);
      this.preferredHub = i;
    }
    for (const s of opts.initiallyOutOfService ?? []) {
      const h = this.hubIdx[s] ?? -1;
      const b = this.boardIdx[s] ?? -1;
      if (h >= 0) {
        this.hubIn[h] = 0;
        this.hubs[h]!.setActive(false);
      } else if (b >= 0) {
        this.boardIn[b] = 0;
        this.group.setUp(s, false);
      } else throw new TypeError(`initiallyOutOfService: slot${s} is not a board of the shelf`);
    }
    this.refreshHubs();
  }

  // ---------------------------------------------------------------- data path

  /**
   * Runs one packet through the shelf: ingress hub → ECMP → processor board.
   * Allocation-free. The packet view is read during the call only.
   * @param pkt the parsed packet (board/packet/parse.ts)
   * @param now packet time, ms (monotonic per data plane; older times are treated as the newest seen)
   * @param viaHub the slot of the hub the packet entered by (live mode: the link it came in on);
   *   default, or a hub out of service: the ingress policy picks one
   * @returns the slot of the processor board that handled it, or -1 when a hub dropped it
   */
  deliver(pkt: PacketView, now: number, viaHub = -1): number {
    if (now > this.lastNow) this.lastNow = now;
    this.packets++;
    this.bytes += pkt.origLen;
    if (this.group.version !== this.seenGroupVersion) {
      this.seenGroupVersion = this.group.version;
      this.routeChanged();
    }
    const vh = viaHub >= 0 && viaHub <= MAX_SLOT ? this.hubIdx[viaHub]! : -1;
    const hi = vh >= 0 && this.hubIn[vh] === 1 ? vh : this.pickHub(pkt);
    const d = this.hubs[hi]!.ingress(pkt, now);
    const fwd = d.forward === true;
    const slot = fwd ? d.slot : -1;
    const bi = fwd ? this.boardIdx[slot]! : -1;
    if (!(bi >= 0)) {
      this.countFlow(pkt.outer, hi, 0xffff, -1);
      return -1;
    }
    const port = d.port;
    const board = this.boards[bi]!;
    board.handle(pkt, now);
    // The flow-count probe asks: is the conversation new, and which (hub, port) did it take last
    // time? When routing is a function of the flow key (stampFlows), a session stamped with
    // (epoch, hub, port) by an earlier probe answers it: every packet of the conversation since
    // took the same (hub, port), since the routing has not changed (same epoch), so the flow set
    // still holds exactly this (hub, port) and the probe would count nothing. A new session
    // (stamp 0) or another epoch, hub or port probes as before and stamps the session.
    const e = board.lastSession;
    if (e >= 0 && this.stampFlows === true) {
      const want = (this.epoch << EPOCH_SHIFT) | (hi << 10) | port;
      const stamps = this.stamps[bi]!;
      if (stamps.get(e) !== want) {
        this.countFlow(pkt.outer, hi, port, bi);
        stamps.set(e, want);
      }
    } else {
      this.countFlow(pkt.outer, hi, port, bi);
    }
    return slot;
  }

  /** One flow-set probe for the conversation of `t`, which took (hub hi, port) — port 0xffff and
   * board −1 when no processor board got the packet. */
  private countFlow(t: FlowTuple, hi: number, port: number, bi: number): void {
    const v = (hi << 16) | port;
    const prev = this.flowCounter.record(t, v);
    if (prev !== v && prev !== -2) {
      if (prev === -1) {
        this.flows++;
        this.hubFlows[hi]!++;
      } else if (prev >>> 16 !== hi) this.hubFlows[hi]!++;
      if (bi >= 0) {
        if (prev < 0 || (prev & 0xffff) !== port) this.boardFlows[bi]!++;
        this.hubPortFlows[hi * this.boards.length + bi]!++;
      }
    }
  }

  /** The routing changed (group, hub links or service, ingress hubs): stamps of older epochs no
   * longer prove anything. */
  private routeChanged(): void {
    if (++this.epoch < MAX_EPOCH) return;
    this.epoch = 1;
    for (const st of this.stamps) st.clear();
  }

  private pickHub(pkt: PacketView): number {
    const n = this.nActiveHubs;
    if (n <= 1) return n === 1 ? this.activeHubs[0]! : 0;
    if (this.preferredHub >= 0 && this.hubIn[this.preferredHub] === 1) return this.preferredHub;
    const h = symmetricHash(pkt);
    // h ≥ 0, so h & 1 is h % 2 without an integer division (the dual-star shelf has two hubs)
    return this.activeHubs[n === 2 ? h & 1 : h % n]!;
  }

  // ---------------------------------------------------------------- service changes (DataPlanePort)

  /**
   * A board starts or stops carrying traffic (the Shelf calls this on every M4 entry/exit).
   * @returns sessions lost (a processor board leaving service with sessions nobody took over)
   * @throws CommandError('no_such_board') for a slot that holds no hub or processor board
   */
  setInService(slot: number, inService: boolean): ServiceChange {
    const now = this.lastNow;
    const h = slot >= 0 && slot <= MAX_SLOT ? this.hubIdx[slot]! : -1;
    if (h >= 0) {
      const was = this.hubIn[h] === 1;
      if (was === inService) return { sessionsLost: 0 };
      this.hubIn[h] = inService ? 1 : 0;
      this.hubs[h]!.setActive(inService);
      this.refreshHubs();
      this.emit({ type: 'board.service', slot, kind: 'hub', inService, sessionsLost: 0, bucketsMoved: 0, atMs: now });
      return { sessionsLost: 0 };
    }
    const b = slot >= 0 && slot <= MAX_SLOT ? this.boardIdx[slot]! : -1;
    if (b < 0) throw new CommandError('no_such_board', `slot${slot} holds no hub or processor board of the data plane`);
    const was = this.boardIn[b] === 1;
    if (was === inService) return { sessionsLost: 0 };
    this.boardIn[b] = inService ? 1 : 0;
    const moved = this.group.setUp(slot, inService);
    let lost = 0;
    if (!inService) {
      const board = this.boards[b]!;
      const held = board.table.size;
      const taken = held > 0 && this.handover ? Math.max(0, Math.min(held, this.handover(slot, board))) : 0;
      lost = held - taken;
      board.table.clear();
      this.lost[b]! += lost;
    }
    this.log.info({ category: 'board-service', slot, inService, sessionsLost: lost, bucketsMoved: moved }, `slot${slot} ${inService ? 'in' : 'out of'} service`);
    this.emit({ type: 'board.service', slot, kind: 'processor', inService, sessionsLost: lost, bucketsMoved: moved, atMs: now });
    return { sessionsLost: lost };
  }

  /** Whether the board in `slot` carries traffic (false for unknown slots). */
  isInService(slot: number): boolean {
    const h = slot >= 0 && slot <= MAX_SLOT ? this.hubIdx[slot]! : -1;
    if (h >= 0) return this.hubIn[h] === 1;
    const b = slot >= 0 && slot <= MAX_SLOT ? this.boardIdx[slot]! : -1;
    return b >= 0 && this.boardIn[b] === 1;
  }

  private refreshHubs(): void {
    let n = 0;
    for (let i = 0; i < this.hubs.length; i++) if (this.hubIn[i] === 1) this.activeHubs[n++] = i;
    this.nActiveHubs = n;
  }

  // ---------------------------------------------------------------- time

  /**
   * Runs what is due: every processor board's aging, health checks and dynamic weights; samples
   * the rate window. A wall-clock shelf calls it from a Clock timer at the returned deadline
   * (`deliver` keeps the boards going by itself while packets flow).
   * @param now ms (default the platform clock)
   * @returns the next deadline, ms
   */
  tick(now: number = this.platform.clock.now()): number {
    if (now > this.lastNow) this.lastNow = now;
    let next = Infinity;
    for (const b of this.boards) next = Math.min(next, b.tick(now));
    this.sample(now);
    return Math.min(next, now + this.rates.sampleMs);
  }

  private sample(now: number): void {
    const r = this.rates;
    if (!r.due(now)) return;
    const v = r.begin(now);
    v[0] = this.packets;
    v[1] = this.bytes;
    let k = 2;
    for (const h of this.hubs) {
      const c = hubRx(h);
      v[k++] = c.packets;
      v[k++] = c.bytes;
    }
    for (const b of this.boards) {
      v[k++] = b.packets;
      v[k++] = b.bytes;
    }
    r.commit();
  }

  // ---------------------------------------------------------------- reports

  /** Slots of the hubs and processor boards, ascending. */
  get hubSlots(): number[] {
    return this.hubs.map((h) => h.slot);
  }

  get boardSlots(): number[] {
    return this.boards.map((b) => b.slot);
  }

  /** The processor board in `slot` (HA hook: forEachSession / importSession / promote). @throws CommandError('no_such_board') */
  board(slot: number): ProcessorBoard {
    const b = slot >= 0 && slot <= MAX_SLOT ? this.boardIdx[slot]! : -1;
    if (b < 0) throw new CommandError('no_such_board', `slot${slot} holds no processor board`);
    return this.boards[b]!;
  }

  /** The hub board in `slot`. @throws CommandError('no_such_board') */
  hub(slot: number): SwitchBoard {
    const h = slot >= 0 && slot <= MAX_SLOT ? this.hubIdx[slot]! : -1;
    if (h < 0) throw new CommandError('no_such_board', `slot${slot} holds no hub board`);
    return this.hubs[h]!;
  }

  /**
   * A snapshot of every counter (allocates; for the TUI, the stats line and reports).
   * @param now ms for the rate window (default the platform clock)
   */
  stats(now: number = this.platform.clock.now()): DataPlaneStats {
    this.sample(now);
    const r = this.rates;
    const drops = {} as Record<DataPlaneDropReason, number>;
    for (const k of DATAPLANE_DROP_REASONS) drops[k] = 0;
    const nb = this.boards.length;
    const shares = this.group.mapping === 'resilient' ? this.group.shares() : [];
    const bucketsOf = new Map(shares.map((s) => [s.port, s.buckets]));
    let k = 2;
    const hubs: HubStats[] = this.hubs.map((h, hi) => {
      const c = h.counters();
      for (const [key, v] of Object.entries(c.drops)) drops[key as DataPlaneDropReason] += v;
      const pps = r.rate(k, now, c.packets);
      const bps = r.rate(k + 1, now, c.bytes);
      k += 2;
      return {
        slot: h.slot,
        inService: this.hubIn[hi] === 1,
        packets: c.packets,
        bytes: c.bytes,
        forwarded: c.forwarded,
        flows: this.hubFlows[hi]!,
        pps,
        bps,
        drops: { ...c.drops },
        ports: c.ports.map((p) => {
          const bi = p.slot >= 0 && p.slot <= MAX_SLOT ? this.boardIdx[p.slot]! : -1;
          return {
            port: p.port, slot: p.slot, linkUp: p.linkUp, memberUp: p.memberUp, packets: p.packets, bytes: p.bytes,
            flows: bi >= 0 ? this.hubPortFlows[hi * nb + bi]! : 0,
          };
        }),
      };
    });
    let forwarded = 0;
    const sess = { active: 0, created: 0, evicted: 0, expired: 0, lost: 0, capacity: 0 };
    const boards: BoardStats[] = this.boards.map((b, bi) => {
      const s = b.stats();
      for (const [key, v] of Object.entries(s.drops)) drops[key as DataPlaneDropReason] += v;
      forwarded += s.forwarded;
      sess.active += s.sessions.active;
      sess.created += s.sessions.created;
      sess.evicted += s.sessions.evicted;
      sess.expired += s.sessions.expired;
      sess.lost += this.lost[bi]!;
      sess.capacity += s.sessions.capacity;
      const pps = r.rate(k, now, s.packets);
      const bps = r.rate(k + 1, now, s.bytes);
      k += 2;
      return {
        slot: b.slot,
        inService: this.boardIn[bi] === 1,
        packets: s.packets,
        bytes: s.bytes,
        forwarded: s.forwarded,
        flows: this.boardFlows[bi]!,
        pps,
        bps,
        buckets: bucketsOf.get(b.slot) ?? 0,
        sessions: {
          active: s.sessions.active, created: s.sessions.created, evicted: s.sessions.evicted, expired: s.sessions.expired,
          capacity: s.sessions.capacity, fill: s.sessions.capacity > 0 ? s.sessions.active / s.sessions.capacity : 0,
          lost: this.lost[bi]!, memoryBytes: s.sessions.memoryBytes + this.stamps[bi]!.bytes(), byState: s.sessions.byState,
        },
        hot: { size: s.hot.size, capacity: s.hot.capacity, hits: s.hot.hits, coldHits: s.hot.coldHits, ratio: s.hot.ratio },
        drops: s.drops,
        alarms: s.services.filter((x) => x.alarm).map((x) => x.name),
      };
    });
    let dropped = 0;
    for (const key of DATAPLANE_DROP_REASONS) dropped += drops[key];
    return {
      atMs: now,
      totals: {
        packets: this.packets,
        bytes: this.bytes,
        flows: this.flows,
        forwarded,
        dropped,
        pps: r.rate(0, now, this.packets),
        bps: r.rate(1, now, this.bytes),
        sessions: sess,
      },
      drops,
      hubs,
      boards,
      imbalance: imbalance(boards.map((b) => b.flows)),
    };
  }

  /**
   * The RS table of a processor board, in the spirit of `ipvsadm -Ln` (services, then their RS
   * with weight, effective weight, active/inactive connections, health). See formatRsTable.
   * @throws CommandError('no_such_board')
   */
  rsTable(slot: number): RsTable {
    const b = this.board(slot);
    const s = b.stats();
    return {
      slot,
      services: s.services.map((svc, si) => {
        const vs = b.services[si]!;
        return {
          name: svc.name,
          protocol: vs.proto === 6 ? 'TCP' : vs.proto === 17 ? 'UDP' : vs.proto === 132 ? 'SCTP' : 'ANY',
          vip: svc.vip,
          port: svc.port,
          scheduler: svc.scheduler,
          persistenceMs: vs.persistenceMs,
          liveShare: svc.liveShare,
          alarm: svc.alarm,
          realServers: svc.rs.map((r, k) => {
            const m = vs.members[k]!;
            return {
              name: r.name,
              address: m.port !== undefined ? endpoint(r.address, m.port, m.family) : r.address,
              weight: r.weight,
              effectiveWeight: r.effectiveWeight,
              active: r.active,
              inactive: r.inactive,
              health: r.up ? 'up' : 'down',
              packets: r.packets,
              forward: vs.encapsulation === 'gre' ? 'GRE' : 'Tunnel',
            };
          }),
        };
      }),
    };
  }

  /**
   * Up to `n` live sessions of a processor board (table order), for a console listing.
   * @param now ms for ages (default the platform clock)
   * @throws CommandError('no_such_board')
   */
  sessions(slot: number, n: number, now: number = this.platform.clock.now()): SessionListing[] {
    const b = this.board(slot);
    const out: SessionListing[] = [];
    if (!(n > 0)) return out;
    b.forEachSession((r) => {
      if (out.length >= n) return;
      const fam = r.family;
      const svc = b.services[r.service];
      out.push({
        protocol: protocolName(r.proto),
        client: r.hasPorts ? endpoint(addressText(fam, r.client), r.clientPort, fam) : addressText(fam, r.client),
        server: r.hasPorts ? endpoint(addressText(fam, r.server), r.serverPort, fam) : addressText(fam, r.server),
        state: STATE_NAMES[r.state] ?? String(r.state),
        service: svc?.name ?? String(r.service),
        rs: b.realServers[r.rs]?.name ?? String(r.rs),
        ageMs: Math.max(0, now - r.createdMs),
        idleMs: Math.max(0, now - r.lastSeenMs),
      });
    });
    return out;
  }

  /**
   * Sets an RS's weight on every processor board (or only on `slot`): 0 drains it (existing
   * sessions stay, new ones go elsewhere).
   * @param service service name or VIP text; `rs` the RS name
   * @throws CommandError('bad_request') for an unknown service/RS or a weight outside 0..65535;
   *   CommandError('no_such_board') for a bad slot
   */
  setWeight(service: string, rs: string, weight: number, slot?: number): void {
    const targets = slot === undefined ? this.boards : [this.board(slot)];
    try {
      for (const b of targets) b.setWeight(service, rs, weight);
    } catch (e) {
      if (e instanceof TypeError) throw new CommandError('bad_request', e.message);
      throw e;
    }
  }

  /**
   * Replaces the virtual services of every processor board at once (`atcasim lb`), each keeping
   * its sessions and its buddy's standby sessions (ProcessorBoard.applyServices). A board out of
   * service gets the change too, so it has it when it comes back.
   * @throws CommandError('bad_request') for an invalid service (every board gets the same list, so
   *   the first board refuses it before any board changed)
   */
  applyServices(services: readonly VirtualServiceConfig[]): void {
    try {
      for (const b of this.boards) b.applyServices(services);
    } catch (e) {
      if (e instanceof TypeError || e instanceof RangeError) throw new CommandError('bad_request', e.message);
      throw e;
    }
  }

  // ---------------------------------------------------------------- events

  /**
   * Subscribes to one event type. @returns a function that unsubscribes
   */
  on<T extends DataPlaneEventType>(type: T, fn: DataPlaneListener<T>): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    const f = fn as (ev: DataPlaneEvent) => void;
    set.add(f);
    return () => set.delete(f);
  }

  private emit(ev: DataPlaneEvent): void {
    const set = this.listeners.get(ev.type);
    if (!set) return;
    for (const f of set) {
      try {
        f(ev);
      } catch (e) {
        this.log.error({ category: 'listener', type: ev.type, err: String(e) }, 'data-plane event listener threw');
      }
    }
  }
}

/** Packets and bytes a hub received (for the rate window). */
function hubRx(h: SwitchBoard): { packets: number; bytes: number } {
  return h.counters();
}

/**
 * Symmetric 30-bit hash of a packet's outer conversation (addresses and ports, order-free), or of
 * its MAC pair for non-IP frames; 0 when neither exists. Allocation-free.
 */
export function symmetricHash(pkt: PacketView): number {
  const t = pkt.outer;
  let h = 0;
  if (t.family === 4) {
    // the loop below for one word, written out
    const s = t.src;
    const d = t.dst;
    const a = (s[0]! << 24) | (s[1]! << 16) | (s[2]! << 8) | s[3]!;
    const b = (d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!;
    h = (Math.imul(a ^ b, 0x9e3779b1) + ((a + b) | 0)) | 0;
    if (t.hasPorts === true && t.fragment === false) h = (Math.imul(h ^ (t.sport ^ t.dport), 0x85ebca6b) + ((t.sport + t.dport) | 0)) | 0;
    h ^= t.proto;
  } else if (t.family !== 0) {
    const s = t.src;
    const d = t.dst;
    const words = 4;
    for (let w = 0; w < words; w++) {
      const o = w << 2;
      const a = (s[o]! << 24) | (s[o + 1]! << 16) | (s[o + 2]! << 8) | s[o + 3]!;
      const b = (d[o]! << 24) | (d[o + 1]! << 16) | (d[o + 2]! << 8) | d[o + 3]!;
      h = Math.imul(h ^ (a ^ b), 0x9e3779b1) + ((a + b) | 0) | 0;
    }
    if (t.hashPorts) h = Math.imul(h ^ (t.sport ^ t.dport), 0x85ebca6b) + ((t.sport + t.dport) | 0) | 0;
    h ^= t.proto;
  } else if (pkt.ethOffset >= 0) {
    const f = pkt.frame;
    const e = pkt.ethOffset;
    if (e + 12 <= f.length) for (let i = 0; i < 6; i++) h = Math.imul(h ^ (f[e + i]! ^ f[e + 6 + i]!), 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  // 30 bits: a small integer in V8 (no heap number per call)
  return (h ^ (h >>> 16)) >>> 2;
}

/** max/mean of a list of counts (0 when the mean is 0). */
export function imbalance(counts: readonly number[]): number {
  if (counts.length === 0) return 0;
  let sum = 0;
  let max = 0;
  for (const c of counts) {
    sum += c;
    if (c > max) max = c;
  }
  return sum > 0 ? max / (sum / counts.length) : 0;
}

function endpoint(addr: string, port: number, family: number): string {
  return family === 6 ? `[${addr}]:${port}` : `${addr}:${port}`;
}

const PROTO_NAMES: Record<number, string> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 47: 'gre', 58: 'icmpv6', 132: 'sctp', 4: 'ipip', 41: 'ipv6' };

function protocolName(p: number): string {
  return PROTO_NAMES[p] ?? String(p);
}

/**
 * Renders an RS table in `ipvsadm -Ln`'s shape: its header lines, one line per service, `->`
 * lines with ipvsadm's four columns (Forward, Weight, ActiveConn, InActConn; padded as ipvsadm
 * pads them), then apart, under "Real servers, beyond ipvsadm:", each RS's effective weight and
 * health, which ipvsadm has no column for. Pure text.
 */
export function formatRsTable(t: RsTable): string {
  // ipvsadm -Ln's table: its header and its four RS columns, left-aligned as ipvsadm pads them
  const lines = [
    `slot${t.slot} virtual services`,
    'Prot LocalAddress:Port Scheduler Flags',
    '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
  ];
  const extra: string[] = [];
  for (const s of t.services) {
    const flags = s.persistenceMs > 0 ? ` persistent ${Math.round(s.persistenceMs / 1000)}` : '';
    lines.push(`${s.protocol.padEnd(4)} ${s.vip}:${s.port} ${s.scheduler}${flags}${s.alarm ? '  [ALARM: pool below threshold]' : ''}`);
    for (const r of s.realServers) {
      lines.push(`  -> ${r.address.padEnd(28)} ${r.forward.padEnd(7)} ${String(r.weight).padEnd(6)} ${String(r.active).padEnd(10)} ${r.inactive}`);
      extra.push(`  -> ${r.address.padEnd(28)} ${String(r.effectiveWeight).padEnd(9)} ${r.health}`);
    }
  }
  // what ipvsadm has no column for: the weight the scheduler uses now and the health check
  if (extra.length) lines.push('Real servers, beyond ipvsadm:', '  -> RemoteAddress:Port           EffWeight Health', ...extra);
  return lines.join('\n');
}
