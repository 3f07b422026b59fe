/**
 * The live data path (docs/live.md): the shelf as a real network element. Frames from the hubs'
 * front links and the processor boards' back links come in through `receiveFront` /
 * `receiveBack` (the io adapter, chassis/io/live-attach.ts, calls them with the frames of the
 * TAPs) and leave through the FramePorts it handed in. Pure: no I/O; time from the Clock port.
 *
 * Front (per hub, its LinkEndpoint answering ARP/ND for its own address and every VIP):
 *  - an echo request to a VIP or the hub's address is answered (RFC 792, RFC 4443 §4.1);
 *  - a datagram to a VIP longer than the back side's MTU is answered with ICMP "fragmentation
 *    needed" (RFC 1191) or ICMPv6 "packet too big" (RFC 8201) from the hub's address, not sent;
 *  - an ICMP error about a reply (quoting VIP → client) goes to the connection's RS, translated;
 *  - anything else to a VIP goes through the DataPlane as the replayed traffic does (that hub,
 *    the shared ECMP table, the processor board's session table and scheduler), and the board's
 *    verdict is carried out by the RS's forwarding mode: `dr` rewrites the MACs only, `nat` DNATs
 *    to the RS, `fullnat` also SNATs to a local address and port of the board's pool (a full
 *    pool is a counted drop, `local_ports_exhausted`, and an alarm event — never a reused port);
 *    the frame leaves on the board's back port towards the RS (neighbour resolution, aging).
 * Back (per board, its LinkEndpoint answering for its own address, its local addresses and — on
 * the lowest-slot board in service — the shelf's back gateway):
 *  - a reply of a `nat`/`fullnat` connection (looked up by its server-side key, conn-table.ts)
 *    is translated back, goes through the DataPlane (the symmetric hash brings it to the board of
 *    its session, which moves the TCP state), and leaves by the hub it came in by, to the router;
 *  - an ICMP error from the server side about a connection is translated (icmp-translate.ts);
 *  - an echo request to an owned address is answered.
 * `tunnel` services are not forwarded live (this kernel has no IPIP/GRE to terminate them).
 */
import type { Clock, TimerId } from '../../../board/common/clock.ts';
import type { Logger } from '../../../board/common/logger.ts';
import { ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, etherPayload } from '../../../board/packet/ether-frame.ts';
import { echoReplyInPlace, isEchoRequest } from '../../../board/packet/icmp-echo.ts';
import { buildFragNeeded, buildPacketTooBig, mayReportError } from '../../../board/packet/icmp-error.ts';
import { IpLayout, locateIp } from '../../../board/packet/ip-layout.ts';
import { LinkType } from '../../../board/packet/link-type.ts';
import { PacketParser } from '../../../board/packet/parse.ts';
import { isIcmpError, translateIcmpFromClient, translateIcmpFromServer } from '../../../board/processor/forwarding/icmp-translate.ts';
import { LocalAddressPool, type LocalEndpoint } from '../../../board/processor/forwarding/local-address-pool.ts';
import { natInbound, natOutbound } from '../../../board/processor/forwarding/nat.ts';
import { newTranslation, XLATE_REASONS, XlateResult, type ForwardingMode, type Translation } from '../../../board/processor/forwarding/translation.ts';
import { FlowTuple } from '../../../board/packet/flow-tuple.ts';
import type { SessionRecord } from '../../../board/processor/session-record.ts';
import { parseAddress } from '../../../board/processor/ip-address.ts';
import type { ShelfConfig } from '../../config/types.ts';
import type { DataPlane } from '../data-plane.ts';
import { backKeyOf, ConnTable, copyTuple, frameKey, partsKey, quoteReplyKey, type Conn } from './conn-table.ts';
import { addressKey, LinkEndpoint, type FramePort } from './link-endpoint.ts';
import { LiveProber } from './live-prober.ts';

/** Events of the live path. */
export type LiveEvent =
  | { type: 'live.pool.exhausted' | 'live.pool.recovered'; slot: number; atMs: number; detail: string };

/** Options of a LiveDataPath. */
export interface LivePathOptions {
  config: ShelfConfig;
  dataPlane: DataPlane;
  clock: Clock;
  log: Logger;
  /** Hub slot → its front link; processor slot → its back link. */
  front: ReadonlyMap<number, FramePort>;
  back: ReadonlyMap<number, FramePort>;
  onEvent?: (ev: LiveEvent) => void;
  /** Period of the connection sweep (ms), default 1000. */
  sweepMs?: number;
}

