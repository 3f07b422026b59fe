/**
 * The timeline of a simulated run: every action, role change, alarm, watchdog event, hardware
 * event, takeover, double-active episode and invariant violation, in the order they happened (times
 * in base-clock ms), plus how often each alarm was raised. Written by the simulator's parts
 * (ha-simulator.ts, takeover-ledger.ts, invariants.ts); read by the scenario reports. Pure.
 */
import type { RoleChange } from '../ha/node-ports.ts';
import type { ActivationKind } from '../ha/pair-machine.ts';
import type { WireRole } from '../ha/heartbeat.ts';

/** One entry of the timeline (times in base-clock ms). */
export type TimelineEntry =
  | { t: number; type: 'action'; text: string; ok: boolean; error?: string }
  | { t: number; type: 'role'; node: string; share: string; from: WireRole; to: WireRole; epoch: number; activation: ActivationKind | null; notHot: boolean }
  | { t: number; type: 'alarm'; node: string; share: string; alarm: string; raised: boolean }
  | { t: number; type: 'watchdog'; node: string; event: 'pretimeout' | 'expired'; action: number }
  | { t: number; type: 'hardware'; node: string; what: string; cause: string }
  | { t: number; type: 'takeover'; share: string; from: string | null; to: string; kind: ActivationKind | null }
  | { t: number; type: 'double-active'; share: string; nodes: string[]; until: number | null }
  /** Sessions lost with no takeover (the hubs moved the share in hardware and nobody claimed it). */
  | { t: number; type: 'loss'; share: string; node: string | null; lost: number; protected: number; reason: string }
  | { t: number; type: 'violation'; invariant: string; detail: string }
  /** An accepted planned switchover was abandoned on its timeout; the owner kept the share. */
  | { t: number; type: 'handover-aborted'; node: string; share: string; reason: string };

/** See the module header. */
export class Timeline {
  private readonly list: TimelineEntry[] = [];
  private readonly alarmCounts: Record<string, number> = {};

  /** The entries so far (live array; copy before mutating). */
  get entries(): readonly TimelineEntry[] {
    return this.list;
  }

  /** Raised alarms so far, by name. */
  get alarms(): Readonly<Record<string, number>> {
    return this.alarmCounts;
  }

  /** Adds an entry. */
  push(e: TimelineEntry): void {
    this.list.push(e);
  }

  /** An action was run at `t` (ok) or refused with `error` ('code: message'). */
  action(t: number, text: string, error?: string): void {
    this.list.push(error === undefined ? { t, type: 'action', text, ok: true } : { t, type: 'action', text, ok: false, error });
  }

  /** A member changed role. */
  role(t: number, e: RoleChange): void {
    this.list.push({ t, type: 'role', node: e.node, share: e.share, from: e.from, to: e.to, epoch: e.epoch, activation: e.activation, notHot: e.takeoverNotHot });
  }

  /** An alarm was raised or cleared (raised ones are counted). */
  alarm(t: number, e: { node: string; share: string; alarm: string; raised: boolean }): void {
    this.list.push({ t, type: 'alarm', node: e.node, share: e.share, alarm: e.alarm, raised: e.raised });
    if (e.raised) this.alarmCounts[e.alarm] = (this.alarmCounts[e.alarm] ?? 0) + 1;
  }

  /** A copy of every entry (JSON-safe). */
  copy(): TimelineEntry[] {
    return this.list.map((e) => ({ ...e }));
  }
}
