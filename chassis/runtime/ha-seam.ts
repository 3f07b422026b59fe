/**
 * The seam where the HA layer (chassis/ha, docs/ha.md) plugs into the emulator composition.
 *
 * The emulator does not know how pairs arbitrate; it asks an optional `HaPart` for three things:
 * operator actions (`switchover`, `hang`, `heal`), a read-only status for the TUI and the stats
 * line, and a clean stop. Role changes reach the shelf through `Shelf.roles.set` (persisted, one SEL
 * record each), so the TUI's front view shows roles from the ChassisSnapshot whether or not the
 * HA part also reports live details (heartbeat age, watchdog countdown, sync lag) here.
 *
 * Until the HA part is wired, `Emulator.ha` is undefined and the TUI keys `s` and `w` answer
 * "not available yet" (CommandError code `not_available`), honestly.
 *
 * Wiring (chassis/runtime/emulator.ts): when `EmulatorOptions.ha` is given, the DataPlane is built
 * with `buddyFailover: true` (a leaving board's buckets go to its buddy) and a `handover` hook
 * that calls `HaPart.handover`; the factory runs after the Shelf opened and before the IPMI face
 * is built (which then gets `HaPart.ipmiHooks`).
 *
 * The HA part's environment comes from the composition root (`HaEnvironment`): the links between
 * the members of every pair (the live shelf: UDP sockets, chassis/io/udp-pair-link.ts; scenarios:
 * simulated links) and the fault model that gives the nodes freezable clocks and runs the operator
 * faults (the simulator, chassis/sim/ha-simulator.ts, which satisfies `HaFaultModel`). The
 * runtime imports neither: it sees the two ports below.
 */
import type { SessionBindings } from './session-payload.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import type { SessionHandover } from '../dataplane/types.ts';
import type { FabricSupervisor } from '../ha/ha-fabric.ts';
import type { PairLinkFactory } from '../ha/pair-link.ts';
import type { Shelf } from '../model/shelf.ts';
import type { Platform } from '../platform.ts';
import type { PairConfig } from '../config/ha.ts';
import type { ShelfConfig } from '../config/types.ts';
import type { ShelfIpmiHaHooks } from '../ipmi/shelf-manager/index.ts';

/** Live HA figures of one pair member, per share (for the TUI's detail pane). */
export interface HaMemberView {
  /** Share or pair, e.g. `shmc`, `lb1/slot3`. */
  share: string;
  /** Node name: `shmc-a`, `slot3`, … */
  node: string;
  /** Role name as docs/ha.md "Roles" spells it (`active`, `standby.hot`, …). */
  role: string;
  epoch: number;
  /** Ms since the peer's last heartbeat (Infinity when never heard). */
  heartbeatAgeMs: number;
  /** Ms left on the node's IPMI watchdog, undefined when it is stopped. */
  watchdogMs?: number;
  /** Session-sync lag (owner side), ms. */
  syncLagMs?: number;
  /** Alarms raised on this member. */
  alarms: readonly string[];
  /** Age of each raised alarm, ms since it was raised (alarms present from start: since then). */
  alarmAgeMs?: Readonly<Record<string, number>>;
}

/**
 * Open sessions lost since start by their age when their board stopped forwarding (t_f): young
 * ones (younger than the sync age T_s plus one batch B, docs/ha.md §5.3: not yet guaranteed on
 * the standby, losing them on a failure is expected) and established ones (older: none should be
 * lost on a single fault). Planned deactivations and switchovers lose none.
 */
export interface LostByAge {
  young: number;
  established: number;
  /** T_s + B, ms: the boundary between the two. */
  establishedMs: number;
}

/** What the emulator needs from the HA layer. Every method may throw CommandError (refusals). */
export interface HaPart {
  /** Planned switchover of a pair (`shmc`, `lb1`, or a share `lb1/slot3`): TUI `s`, clia, IPMI. */
  switchover(pair: string): void;
  /** Stops a node feeding its watchdog (TUI `w`): the watchdog expires and the node is reset. */
  hang(node: string): void;
  /** Ends a hang before the watchdog does. */
  heal(node: string): void;
  /** Live status of every member (may be empty). */
  status(): readonly HaMemberView[];
  /** Sessions lost since start by age cohort (optional: HA parts without session sync omit it). */
  lostByAge?(): LostByAge;
  /** Stops the machines and their timers. */
  stop(): void | Promise<void>;
  /** Hooks for the IPMI shelf face (switchover over IPMI, `clia shmstatus`); optional. */
  readonly ipmiHooks?: ShelfIpmiHaHooks;
  /**
   * Called by the data plane when a processor board leaves service with sessions in its table:
   * returns how many the buddy took over (the rest are counted lost). Optional.
   */
  readonly handover?: SessionHandover;
  /** Live mode: the live path's translations travel with the synced sessions (session-payload.ts). Optional. */
  setSessionBindings?(b: SessionBindings | null): void;
}

/**
 * What an HA factory receives: the shelf (roles and SEL through `Shelf.roles.set`), the data plane
 * (`group` for moving shares, `board(slot)` for session sync and promotion; built with the HA
 * buddies as ECMP failover targets whenever an HA factory is given), and the platform.
 */
export interface HaContext {
  shelf: Shelf;
  dataPlane: DataPlane;
  platform: Platform;
  config: ShelfConfig;
}

/** Builds the HA part once the shelf and data plane exist. */
export type HaFactory = (ctx: HaContext) => HaPart | Promise<HaPart>;

/**
 * An operator action the HA part hands to its fault model (TUI `s` and `w`, clia, IPMI; `upgrade`:
 * an HPM.1 payload activation reboots the node on VERSION 'MAJOR.MINOR', as a scenario's action).
 */
export type HaOperatorAction = { op: 'switchover'; pair: string } | { op: 'hang' | 'heal'; node: string } | { op: 'upgrade'; node: string; version: string };

/**
 * The fault model of the HA part (chassis/sim/ha-simulator.ts implements it): it supervises the
 * fabric (per-node clocks, fault accounting, and in scenarios the timeline, the takeover ledger
 * and the invariant audit) and runs the operator's actions on it.
 */
export interface HaFaultModel extends FabricSupervisor {
  /** Applies the model's starting conditions and powers the nodes for which `powered` holds. */
  start(powered: (node: string) => boolean): void;
  /** Runs an operator action now (recorded where the model records). @throws CommandError when refused */
  perform(a: HaOperatorAction): void;
  /** True while a fault holds the node's payload off even in M4 (a scenario's `power-off`). */
  holdsOff(node: string): boolean;
}

/** What the composition root hands the HA part. */
export interface HaEnvironment {
  /** The links between the members of every pair. */
  links: PairLinkFactory;
  /** The fault model; without one, nodes run on the HA clock and hang/heal answer `not_available`. */
  faults?: HaFaultModel;
}

/** Builds the HA part's environment for the shelf's pairs (may open sockets). */
export type HaEnvironmentFactory = (pairs: readonly PairConfig[]) => HaEnvironment | Promise<HaEnvironment>;

