/**
 * The dual-arbitration rule and the boot tie-break as pure predicates over what a pair member knows
 * (ha.md §5.2; docs/ha.md "Dual arbitration"). The xstate machine (pair-machine.ts) uses them as its
 * named guards; tests and the abstract model use them directly.
 *
 *   silent(P)   := no heartbeat from P for ≥ D = N × h
 *   hwDown(P)   := ¬PRESENT(P) ∨ ¬HEALTHY(P)
 *   interlockOk := ¬ACTIVE(P) ∨ interlock off            (the hardware interlock, ShMM FPGA rule)
 *   forced takeover  ⇔  silent(P) ∧ hwDown(P) ∧ interlockOk
 *
 * so a cut heartbeat link alone (peer HEALTHY) never promotes a standby, a stuck-low HEALTHY line
 * with heartbeats flowing never does either, and even when both channels agree the interlock
 * forbids a second ACTIVE. Boot: a node that sees the peer ACTIVE becomes standby; with the peer
 * PRESENT, HEALTHY and not ACTIVE the home member (per share; the lower slot for the ShMC pair)
 * wins at once, unless the peer may hold the share's sessions (mayActivateAtBoot); with the peer
 * absent it goes active after S = 2D; with the peer present but not healthy after T_settle.
 */
import type { CompatVersion, WireRole } from './heartbeat.ts';

/** What the member last heard from its peer (from heartbeats). */
export interface PeerView {
  /** Heard at least once since our boot. */
  heard: boolean;
  /** No heartbeat for N intervals (or never heard for N intervals since boot). */
  silent: boolean;
  role: WireRole | 'unknown';
  epoch: number;
  version: CompatVersion | null;
  /** Software health the peer reports. */
  healthy: boolean;
  uplink: boolean;
  handover: boolean;
  hearsUs: boolean;
}

/** The peer's hardware lines for this member's channel, and the interlock. */
export interface HwView {
  present: boolean;
  healthy: boolean;
  active: boolean;
  interlock: boolean;
  /** The channel's epoch register (highest epoch ever claimed). */
  epoch: number;
}

/** Everything the arbitration predicates read. */
export interface ArbView {
  home: boolean;
  epoch: number;
  version: CompatVersion;
  uplink: boolean;
  peer: PeerView;
  hw: HwView;
  /** Boot: S elapsed in arbitrating. */
  settled: boolean;
  /** Boot: T_settle elapsed in arbitrating. */
  settledLong: boolean;
  /** TEST-ONLY planted bug: drop the interlock term (c). Never set outside tests. */
  unsafeNoInterlockGuard: boolean;
}

/** The peer is silent and it is heard as something (a live heartbeat stream). */
const alive = (v: ArbView) => v.peer.heard && !v.peer.silent;

/** (b) ¬PRESENT ∨ ¬HEALTHY. */
export function hwDown(v: ArbView): boolean {
  return !v.hw.present || !v.hw.healthy;
}

/** (c) the interlock allows us to assert ACTIVE: the peer's ACTIVE is low, or the interlock is off. */
export function interlockOk(v: ArbView): boolean {
  if (v.unsafeNoInterlockGuard) return true;
  return !v.hw.interlock || !v.hw.active;
}

/** Forced takeover by a standby: (a) silent ∧ (b) hwDown ∧ (c) interlockOk. */
export function mayTakeOver(v: ArbView): boolean {
  return v.peer.silent && hwDown(v) && interlockOk(v);
}

/** The peer says it is active (live heartbeats) or its ACTIVE line is high. */
export function peerClaimsActive(v: ArbView): boolean {
  return v.hw.active || (alive(v) && v.peer.role === 'active');
}

/** The peer is heard as a standby of the share (it may hold the synced copy of the last owner's table). */
const peerIsStandby = (v: ArbView) => alive(v) && (v.peer.role === 'standby.ready' || v.peer.role === 'standby.hot');

