/**
 * The HA fabric: every redundant pair of a shelf wired in one process. For each pair it builds the
 * backplane lines (chassis/model/backplane.ts: PRESENT/HEALTHY/ACTIVE + interlock), the links
 * between the members (a `PairLinkFactory`: UDP on the live shelf, simulated links in scenarios)
 * and the share router (the data model's); for each member a NodeController (node-controller.ts:
 * one pair-member machine per share, heartbeats, session sync, watchdog kicks) with its IPMI
 * watchdog (chassis/model/ipmi-watchdog.ts) on the fabric's ("hardware") clock. It keeps what the
 * shelf shows of every share: each member's role and epoch, and where the hubs send the share.
 *
 * Used by the emulator's HA part (chassis/runtime/ha-part.ts: `atcasim start`, the emulator mode of
 * `atcasim scenario`) and by the count-model simulation (chassis/sim/pair-sim.ts). A
 * `FabricSupervisor` can watch and steer it: the simulator (chassis/sim/ha-simulator.ts) gives each
 * node freezable clocks, injects faults, keeps the timeline and the takeover ledger and audits the
 * invariants through these hooks; without one, the nodes run on the fabric's clock and nothing is
 * recorded.
 *
 * Pure over its Clock and the seed: no I/O (the links do theirs).
 */
import type { Clock } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import type { PairConfig, ResolvedHaConfig } from '../config/ha.ts';
import { Backplane } from '../model/backplane.ts';
import { IpmiWatchdog } from '../model/ipmi-watchdog.ts';
import type { CompatVersion, WireRole } from './heartbeat.ts';
import { parseVersion } from './heartbeat.ts';
import { NodeController } from './node-controller.ts';
import type { HaObserver, RoleChange, ShareDataPlane, ShareRouter } from './node-ports.ts';
import type { PairLinkFactory, PairLinks } from './pair-link.ts';

/** A lost group of sessions (one record of the count model, or one session). */
export interface LostItem {
  createdAt: number;
  sessions: number;
}

/** What the data model reports about a move of a share between nodes. */
export interface MoveFacts {
  /** t_f: the old owner stopped forwarding, ms. */
  tf: number;
  /** The old owner's acknowledged sync watermark at t_f (−Infinity: none). */
  watermark: number;
  /** Components faulty when the old owner stopped (null: not recorded; the ledger counts now). */
  stopFaults: number | null;
  /** The new owner forwards from, ms. */
  forwardingAt: number;
  /** Sessions of the old owner's table that the new owner does not hold. */
  lost: LostItem[];
  /**
   * The node whose table held the share's sessions when it moved, when that is not the router's
   * previous target (the hubs had moved the share to the buddy in hardware and no takeover followed).
   */
  from?: string;
}

/** What a loss outside a takeover was (HaFabric.noteLoss). */
export interface LossNote {
  /** Why nobody took the sessions over (shown in the timeline), e.g. 'the buddy left service too'. */
  reason?: string;
  /** The node whose table lost them. */
  node?: string;
  /** The acknowledged watermark of the share's last owner at t_f (default −Infinity: none protected). */
  watermark?: number;
  /** Components faulty at t_f (null or absent: counted now). */
  faults?: number | null;
}

/** Node events the data model hears of. */
export type NodeDataEvent =
  /** The node's data path stopped at `at` (hang, pause, uplink lost, software lost). */
  | 'data-stopped'
  /** It runs again (thawed with a working uplink). */
  | 'data-resumed'
  /** Its software state is about to be lost (reset, power loss, upgrade reboot): senders still exist. */
  | 'software-lost';

/**
 * The data side of the fabric: session tables and the hubs. The count model (chassis/sim) and the
 * emulator's real boards (chassis/runtime/ha-board.ts) implement it.
 */
