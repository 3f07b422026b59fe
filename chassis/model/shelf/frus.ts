/**
 * The FRUs of the shelf: the live state each one carries (FruRuntime, its fields grouped by the part
 * of the Shelf that owns them) and the directory every part finds them in — by name or slot
 * reference (config/slots.ts), and by IPMB address.
 *
 * Addressing: each FRU's IPM controller sits at its IPMB-0 address; the logical shelf-manager
 * address (config `shelf_managers.address`, 20h) resolves to the active ShMC — the one the HA layer
 * marked `active`, or, before any role is set, the first ShMC in M4. SEL records from a ShMC carry
 * 20h as generator while it is active (its sensors are listed under 20h in the SDR).
 *
 * Sources: PICMG 3.0 §3.2.1 (addresses), §3.2.4 (hot swap); IPMI v2.0 §32.1 (generator ID).
 */
import { CommandError } from '../../../board/common/errors.ts';
import { resolveFruRef, type FruRef } from '../../config/slots.ts';
import type { FruConfig, FruKind, HotSwapSensorConfig, ShelfConfig } from '../../config/types.ts';
import type { FruStorage } from '../../sensors/fru.ts';
import { generatorIdForIpmb } from '../../sensors/sel.ts';
import type { ThresholdSensor } from '../../sensors/sensor.ts';
import type { FaultKind, HaRoleName } from '../events.ts';
import type { HotSwapController } from '../hot-swap-controller.ts';
import { mLabel, type HotSwapEvent, type HotSwapStep } from '../hot-swap.ts';
import type { LedFunction, LedOverride } from '../leds.ts';
import type { PortLink } from '../ports.ts';

/** One FRU's live state. Each group of fields belongs to one part of the Shelf (named in brackets). */
export interface FruRuntime {
  readonly cfg: FruConfig;
  /** [hot swap] the M-state machine with its timed steps. */
  readonly hs: HotSwapController;
  /** [hot swap] injected faults. */
  readonly faults: Set<FaultKind>;
  /** [chassis] deactivated by Chassis Control off: Chassis Control on activates it again. */
  chassisOff: boolean;
  /** [hot swap] a payload fault was repaired while the FRU was still on its way down (M5/M6): ask
   * for activation again once it reaches M1. */
  reactivateOnM1?: boolean;
  /** [sensors] threshold sensors by number, and the Hot Swap sensor. */
  readonly sensors: { readonly thresholds: Map<number, ThresholdSensor>; readonly hotSwap: HotSwapSensorConfig };
  /** [FRU data] the FRU Inventory Device. */
  readonly fruData: FruStorage;
  /** [LEDs] shelf-manager overrides by LED, and the blue LED's function before the FRU left for M7. */
  readonly leds: { overrides: Map<number, LedOverride>; lastBlue: LedFunction };
  /** [power] present and desired power level (0 = payload off). */
  readonly power: { level: number; desired: number };
  /** [ports] the FRU's backplane links, and Set Port State overrides by portKey. */
  readonly ports: { readonly links: PortLink[]; overrides: Map<string, boolean> };
  /** [fans] fan trays only: the fan level and whether the tray controls it locally. */
  readonly fan?: { level: number; local: boolean };
  /** [payload] boards: carrying traffic, restarting after FRU Control, sessions lost on leaving. */
  readonly payload: { inService: boolean; resetting: boolean; sessionsLost: number };
  /** [roles] HA roles shown for this node: key (the node, or a share such as `lb1/slot3`) → role. */
  readonly roles: Map<string, { role: HaRoleName; epoch: number }>;
}

const BOARD_KINDS: ReadonlySet<FruKind> = new Set(['hub', 'processor']);

/** True for the front boards (hubs and processor boards): they carry traffic and follow chassis power. */
export function isBoard(rt: FruRuntime): boolean {
  return BOARD_KINDS.has(rt.cfg.kind);
}

/** True when the FRU's controller answers (not M0, not M7). */
export function present(rt: FruRuntime): boolean {
  const s = rt.hs.context.state;
  return s !== 0 && s !== 7;
}

