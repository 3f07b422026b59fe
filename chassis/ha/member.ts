/**
 * One member of a node controller: the node's state for one share it arbitrates (its pair-member
 * machine actor, heartbeat bookkeeping, sync sender or receiver, the share's data plane), and the
 * small helpers around it. Internal to node-controller.ts.
 */
import type { Actor } from 'xstate';
import type { HeartbeatMonitor } from './heartbeat.ts';
import type { WireRole } from './heartbeat.ts';
import type { ShareDataPlane } from './node-ports.ts';
import type { ActivationKind, pairMemberMachine } from './pair-machine.ts';
import type { SyncReceiver } from './sync-receiver.ts';
import type { SyncSender } from './sync-sender.ts';

export type MemberActor = Actor<typeof pairMemberMachine>;

/** A node's state for one share. */
export interface Member {
  share: string;
  peer: string;
  home: boolean;
  actor: MemberActor;
  monitor: HeartbeatMonitor;
  seq: number;
  role: WireRole;
  alarms: Set<string>;
  sender: SyncSender | null;
  receiver: SyncReceiver | null;
  handoverOffered: boolean;
  dp: ShareDataPlane;
  persistedEpoch: number;
  stream: number;
  ackAlarm: boolean;
  /** The live table was dropped on demotion (split-brain loser) instead of kept as the standby table. */
  dropped: boolean;
  /** The actor belongs to an older software version and is replaced at the next power-on. */
  outdated: boolean;
  /** The last activation (set before the router moves the share). */
  activation: { epoch: number; kind: ActivationKind | null; notHot: boolean } | null;
}

/** The member's actor exists and has not been stopped (an upgrade stops it until the next boot). */
export function running(m: Member): boolean {
  return m.actor !== undefined && m.actor.getSnapshot().status === 'active';
}