export interface HaDataModel {
  /** Called once, first thing in the fabric's constructor. */
  attach(fabric: HaFabric): void;
  /** The data plane of `node` for `share` (called while the fabric builds its nodes). */
  dataPlane(node: string, share: string): ShareDataPlane;
  /** The hubs: every new flow of `share` goes to `node` from now on. */
  route(share: string, node: string): void;
  /** Blue/green: `share` keeps `percent` of its own new flows, its buddy share takes the rest. */
  shift(share: string, percent: number): void;
  /**
   * The router moved `share` from `prev` to `node` (prev ≠ null): what moved, or null when nothing
   * did (the owner re-claimed with its table intact after an aborted handover). Asked by a takeover
   * ledger (chassis/sim/takeover-ledger.ts).
   */
  moved?(share: string, prev: string, node: string, planned: boolean): MoveFacts | null;
  /** A node event (see NodeDataEvent). */
  nodeEvent?(node: string, ev: NodeDataEvent, at: number): void;
  /**
   * The run is being reported: losses of moves that no takeover claimed (the hubs moved a share in
   * hardware, and the buddy never took it over) are recorded now through HaFabric.noteLoss.
   */
  settle?(): void;
}

/** A node's software clocks (see NodeController: control, data). */
export interface NodeClocks {
  control: Clock;
  data: Clock;
  /** The node's wall clock for heartbeats (display only), ms since 1970; default control.now(). */
  wallNow?(): number;
}

/**
 * What may watch and steer a fabric (the simulator, chassis/sim/ha-simulator.ts). Every hook is
 * optional; observer hooks run before `FabricOptions.observer`.
 */
export interface FabricSupervisor extends HaObserver {
  /** First thing in the fabric's constructor (after the data model's attach). */
  attach?(fabric: HaFabric): void;
  /** A pair was built (backplane, links, router), before its nodes. */
  pairAdded?(pair: FabricPair): void;
  /** The clocks of `node`'s software (default: both the fabric's clock). */
  nodeClocks?(node: string): NodeClocks;
  /** A node was built (its controller exists, nothing powered). */
  nodeAdded?(node: FabricNode): void;
  /** The node's software state is lost (reset, power loss, upgrade reboot), after the data model heard of it. */
  softwareLost?(node: string): void;
  /** The node's payload is powered (again): its software boots. */
  softwareBoot?(node: string): void;
  /** The hubs moved `share` to `node` (after the data model routed it); `prev` is where it was (null: first activation). */
  assigned?(share: string, node: string, prev: string | null): void;
  /** Components faulty now (for the data model's loss accounting); default 0. */
  faultCount?(): number;
  /** A loss outside a takeover (a split-brain loser dropping its table, a move no takeover claimed). */
  noteLoss?(items: readonly LostItem[], share: string, tf: number, note?: LossNote): void;
  /** A node fault the shelf caused (extraction, payload fault): the time a takeover is measured from. */
  markFault?(node: string): void;
}

/** Fabric construction options. */
export interface FabricOptions {
  /** Seed of the nodes' random choices (jitter, incarnations, stream ids). */
  seed: number;
  cfg: ResolvedHaConfig;
  pairs: readonly PairConfig[];
  /** The base ("hardware") clock. */
  clock: Clock;
  model: HaDataModel;
  /** The links between the members of each pair. */
  links: PairLinkFactory;
  /** Software version every node starts with, default '1.0'. */
  version?: string;
  /** TEST-ONLY planted bug: firmware ignores the interlock. */
  unsafeNoInterlockGuard?: boolean;
  /** Observer (the emulator: shelf roles, SEL), called after the supervisor's hooks. */
  observer?: HaObserver;
  /** Persisted epochs per node (fencing tokens survive restarts). */
  epochs?: (node: string) => Record<string, number> | undefined;
  log?: Logger;
  supervisor?: FabricSupervisor;
}

/** A pair of the fabric. */
export interface FabricPair {
  readonly cfg: PairConfig;
  readonly shares: readonly string[];
  /** Share → its home node. */
  readonly home: ReadonlyMap<string, string>;
  readonly backplane: Backplane;
  readonly links: PairLinks;
  readonly router: ShareRouter;
}

