/**
 * A hub (switch) board: the stateless ECMP stage of the appliance (appliance.md §1, the FM40-class
 * hub with an FM4224-class chip). For each packet: select the hash profile's fields
 * (field-select.ts), hash them (hash/), map the hash to a member port through the shared
 * EcmpGroup (ecmp-group.ts), and count per port. No I/O, no timers; `ingress` allocates nothing.
 *
 * Both hubs of a shelf are built over the same EcmpGroup object and the same hash profile, so a
 * flow maps to the same processor board whichever hub it enters. Link state is per hub: when this
 * hub's link to a member port is down (a cut backplane link, not a board failure), packets whose
 * bucket points there are re-routed by this hub alone — to the member's failover target when that
 * is up and reachable from here, else to `reachable[hash mod R]` over the R members up and
 * reachable from this hub — without touching the shared table (the other hub keeps using it).
 * A board that is down or extracted is taken out of the shared group instead
 * (EcmpGroup.setUp(port, false)).
 *
 * Drop reasons (snake_case, as `replay` reports them):
 * - `no_member_up`: the group has no member up;
 * - `no_link`: members are up but this hub has no link up to any of them;
 * - `hub_down`: this hub board is out of service (setActive(false)).
 */
import type { FlowTuple, PacketView } from '../packet/flow-tuple.ts';
import { nullLogger, type Logger } from '../common/logger.ts';
import { CommandError } from '../common/errors.ts';
import { EcmpGroup, MAX_HUB_PORT } from './ecmp-group.ts';
import { FieldSelector, FLOW_KEY_BYTES, writeFlowKey } from './field-select.ts';
import { FlowSet } from './flow-set.ts';
import { createHash, pearson16V4, type HashAlgorithm } from './hash/index.ts';
import { HubPort, type HubPortCounters } from './port.ts';
import type { EcmpConfig } from './switch-config.ts';

/** Why a hub dropped a packet (see the module header). */
export type SwitchDropReason = 'no_member_up' | 'no_link' | 'hub_down';
/** Every drop reason, for reports that list all keys. */
export const SWITCH_DROP_REASONS: readonly SwitchDropReason[] = ['no_member_up', 'no_link', 'hub_down'];

/**
 * A forwarding decision. `ingress` returns one reused object (valid until the next call: copy what
 * you keep); `lookup` returns a fresh one.
 */
export interface EgressDecision {
  /** True: forward out of `port`; false: dropped for `drop`. */
  forward: boolean;
  /** Egress hub port, -1 when dropped. */
  port: number;
  /** Logical slot of the board behind `port`, -1 when dropped. */
  slot: number;
  /** The hash value (unsigned 32-bit; 16-bit hashes zero-extended). */
  hash: number;
  /** Bucket of the resilient table, -1 for modulo (or when dropped before hashing). */
  bucket: number;
  /** True when this hub's link state made it deviate from the shared table. */
  rerouted: boolean;
  drop: SwitchDropReason | null;
}

/** Construction options of a SwitchBoard. */
export interface SwitchBoardOptions {
  /** Logical slot of this hub board (1 or 2 in the default shelf). */
  slot: number;
  /** The ECMP group shared by both hubs. */
  group: EcmpGroup;
  /** Overrides of the hash profile (fields, hash, symmetric, tunnel, toeplitzKey). Default: the
   * group's configuration (`group.config`), which is what both hubs of a shelf should use so they
   * hash alike. Mapping and bucket count always come from `group`. */
  ecmp?: Partial<EcmpConfig>;
  /** Count distinct flows per port (default true; costs a second hash and a table probe). */
  countFlows?: boolean;
  log?: Logger;
  /** Called after this hub's own routing state changed: a link set up or down, the hub taken in
   * or out of service (the shared group's changes show in `EcmpGroup.version` instead). */
  onRouteChange?: () => void;
}

/** A hub's counters, as `counters()` snapshots them. */
export interface SwitchCounters {
  slot: number;
  active: boolean;
  /** Packets and bytes received (forwarded + dropped). */
  packets: number;
  bytes: number;
  forwarded: number;
  /** Distinct flows seen by this hub (direction-insensitive; non-IP frames are not flows). */
  flows: number;
  drops: Record<SwitchDropReason, number>;
  /** Member ports (and any port whose link was set), sorted by port. */
  ports: HubPortCounters[];
}

function newDecision(): EgressDecision {
  return { forward: false, port: -1, slot: -1, hash: 0, bucket: -1, rerouted: false, drop: null };
}

/** See the module header. */
export class SwitchBoard {
  readonly slot: number;
  readonly group: EcmpGroup;
  /** The effective configuration: the group's, overlaid with `ecmp` (mapping/buckets as the group's). */
  readonly config: Readonly<EcmpConfig>;
  /** The object `ingress` fills and returns. */
  readonly decision: EgressDecision = newDecision();

