/**
 * The xstate v5 machine of one redundant-pair member: one definition for the ShMC pair (classic
 * active/standby) and for each share of a processor-board pair (dual-active buddies: each board
 * runs one member per share — owner of its own share, standby for its buddy's).
 *
 * Roles (ha.md §5 names): booting → arbitrating → active | standby.ready → standby.hot, plus
 * resetting (hardware reset in progress) and failed (powered off, failed or extracted). `active`
 * has sub-states serving, finalSync and handingOver (planned switchover). A parallel `peer` region
 * tracks heartbeat silence (unknown / alive / silent) with the named delay `peerDeadAfter` = N × h.
 *
 * Decisions are eventless (`always`) transitions guarded by the pure predicates of arbitration.ts,
 * re-evaluated after every event: events only record facts in the context (heartbeats, the peer's
 * hardware lines, sync progress, operator requests). Effects are named actions whose defaults do
 * nothing; the controller supplies them with `.provide({ actions })` (node-controller.ts):
 *   assertHealthy, claimActive, releaseActive, startFinalSync, abortHandover, offerHandover,
 *   enterStandby, requestBulk, dropTable, markHot.
 * Delays are named and read from the context's timing (HaConfig): bootDelay, loneSettle (S),
 * settle (T_settle), peerDeadAfter (N × h), handoverTimeout. The reset duration is the hardware's
 * (the controller powers the node again after HaConfig.resetMs and sends hw.powerOn).
 *
 * Create an actor with the Clock port (xstate's Clock shape):
 *   createActor(pairMemberMachine.provide({ actions }), { clock, input: {...} }).start()
 * Time never comes from Date.now(): delays run on that clock, guards read only context.
 */
import { and, assign, setup } from 'xstate';
import type { SnapshotFrom } from 'xstate';
import type { CompatVersion, WireRole } from './heartbeat.ts';
import * as arb from './arbitration.ts';
import type { ArbView, HwView, PeerView } from './arbitration.ts';

/** Timing the machine reads (ms; from ResolvedHaConfig). */
export interface PairTiming {
  heartbeatMs: number;
  missedHeartbeats: number;
  bootMs: number;
  settleMs: number;
  loneSettleMs: number;
  handoverTimeoutMs: number;
}

/** Actor input. */
export interface PairMemberInput {
  /** 'shmc' or a share 'lb1/slot3'. */
  share: string;
  /** This node, e.g. 'slot3'. */
  self: string;
  /** The other member, e.g. 'slot4'. */
  peer: string;
  /** This node is the share's home (wins a boot tie). */
  home: boolean;
  version: CompatVersion;
  /** Persisted epoch (fencing token) to start from; default 0. Roles are never restored. */
  epoch?: number;
  timing: PairTiming;
  /** TEST-ONLY planted bug (the chaos test of docs/scenarios.md): drop the interlock guard. */
  unsafeNoInterlockGuard?: boolean;
}

/** How the member last became active. */
export type ActivationKind = 'boot' | 'forced' | 'planned' | 'orphan';

/** Machine context. */
export interface PairMemberContext {
  share: string;
  self: string;
  peerName: string;
  home: boolean;
  version: CompatVersion;
  timing: PairTiming;
  unsafeNoInterlockGuard: boolean;
  /** Highest activation epoch this member knows; its own while active. Never decreases. */
  epoch: number;
  peer: PeerView;
  hw: HwView;
  uplink: boolean;
  settled: boolean;
  settledLong: boolean;
  /** Set on the last activation. */
  activation: ActivationKind | null;
  /** The last forced takeover came from standby.ready (ha.md: TAKEOVER_NOT_HOT). */
  takeoverNotHot: boolean;
  /** Reason code of the last refused operator switchover, cleared by the next accepted one. */
  refusal: string | null;
  /** Number of activations (any kind) of this member. */
  activations: number;
  /**
   * Why the last accepted planned switchover was abandoned on its timeout (HANDOVER_ABORTED while
   * active), null otherwise: 'final_sync_unacked' (the standby never acknowledged the final sync) or
   * 'peer_did_not_take_over' (the offer was not taken). Cleared by the next accepted switchover.
   */
  handoverAborted: HandoverAbortReason | null;
}

/** Why a planned switchover was abandoned (PairMemberContext.handoverAborted). */
export type HandoverAbortReason = 'final_sync_unacked' | 'peer_did_not_take_over';