/** Counters of the live path (a fresh object per call). */
export interface LivePathStats {
  frontFrames: number;
  backFrames: number;
  toServer: number;
  toClient: number;
  echoReplies: number;
  tooBig: number;
  connections: Record<string, number>;
  drops: Record<string, number>;
  neighbours: Record<string, number>;
}

interface RsInfo {
  mode: ForwardingMode;
  family: 4 | 6;
  address: Uint8Array;
  port: number;
  dest: string;
}

function hostOf(cidr: string | undefined): Uint8Array | null {
  return cidr === undefined ? null : parseAddress(cidr.split('/')[0]!).bytes;
}

/** MAC of a hub's front port / a board's back port: locally administered, by slot. */
export function liveMac(side: 'front' | 'back', slot: number): Uint8Array {
  return Uint8Array.of(0x02, 0xa7, 0xca, side === 'front' ? 0x01 : 0x00, 0x00, slot & 0xff);
}

export class LiveDataPath {
  readonly fronts = new Map<number, LinkEndpoint>();
  readonly backs = new Map<number, LinkEndpoint>();
  readonly conns = new ConnTable();
  /** Per processor slot: the real health probes over its back link. */
  readonly probers = new Map<number, LiveProber>();
  private readonly dp: DataPlane;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly onEvent: (ev: LiveEvent) => void;
  private readonly gateways = new Map<number, { gw4: Uint8Array | null; gw6: Uint8Array | null }>();
  /** Full-NAT pools by the slot of the share they belong to (the board whose home share it is). */
  private readonly pools = new Map<number, LocalAddressPool>();
  /** Per pool (home slot): the slot whose back link answers for its local addresses now. */
  private readonly poolOwner = new Map<number, number>();
  private ownersVersion = -1;
  private homeTable: Int32Array | null = null;
  private readonly exhausted = new Set<number>();
  private readonly rs: RsInfo[] = [];
  private readonly backMtu: number;
  private readonly backGateway: Array<{ family: 4 | 6; bytes: Uint8Array }> = [];
  private gatewayOwner = -1;
  private readonly parser = new PacketParser();
  private readonly lay = new IpLayout();
  private readonly quote = new IpLayout();
  private readonly eth = { type: 0 };
  private readonly err = new Uint8Array(1600);
  private readonly local: LocalEndpoint = { address: new Uint8Array(16), port: 0 };
  private readonly dropCounts = new Map<string, number>();
  private readonly counts = { frontFrames: 0, backFrames: 0, toServer: 0, toClient: 0, echoReplies: 0, tooBig: 0 };
  private ipId = 1;
  private timer: TimerId | null = null;
  private readonly sweepMs: number;

