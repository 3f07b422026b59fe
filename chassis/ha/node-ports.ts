/**
 * The ports of a node controller (node-controller.ts): what it drives (the board's data plane per
 * share, the hubs' share router), whom it tells (observers: timeline, SEL, UI), how it is built
 * (NodeControllerOptions: clocks, backplane lines, IPMI watchdog, the link to its peer, Random) and
 * what it reports (MemberStatus). The backplane and watchdog ports are the hardware's
 * (chassis/model); the link port is pair-link.ts.
 */
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { Random } from '../../board/common/random.ts';
import type { ResolvedHaConfig } from '../config/ha.ts';
import type { BackplanePort } from '../model/backplane.ts';
import type { IpmiWatchdog, WatchdogEvent } from '../model/ipmi-watchdog.ts';
import type { CompatVersion, WireRole } from './heartbeat.ts';
import type { PairLink } from './pair-link.ts';
import type { ActivationKind, HandoverAbortReason, PairAlarm } from './pair-machine.ts';
import type { SessionSink, SessionSource } from './sync-types.ts';

/** The board's data plane for one share, as the HA layer drives it. */
export interface ShareDataPlane {
  /** Live table (read by the sync sender while owner). */
  readonly source: SessionSource;
  /** Standby table (written by the sync receiver while standby). */
  readonly sink: SessionSink;
  /** Takeover: the standby table becomes live; forwarding starts at data-clock time `forwardFrom`. */
  promote(forwardFrom: number): void;
  /** Stops forwarding; the live table becomes the standby table (`keep`) or is dropped. */
  demote(keep: boolean): void;
  /** Planned switchover: stop forwarding (new flows wait) until `resume` or `demote`. */
  hold(): void;
  resume(): void;
  /** The node lost its memory (reset, power loss): both tables are gone. */
  reset(): void;
}

/** The data plane of a share that carries no sessions (the shelf-manager pair): every hook a no-op. */
export function emptyShareDataPlane(): ShareDataPlane {
  return {
    source: { createdBetween: () => [], all: () => [], drainEnded: () => [] },
    sink: { upsert: () => {}, remove: () => {}, keys: () => [], clear: () => {} },
    promote: () => {},
    demote: () => {},
    hold: () => {},
    resume: () => {},
    reset: () => {},
  };
}

/** The hubs' resilient bucket table, per share (chassis/runtime/share-router.ts over the ECMP group; the count model fakes it). */
export interface ShareRouter {
  /** Moves all of the share's buckets to `node` (the failover target). */
  assign(share: string, node: string): void;
  /**
   * Blue/green: `share` keeps `percent` (0..100) of its own new flows; the rest go to the pair's other
   * member (its buddy share). Established flows stay where they are (drain).
   */
  shift(share: string, percent: number): void;
}

/** A role change of one member. */
export interface RoleChange {
  at: number;
  node: string;
  share: string;
  from: WireRole;
  to: WireRole;
  epoch: number;
  activation: ActivationKind | null;
  takeoverNotHot: boolean;
}

/** Observer port (timeline, SEL, UI). Every method optional. */
export interface HaObserver {
  roleChanged?(e: RoleChange): void;
  alarm?(e: { at: number; node: string; share: string; alarm: PairAlarm | 'SYNC_ACKS_LOST'; raised: boolean }): void;
  watchdog?(e: { at: number; node: string; event: WatchdogEvent }): void;
  hardware?(e: { at: number; node: string; what: 'reset' | 'power-on' | 'power-off'; cause: string }): void;
  /**
   * An accepted planned switchover was abandoned on its timeout (handoverTimeoutMs): the owner keeps
   * the share and forwards again; HANDOVER_ABORTED is raised. `epoch` is the owner's.
   */
  handoverAborted?(e: { at: number; node: string; share: string; reason: HandoverAbortReason; epoch: number }): void;
}

/** Construction options of a NodeController. */
export interface NodeControllerOptions {
  node: string;
  /** Shares this node is a member of: its peer and whether it is the share's home. */
  shares: ReadonlyArray<{ share: string; peer: string; home: boolean }>;
  version: CompatVersion;
  cfg: ResolvedHaConfig;
  control: Clock;
  data: Clock;
  hardware: Clock;
  backplane: BackplanePort;
  watchdog: IpmiWatchdog;
  router: ShareRouter;
  dataPlane(share: string): ShareDataPlane;
  /** The link to the peer: heartbeats and sync datagrams go out here (their answers come back to
   * `NodeController.receiveHeartbeat` / `receiveSync`). */
  link: PairLink;
  random: Random;
  observer?: HaObserver;
  /** The node's wall clock for heartbeats (display only); default control.now(). */
  wallNow?(): number;
  /** Persisted epochs per share (fencing tokens survive restarts); default 0. */
  epochs?: Record<string, number>;
  log?: Logger;
  /** TEST-ONLY planted bug: drop the interlock guard and ignore a refused ACTIVE claim. */
  unsafeNoInterlockGuard?: boolean;
  /** Called when the node's software state is lost (reset, power loss, upgrade reboot), before the
   * machines hear of it: a simulation discards the node's clocks here (ends a hang or pause). */
  softwareLost?(): void;
  /** Called when the payload is powered (power-on, end of a reset or upgrade reboot), before the
   * machines boot: the software starts fresh, so a simulation ends any hang, pause or control
   * stall left on the node's clocks here (one applied while it was off or in reset). */
  softwareBoot?(): void;
}

/** What a member looks like from outside (UI, reports). */
export interface MemberStatus {
  share: string;
  node: string;
  role: WireRole;
  epoch: number;
  owner: boolean;
  /** Ms since the peer's last heartbeat (Infinity if never). */
  heartbeatAgeMs: number;
  peerRole: WireRole | 'unknown';
  alarms: PairAlarm[];
  /** Owner: last sync sequence sent / acknowledged and the resend queue; standby: applied and complete. */
  sync: { lastSeq: number; ackedSeq: number; resendQueue: number; lagMs: number } | { appliedSeq: number; complete: boolean } | null;
}