/** Events the machine accepts. */
export type PairMemberEvent =
  /** A heartbeat from the peer about this share (the controller drops duplicates). */
  | {
      type: 'hb.received';
      role: WireRole;
      epoch: number;
      version: CompatVersion;
      healthy: boolean;
      uplink: boolean;
      handover: boolean;
      hearsUs: boolean;
    }
  /** The peer's hardware lines for this channel changed (or a first reading). */
  | { type: 'hw.lines'; present: boolean; healthy: boolean; active: boolean; interlock: boolean; epoch?: number }
  /** Standby: a bulk (full) sync finished; ready → hot. */
  | { type: 'sync.bulkDone' }
  /** Standby: the synced table is no longer current (gap that retransmission cannot fill, silence). */
  | { type: 'sync.stale' }
  /** Active in finalSync: the peer acknowledged the final sync. */
  | { type: 'sync.finalAcked' }
  /** Operator or IPMI: planned switchover (on the active member). */
  | { type: 'operator.switchover' }
  | { type: 'uplink.down' }
  | { type: 'uplink.up' }
  /** The hardware reset the node (watchdog action, supervisor after a crash): all lines drop. */
  | { type: 'hw.reset' }
  /** The hardware refused our ACTIVE claim (interlock): back to standby. */
  | { type: 'hw.claimRefused' }
  /** Payload power lost, board failed or extracted. */
  | { type: 'hw.powerOff' }
  /** Payload powered again (after power-off or at the end of a reset): boot. */
  | { type: 'hw.powerOn' }
  /** Wall-clock mode: a global stall was detected and HA timers restart (no failover). */
  | { type: 'clock.rebased' };

const noPeer = (): PeerView => ({
  heard: false, silent: false, role: 'unknown', epoch: 0, version: null, healthy: false, uplink: false, handover: false, hearsUs: false,
});

function view(c: PairMemberContext): ArbView {
  return {
    home: c.home, epoch: c.epoch, version: c.version, uplink: c.uplink, peer: c.peer, hw: c.hw,
    settled: c.settled, settledLong: c.settledLong, unsafeNoInterlockGuard: c.unsafeNoInterlockGuard,
  };
}

const g = (f: (v: ArbView) => boolean) => ({ context }: { context: PairMemberContext }) => f(view(context));

/**
 * The pair-member machine definition. Its id is 'member'; the role region is `role`, the
 * heartbeat region `peer`.
 */