  /** @throws TypeError when a hub has no front port or a board no back port in `front`/`back` */
  constructor(opts: LivePathOptions) {
    this.dp = opts.dataPlane;
    this.clock = opts.clock;
    this.log = opts.log.child({ module: 'chassis.dataplane.live' });
    this.onEvent = opts.onEvent ?? (() => undefined);
    this.sweepMs = opts.sweepMs ?? 1000;
    const cfg = opts.config;
    const services = cfg.dataplane.processor.services;
    for (const svc of services) {
      for (const m of svc.pool) {
        const a = parseAddress(m.address);
        this.rs.push({ mode: m.forwarding ?? svc.forwarding ?? 'tunnel', family: a.family, address: a.bytes, port: m.port ?? svc.port, dest: `${m.name}@${m.address}` });
      }
    }
    const onDrop = (reason: string, n: number) => this.drop(reason, n);
    let mtu = Infinity;
    for (const f of cfg.frus) {
      if (f.kind === 'hub' && f.frontPort) {
        const port = opts.front.get(f.slot!);
        if (!port) throw new TypeError(`live: no link for the front port of slot${f.slot}`);
        const ep = new LinkEndpoint({ name: `slot${f.slot} front`, mac: liveMac('front', f.slot!), own4: hostOf(f.frontPort.address), own6: hostOf(f.frontPort.address6), mtu: f.frontPort.mtu, port, clock: this.clock, onDrop });
        for (const s of services) if (!s.vip.includes('/')) ep.owned.add(addressKey(parseAddress(s.vip).family, parseAddress(s.vip).bytes));
        this.fronts.set(f.slot!, ep);
        this.gateways.set(f.slot!, { gw4: f.frontPort.gateway ? parseAddress(f.frontPort.gateway).bytes : null, gw6: f.frontPort.gateway6 ? parseAddress(f.frontPort.gateway6).bytes : null });
      } else if (f.kind === 'processor' && f.backPort) {
        const port = opts.back.get(f.slot!);
        if (!port) throw new TypeError(`live: no link for the back port of slot${f.slot}`);
        const bp = f.backPort;
        const ep = new LinkEndpoint({ name: `slot${f.slot} back`, mac: liveMac('back', f.slot!), own4: hostOf(bp.address), own6: hostOf(bp.address6), mtu: bp.mtu, port, clock: this.clock, onDrop });
        mtu = Math.min(mtu, bp.mtu);
        if (bp.localAddresses.length > 0) {
          const pool = new LocalAddressPool({ addresses: bp.localAddresses, portMin: bp.localPortMin, portMax: bp.localPortMax }, services.map((s) => ({ service: s.name, vip: s.vip })));
          this.pools.set(f.slot!, pool);
          this.poolOwner.set(f.slot!, f.slot!);
          for (const a of bp.localAddresses) ep.owned.add(addressKey(parseAddress(a).family, parseAddress(a).bytes));
        }
        this.backs.set(f.slot!, ep);
        this.probers.set(f.slot!, new LiveProber(ep, this.clock));
      }
    }
    this.backMtu = mtu === Infinity ? 1500 : mtu;
    const bg = cfg.dataplane.backGateway;
    if (bg?.address) this.backGateway.push(parseAddress(bg.address));
    if (bg?.address6) this.backGateway.push(parseAddress(bg.address6));
  }

  /** Announces every owned address (gratuitous ARP / unsolicited NA) and starts the sweep. */
  start(): void {
    for (const ep of [...this.fronts.values(), ...this.backs.values()]) {
      const own: Array<{ family: 4 | 6; bytes: Uint8Array }> = [];
      if (ep.own4) own.push({ family: 4, bytes: ep.own4 });
      if (ep.own6) own.push({ family: 6, bytes: ep.own6 });
      ep.announce(own);
    }
    for (const [slot, pool] of this.pools) this.backs.get(slot)!.announce(pool.addresses);
    this.refreshGateway();
    const loop = () => {
      this.sweep();
      this.timer = this.clock.setTimeout(loop, this.sweepMs);
    };
    this.timer = this.clock.setTimeout(loop, this.sweepMs);
  }

  /** Stops the sweep and forgets every connection. */
  stop(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.conns.clear();
    for (const p of this.probers.values()) p.stop();
    for (const ep of [...this.fronts.values(), ...this.backs.values()]) ep.neighbours.clear();
  }

  private drop(reason: string, n = 1): void {
    this.dropCounts.set(reason, (this.dropCounts.get(reason) ?? 0) + n);
  }

  /** True when the frame is addressed to `ep` (its MAC, broadcast or multicast). */
  private forMe(ep: LinkEndpoint, frame: Uint8Array): boolean {
    if ((frame[0]! & 1) === 1) return true;
    const m = ep.mac;
    return frame[0] === m[0] && frame[1] === m[1] && frame[2] === m[2] && frame[3] === m[3] && frame[4] === m[4] && frame[5] === m[5];
  }

  /** Locates the IP datagram of a frame for `ep`, handling ARP/ND. @returns true when an IP datagram is in `lay` for the caller */
  private l2(ep: LinkEndpoint, frame: Uint8Array): boolean {
    const len = frame.length;
    if (!this.forMe(ep, frame)) return false;
    ep.stats.rxFrames++;
    const off = etherPayload(frame, len, this.eth);
    if (off < 0) return false;
    const type = this.eth.type;
    if (type === ETHERTYPE_ARP) {
      ep.handleArp(frame, len);
      return false;
    }
    if (type !== ETHERTYPE_IPV4 && type !== ETHERTYPE_IPV6) return false;
    if (off !== 14 || !locateIp(frame, off, len, this.lay)) {
      this.drop('parse_error');
      return false;
    }
    if (this.lay.family === 6 && ep.handleNd(frame, this.lay)) return false;
    return true;
  }