/** A node of the fabric. */
export interface FabricNode {
  readonly name: string;
  readonly peer: string;
  readonly pair: FabricPair;
  readonly watchdog: IpmiWatchdog;
  readonly controller: NodeController;
}

/** What the fabric keeps per share. */
interface ShareState {
  pair: FabricPair;
  roles: Map<string, WireRole>;
  epochs: Map<string, number>;
  routerTarget: string | null;
}

/** FNV-1a 32-bit hash of a string (derives per-component seeds). */
export function seedHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The shares of a pair: 'shmc' for the ShMC pair, `PAIR/MEMBER` for each member of a processor pair. */
export function sharesOfPair(p: PairConfig): string[] {
  return p.kind === 'shmc' ? [p.name] : p.members.map((m) => `${p.name}/${m}`);
}

/** See the module header. */
export class HaFabric {
  readonly cfg: ResolvedHaConfig;
  readonly clock: Clock;
  readonly seed: number;
  readonly model: HaDataModel;
  private readonly o: FabricOptions;
  private readonly sup: FabricSupervisor;
  private readonly nodes = new Map<string, FabricNode>();
  private readonly pairs = new Map<string, FabricPair>();
  private readonly shares = new Map<string, ShareState>();
  private disposed = false;

  /**
   * Builds every pair and node (nothing powered until `start`).
   * @throws CommandError('bad_pair') when a pair is defined twice or a node is in two pairs
   */
  constructor(o: FabricOptions) {
    this.o = o;
    this.cfg = o.cfg;
    this.clock = o.clock;
    this.seed = o.seed;
    this.model = o.model;
    this.sup = o.supervisor ?? {};
    this.model.attach(this);
    this.sup.attach?.(this);
    const version = parseVersion(o.version ?? '1.0');
    const seen = new Set<string>();
    for (const p of o.pairs) {
      if (this.pairs.has(p.name)) throw new CommandError('bad_pair', `pair ${p.name} defined twice`);
      for (const m of p.members) {
        if (seen.has(m)) throw new CommandError('bad_pair', `node ${m} is in two pairs`);
        seen.add(m);
      }
      this.addPair(p, version);
    }
  }

  /**
   * Powers the nodes for which `powered` holds (the others are powered off, and `afterOff` hears of
   * each of them).
   */
  start(powered: (node: string) => boolean = () => true, afterOff?: (node: string) => void): void {
    for (const n of this.nodes.values()) {
      if (!powered(n.name)) {
        n.controller.powerOff('off', 'initial');
        afterOff?.(n.name);
      } else {
        n.controller.powerOn('initial');
      }
    }
  }

  /** Current base-clock time, ms. */
  now(): number {
    return this.clock.now();
  }

  /**
   * Planned switchover of a pair (every share it has an owner for) or of one share: each owner
   * hands its share to the peer. `beforeShare` runs before each handover is asked for.
   * @throws CommandError('unknown_pair'), 'no_active' or the refusal (arbitration.handOverRefusal)
   *   when no share could be handed over
   */
  switchover(target: string, beforeShare?: () => void): void {
    const p = this.pair(target);
    const targets = p.shares.includes(target) ? [target] : [...p.shares];
    let done = 0;
    let lastErr: CommandError | null = null;
    for (const s of targets) {
      const owner = this.ownerOf(s);
      if (!owner) {
        lastErr = new CommandError('no_active', `switchover ${s}: no active member`);
        continue;
      }
      beforeShare?.();
      try {
        this.node(owner).controller.switchover(s);
        done++;
      } catch (e) {
        if (!(e instanceof CommandError)) throw e;
        lastErr = e;
      }
    }
    if (lastErr && done === 0) throw lastErr;
  }

  /** Role of `node` for `share` (default its first share); 'failed' when unknown. */
  roleOf(node: string, share?: string): WireRole {
    const n = this.node(node);
    const s = share ?? n.pair.shares[0]!;
    return this.share(s).roles.get(node) ?? 'failed';
  }