export const pairMemberMachine = setup({
  types: {} as { context: PairMemberContext; events: PairMemberEvent; input: PairMemberInput },
  delays: {
    bootDelay: ({ context }) => context.timing.bootMs,
    loneSettle: ({ context }) => context.timing.loneSettleMs,
    settle: ({ context }) => context.timing.settleMs,
    peerDeadAfter: ({ context }) => context.timing.heartbeatMs * context.timing.missedHeartbeats,
    handoverTimeout: ({ context }) => context.timing.handoverTimeoutMs,
  },
  guards: {
    peerClaimsActive: g(arb.peerClaimsActive),
    mayActivateAtBoot: g(arb.mayActivateAtBoot),
    mayTakeOver: g(arb.mayTakeOver),
    mustYield: g(arb.mustYield),
    canHandOver: g(arb.canHandOver),
    acceptsHandover: g(arb.acceptsHandover),
    peerTookOver: g(arb.peerTookOver),
    orphaned: g(arb.orphaned),
    standbyTakesOrphan: g(arb.standbyTakesOrphan),
    interlockOk: g(arb.interlockOk),
    uplinkDown: ({ context }) => !context.uplink,
  },
  actions: {
    // Effects (the controller provides them; defaults do nothing so `transition()` stays pure).
    assertHealthy: () => {},
    claimActive: () => {},
    releaseActive: () => {},
    startFinalSync: () => {},
    abortHandover: () => {},
    offerHandover: () => {},
    enterStandby: () => {},
    requestBulk: () => {},
    dropTable: () => {},
    markHot: () => {},
    // Context updates.
    recordPeer: assign(({ event }) => {
      if (event.type !== 'hb.received') return {};
      return {
        peer: {
          heard: true, silent: false, role: event.role, epoch: event.epoch, version: event.version,
          healthy: event.healthy, uplink: event.uplink, handover: event.handover, hearsUs: event.hearsUs,
        },
      };
    }),
    recordLines: assign(({ event }) => {
      if (event.type !== 'hw.lines') return {};
      return { hw: { present: event.present, healthy: event.healthy, active: event.active, interlock: event.interlock, epoch: event.epoch ?? 0 } };
    }),
    markPeerSilent: assign(({ context }) => ({ peer: { ...context.peer, silent: true } })),
    markPeerAlive: assign(({ context }) => ({ peer: { ...context.peer, silent: false } })),
    forgetPeer: assign(() => ({ peer: noPeer() })),
    clearVolatile: assign(() => ({
      settled: false, settledLong: false, activation: null, takeoverNotHot: false, refusal: null, uplink: true, handoverAborted: null,
    })),
    markSettled: assign(() => ({ settled: true })),
    markSettledLong: assign(() => ({ settledLong: true })),
    bumpEpoch: assign(({ context }) => ({ epoch: Math.max(context.epoch, context.peer.epoch, context.hw.epoch) + 1, activations: context.activations + 1 })),
    noteBoot: assign(() => ({ activation: 'boot' as const, takeoverNotHot: false })),
    noteForcedFromReady: assign(() => ({ activation: 'forced' as const, takeoverNotHot: true })),
    noteForcedFromHot: assign(() => ({ activation: 'forced' as const, takeoverNotHot: false })),
    notePlanned: assign(() => ({ activation: 'planned' as const, takeoverNotHot: false })),
    noteOrphan: assign(() => ({ activation: 'orphan' as const, takeoverNotHot: false })),
    refuseSwitchover: assign(({ context }) => ({ refusal: arb.handOverRefusal(view(context)) ?? 'not_allowed' })),
    acceptSwitchover: assign(() => ({ refusal: null, handoverAborted: null })),
    noteFinalSyncUnacked: assign(() => ({ handoverAborted: 'final_sync_unacked' as const })),
    noteOfferNotTaken: assign(() => ({ handoverAborted: 'peer_did_not_take_over' as const })),
    setUplinkDown: assign(() => ({ uplink: false })),
    setUplinkUp: assign(() => ({ uplink: true })),
  },
}).createMachine({
  id: 'member',
  type: 'parallel',
  context: ({ input }) => ({
    share: input.share,
    self: input.self,
    peerName: input.peer,
    home: input.home,
    version: input.version,
    timing: input.timing,
    unsafeNoInterlockGuard: input.unsafeNoInterlockGuard === true,
    epoch: input.epoch ?? 0,
    peer: noPeer(),
    hw: { present: false, healthy: false, active: false, interlock: true, epoch: 0 },
    uplink: true,
    settled: false,
    settledLong: false,
    activation: null,
    takeoverNotHot: false,
    refusal: null,
    activations: 0,
    handoverAborted: null,
  }),
  on: {
    'hw.reset': { target: ['.role.resetting', '.peer.unknown'], actions: 'forgetPeer' },
    'hw.powerOff': { target: ['.role.failed', '.peer.unknown'], actions: 'forgetPeer' },
    'uplink.down': { actions: 'setUplinkDown' },
    'uplink.up': { actions: 'setUplinkUp' },
  },
  states: {
    role: {
      initial: 'booting',
      states: {
        booting: {
          entry: 'clearVolatile',
          after: { bootDelay: 'arbitrating' },
        },
        arbitrating: {
          entry: ['assertHealthy'],
          after: {
            loneSettle: { actions: 'markSettled' },
            settle: { actions: 'markSettledLong' },
          },
          always: [
            { guard: 'peerClaimsActive', target: 'standby' },
            { guard: 'mayActivateAtBoot', target: 'active', actions: 'noteBoot' },
          ],
        },
        active: {
          initial: 'serving',
          entry: ['bumpEpoch', 'claimActive'],
          exit: ['releaseActive'],
          on: { 'hw.claimRefused': '#member.role.standby' },
          states: {
            serving: {
              always: [
                { guard: 'mustYield', target: '#member.role.standby', actions: 'dropTable' },
                { guard: and(['uplinkDown', 'canHandOver']), target: 'finalSync' },
              ],
              on: {
                'operator.switchover': [
                  { guard: 'canHandOver', target: 'finalSync', actions: 'acceptSwitchover' },
                  { actions: 'refuseSwitchover' },
                ],
              },
            },
            finalSync: {
              entry: 'startFinalSync',
              always: [{ guard: 'mustYield', target: '#member.role.standby', actions: 'dropTable' }],
              on: { 'sync.finalAcked': 'handingOver' },
              after: { handoverTimeout: { target: 'serving', actions: ['noteFinalSyncUnacked', 'abortHandover'] } },
            },
            handingOver: {
              entry: ['releaseActive', 'offerHandover'],
              always: [{ guard: 'peerTookOver', target: '#member.role.standby' }],
              after: {
                handoverTimeout: [
                  { guard: 'interlockOk', target: 'serving', actions: ['noteOfferNotTaken', 'abortHandover', 'claimActive'] },
                ],
              },
            },
          },
        },
        standby: {
          initial: 'ready',
          entry: 'enterStandby',
          always: [
            { guard: 'orphaned', target: 'active', actions: 'noteOrphan' },
            { guard: 'standbyTakesOrphan', target: 'active', actions: 'noteOrphan' },
          ],
          states: {
            ready: {
              entry: 'requestBulk',
              always: [{ guard: 'mayTakeOver', target: '#member.role.active', actions: 'noteForcedFromReady' }],
              on: { 'sync.bulkDone': 'hot' },
            },
            hot: {
              entry: 'markHot',
              always: [
                { guard: 'mayTakeOver', target: '#member.role.active', actions: 'noteForcedFromHot' },
                { guard: 'acceptsHandover', target: '#member.role.active', actions: 'notePlanned' },
              ],
              on: { 'sync.stale': 'ready' },
            },
          },
        },
        resetting: {
          // The hardware holds the node in reset (HaConfig.resetMs) and then powers it: hw.powerOn.
          on: { 'hw.powerOn': 'booting' },
        },
        failed: {
          on: { 'hw.powerOn': 'booting' },
        },
      },
    },
    peer: {
      initial: 'unknown',
      on: { 'hw.lines': { actions: 'recordLines' } },
      states: {
        unknown: {
          after: { peerDeadAfter: 'silent' },
          on: { 'hb.received': { target: 'alive', actions: 'recordPeer' }, 'clock.rebased': { target: 'unknown', reenter: true } },
        },
        alive: {
          entry: 'markPeerAlive',
          after: { peerDeadAfter: 'silent' },
          on: {
            'hb.received': { target: 'alive', reenter: true, actions: 'recordPeer' },
            'clock.rebased': { target: 'alive', reenter: true },
          },
        },
        silent: {
          entry: 'markPeerSilent',
          on: { 'hb.received': { target: 'alive', actions: 'recordPeer' }, 'clock.rebased': { target: 'unknown' } },
        },
      },
    },
  },
});