  /** True when the datagram in `lay` is addressed to an address `ep` owns. */
  private toOwned(ep: LinkEndpoint, frame: Uint8Array): boolean {
    const l = this.lay;
    return ep.owns(l.family as 4 | 6, frame, l.l3 + (l.family === 6 ? 24 : 16));
  }

  /** A frame from hub `slot`'s front link (a view valid during the call). */
  receiveFront(slot: number, frame: Uint8Array): void {
    const ep = this.fronts.get(slot);
    if (ep === undefined) return;
    this.counts.frontFrames++;
    if (!this.l2(ep, frame)) return;
    const lay = this.lay;
    if (!this.toOwned(ep, frame)) {
      this.drop('not_for_us');
      return;
    }
    if (isEchoRequest(frame, lay)) {
      this.counts.echoReplies++;
      ep.transmit(frame, echoReplyInPlace(frame, lay, ep.mac));
      return;
    }
    if (isIcmpError(frame, lay)) return this.clientError(frame);
    if (lay.end - lay.l3 > this.backMtu) {
      this.tooBig(ep, frame);
      return;
    }
    this.inbound(slot, frame);
  }

  /** An ICMP error from the client side about a reply (quoting VIP → client): to the RS, translated. */
  private clientError(frame: Uint8Array): void {
    const lay = this.lay;
    const q = this.quote;
    if (!locateIp(frame, lay.l4 + 8, lay.end, q, true)) return this.drop('parse_error');
    const c = this.conns.front(quoteReplyKey(frame, q));
    if (c === undefined) return this.drop('icmp_no_connection');
    if (c.t.mode !== 'dr') {
      const r = translateIcmpFromClient(frame, lay, c.t, q);
      if (r !== XlateResult.OK) return this.drop(XLATE_REASONS[r]!);
    }
    const back = this.backs.get(c.slot);
    if (back === undefined) return this.drop('no_back_port');
    this.counts.toServer++;
    back.output(c.t.family, c.t.rs, frame, frame.length);
  }

  private tooBig(ep: LinkEndpoint, frame: Uint8Array): void {
    const lay = this.lay;
    if (!mayReportError(frame, lay)) return this.drop('too_big_unreported');
    if (lay.family === 4 && !lay.dontFragment) return this.drop('fragmentation_not_supported');
    const src = lay.family === 4 ? ep.own4 : ep.own6;
    if (src === null) return this.drop('too_big_no_source');
    this.counts.tooBig++;
    const n = lay.family === 4 ? buildFragNeeded(this.err, frame, lay, this.backMtu, src, ep.mac, this.ipId++) : buildPacketTooBig(this.err, frame, lay, this.backMtu, src, ep.mac);
    ep.transmit(this.err, n);
  }

  /** A client → VIP datagram through the DataPlane, then by the RS's mode to the back link. */
  private inbound(hub: number, frame: Uint8Array): void {
    const lay = this.lay;
    const now = this.clock.now();
    const pkt = this.parser.parse(frame, LinkType.ETHERNET, frame.length);
    const slot = this.dp.deliver(pkt, now, hub);
    if (slot < 0) return this.drop('hub_drop');
    const board = this.dp.board(slot);
    const e = board.lastSession;
    if (e < 0) return this.drop('board_drop');
    const rsId = board.table.rsOf(e);
    const rs = this.rs[rsId]!;
    if (rs.mode === 'tunnel') return this.drop('tunnel_not_live');
    const back = this.backs.get(slot);
    if (back === undefined) return this.drop('no_back_port');
    this.refreshLocalOwners();
    const key = frameKey(frame, lay);
    let c = this.conns.front(key);
    if (c !== undefined && c.slot !== slot && !this.dp.isInService(c.slot)) {
      // The board that translated it left service: its memory is gone. The buddy translates the
      // connection the same way only if the binding came with the session's sync (adopt).
      this.conns.remove(c);
      c = undefined;
    }
    if (c === undefined || c.rsId !== rsId || c.slot !== slot) {
      c = this.newConn(frame, hub, slot, rsId, rs, key, pkt.outer);
      if (c === undefined) return;
    }
    if (rs.mode !== 'dr') {
      const r = natInbound(frame, lay, c.t);
      if (r !== XlateResult.OK) return this.drop(XLATE_REASONS[r]!);
    }
    this.counts.toServer++;
    back.output(rs.family, rs.address, frame, frame.length);
  }