  private readonly selector: FieldSelector;
  private readonly algo: HashAlgorithm;
  /** Pearson over an l3/l3l4 profile: IPv4 keys are hashed from the tuple's words directly
   * (pearson16V4), without writing the key bytes; the value is the same. */
  private readonly pearsonV4: boolean;
  private readonly innerHeader: boolean;
  private readonly wantPorts: boolean;
  private readonly symmetric: boolean;
  private readonly log: Logger;
  private readonly countFlows: boolean;
  private readonly flowSet: FlowSet | null;
  private readonly onRouteChange: (() => void) | null;
  private readonly flowKey = new Uint8Array(FLOW_KEY_BYTES);
  private readonly portsByNum: Array<HubPort | undefined> = new Array(MAX_HUB_PORT + 1);
  private readonly reach = new Int32Array(MAX_HUB_PORT + 1);
  private nReach = 0;
  private groupVersion = -1;
  private active = true;
  private rxPackets = 0;
  private rxBytes = 0;
  private forwarded = 0;
  private readonly drops: Record<SwitchDropReason, number> = { no_member_up: 0, no_link: 0, hub_down: 0 };

  /** @throws TypeError/RangeError for a bad profile (unknown field set or hash, malformed key) */
  constructor(opts: SwitchBoardOptions) {
    this.slot = opts.slot;
    this.group = opts.group;
    this.config = Object.freeze({ ...opts.group.config, ...opts.ecmp, mapping: opts.group.mapping, buckets: opts.group.bucketCount });
    this.algo = createHash(this.config.hash, this.config.toeplitzKey);
    this.selector = new FieldSelector({
      fields: this.config.fields,
      symmetric: this.config.symmetric,
      tunnel: this.config.tunnel,
      layout: this.algo.layout,
    });
    this.pearsonV4 = this.algo.name === 'pearson' && this.config.fields !== 'l2';
    this.innerHeader = this.config.tunnel === 'inner';
    this.wantPorts = this.config.fields === 'l3l4';
    this.symmetric = this.config.symmetric;
    this.log = (opts.log ?? nullLogger).child({ module: 'switch.hub', slot: opts.slot });
    this.countFlows = opts.countFlows ?? true;
    this.flowSet = this.countFlows ? new FlowSet() : null;
    this.onRouteChange = opts.onRouteChange ?? null;
    this.syncGroup();
  }

  /**
   * Forwards one packet: hash → member port → counters. Allocation-free; returns `this.decision`.
   * @param pkt the parsed packet (read only during the call)
   * @param now the caller's clock, ms (recorded as the port's last-packet time)
   */
  ingress(pkt: PacketView, now: number): EgressDecision {
    const d = this.decision;
    this.rxPackets++;
    this.rxBytes += pkt.origLen;
    // booleans read from objects are compared with true/false (one word compare, not ToBoolean)
    if (this.active === false) {
      d.forward = false;
      d.port = -1;
      d.slot = -1;
      d.hash = 0;
      d.bucket = -1;
      d.rerouted = false;
      d.drop = 'hub_down';
      this.drops.hub_down++;
      return d;
    }
    this.route(d, this.packetHash(pkt));
    if (d.forward === false) {
      this.drops[d.drop!]++;
      return d;
    }
    this.forwarded++;
    const hp = this.portsByNum[d.port]!;
    hp.packets++;
    hp.bytes += pkt.origLen;
    hp.lastPacketAt = now;
    if (this.flowSet !== null) {
      const n = writeFlowKey(this.selector.tupleOf(pkt), this.flowKey);
      if (n > 0 && this.flowSet.record(this.flowKey, n, d.port) !== d.port) hp.flows++;
    }
    return d;
  }

  /**
   * Where a flow will go ("where will this flow go?"), without counting anything. The l2 profile
   * hashes the tuple's L3+L4 fields here, since a bare tuple has no MACs.
   * @returns a fresh decision
   */
  lookup(tuple: FlowTuple): EgressDecision {
    const d = newDecision();
    if (!this.active) {
      d.drop = 'hub_down';
      return d;
    }
    this.route(d, this.hashTuple(tuple));
    return d;
  }

  /** The hash this hub computes for a packet (no counting). */
  hashPacket(pkt: PacketView): number {
    return this.packetHash(pkt);
  }

  private packetHash(pkt: PacketView): number {
    if (this.pearsonV4 === true) {
      const t = this.innerHeader === true && pkt.inner.family !== 0 ? pkt.inner : pkt.outer;
      if (t.family === 4) return this.pearsonOfV4(t);
    }
    const len = this.selector.selectPacket(pkt);
    return len > 0 ? this.algo.hash(this.selector.buf, len) : 0;
  }