  /** The node that owns `share` now (role active), or null. With two owners, the first found. */
  ownerOf(share: string): string | null {
    const st = this.share(share);
    for (const [n, r] of st.roles) if (r === 'active') return n;
    return null;
  }

  /** Nodes whose role for `share` is active (two while a split brain lasts). */
  ownersOf(share: string): string[] {
    return [...this.share(share).roles].filter(([, r]) => r === 'active').map(([n]) => n);
  }

  /** Roles of `share`'s members as last reported, in the order they first reported. */
  rolesOf(share: string): ReadonlyMap<string, WireRole> {
    return this.share(share).roles;
  }

  /** Epochs of `share`'s members as last reported, in the order they first reported. */
  epochsOf(share: string): ReadonlyMap<string, number> {
    return this.share(share).epochs;
  }

  /** The node the hubs send `share` to (the last claim), or null before the first activation. */
  routerTarget(share: string): string | null {
    return this.share(share).routerTarget;
  }

  /** Epoch of a member. */
  epochOf(node: string, share?: string): number {
    const n = this.node(node);
    return this.share(share ?? n.pair.shares[0]!).epochs.get(node) ?? 0;
  }

  /** The controller of a node. @throws CommandError('unknown_node') */
  controller(node: string): NodeController {
    return this.node(node).controller;
  }

  /** The IPMI watchdog of a node. @throws CommandError('unknown_node') */
  watchdog(node: string): IpmiWatchdog {
    return this.node(node).watchdog;
  }

  /** The backplane of a pair (name or share). @throws CommandError('unknown_pair') */
  backplane(pair: string): Backplane {
    return this.pair(pair).backplane;
  }

  /** Shares of a pair (name or share). @throws CommandError('unknown_pair') */
  sharesOf(pair: string): string[] {
    return [...this.pair(pair).shares];
  }

  /** Every share, in pair order. */
  allShares(): string[] {
    return [...this.shares.keys()];
  }

  /** Node names in pair order. */
  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** Pair names in order. */
  pairNames(): string[] {
    return [...this.pairs.keys()];
  }

  /** True when `name` is a node of the fabric. */
  hasNode(name: string): boolean {
    return this.nodes.has(name);
  }

  /** A node. @throws CommandError('unknown_node') */
  node(name: string): FabricNode {
    const n = this.nodes.get(name);
    if (!n) throw new CommandError('unknown_node', `unknown node "${name}" (known: ${[...this.nodes.keys()].join(', ')})`);
    return n;
  }

  /** The pair (by pair or share name). @throws CommandError('unknown_pair') */
  pairOf(name: string): FabricPair {
    return this.pair(name);
  }

  /** The pair a node belongs to. @throws CommandError('unknown_node') */
  pairOfNode(node: string): FabricPair {
    return this.node(node).pair;
  }

  /** Components faulty now, as the supervisor counts them (0 without one). */
  faultCount(): number {
    return this.sup.faultCount?.() ?? 0;
  }

  /**
   * Records a loss outside a takeover with the supervisor: a split-brain loser dropping its table, or
   * sessions the hubs moved to a buddy that never took the share over (`note` says why).
   */
  noteLoss(items: readonly LostItem[], share: string, tf: number, note?: LossNote): void {
    this.sup.noteLoss?.(items, share, tf, note);
  }

  /** Marks a node faulty now (the emulator's shelf-driven failures: extraction, payload fault). */
  markFault(node: string): void {
    this.node(node);
    this.sup.markFault?.(node);
  }