  private newConn(frame: Uint8Array, hub: number, slot: number, rsId: number, rs: RsInfo, key: string, tuple: Parameters<typeof copyTuple>[0]): Conn | undefined {
    const lay = this.lay;
    const fam = lay.family as 4 | 6;
    const n = fam === 6 ? 16 : 4;
    const s = lay.l3 + (fam === 6 ? 8 : 12);
    const t = newTranslation(rs.mode, fam);
    t.client.set(frame.subarray(s, s + n));
    t.vip.set(frame.subarray(s + n, s + 2 * n));
    const ports = lay.l4 >= 0 && (lay.proto === 6 || lay.proto === 17);
    t.clientPort = ports ? (frame[lay.l4]! << 8) | frame[lay.l4 + 1]! : 0;
    t.vipPort = ports ? (frame[lay.l4 + 2]! << 8) | frame[lay.l4 + 3]! : 0;
    t.rs.set(rs.address);
    t.rsPort = rs.port === 0 ? t.vipPort : rs.port;
    let pool: LocalAddressPool | null = null;
    if (rs.mode === 'fullnat') {
      // The pool of the connection's share (its home board's local addresses): two boards owning
      // different shares never hand out the same local address and port, and after a takeover
      // the owner keeps allocating from the share's pool, where synced connections hold their ports.
      const home = this.shareSlot(tuple);
      pool = this.pools.get(home) ?? this.pools.get(slot) ?? null;
      if (pool === null) {
        this.drop('no_local_address');
        return undefined;
      }
      if (!pool.allocate(0, fam, lay.proto, rs.dest, this.local)) {
        const why = pool.lastFailure ?? 'local_ports_exhausted';
        this.drop(why);
        if (!this.exhausted.has(slot)) {
          this.exhausted.add(slot);
          const detail = `slot${slot}: full-NAT pool ${why} (${pool.stats.inUse} ports in use) — new ${rs.dest} connections dropped`;
          this.log.warn({ category: 'live-pool', slot, reason: why }, detail);
          this.onEvent({ type: 'live.pool.exhausted', slot, atMs: this.clock.now(), detail });
        }
        return undefined;
      }
      if (this.exhausted.delete(slot)) this.onEvent({ type: 'live.pool.recovered', slot, atMs: this.clock.now(), detail: `slot${slot}: full-NAT pool has free ports again` });
      t.local.set(this.local.address);
      t.localPort = this.local.port;
    }
    const c: Conn = {
      t, proto: lay.proto, slot, hub, rsId, frontKey: key, backKey: rs.mode === 'dr' ? '' : backKeyOf(t, lay.proto),
      tuple: copyTuple(tuple), pool, poolDest: rs.dest,
    };
    this.conns.add(c);
    return c;
  }

  /** Slot of the board whose share a client-side tuple belongs to (the home of its ECMP bucket), -1 when unknown. */
  private shareSlot(t: FlowTuple): number {
    const g = this.dp.group;
    const hub = this.dp.hubs[0];
    if (g.mapping !== 'resilient' || hub === undefined) return -1;
    if (this.homeTable === null || this.ownersVersion !== g.version) this.homeTable = g.homeTable();
    const b = g.bucketOf(hub.hashTuple(t));
    return b >= 0 ? g.slotOf(this.homeTable[b]!) : -1;
  }

  /**
   * The local addresses of each share follow the share: the board serving its home's ECMP buckets
   * answers for them. When that board changes (a takeover, a handover, a board back in service),
   * the addresses move and the new owner announces them (gratuitous ARP, unsolicited NA:
   * RFC 5227 §3, RFC 4861 §7.2.6) so the real servers send replies to its MAC.
   */
  refreshLocalOwners(): void {
    const g = this.dp.group;
    if (g.version === this.ownersVersion || g.mapping !== 'resilient') return;
    this.homeTable = g.homeTable();
    this.ownersVersion = g.version;
    for (const [home, pool] of this.pools) {
      const buckets = g.homeBuckets(home);
      const serving = buckets.length > 0 ? g.slotOf(g.servingAt(buckets[0]!)) : -1;
      const owner = serving >= 0 && this.backs.has(serving) ? serving : home;
      const was = this.poolOwner.get(home) ?? home;
      if (owner === was) continue;
      const old = this.backs.get(was);
      const ep = this.backs.get(owner)!;
      for (const a of pool.addresses) {
        old?.owned.delete(addressKey(a.family, a.bytes));
        ep.owned.add(addressKey(a.family, a.bytes));
      }
      this.poolOwner.set(home, owner);
      ep.announce(pool.addresses);
      this.log.info({ category: 'live-local', share: `slot${home}`, slot: owner }, `local addresses of slot${home}'s share answered by slot${owner}`);
    }
  }

