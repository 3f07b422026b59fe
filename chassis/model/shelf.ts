/**
 * The Shelf aggregate: the ATCA shelf's management state behind one object that scripts, IPMI, HA
 * and the TUI all hold. It builds one part per concept, hands each the configuration, the clock,
 * the store, the logger, the event sink and the FRUs (./shelf/context.ts), and boots them from the
 * store (./shelf/boot.ts). Callers reach a concept through its part:
 *
 * - `hotSwap` — handles, extraction/insertion, Set FRU Activation (Policy), faults (M0–M7);
 * - `power` — power levels and the shelf's power budget;
 * - `leds` — FRU LED state, overrides and lamp tests;
 * - `ports` — E-keying (Set/Get Port State);
 * - `fans` — fan levels and the fan speed sensors they drive;
 * - `payload` — boards in service on the data plane, FRU Control;
 * - `sensors` — readings and thresholds;
 * - `sel`, `sdr`, `fruData` — the SEL, the SDR repository, the FRU Inventory Devices;
 * - `chassis` — Chassis Control, Identify, restart cause, POH;
 * - `roles` — the HA roles shown (the shelf-manager address follows the active ShMC);
 * - `eventReceivers` — where each controller sends its event messages (Set/Get Event Receiver).
 *
 * The aggregate itself answers what every caller asks: which FRUs there are, what a reference or an
 * IPMB address names, a FRU's M-state, the events, the snapshot. Every command either succeeds or
 * throws CommandError with a stable `code`; a command returns only after the Store has committed
 * what it changed (so IPMI may acknowledge it). Announcements go out as typed ChassisEvents;
 * `snapshot()` gives a readonly picture.
 *
 * Sources: PICMG 3.0 §3.2.4 (hot swap), §3.9 (power), §3.7 (E-keying), §2.2.8 (LEDs); IPMI v2.0
 * §28 (chassis), §31–§34 (SEL, SDR, FRU), §35–§36 (sensors); research/ipmi.md §C–§E.
 *
 * Pure core: time from the Clock, no I/O; persistence through the Store port; traffic through the
 * DataPlanePort.
 */
import { slotsOf, type FruRef, type SlotInfo } from '../config/slots.ts';
import type { FruConfig, ShelfConfig } from '../config/types.ts';
import type { Store } from '../persistence/store.ts';
import type { Platform } from '../platform.ts';
import { NullDataPlane, type DataPlanePort } from './data-plane-port.ts';
import { ChassisEventEmitter, type ChassisEvent, type ChassisEventOf, type ChassisEventType } from './events.ts';
import type { MState } from './hot-swap.ts';
import { bootShelf } from './shelf/boot.ts';
import { ShelfChassis } from './shelf/chassis.ts';
import { ShelfEventReceivers } from './shelf/event-receivers.ts';
import type { ShelfContext } from './shelf/context.ts';
import { ShelfFans } from './shelf/fans.ts';
import { ShelfFruData } from './shelf/fru-data.ts';
import { ShelfFrus } from './shelf/frus.ts';
import { ShelfHotSwap } from './shelf/hot-swap.ts';
import { ShelfLeds } from './shelf/leds.ts';
import { ShelfPayload } from './shelf/payload.ts';
import { ShelfPorts } from './shelf/ports.ts';
import { ShelfPower } from './shelf/power.ts';
import { ShelfRoles } from './shelf/roles.ts';
import { ShelfSdr } from './shelf/sdr.ts';
import { ShelfSel } from './shelf/sel.ts';
import { ShelfSensors } from './shelf/sensors.ts';
import { ShelfSnapshots } from './shelf/snapshot.ts';
import type { ChassisSnapshot } from './snapshot.ts';

/** Default SEL clock base when the composition root gives none: 2024-01-01T00:00:00Z (deterministic runs). */
export const DEFAULT_SEL_TIME_BASE = 1_704_067_200;

/** How the Shelf is built. */
export interface ShelfOptions {
  config: ShelfConfig;
  platform: Platform;
  store: Store;
  /** Defaults to a NullDataPlane. */
  dataPlane?: DataPlanePort;
  /** Unix seconds at `platform.clock.now()` — the SEL clock's base. The composition root passes
   * wall-clock time; simulated runs leave the deterministic default (DEFAULT_SEL_TIME_BASE). */
  selTimeBase?: number;
}

export class Shelf {
  readonly config: ShelfConfig;
  readonly sel: ShelfSel;
  readonly sdr: ShelfSdr;
  readonly sensors: ShelfSensors;
  readonly fans: ShelfFans;
  readonly leds: ShelfLeds;
  readonly ports: ShelfPorts;
  readonly fruData: ShelfFruData;
  readonly payload: ShelfPayload;
  readonly power: ShelfPower;
  readonly chassis: ShelfChassis;
  readonly hotSwap: ShelfHotSwap;
  readonly roles: ShelfRoles;
  readonly eventReceivers: ShelfEventReceivers;
  private readonly ctx: ShelfContext;
  private readonly snapshots: ShelfSnapshots;
  private closed = false;