  /** Stops every actor and timer of the nodes (the fabric cannot run afterwards). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const n of this.nodes.values()) n.controller.dispose();
  }

  /** True once disposed. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  // ---------------------------------------------------------------- construction

  private addPair(p: PairConfig, version: CompatVersion): void {
    const shares = sharesOfPair(p);
    const home = new Map<string, string>();
    for (const s of shares) home.set(s, p.kind === 'shmc' ? p.members[0] : s.slice(p.name.length + 1));
    const pair: FabricPair = {
      cfg: p, shares, home, backplane: new Backplane(p.members, shares), links: this.o.links.links(p),
      router: {
        assign: (share, node) => {
          this.model.route(share, node);
          const st = this.share(share);
          const prev = st.routerTarget;
          st.routerTarget = node;
          this.sup.assigned?.(share, node, prev);
        },
        shift: (share, percent) => this.model.shift(share, percent),
      },
    };
    this.pairs.set(p.name, pair);
    for (const s of shares) this.shares.set(s, { pair, roles: new Map(), epochs: new Map(), routerTarget: null });
    this.sup.pairAdded?.(pair);
    for (const name of p.members) this.addNode(pair, name, version);
  }

  private addNode(pair: FabricPair, name: string, version: CompatVersion): void {
    const p = pair.cfg;
    const peer = p.members[0] === name ? p.members[1] : p.members[0];
    const clocks = this.sup.nodeClocks?.(name) ?? { control: this.clock, data: this.clock };
    const watchdog = new IpmiWatchdog(this.clock);
    const tables = new Map(pair.shares.map((s) => [s, this.model.dataPlane(name, s)]));
    const epochs = this.o.epochs?.(name);
    const controller = new NodeController({
      node: name,
      shares: pair.shares.map((s) => ({ share: s, peer, home: pair.home.get(s) === name })),
      version, cfg: this.cfg, control: clocks.control, data: clocks.data, hardware: this.clock, backplane: pair.backplane, watchdog,
      router: pair.router,
      dataPlane: (s) => tables.get(s)!,
      link: pair.links.endpoint(name),
      random: new SeededRandom(seedHash(`${this.seed}:node:${name}`)),
      ...(clocks.wallNow ? { wallNow: clocks.wallNow } : {}),
      unsafeNoInterlockGuard: this.o.unsafeNoInterlockGuard === true,
      softwareLost: () => {
        this.model.nodeEvent?.(name, 'software-lost', this.clock.now());
        this.sup.softwareLost?.(name);
      },
      softwareBoot: () => this.sup.softwareBoot?.(name),
      ...(epochs ? { epochs } : {}),
      ...(this.o.log ? { log: this.o.log } : {}),
      observer: this.observer(),
    });
    pair.links.connect(name, controller);
    const node: FabricNode = { name, peer, pair, watchdog, controller };
    this.nodes.set(name, node);
    this.sup.nodeAdded?.(node);
  }

  /** A node's observer: the fabric's own record of roles, then the supervisor, then the extra observer. */
  private observer(): HaObserver {
    const sup = this.sup;
    const extra = this.o.observer;
    return {
      roleChanged: (e: RoleChange) => {
        const st = this.share(e.share);
        st.roles.set(e.node, e.to);
        st.epochs.set(e.node, e.epoch);
        sup.roleChanged?.(e);
        extra?.roleChanged?.(e);
      },
      alarm: (e) => {
        sup.alarm?.(e);
        extra?.alarm?.(e);
      },
      watchdog: (e) => {
        sup.watchdog?.(e);
        extra?.watchdog?.(e);
      },
      hardware: (e) => {
        sup.hardware?.(e);
        extra?.hardware?.(e);
      },
      handoverAborted: (e) => {
        sup.handoverAborted?.(e);
        extra?.handoverAborted?.(e);
      },
    };
  }

  // ---------------------------------------------------------------- lookups

  private pair(name: string): FabricPair {
    const p = this.pairs.get(name) ?? this.shares.get(name)?.pair;
    if (!p) throw new CommandError('unknown_pair', `unknown pair or share "${name}" (known: ${[...this.pairs.keys(), ...this.shares.keys()].join(', ')})`);
    return p;
  }

  private share(name: string): ShareState {
    const s = this.shares.get(name);
    if (!s) throw new CommandError('unknown_pair', `unknown share "${name}" (known: ${[...this.shares.keys()].join(', ')})`);
    return s;
  }
}