/** The FRUs of the shelf, in configuration order (ShMCs, boards by slot, fan trays, PEMs). */
export class ShelfFrus {
  private readonly byName = new Map<string, FruRuntime>();
  private readonly list: FruRuntime[] = [];

  constructor(private readonly config: ShelfConfig) {}

  /** Adds a FRU (the shelf's boot, in configuration order). */
  add(rt: FruRuntime): void {
    this.byName.set(rt.cfg.name, rt);
    this.list.push(rt);
  }

  /** Every FRU in configuration order. */
  get all(): readonly FruRuntime[] {
    return this.list;
  }

  /** The FRUs of one kind, in configuration order. */
  ofKind(kind: FruKind): FruRuntime[] {
    return this.list.filter((r) => r.cfg.kind === kind);
  }

  /** FRU names in configuration order. */
  names(): string[] {
    return this.list.map((r) => r.cfg.name);
  }

  /** Resolves 'slot3' / '3' / 3 / 'shmc-a' / 'fan1' to a FRU name. @throws CommandError('unknown_fru' | 'empty_slot') */
  resolve(ref: FruRef): string {
    return resolveFruRef(this.config, ref);
  }

  /** The FRU a reference names. @throws CommandError('unknown_fru' | 'empty_slot') */
  get(ref: FruRef): FruRuntime {
    return this.byName.get(this.resolve(ref))!;
  }

  /** The FRU of an exact name (a name the shelf gave out: events, links, controllers), or undefined. */
  named(name: string): FruRuntime | undefined {
    return this.byName.get(name);
  }

  /** @throws CommandError('not_present') when the FRU is in M0 */
  requirePresent(rt: FruRuntime): void {
    if (rt.hs.context.state === 0) throw new CommandError('not_present', `${rt.cfg.name} is not installed (M0)`);
  }

  /** Applies a hot-swap event. @throws CommandError('illegal_state') when the FRU's state does not take it */
  dispatch(rt: FruRuntime, ev: HotSwapEvent): HotSwapStep {
    const r = rt.hs.dispatch(ev);
    if (r.kind === 'illegal') {
      throw new CommandError('illegal_state', `${rt.cfg.name} is in ${mLabel(r.state)}: cannot ${ev.replace('.', ' ')}`);
    }
    return r;
  }

  /** Every FRU waiting for the shelf manager (M2, M5) looks again: a condition may have changed. */
  pokeAll(): void {
    for (const r of this.list) r.hs.poke();
  }

  /** The logical shelf-manager IPMB address (20h). */
  get shelfManagerAddress(): number {
    return this.config.shelfManager.address;
  }

  /** The ShMC answering the shelf-manager address: the one marked `active` by the HA layer, else
   * the first ShMC in M4; undefined when no ShMC can act. */
  activeShmc(): string | undefined {
    const shmcs = this.ofKind('shmc');
    const active = shmcs.find((r) => [...r.roles.values()].some((x) => x.role === 'active') && present(r));
    if (active) return active.cfg.name;
    const anyRole = shmcs.some((r) => r.roles.size > 0);
    if (anyRole) return undefined;
    return shmcs.find((r) => r.hs.context.state === 4)?.cfg.name;
  }

  /**
   * The FRU whose IPM controller answers IPMB address `address` (the shelf-manager address
   * resolves to the active ShMC). @returns the FRU name, or undefined.
   */
  resolveAddress(address: number): string | undefined {
    if (address === this.shelfManagerAddress) return this.activeShmc();
    return this.list.find((r) => r.cfg.ipmbAddress === address)?.cfg.name;
  }

  /** Generator ID of the SEL records a FRU's controller logs (the active ShMC's: 20h). */
  generatorFor(rt: FruRuntime): number {
    if (rt.cfg.kind === 'shmc' && this.activeShmc() === rt.cfg.name) return generatorIdForIpmb(this.shelfManagerAddress);
    return generatorIdForIpmb(rt.cfg.ipmbAddress);
  }

  /** IPMB address that owns a FRU's sensors: the shelf-manager address for the ShMCs. */
  owner(rt: FruRuntime): number {
    return rt.cfg.kind === 'shmc' ? this.shelfManagerAddress : rt.cfg.ipmbAddress;
  }
}