/** The machine's type. */
export type PairMemberMachine = typeof pairMemberMachine;
/** A snapshot of a member. */
export type PairMemberSnapshot = SnapshotFrom<PairMemberMachine>;

/** The member's role as users and peers see it (ha.md §5 names). */
export function roleOf(s: PairMemberSnapshot): WireRole {
  const v = (s.value as { role: unknown }).role;
  if (typeof v === 'string') return v as WireRole;
  const o = v as Record<string, string>;
  if ('standby' in o) return o.standby === 'hot' ? 'standby.hot' : 'standby.ready';
  if ('active' in o) return o.active === 'handingOver' ? 'active.handover' : 'active';
  return 'failed';
}

/** True when the member owns its share: active and not handing over. */
export function isOwner(s: PairMemberSnapshot): boolean {
  return roleOf(s) === 'active';
}

/** Alarm names (ha.md §5.2–§5.3). */
export type PairAlarm =
  | 'PEER_SILENT_BUT_HEALTHY'
  | 'HW_SW_DISAGREE'
  | 'REDUNDANCY_LOST'
  | 'PEER_CANNOT_HEAR_US'
  | 'VERSION_MISMATCH'
  | 'UPLINK_DOWN'
  | 'HANDOVER_ABORTED';

/**
 * Alarms derived from a snapshot (pure): the controller raises/clears them on changes.
 * - PEER_SILENT_BUT_HEALTHY: silent(P) ∧ PRESENT(P) ∧ HEALTHY(P) (no takeover);
 * - HW_SW_DISAGREE: heartbeats flow but HEALTHY(P) is low;
 * - REDUNDANCY_LOST: we are active and the peer is not heard as a hot standby;
 * - PEER_CANNOT_HEAR_US: the peer's heartbeats say it does not hear ours (one-way loss);
 * - VERSION_MISMATCH: the peer runs an incompatible major version;
 * - UPLINK_DOWN: our uplink is down;
 * - HANDOVER_ABORTED: we are active and our last accepted planned switchover was abandoned on its
 *   timeout (the final sync never acknowledged, or the offer never taken); cleared by the next
 *   accepted switchover or when we stop being active.
 */
export function alarmsOf(s: PairMemberSnapshot): PairAlarm[] {
  const c = s.context;
  const role = roleOf(s);
  const out: PairAlarm[] = [];
  if (role === 'booting' || role === 'resetting' || role === 'failed') return out;
  const alive = c.peer.heard && !c.peer.silent;
  if (c.peer.silent && c.hw.present && c.hw.healthy) out.push('PEER_SILENT_BUT_HEALTHY');
  if (alive && !c.hw.healthy) out.push('HW_SW_DISAGREE');
  if (role === 'active' && !(alive && c.peer.role === 'standby.hot')) out.push('REDUNDANCY_LOST');
  if (alive && !c.peer.hearsUs) out.push('PEER_CANNOT_HEAR_US');
  if (alive && c.peer.version && c.peer.version.major !== c.version.major) out.push('VERSION_MISMATCH');
  if (!c.uplink) out.push('UPLINK_DOWN');
  if (role === 'active' && c.handoverAborted !== null) out.push('HANDOVER_ABORTED');
  return out;
}