  /** FieldSelector.writeL3 + pearson16 for an IPv4 tuple, from integers (same value). */
  private pearsonOfV4(t: FlowTuple): number {
    const s = t.src;
    const d = t.dst;
    const x = (s[0]! << 24) | (s[1]! << 16) | (s[2]! << 8) | s[3]!;
    const y = (d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!;
    const usePorts = this.wantPorts === true && t.hasPorts === true && t.fragment === false;
    // symmetric: the lower address (unsigned, network order) first, then the lower port
    const swap = this.symmetric === true && (x !== y ? x >>> 0 > y >>> 0 : usePorts && t.sport > t.dport);
    if (swap) return pearson16V4(y, x, t.proto, usePorts ? (t.dport << 16) | t.sport : 0, usePorts);
    return pearson16V4(x, y, t.proto, usePorts ? (t.sport << 16) | t.dport : 0, usePorts);
  }

  /** The hash this hub computes for a bare tuple (no counting; 0 when the tuple has no IP header). */
  hashTuple(tuple: FlowTuple): number {
    const len = this.selector.selectTuple(tuple);
    return len > 0 ? this.algo.hash(this.selector.buf, len) : 0;
  }

  /**
   * Sets this hub's link to a port up or down (only this hub's choices change; see the module header).
   * @throws CommandError('bad_port') for a port outside 1..1023
   */
  setLink(port: number, up: boolean): void {
    const hp = this.ensurePort(port);
    if (hp.linkUp === up) return;
    hp.linkUp = up;
    this.log.info({ category: up ? 'hub-link-up' : 'hub-link-down', port }, up ? 'link up' : 'link down');
    this.rebuildReach();
    this.onRouteChange?.();
  }

  /** This hub's link state to a port (true for ports never set). */
  linkUp(port: number): boolean {
    return this.portsByNum[port]?.linkUp ?? true;
  }

  /** Takes the hub board in or out of service (out: every packet is dropped as `hub_down`). */
  setActive(active: boolean): void {
    if (this.active === active) return;
    this.active = active;
    this.log.info({ category: active ? 'hub-active' : 'hub-inactive' }, active ? 'hub in service' : 'hub out of service');
    this.onRouteChange?.();
  }

  /** Whether the hub is in service. */
  get isActive(): boolean {
    return this.active;
  }

  /** A snapshot of the counters (allocates). */
  counters(): SwitchCounters {
    this.syncGroup();
    const ports: HubPortCounters[] = [];
    for (let p = 1; p <= MAX_HUB_PORT; p++) {
      const hp = this.portsByNum[p];
      if (!hp) continue;
      if (!this.group.isMember(p) && hp.packets === 0 && hp.linkUp) continue;
      ports.push({
        port: p,
        slot: this.group.slotOf(p),
        linkUp: hp.linkUp,
        memberUp: this.group.isUp(p),
        packets: hp.packets,
        bytes: hp.bytes,
        flows: hp.flows,
        lastPacketAt: hp.lastPacketAt,
      });
    }
    return {
      slot: this.slot,
      active: this.active,
      packets: this.rxPackets,
      bytes: this.rxBytes,
      forwarded: this.forwarded,
      flows: this.flowSet?.size ?? 0,
      drops: { ...this.drops },
      ports,
    };
  }

  /** Zeroes every counter and forgets the flows seen (link and group state are kept). */
  resetCounters(): void {
    this.rxPackets = 0;
    this.rxBytes = 0;
    this.forwarded = 0;
    for (const k of SWITCH_DROP_REASONS) this.drops[k] = 0;
    for (const hp of this.portsByNum) hp?.resetCounters();
    this.flowSet?.clear();
  }

  // ---------------------------------------------------------------- internals

  private route(d: EgressDecision, hash: number): void {
    if (this.groupVersion !== this.group.version) this.syncGroup();
    const g = this.group;
    d.hash = hash >>> 0;
    // one bucket computation: select(hash) is servingAt(bucketOf(hash)) for a resilient group
    const b = g.bucketOf(hash);
    d.bucket = b;
    d.rerouted = false;
    let port = b >= 0 ? g.servingAt(b) : g.select(hash);
    if (port < 0) {
      this.dropped(d, 'no_member_up');
      return;
    }
    if (this.portsByNum[port]!.linkUp === false) {
      const f = this.group.failoverOf(port);
      if (f >= 0 && this.group.isUp(f) && this.linkUp(f)) port = f;
      else if (this.nReach > 0) port = this.reach[(hash >>> 0) % this.nReach]!;
      else {
        this.dropped(d, 'no_link');
        return;
      }
      d.rerouted = true;
    }
    d.forward = true;
    d.port = port;
    d.slot = this.group.slotOf(port);
    d.drop = null;
  }

  private dropped(d: EgressDecision, why: SwitchDropReason): void {
    d.forward = false;
    d.port = -1;
    d.slot = -1;
    d.drop = why;
  }

  private ensurePort(port: number): HubPort {
    if (!Number.isInteger(port) || port < 1 || port > MAX_HUB_PORT) {
      throw new CommandError('bad_port', `hub port must be an integer in 1..${MAX_HUB_PORT}, got ${port}`);
    }
    let hp = this.portsByNum[port];
    if (!hp) {
      hp = new HubPort(port);
      this.portsByNum[port] = hp;
    }
    return hp;
  }

  /** Creates ports for new members and rebuilds the reachable list (control path). */
  private syncGroup(): void {
    for (const m of this.group.memberList()) this.ensurePort(m.port);
    this.rebuildReach();
    this.groupVersion = this.group.version;
  }

  private rebuildReach(): void {
    let n = 0;
    for (let p = 1; p <= MAX_HUB_PORT; p++) {
      if (this.group.isUp(p) && (this.portsByNum[p]?.linkUp ?? true)) this.reach[n++] = p;
    }
    this.nReach = n;
  }
}