  /** The slot answering for the local addresses of `home`'s share (tests, stats). */
  localOwner(home: number): number {
    return this.poolOwner.get(home) ?? home;
  }

  /**
   * The translation of the session `rec` as board `slot` applies it, for its sync payload; null
   * for a session the live path does not translate there (dr, tunnel, not seen, another board).
   */
  bindingOf(slot: number, rec: SessionRecord): Translation | null {
    const c = this.conns.front(partsKey(rec.family, rec.proto, rec.client, rec.clientPort, rec.server, rec.serverPort));
    return c !== undefined && c.slot === slot && c.t.mode !== 'dr' ? c.t : null;
  }

  /**
   * Board `slot` took over the session `rec` with the translation `binding` its sync carried: from
   * now on it translates the connection exactly so (same RS, same local address and port, the port
   * held in the share's pool). The RS comes from the record's RS id and the configuration.
   * @returns false when the binding does not fit the configuration (unknown RS, another mode,
   *   a local address in no pool); nothing is changed then
   */
  adopt(slot: number, rec: SessionRecord, binding: Translation): boolean {
    const rs = this.rs[rec.rs];
    if (rs === undefined || rs.mode !== binding.mode || rs.family !== rec.family || !this.backs.has(slot)) return false;
    const t = newTranslation(binding.mode, rec.family);
    t.client.set(rec.client);
    t.clientPort = rec.clientPort;
    t.vip.set(rec.server);
    t.vipPort = rec.serverPort;
    t.rs.set(rs.address);
    t.rsPort = rs.port === 0 ? t.vipPort : rs.port;
    let pool: LocalAddressPool | null = null;
    if (binding.mode === 'fullnat') {
      for (const p of this.pools.values()) if (p.addresses.some((a) => a.family === rec.family && a.bytes.subarray(0, rec.family === 6 ? 16 : 4).every((x, i) => x === binding.local[i]))) pool = p;
      if (pool === null) return false;
      t.local.set(binding.local);
      t.localPort = binding.localPort;
    }
    const frontKey = partsKey(rec.family, rec.proto, rec.client, rec.clientPort, rec.server, rec.serverPort);
    const old = this.conns.front(frontKey);
    if (old !== undefined) this.conns.remove(old);
    if (pool !== null && !pool.reserve(rec.family, rec.proto, rs.dest, t.local, t.localPort)) return false;
    const tuple = new FlowTuple();
    tuple.family = rec.family;
    tuple.src.set(rec.client);
    tuple.dst.set(rec.server);
    tuple.proto = rec.proto;
    tuple.hasPorts = rec.hasPorts;
    tuple.sport = rec.clientPort;
    tuple.dport = rec.serverPort;
    let hub = old?.hub ?? -1;
    if (hub < 0 || !this.dp.isInService(hub)) for (const s of this.fronts.keys()) if (this.dp.isInService(s)) { hub = s; break; }
    this.conns.add({ t, proto: rec.proto, slot, hub, rsId: rec.rs, frontKey, backKey: binding.mode === 'dr' ? '' : backKeyOf(t, rec.proto), tuple, pool, poolDest: rs.dest });
    this.refreshLocalOwners();
    return true;
  }

