/**
 * Everything the shelf announces, as one discriminated union (`type` is a literal; no event names
 * are built from strings), and a typed emitter. Subscribers: the TUI (through snapshots), the
 * headless JSON log, HA wiring, tests. `at` is the shelf Clock's time in ms; SEL-related events
 * also carry the SEL time in seconds.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { SelRecord } from '../sensors/sel.ts';
import type { ThresholdName } from '../sensors/thresholds.ts';
import type { HotSwapCause, MState } from './hot-swap.ts';

/** Faults that can be injected into a FRU. `payload`: the payload dies (unexpected deactivation,
 * M6 → M1, no re-activation until repaired); `comm`: the IPMC stops answering on IPMB-0 (M7). */
export type FaultKind = 'payload' | 'comm';

/** Chassis Control actions (IPMI v2.0 §28.3). */
export type ChassisPowerAction = 'off' | 'on' | 'cycle' | 'reset' | 'diag' | 'soft';

/** FRU Control options (PICMG 2Ch/04h). */
export type FruControlOption = 'cold-reset' | 'warm-reset' | 'graceful-reboot' | 'diagnostic-interrupt';

/** HA role names (docs/ha.md "Roles"; research/ha.md §5). */
export type HaRoleName = 'booting' | 'arbitrating' | 'active' | 'standby.ready' | 'standby.hot' | 'resetting' | 'failed';

export const HA_ROLES: readonly HaRoleName[] = ['booting', 'arbitrating', 'active', 'standby.ready', 'standby.hot', 'resetting', 'failed'];

export type ChassisEvent =
  /** A FRU changed hot-swap state. */
  | { type: 'hotswap'; at: number; fru: string; slot?: number; from: MState; to: MState; cause: HotSwapCause }
  /** A threshold was crossed (asserted) or recovered past its hysteresis (deasserted). */
  | {
      type: 'sensor.threshold';
      at: number;
      fru: string;
      sensor: string;
      number: number;
      threshold: ThresholdName;
      asserted: boolean;
      value: number;
      thresholdValue: number;
    }
  /** A sensor reading was injected or derived (fan level). */
  | { type: 'sensor.value'; at: number; fru: string; sensor: string; number: number; value: number }
  /** Thresholds of a sensor were changed (Set Sensor Thresholds). */
  | { type: 'sensor.thresholds'; at: number; fru: string; sensor: string; number: number }
  /** A SEL record was logged. */
  | { type: 'sel.added'; at: number; selTime: number; record: SelRecord }
  /** A record was not logged because the SEL is full (overflow flag set). */
  | { type: 'sel.full'; at: number; selTime: number }
  | { type: 'sel.deleted'; at: number; recordId: number }
  | { type: 'sel.cleared'; at: number; selTime: number }
  | { type: 'sel.time'; at: number; selTime: number }
  /** A fault was injected (active) or repaired. */
  | { type: 'fault'; at: number; fru: string; fault: FaultKind; active: boolean }
  /** The HA layer set a node's role (display and audit only). */
  | { type: 'role'; at: number; node: string; key: string; role: HaRoleName; previous?: HaRoleName; epoch: number }
  /** A board started or stopped carrying traffic; `sessionsLost` as the data plane reported. */
  | { type: 'service'; at: number; fru: string; slot: number; inService: boolean; sessionsLost: number }
  | { type: 'chassis.power'; at: number; on: boolean; action: ChassisPowerAction }
  | { type: 'chassis.identify'; at: number; active: boolean; seconds: number | 'indefinite' }
  | { type: 'led'; at: number; fru: string; led: number }
  | { type: 'policy'; at: number; fru: string; activationLocked: boolean; deactivationLocked: boolean }
  | { type: 'handle'; at: number; fru: string; closed: boolean }
  | { type: 'power.level'; at: number; fru: string; level: number; watts: number }
  /** Activation is waiting: not enough power budget (W) or no active shelf manager. */
  | { type: 'activation.waiting'; at: number; fru: string; reason: 'power_budget' | 'no_shelf_manager' | 'faulted'; neededW?: number; availableW?: number }
  | { type: 'port'; at: number; fru: string; interface: string; channel: number; enabled: boolean }
  | { type: 'fru.control'; at: number; fru: string; option: FruControlOption }
  | { type: 'fru.data'; at: number; fru: string; offset: number; length: number }
  | { type: 'fan.level'; at: number; fru: string; level: number; local: boolean };

/** The `type` of a ChassisEvent. */
export type ChassisEventType = ChassisEvent['type'];
/** The event with a given `type`. */
export type ChassisEventOf<T extends ChassisEventType> = Extract<ChassisEvent, { type: T }>;

/**
 * Typed emitter: the shelf's event sink. Listeners run synchronously in subscription order; a
 * listener that throws is logged and skipped, never breaking the shelf or the other listeners.
 */
export class ChassisEventEmitter {
  private readonly byType = new Map<ChassisEventType, Set<(e: ChassisEvent) => void>>();
  private readonly any = new Set<(e: ChassisEvent) => void>();
  private count = 0;

  constructor(private readonly log?: Logger) {}

  /** Subscribes to one event type. @returns an unsubscribe function. */
  on<T extends ChassisEventType>(type: T, fn: (e: ChassisEventOf<T>) => void): () => void {
    let set = this.byType.get(type);
    if (!set) this.byType.set(type, (set = new Set()));
    const f = fn as (e: ChassisEvent) => void;
    set.add(f);
    return () => set.delete(f);
  }

  /** Subscribes to every event. @returns an unsubscribe function. */
  onAny(fn: (e: ChassisEvent) => void): () => void {
    this.any.add(fn);
    return () => this.any.delete(fn);
  }

  /** Events emitted so far (ChassisSnapshot.seq): counted before the listeners run. */
  get seq(): number {
    return this.count;
  }

  /** Announces `e` to the listeners of its type, then to those of every event. */
  emit(e: ChassisEvent): void {
    this.count++;
    for (const fn of [...(this.byType.get(e.type) ?? []), ...this.any]) {
      try {
        fn(e);
      } catch (err) {
        this.log?.error({ category: 'listener', event: e.type, err: String(err) }, 'chassis event listener failed');
      }
    }
  }
}