/**
 * Boot: may this arbitrating node go active now?
 *
 * With the peer PRESENT, HEALTHY and not ACTIVE, the home wins the tie at once — unless the peer
 * may hold the share's sessions while this node, just booted, holds none (failback before resync,
 * keepalived#237): a peer heard as a standby of the share (it takes the share over itself,
 * `standbyTakesOrphan`), or a peer not heard when the share has been claimed before (the epoch
 * register is above 0: the last owner's synced copy may be on the peer; the node waits for its
 * heartbeats, PEER_SILENT_BUT_HEALTHY meanwhile). A non-home node never claims at boot from a
 * healthy peer.
 */
export function mayActivateAtBoot(v: ArbView): boolean {
  if (!interlockOk(v) || (alive(v) && v.peer.role === 'active')) return false;
  if (v.hw.present && v.hw.healthy) {
    if (!v.home || peerIsStandby(v)) return false;
    return alive(v) || v.hw.epoch === 0;
  }
  if (!v.hw.present) return v.settled;
  return v.settledLong; // present but not healthy: wait up to T_settle
}

/**
 * An active member yields when its live peer is active with a higher epoch (equal: the home keeps
 * it). With the interlock on, the peer must also hold its ACTIVE line: a peer that merely tried
 * (its claim refused by the interlock, or not yet asserted) never makes the real owner yield.
 */
export function mustYield(v: ArbView): boolean {
  if (!alive(v) || v.peer.role !== 'active') return false;
  if (v.hw.interlock && !v.hw.active && !v.unsafeNoInterlockGuard) return false;
  return v.peer.epoch > v.epoch || (v.peer.epoch === v.epoch && !v.home);
}

/** Planned switchover is allowed: a live, hot, compatible, healthy peer with a working uplink. */
export function canHandOver(v: ArbView): boolean {
  return (
    alive(v) &&
    v.peer.role === 'standby.hot' &&
    v.peer.version !== null &&
    v.peer.version.major === v.version.major &&
    v.peer.healthy &&
    v.peer.uplink &&
    v.hw.present &&
    v.hw.healthy
  );
}

/** Why a switchover is refused (null when allowed). Stable snake_case codes for CommandError. */
export function handOverRefusal(v: ArbView): string | null {
  if (!alive(v)) return 'peer_not_heard';
  if (v.peer.version && v.peer.version.major !== v.version.major) return 'incompatible_version';
  if (v.peer.role !== 'standby.hot') return 'peer_not_hot';
  if (!v.peer.healthy || !v.hw.present || !v.hw.healthy) return 'peer_unhealthy';
  if (!v.peer.uplink) return 'peer_uplink_down';
  return canHandOver(v) ? null : 'not_allowed';
}

/** A hot standby accepts the peer's handover offer once the peer has released ACTIVE. */
export function acceptsHandover(v: ArbView): boolean {
  return alive(v) && v.peer.handover && interlockOk(v) && !v.hw.active &&
    v.peer.version !== null && v.peer.version.major === v.version.major;
}

/** The peer finished taking over from us (its ACTIVE line is high, or it is heard active with a higher epoch). */
export function peerTookOver(v: ArbView): boolean {
  return v.hw.active || (alive(v) && v.peer.role === 'active' && v.peer.epoch > v.epoch);
}

/**
 * A standby takes over a share nobody owns from a peer that has just booted (heard arbitrating or
 * booting, ACTIVE low, PRESENT and HEALTHY): the standby may hold the last owner's synced sessions,
 * the booted peer holds none (see mayActivateAtBoot).
 */
export function standbyTakesOrphan(v: ArbView): boolean {
  return alive(v) && (v.peer.role === 'arbitrating' || v.peer.role === 'booting') &&
    v.hw.present && v.hw.healthy && interlockOk(v) && !v.hw.active;
}

/** Nobody owns the share: the live peer is a standby, its ACTIVE is low, and we are home. */
export function orphaned(v: ArbView): boolean {
  return v.home && alive(v) && (v.peer.role === 'standby.ready' || v.peer.role === 'standby.hot') &&
    v.hw.present && v.hw.healthy && interlockOk(v) && !v.hw.active;
}
