/**
 * ChassisSnapshot: a readonly, versioned picture of the shelf for the TUI, the headless stats
 * line and tests. Built by `Shelf.snapshot()` (cached until the next event), deeply frozen, plain
 * data (JSON-serialisable). `version` changes when the shape changes; `seq` increments with every
 * ChassisEvent, so a UI can tell whether anything changed since it last rendered.
 * Data-plane figures (packets/s, sessions per board) are not part of it: the data plane reports
 * them itself.
 */
import type { ConsoleConfig, FruKind } from '../config/types.ts';
import type { FruInventory } from '../sensors/fru.ts';
import type { ThresholdName, ThresholdValues } from '../sensors/thresholds.ts';
import type { FaultKind, HaRoleName } from './events.ts';
import type { HotSwapCause, MState } from './hot-swap.ts';
import type { LedColorName, LedFunction } from './leds.ts';

/** Shape version of ChassisSnapshot. */
export const SNAPSHOT_VERSION = 1 as const;

export interface LedSnapshot {
  readonly id: number;
  readonly name: string;
  readonly color: LedColorName;
  readonly fn: LedFunction;
  /** True when the shelf manager overrides local control. */
  readonly override: boolean;
}

/** Sensor status the way ipmitool abbreviates it: ok, nc (non-critical), cr (critical),
 * nr (non-recoverable), ns (no reading). */
export type SensorStatus = 'ok' | 'nc' | 'cr' | 'nr' | 'ns';

export interface SensorSnapshot {
  readonly name: string;
  readonly number: number;
  readonly kind: 'threshold' | 'hotswap';
  /** Engineering value (threshold sensors) or the M-state (hot swap). */
  readonly value: number;
  readonly unit: string;
  readonly status: SensorStatus;
  readonly thresholds?: Readonly<ThresholdValues>;
  readonly asserted?: readonly ThresholdName[];
}

export interface HaRoleSnapshot {
  /** Node name, or a share such as `lb1/slot3`. */
  readonly key: string;
  readonly role: HaRoleName;
  readonly epoch: number;
}

export interface FruSnapshot {
  readonly name: string;
  readonly kind: FruKind;
  readonly label: string;
  readonly slot?: number;
  readonly physicalSlot?: number;
  readonly siteType: number;
  readonly siteNumber: number;
  readonly hardwareAddress: number;
  readonly ipmbAddress: number;
  /** False in M0. */
  readonly present: boolean;
  readonly state: MState;
  /** `M0` … `M7`. */
  readonly stateLabel: string;
  readonly previous: MState;
  readonly lastCause: HotSwapCause;
  /** A timed hot-swap step is pending. */
  readonly transitioning: boolean;
  readonly handleClosed: boolean;
  readonly activationLocked: boolean;
  readonly deactivationLocked: boolean;
  readonly faults: readonly FaultKind[];
  /** Boards: carrying traffic (M4, no payload reset in progress). */
  readonly inService: boolean;
  readonly sessionsLost: number;
  readonly powerLevel: number;
  readonly powerW: number;
  readonly roles: readonly HaRoleSnapshot[];
  readonly leds: readonly LedSnapshot[];
  readonly sensors: readonly SensorSnapshot[];
  /** Decoded FRU inventory, or the reason it cannot be decoded (after a bad FRU write). */
  readonly inventory: Readonly<FruInventory> | { readonly error: string };
  readonly console?: Readonly<ConsoleConfig>;
  readonly fanLevel?: number;
}

export interface SlotSnapshot {
  readonly logical: number;
  readonly physical: number;
  readonly role: 'hub' | 'node';
  /** FRU name of the configured board ('slotN'), absent for an empty slot. */
  readonly occupant?: string;
}

export interface SelEntrySnapshot {
  readonly recordId: number;
  /** SEL-clock seconds (Unix time). */
  readonly timestamp: number;
  /** ipmitool-style text. */
  readonly text: string;
}

export interface ChassisSnapshot {
  readonly version: typeof SNAPSHOT_VERSION;
  readonly seq: number;
  /** Clock ms when built. */
  readonly at: number;
  /** SEL clock, Unix seconds. */
  readonly selTime: number;
  readonly shelf: {
    readonly name: string;
    readonly slotCount: number;
    readonly shelfManagerAddress: number;
    /** The ShMC answering the shelf-manager address, if any. */
    readonly activeShmc?: string;
    readonly powerOn: boolean;
    readonly identify: 'off' | 'timed' | 'indefinite';
    /** IPMI restart cause code (Get System Restart Cause). */
    readonly restartCause: number;
    readonly pohMinutes: number;
    readonly powerBudgetW: number;
    readonly powerUsedW: number;
    /** Sessions lost by boards leaving service (all boards, since start). */
    readonly sessionsLost: number;
  };
  readonly slots: readonly SlotSnapshot[];
  readonly frus: readonly FruSnapshot[];
  readonly sel: {
    readonly entries: number;
    readonly capacity: number;
    readonly overflow: boolean;
    /** The most recent records (up to 50), oldest first. */
    readonly recent: readonly SelEntrySnapshot[];
  };
}

/** Freezes an object graph (plain data) in place and returns it. */
export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as Record<string, unknown>)) deepFreeze(v);
  }
  return o;
}