  /** A frame from processor board `slot`'s back link (a view valid during the call). */
  receiveBack(slot: number, frame: Uint8Array): void {
    const ep = this.backs.get(slot);
    if (ep === undefined) return;
    this.counts.backFrames++;
    this.refreshLocalOwners();
    if (!this.l2(ep, frame)) return;
    const lay = this.lay;
    if (this.toOwned(ep, frame)) {
      if (isEchoRequest(frame, lay)) {
        this.counts.echoReplies++;
        ep.transmit(frame, echoReplyInPlace(frame, lay, ep.mac));
        return;
      }
      if (this.isOwnAddress(ep, frame) && this.probers.get(slot)!.receive(frame, lay)) return;
    }
    let c: Conn | undefined;
    if (isIcmpError(frame, lay)) {
      const q = this.quote;
      if (!locateIp(frame, lay.l4 + 8, lay.end, q, true)) return this.drop('parse_error');
      c = this.conns.back(quoteReplyKey(frame, q));
      if (c === undefined) return this.drop('icmp_no_connection');
      const r = translateIcmpFromServer(frame, lay, c.t, q);
      if (r !== XlateResult.OK) return this.drop(XLATE_REASONS[r]!);
    } else {
      c = this.conns.back(frameKey(frame, lay));
      if (c === undefined) {
        if (this.toOwned(ep, frame) || lay.family !== 0) this.drop('no_connection');
        return;
      }
      const r = natOutbound(frame, lay, c.t);
      if (r !== XlateResult.OK) return this.drop(XLATE_REASONS[r]!);
      const pkt = this.parser.parse(frame, LinkType.ETHERNET, frame.length);
      const bslot = this.dp.deliver(pkt, this.clock.now(), c.hub);
      if (bslot < 0 || this.dp.board(bslot).lastSession < 0) return this.drop('reply_no_session');
    }
    this.toClient(c.hub, frame, lay.family as 4 | 6);
  }

  /** True when the datagram is to the endpoint's own address (not a VIP, local or gateway address). */
  private isOwnAddress(ep: LinkEndpoint, frame: Uint8Array): boolean {
    const l = this.lay;
    const own = l.family === 4 ? ep.own4 : ep.own6;
    if (own === null) return false;
    const d = l.l3 + (l.family === 6 ? 24 : 16);
    const n = l.family === 6 ? 16 : 4;
    for (let i = 0; i < n; i++) if (frame[d + i] !== own[i]) return false;
    return true;
  }

  /** Sends a translated reply out of hub `hub` (or another hub with a link) to the router. */
  private toClient(hub: number, frame: Uint8Array, family: 4 | 6): void {
    let ep = this.fronts.get(hub);
    let h = hub;
    if (ep === undefined || !this.dp.isInService(hub)) {
      for (const [s, e] of this.fronts) {
        if (this.dp.isInService(s)) {
          ep = e;
          h = s;
          break;
        }
      }
    }
    const gw = this.gateways.get(h);
    const hop = family === 4 ? gw?.gw4 : gw?.gw6;
    if (ep === undefined || !hop) return this.drop('no_front_route');
    this.counts.toClient++;
    ep.output(family, hop, frame, frame.length);
  }

  /** The back gateway moves to the lowest-slot board in service (announced when it moves). */
  private refreshGateway(): void {
    if (this.backGateway.length === 0) return;
    let owner = -1;
    for (const s of this.backs.keys()) if (this.dp.isInService(s) && (owner < 0 || s < owner)) owner = s;
    if (owner === this.gatewayOwner) return;
    const old = this.backs.get(this.gatewayOwner);
    if (old) for (const a of this.backGateway) old.owned.delete(addressKey(a.family, a.bytes));
    this.gatewayOwner = owner;
    const ep = this.backs.get(owner);
    if (!ep) return;
    for (const a of this.backGateway) ep.owned.add(addressKey(a.family, a.bytes));
    ep.announce(this.backGateway);
    this.log.info({ category: 'live-gateway', slot: owner }, `back gateway answered by slot${owner}`);
  }

  /** Drops the connections whose session the board no longer holds; moves the back gateway. */
  sweep(): number {
    this.refreshGateway();
    this.refreshLocalOwners();
    return this.conns.sweep((c) => {
      const table = this.dp.board(c.slot).table;
      table.loadKey(c.tuple);
      const e = table.find();
      return e >= 0 && table.rsOf(e) === c.rsId;
    });
  }

  /** Counters (a fresh object). */
  stats(): LivePathStats {
    const neighbours: Record<string, number> = {};
    for (const ep of [...this.fronts.values(), ...this.backs.values()]) neighbours[ep.name] = ep.neighbours.size;
    return { ...this.counts, connections: this.conns.countByMode(), drops: Object.fromEntries(this.dropCounts), neighbours };
  }
}