  /** The parts, each given only what it uses; nothing is read from the store until boot. */
  private constructor(opts: ShelfOptions) {
    this.config = opts.config;
    const log = opts.platform.log.child({ module: 'chassis.shelf' });
    const frus = new ShelfFrus(opts.config);
    const ctx: ShelfContext = { config: opts.config, clock: opts.platform.clock, store: opts.store, log, events: new ChassisEventEmitter(log), frus };
    this.ctx = ctx;
    this.sel = new ShelfSel(ctx, opts.selTimeBase ?? DEFAULT_SEL_TIME_BASE);
    this.sdr = new ShelfSdr(ctx, this.sel);
    this.sensors = new ShelfSensors(ctx, this.sel);
    this.fans = new ShelfFans(ctx, this.sel, this.sensors);
    this.leds = new ShelfLeds(ctx, this.sel);
    this.ports = new ShelfPorts(ctx, this.sel);
    this.fruData = new ShelfFruData(ctx);
    this.payload = new ShelfPayload(ctx, opts.dataPlane ?? new NullDataPlane());
    this.power = new ShelfPower(ctx, this.sel);
    this.chassis = new ShelfChassis(ctx, { sel: this.sel, power: this.power, payload: this.payload });
    this.hotSwap = new ShelfHotSwap(ctx, { sel: this.sel, sdr: this.sdr, power: this.power, leds: this.leds, payload: this.payload, chassis: this.chassis });
    this.roles = new ShelfRoles(ctx, this.sel, () => {
      this.sdr.rebuild();
      frus.pokeAll();
    });
    this.eventReceivers = new ShelfEventReceivers(ctx);
    this.sel.setGate((generatorId) => {
      if (generatorId & 0x01) return true; // a software ID (system software, a remote console): not a controller
      const fru = frus.resolveAddress(generatorId & 0xfe);
      return fru === undefined || this.eventReceivers.enabled(fru);
    });
    this.snapshots = new ShelfSnapshots(ctx, { sel: this.sel, power: this.power, chassis: this.chassis, leds: this.leds, sensors: this.sensors, payload: this.payload });
  }

  /**
   * Builds the shelf from the configuration and the store: a new store gets every FRU powered up
   * in M4 (one "Transition to M4" SEL record each); a store with state resumes it — FRUs in their
   * M-states (timed steps resume), SEL, FRU data, thresholds changed at run time, LED overrides,
   * policies, roles (display only). Every board's service state is pushed to the data plane.
   * @throws StoreError from the store; RangeError on a configuration the loader should have refused
   */
  static open(opts: ShelfOptions): Shelf {
    const shelf = new Shelf(opts);
    bootShelf(shelf.ctx, shelf);
    return shelf;
  }

  /** Subscribes to one event type. @returns an unsubscribe function. */
  on<T extends ChassisEventType>(type: T, fn: (e: ChassisEventOf<T>) => void): () => void {
    return this.ctx.events.on(type, fn);
  }

  /** Subscribes to every event. @returns an unsubscribe function. */
  onAny(fn: (e: ChassisEvent) => void): () => void {
    return this.ctx.events.onAny(fn);
  }

  /** FRU names in configuration order (ShMCs, boards by slot, fan trays, PEMs). */
  fruNames(): string[] {
    return this.ctx.frus.names();
  }

  /** Resolves 'slot3' / '3' / 3 / 'shmc-a' / 'fan1' to a FRU name. @throws CommandError('unknown_fru' | 'empty_slot') */
  resolve(ref: FruRef): string {
    return this.ctx.frus.resolve(ref);
  }

  /** Configuration of a FRU. @throws CommandError('unknown_fru' | 'empty_slot') */
  fruConfig(ref: FruRef): FruConfig {
    return this.ctx.frus.get(ref).cfg;
  }

  /** Hot-swap state of a FRU (its full context: `hotSwap.context`). @throws CommandError('unknown_fru' | 'empty_slot') */
  state(ref: FruRef): MState {
    return this.ctx.frus.get(ref).hs.context.state;
  }

  /** Logical slots of all configured slots with their physical positions and occupants. */
  slots(): SlotInfo[] {
    return slotsOf(this.config);
  }

  /** The logical shelf-manager IPMB address (20h). */
  get shelfManagerAddress(): number {
    return this.ctx.frus.shelfManagerAddress;
  }

  /** The ShMC answering the shelf-manager address: the one marked `active` by the HA layer, else
   * the first ShMC in M4; undefined when no ShMC can act. */
  activeShmc(): string | undefined {
    return this.ctx.frus.activeShmc();
  }

  /**
   * The FRU whose IPM controller answers IPMB address `address` (the shelf-manager address
   * resolves to the active ShMC). @returns the FRU name, or undefined.
   */
  resolveAddress(address: number): string | undefined {
    return this.ctx.frus.resolveAddress(address);
  }

  /** A readonly, versioned picture of the shelf (cached until the next event). */
  snapshot(): ChassisSnapshot {
    return this.snapshots.snapshot();
  }

  /** Stops every timer and persists the POH counter. The store stays open (its owner closes it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.hotSwap.stop();
    this.payload.stop();
    this.chassis.stop();
  }
}
