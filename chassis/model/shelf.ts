/**
 * The Shelf aggregate: the ATCA shelf's management state (FRUs with their PICMG hot-swap states,
 * LEDs, policies, power levels and E-keys; sensors; SEL; SDR repository; FRU inventory data;
 * chassis power; shelf-manager roles) behind one command API that scripts, IPMI, HA and the TUI
 * all call. Every command either succeeds or throws CommandError with a stable `code`; a command
 * returns only after the Store has committed what it changed (so IPMI may acknowledge it).
 * Every hot-swap transition, threshold crossing, fault and role change is logged as an IPMI SEL
 * record. Announcements go out as typed ChassisEvents; `snapshot()` gives a readonly picture.
 *
 * Sources: PICMG 3.0 §3.2.4 (hot swap), §3.9 (power), §3.7 (E-keying), §2.2.8 (LEDs); IPMI v2.0
 * §28 (chassis), §31–§34 (SEL, SDR, FRU), §35–§36 (sensors); research/ipmi.md §C–§E.
 *
 * Addressing: each FRU's IPM controller sits at its IPMB-0 address; the logical shelf-manager
 * address (config `shelf_managers.address`, 20h) resolves to the active ShMC — the one the HA layer
 * marked `active`, or, before any role is set, the first ShMC in M4. SEL records from a ShMC carry
 * 20h as generator while it is active (its sensors are listed under 20h in the SDR).
 *
 * Pure core: time from the Clock, no I/O; persistence through the Store port; traffic through the
 * DataPlanePort.
 */
import type { TimerId } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { FruConfig, HotSwapSensorConfig, ShelfConfig, ThresholdSensorConfig } from '../config/types.ts';
import type { Platform } from '../platform.ts';
import type { FruStateRecord, HaRoleRecord, Store } from '../persistence/store.ts';
import { encodeFruInventory, FruStorage, type FruInventory } from '../sensors/fru.ts';
import { SdrRepository, type SdrInfo, type SdrRecord, type SdrRefusal } from '../sensors/sdr.ts';
import { eventSensor, eventSensorName, eventSensors } from '../sensors/event-sensors.ts';
import { describeSelRecord } from '../sensors/sel-text.ts';
import {
  generatorIdForIpmb,
  SelRepository,
  type SelAddResult,
  type SelEventInput,
  type SelInfo,
  type SelRecord,
} from '../sensors/sel.ts';
import { READING_TYPE, SENSOR_TYPE } from '../sensors/sensor-types.ts';
import { THRESHOLD_NAMES, type ThresholdName, type ThresholdValues } from '../sensors/thresholds.ts';
import { ThresholdSensor, type ThresholdEvent } from '../sensors/sensor.ts';
import type { DataPlanePort } from './data-plane-port.ts';
import { NullDataPlane } from './data-plane-port.ts';
import { ChassisEventEmitter, HA_ROLES, type ChassisEvent, type ChassisEventOf, type ChassisEventType, type ChassisPowerAction, type FaultKind, type FruControlOption, type HaRoleName } from './events.ts';
import { HotSwapController, type HotSwapHost } from './hot-swap-controller.ts';
import { hotSwapEventData, initialHotSwapContext, mLabel, type HotSwapCause, type HotSwapContext, type HotSwapEvent, type HotSwapStep, type MState } from './hot-swap.ts';
import { LED_COLOR, LED_COLOR_NAME, STANDARD_LEDS, localLedFunction, type LedColorName, type LedFunction, type LedOverride } from './leds.ts';
import { linksFor, portKey, PORT_INTERFACE, type PortInterfaceName, type PortLink } from './ports.ts';
import { drawAt, powerLevelInfo, type PowerLevelInfo, type PowerLevelType } from './power.ts';
import { controllerRecords } from './sdr-build.ts';
import { resolveFruRef, slotsOf, type FruRef } from '../config/slots.ts';
import { deepFreeze, SNAPSHOT_VERSION, type ChassisSnapshot, type FruSnapshot, type SensorSnapshot, type SensorStatus } from './snapshot.ts';

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

/** A sensor as the IPMI layer reads it. */
export interface SensorView {
  fru: string;
  /** IPMB address of the owning controller (20h for the active ShMC's sensors). */
  owner: number;
  name: string;
  number: number;
  kind: 'threshold' | 'hotswap';
  sensorType: number;
  readingType: number;
  /** False when the controller is absent (M0) or unreachable (M7): reading unavailable. */
  available: boolean;
  /** Raw reading byte (threshold) or the M-state (hot swap). */
  raw: number;
  /** Engineering value (threshold) or the M-state. */
  value: number;
  unit: string;
  /** Threshold comparison bits (Get Sensor Reading byte 3) or, for hot swap, the state bits (1 << M). */
  states: number;
  /** Threshold sensors: raw thresholds in force and their mask (b0 LNC … b5 UNR). */
  rawThresholds?: Readonly<Partial<Record<ThresholdName, number>>>;
  thresholdMask?: number;
  thresholds?: ThresholdValues;
  hysteresis?: { positive: number; negative: number };
  asserted?: ThresholdName[];
  status: SensorStatus;
}

/** Result of a hot-swap command: the state right after it (timed steps follow). */
export interface HotSwapOutcome {
  fru: string;
  state: MState;
  /** False when the command was legal but moved nothing (already there). */
  changed: boolean;
}

/** Get Chassis Status (IPMI v2.0 §28.2) as flags. */
export interface ChassisStatus {
  powerOn: boolean;
  powerOverload: boolean;
  interlock: boolean;
  /** A PEM is faulted or absent while boards need it. */
  powerFault: boolean;
  powerControlFault: boolean;
  /** 'previous': power state restored after an emulator restart (policy 01b). */
  restorePolicy: 'off' | 'previous' | 'on';
  /** Last power event: true when the last change came from a Chassis Control command. */
  lastPowerByCommand: boolean;
  identify: 'off' | 'timed' | 'indefinite';
  /** A fan tray is faulted, absent or below a lower threshold. */
  fanFault: boolean;
}

/** Get LED state (PICMG Get FRU LED State). */
export interface LedStateView {
  led: number;
  local: { fn: LedFunction; color: LedColorName };
  override?: { fn: LedFunction; color: LedColorName };
  lampTest: boolean;
  /** What the LED shows now. */
  effective: { fn: LedFunction; color: LedColorName };
}

/** A link and its state (PICMG Get Port State). */
export interface PortStateView extends PortLink {
  enabled: boolean;
}

interface FruRuntime {
  cfg: FruConfig;
  hs: HotSwapController;
  faults: Set<FaultKind>;
  thresholds: Map<number, ThresholdSensor>;
  hotSwapSensor: HotSwapSensorConfig;
  fru: FruStorage;
  ledOverrides: Map<number, LedOverride>;
  lastBlue: LedFunction;
  powerLevel: number;
  desiredLevel: number;
  links: PortLink[];
  portOverrides: Map<string, boolean>;
  fanLevel?: number;
  fanLocal: boolean;
  chassisOff: boolean;
  inService: boolean;
  resetting: boolean;
  sessionsLost: number;
  roles: Map<string, { role: HaRoleName; epoch: number }>;
  /** A payload fault was repaired while the FRU was still on its way down (M5/M6): ask for
   * activation again once it reaches M1. */
  reactivateOnM1?: boolean;
}

const BOARD_KINDS = new Set(['hub', 'processor']);

function fingerprint(text: string | Uint8Array): string {
  let h = 0x811c9dc5;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `fnv1a:${h.toString(16).padStart(8, '0')}:${bytes.length}`;
}

function thresholdBaseline(s: ThresholdSensorConfig): string {
  return fingerprint(JSON.stringify(THRESHOLD_NAMES.map((n) => s.thresholds[n] ?? null)));
}

/** Role → availability offset (IPMI Table 42-2, type 0Ah) used in role-change SEL records. */
const ROLE_OFFSET: Readonly<Record<HaRoleName, number>> = {
  booting: 0x01,
  arbitrating: 0x01,
  active: 0x03,
  'standby.ready': 0x05,
  'standby.hot': 0x05,
  resetting: 0x02,
  failed: 0x04,
};

export class Shelf {
  readonly config: ShelfConfig;
  private readonly log: Logger;
  private readonly emitter: ChassisEventEmitter;
  private readonly frus = new Map<string, FruRuntime>();
  private readonly order: FruRuntime[] = [];
  private sel: SelRepository;
  private readonly sdr = new SdrRepository();
  private selBase: number;
  private readonly selT0: number;
  private powerOn = true;
  private lastPowerByCommand = false;
  private restartCauseCode = 0x07;
  private identifyState: 'off' | 'timed' | 'indefinite' = 'off';
  private identifyTimer: TimerId | undefined;
  private cycleTimer: TimerId | undefined;
  private pohTimer: TimerId | undefined;
  private pohBaseMinutes = 0;
  private pohOnSince: number | undefined;
  private readonly resetTimers = new Map<string, TimerId>();
  private sessionsLostTotal = 0;
  private seq = 0;
  private cached: ChassisSnapshot | undefined;
  private closed = false;
  private booting = true;

  private constructor(
    private readonly opts: ShelfOptions,
    private readonly dataPlane: DataPlanePort,
  ) {
    this.config = opts.config;
    this.log = opts.platform.log.child({ module: 'chassis.shelf' });
    this.emitter = new ChassisEventEmitter(this.log);
    this.selT0 = opts.platform.clock.now();
    this.selBase = opts.selTimeBase ?? DEFAULT_SEL_TIME_BASE;
    this.sel = new SelRepository(opts.config.selCapacity);
  }

  /**
   * Builds the shelf from the configuration and the store: a new store gets every FRU powered up
   * in M4 (one "Transition to M4" SEL record each); a store with state resumes it — FRUs in their
   * M-states (timed steps resume), SEL, FRU data, thresholds changed at run time, LED overrides,
   * policies, roles (display only). Every board's service state is pushed to the data plane.
   * @throws StoreError from the store; RangeError on a configuration the loader should have refused
   */
  static open(opts: ShelfOptions): Shelf {
    const shelf = new Shelf(opts, opts.dataPlane ?? new NullDataPlane());
    shelf.init();
    return shelf;
  }

  // ------------------------------------------------------------------ time

  private get clock() {
    return this.opts.platform.clock;
  }

  private get store(): Store {
    return this.opts.store;
  }

  private now(): number {
    return this.clock.now();
  }

  /** SEL clock: Unix seconds (base + elapsed Clock time + Set SEL Time adjustments). */
  selTime(): number {
    return Math.floor(this.selBase + (this.now() - this.selT0) / 1000) >>> 0;
  }

  /** Set SEL Time (IPMI v2.0 §31.11): the SEL clock reads `seconds` from now on (not persisted, as on a BMC). */
  setSelTime(seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 0xffffffff) throw new CommandError('out_of_range', `SEL time ${seconds} out of range`);
    this.selBase += seconds - this.selTime();
    this.emit({ type: 'sel.time', at: this.now(), selTime: this.selTime() });
  }

  // ------------------------------------------------------------------ init

  private init(): void {
    const c = this.config;
    const boardsBySlot = new Map(c.frus.filter((f) => f.slot !== undefined).map((f) => [f.slot!, f]));
    const stored = new Map(this.store.loadFruStates().map((r) => [r.fru, r]));
    const storedThr = new Map(this.store.listThresholds().map((t) => [`${t.fru}#${t.sensor}`, t]));
    const storedSel = this.store.loadSel();
    this.sel = new SelRepository(c.selCapacity, {
      records: storedSel.records.slice(0, c.selCapacity),
      nextRecordId: storedSel.nextRecordId,
      overflow: storedSel.overflow || storedSel.records.length > c.selCapacity,
      lastAddTime: storedSel.lastAddTime,
      lastEraseTime: storedSel.lastEraseTime,
    });
    if (storedSel.records.length > c.selCapacity) {
      this.log.warn({ category: 'sel', stored: storedSel.records.length, capacity: c.selCapacity }, 'stored SEL exceeds the configured capacity; newest records not loaded');
    }
    const meta = (k: string) => this.store.getMeta(k);
    this.powerOn = meta('chassis_power') !== 'off';
    this.pohBaseMinutes = Number(meta('poh_minutes') ?? 0) || 0;
    const roles = this.store.loadRoles();
    const fresh: FruRuntime[] = [];
    this.store.transaction(() => {
      for (const name of stored.keys()) if (!c.frus.some((f) => f.name === name)) this.store.deleteFruState(name);
      for (const cfg of c.frus) {
        const rec = stored.get(cfg.name);
        const rt = this.buildRuntime(cfg, rec, boardsBySlot);
        // thresholds changed at run time survive unless the configured thresholds changed
        for (const s of cfg.sensors) {
          if (s.kind !== 'threshold') continue;
          const t = storedThr.get(`${cfg.name}#${s.number}`);
          if (!t) continue;
          if (t.baseline === thresholdBaseline(s)) {
            try {
              rt.thresholds.get(s.number)!.setThresholds(t.values as Partial<Record<ThresholdName, number | null>>);
            } catch (e) {
              this.log.warn({ category: 'thresholds', fru: cfg.name, sensor: s.name, err: String(e) }, 'stored thresholds not applicable; configured ones kept');
              this.store.deleteThresholds(cfg.name, s.number);
            }
          } else {
            this.log.info({ category: 'thresholds', fru: cfg.name, sensor: s.name }, 'configured thresholds changed; run-time thresholds dropped');
            this.store.deleteThresholds(cfg.name, s.number);
          }
        }
        for (const r of roles) {
          if (r.node === cfg.name && (HA_ROLES as readonly string[]).includes(r.role)) rt.roles.set(r.key, { role: r.role as HaRoleName, epoch: r.epoch });
        }
        this.frus.set(cfg.name, rt);
        this.order.push(rt);
        if (!rec) fresh.push(rt);
      }
    });
    if (fresh.length) this.powerUpFresh(fresh);
    this.rebuildSdr();
    for (const rt of this.order) {
      this.updateService(rt, true);
      rt.hs.resume();
    }
    if (this.powerOn) this.pohOnSince = this.now();
    this.schedulePoh();
    this.booting = false;
  }

  /**
   * Power-up of FRUs the store does not know (a first start, or FRUs added to the YAML), under the
   * same rule as a later activation (PICMG 3.0 §3.9; negotiatePower): the PEMs first (they supply
   * the budget and are always granted), then the other FRUs in configuration order (ShMCs, boards
   * by logical slot, fan trays) — the order in which waiting FRUs are re-examined later. Each is
   * granted the highest power level ≤ its desired level that the remaining budget covers and comes
   * up in M4 ("Transition to M4", as before); a FRU the budget does not cover even at level 1 stays
   * in M2 ("Transition to M2" from M1), and its M2 step asks again one step later, and whenever
   * the budget may have changed, with an `activation.waiting` event (reason power_budget, W needed
   * and available). SEL records are written in configuration order.
   */
  private powerUpFresh(fresh: FruRuntime[]): void {
    const granted = new Set<FruRuntime>();
    const byBudget = [...fresh.filter((r) => r.cfg.kind === 'pem'), ...fresh.filter((r) => r.cfg.kind !== 'pem')];
    for (const rt of byBudget) {
      if (this.negotiatePower(rt)) {
        granted.add(rt);
      } else {
        rt.powerLevel = 0;
        rt.hs = new HotSwapController(rt.cfg.name, initialHotSwapContext(2, { previous: 1 }), this.clock, this.config.hotSwap.stepMs, this.host);
        this.log.warn(
          { category: 'power', fru: rt.cfg.name, neededW: drawAt(rt.cfg.power, 1), availableW: Math.max(0, this.powerBudgetW() - this.powerUsedW(rt)) },
          'not enough power budget at power-up; FRU waits in M2',
        );
      }
    }
    const sels = fresh.map((rt) => (granted.has(rt) ? this.hotSwapSel(rt, 3, 4, 'normal') : this.hotSwapSel(rt, 1, 2, 'normal')));
    this.commit(fresh, sels, []);
  }

  private buildRuntime(cfg: FruConfig, rec: FruStateRecord | undefined, boardsBySlot: Map<number, FruConfig>): FruRuntime {
    // FRU inventory: keep bytes written at run time unless the configured image changed.
    const image = encodeFruInventory(cfg.inventory);
    const baseline = fingerprint(image);
    const storedFru = this.store.getFruData(cfg.name);
    let fru: FruStorage;
    if (storedFru && storedFru.baseline === baseline && storedFru.bytes.length === Math.max(cfg.fruSize, image.length)) {
      fru = new FruStorage(storedFru.bytes, storedFru.bytes.length);
    } else {
      if (storedFru) this.log.info({ category: 'fru', fru: cfg.name }, 'configured FRU inventory changed; FRU data rewritten from the configuration');
      fru = new FruStorage(image, Math.max(cfg.fruSize, image.length));
      this.store.putFruData(cfg.name, { bytes: fru.bytes(), baseline });
    }
    const thresholds = new Map<number, ThresholdSensor>();
    let hotSwapSensor: HotSwapSensorConfig | undefined;
    for (const s of cfg.sensors) {
      if (s.kind === 'threshold') thresholds.set(s.number, new ThresholdSensor({ ...s, thresholds: { ...s.thresholds } }));
      else hotSwapSensor = s;
    }
    if (!hotSwapSensor) throw new RangeError(`${cfg.name}: no Hot Swap sensor`);
    let ctx: HotSwapContext;
    if (rec) {
      ctx = initialHotSwapContext(clampState(rec.state), {
        previous: clampState(rec.previous),
        lastCause: (rec.lastCause in CAUSES ? rec.lastCause : 'normal') as HotSwapCause,
        handleClosed: rec.handleClosed,
        activationLocked: rec.activationLocked,
        deactivationLocked: rec.deactivationLocked,
        activationPending: rec.activationPending,
      });
    } else {
      ctx = initialHotSwapContext(4, { previous: 3 });
    }
    const rt: FruRuntime = {
      cfg,
      hs: undefined as unknown as HotSwapController,
      faults: new Set((rec?.faults ?? []).filter((f): f is FaultKind => f === 'payload' || f === 'comm')),
      thresholds,
      hotSwapSensor,
      fru,
      ledOverrides: new Map(),
      lastBlue: { mode: 'off', onMs: 0, offMs: 0 },
      powerLevel: rec ? Math.max(0, Math.min(rec.powerLevel, cfg.power.levelsW.length)) : 0,
      desiredLevel: rec ? Math.max(1, Math.min(rec.desiredLevel || cfg.power.desiredLevel, cfg.power.levelsW.length)) : cfg.power.desiredLevel,
      links: linksFor(cfg, boardsBySlot),
      portOverrides: new Map(Object.entries(rec?.portOverrides ?? {})),
      fanLocal: rec?.fanLocal ?? true,
      chassisOff: rec?.chassisOff ?? false,
      inService: false,
      resetting: false,
      sessionsLost: 0,
      roles: new Map(),
    };
    if (cfg.fan) rt.fanLevel = rec?.fanLevel ?? cfg.fan.normalLevel;
    for (const o of rec?.ledOverrides ?? []) {
      if (o.led < 0 || o.led > 3 || o.mode === 'lamp-test') continue;
      const color = LED_COLOR_NAME[o.color];
      if (!color) continue;
      rt.ledOverrides.set(o.led, { fn: { mode: o.mode as LedFunction['mode'], onMs: o.onMs, offMs: o.offMs }, color });
    }
    rt.hs = new HotSwapController(cfg.name, ctx, this.clock, this.config.hotSwap.stepMs, this.host);
    if (cfg.fan && rt.fanLevel !== cfg.fan.normalLevel) this.applyFanSpeed(rt, false);
    return rt;
  }

  // ------------------------------------------------------------------ events and snapshot

  /** Subscribes to one event type. @returns an unsubscribe function. */
  on<T extends ChassisEventType>(type: T, fn: (e: ChassisEventOf<T>) => void): () => void {
    return this.emitter.on(type, fn);
  }

  /** Subscribes to every event. @returns an unsubscribe function. */
  onAny(fn: (e: ChassisEvent) => void): () => void {
    return this.emitter.onAny(fn);
  }

  private emit(e: ChassisEvent): void {
    this.seq++;
    this.cached = undefined;
    this.emitter.emit(e);
  }

  // ------------------------------------------------------------------ lookup

  /** FRU names in configuration order (ShMCs, boards by slot, fan trays, PEMs). */
  fruNames(): string[] {
    return this.order.map((r) => r.cfg.name);
  }

  /** Resolves 'slot3' / '3' / 3 / 'shmc-a' / 'fan1' to a FRU name. @throws CommandError('unknown_fru' | 'empty_slot') */
  resolve(ref: FruRef): string {
    return resolveFruRef(this.config, ref);
  }

  private rt(ref: FruRef): FruRuntime {
    return this.frus.get(this.resolve(ref))!;
  }

  /** Configuration of a FRU. */
  fruConfig(ref: FruRef): FruConfig {
    return this.rt(ref).cfg;
  }

  /** Hot-swap state of a FRU. */
  state(ref: FruRef): MState {
    return this.rt(ref).hs.context.state;
  }

  /** Full hot-swap context of a FRU (state, previous, cause, handle, locks). */
  hotSwapContext(ref: FruRef): Readonly<HotSwapContext> {
    return { ...this.rt(ref).hs.context };
  }

  /** The logical shelf-manager IPMB address (20h). */
  get shelfManagerAddress(): number {
    return this.config.shelfManager.address;
  }

  /** The ShMC answering the shelf-manager address: the one marked `active` by the HA layer, else
   * the first ShMC in M4; undefined when no ShMC can act. */
  activeShmc(): string | undefined {
    const shmcs = this.order.filter((r) => r.cfg.kind === 'shmc');
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
    return this.order.find((r) => r.cfg.ipmbAddress === address)?.cfg.name;
  }

  /** Logical slots of all configured slots with their physical positions and occupants. */
  slots() {
    return slotsOf(this.config);
  }

  /** Sessions lost by boards leaving service without a handover, since start. */
  get sessionsLost(): number {
    return this.sessionsLostTotal;
  }

  // ------------------------------------------------------------------ persistence helpers

  private record(rt: FruRuntime): FruStateRecord {
    const c = rt.hs.context;
    const r: FruStateRecord = {
      fru: rt.cfg.name,
      state: c.state,
      previous: c.previous,
      lastCause: c.lastCause,
      handleClosed: c.handleClosed,
      activationLocked: c.activationLocked,
      deactivationLocked: c.deactivationLocked,
      activationPending: c.activationPending,
      faults: [...rt.faults],
      ledOverrides: [...rt.ledOverrides]
        .filter(([, o]) => o.fn.mode !== 'lamp-test')
        .map(([led, o]) => ({ led, mode: o.fn.mode, onMs: o.fn.onMs, offMs: o.fn.offMs, color: LED_COLOR[o.color] })),
      powerLevel: rt.powerLevel,
      desiredLevel: rt.desiredLevel,
      portOverrides: Object.fromEntries(rt.portOverrides),
      chassisOff: rt.chassisOff,
    };
    if (rt.fanLevel !== undefined) {
      r.fanLevel = rt.fanLevel;
      r.fanLocal = rt.fanLocal;
    }
    return r;
  }

  /**
   * Persists FRU state records, SEL events and `extra` writes in one transaction, then emits `events` and one
   * `sel.added` (or `sel.full`) per record. On a store failure the in-memory SEL is rolled back and
   * the error is rethrown.
   */
  private commit(frus: FruRuntime[], sels: SelEventInput[], events: ChassisEvent[], extra?: () => void): SelAddResult[] {
    const before = this.sel.state();
    const results: SelAddResult[] = [];
    const t = this.selTime();
    try {
      this.store.transaction(() => {
        extra?.();
        for (const rt of frus) this.store.putFruState(this.record(rt));
        for (const ev of sels) {
          const r = this.sel.addEvent(ev, t);
          results.push(r);
          const meta = this.selMeta();
          if (r.logged) this.store.appendSel(r.record.recordId, r.bytes, meta);
          else this.store.putSelMeta(meta);
        }
      });
    } catch (e) {
      this.sel = new SelRepository(this.config.selCapacity, before);
      throw e;
    }
    for (const e of events) this.emit(e);
    for (const r of results) {
      if (r.logged) this.emit({ type: 'sel.added', at: this.now(), selTime: t, record: r.record });
      else this.emit({ type: 'sel.full', at: this.now(), selTime: t });
    }
    return results;
  }

  private selMeta() {
    const s = this.sel.state();
    return { nextRecordId: s.nextRecordId, overflow: s.overflow, lastAddTime: s.lastAddTime, lastEraseTime: s.lastEraseTime };
  }

  private generatorFor(rt: FruRuntime): number {
    if (rt.cfg.kind === 'shmc' && this.activeShmc() === rt.cfg.name) return generatorIdForIpmb(this.shelfManagerAddress);
    return generatorIdForIpmb(rt.cfg.ipmbAddress);
  }

  private hotSwapSel(rt: FruRuntime, from: MState, to: MState, cause: HotSwapCause): SelEventInput {
    return {
      generatorId: this.generatorFor(rt),
      sensorType: SENSOR_TYPE.fruHotSwap,
      sensorNumber: rt.hotSwapSensor.number,
      eventDirType: READING_TYPE.sensorSpecific,
      eventData: hotSwapEventData(to, from, cause, 0),
    };
  }

  private thresholdSel(rt: FruRuntime, s: ThresholdSensor, ev: ThresholdEvent): SelEventInput {
    return { generatorId: this.generatorFor(rt), sensorType: s.def.sensorType, sensorNumber: s.def.number, eventDirType: ev.eventDirType, eventData: ev.eventData };
  }

  private faultSel(rt: FruRuntime, kind: FaultKind, active: boolean): SelEventInput {
    // Module/Board, generic severity: "Transition to Critical from less severe" / "Transition to OK";
    // data 2 = fault kind (1 payload, 2 comm), data 3 = FRU device ID.
    return {
      generatorId: this.generatorFor(rt),
      sensorType: SENSOR_TYPE.moduleBoard,
      sensorNumber: eventSensor(rt.cfg, 'health')!.number,
      eventDirType: READING_TYPE.severity,
      eventData: [0xa0 | (active ? 0x02 : 0x00), kind === 'payload' ? 1 : 2, 0],
    };
  }

  // ------------------------------------------------------------------ hot-swap host

  private readonly host: HotSwapHost = {
    transitioned: (fru, s) => this.onTransition(this.frus.get(fru)!, s),
    contextChanged: (fru) => {
      if (this.booting) return;
      const rt = this.frus.get(fru)!;
      this.safePersist(() => this.store.putFruState(this.record(rt)));
    },
    grantActivation: (fru) => this.grantActivation(this.frus.get(fru)!),
    approveDeactivation: (fru) => {
      const rt = this.frus.get(fru)!;
      if (rt.cfg.kind === 'shmc') return true;
      return this.config.hotSwap.autoDeactivate && this.activeShmc() !== undefined;
    },
    stepFailed: (fru, err) => {
      this.log.error({ category: 'store', fru, err: String(err) }, 'hot-swap step not persisted; retrying one step later');
    },
  };

  private safePersist(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error({ category: 'store', err: String(e) }, 'persisting shelf state failed');
      throw e;
    }
  }

  /** Persists and announces a transition; throws (after undoing its own changes) when the store
   * cannot commit, so the controller rolls the state back. */
  private onTransition(rt: FruRuntime, s: Extract<HotSwapStep, { kind: 'transition' }>): void {
    const at = this.now();
    const saved = { powerLevel: rt.powerLevel, ports: new Map(rt.portOverrides), leds: new Map(rt.ledOverrides), lastBlue: rt.lastBlue };
    if (s.to === 1 || s.to === 0) {
      rt.powerLevel = 0;
      rt.portOverrides.clear();
    }
    if (s.to === 0) rt.ledOverrides.clear();
    if (s.to === 7) rt.lastBlue = localLedFunction(0, this.ledInputs(rt, s.from));
    const events: ChassisEvent[] = [{ type: 'hotswap', at, fru: rt.cfg.name, ...(rt.cfg.slot !== undefined ? { slot: rt.cfg.slot } : {}), from: s.from, to: s.to, cause: s.cause }];
    try {
      this.commit([rt], [this.hotSwapSel(rt, s.from, s.to, s.cause)], events);
    } catch (e) {
      rt.powerLevel = saved.powerLevel;
      rt.portOverrides = saved.ports;
      rt.ledOverrides = saved.leds;
      rt.lastBlue = saved.lastBlue;
      this.log.error({ category: 'store', fru: rt.cfg.name, err: String(e) }, 'hot-swap transition not persisted');
      throw e;
    }
    if (s.to === 0 || s.to === 7) this.cancelReset(rt);
    if (s.from === 0 || s.to === 0) this.rebuildSdr();
    this.updateService(rt);
    if (s.to === 1 && rt.reactivateOnM1) {
      rt.reactivateOnM1 = false;
      // After the controller finished this step, not from inside it.
      this.clock.setTimeout(() => this.reactivateIfRepaired(rt), 0);
    } else if (s.to !== 5 && s.to !== 6) {
      rt.reactivateOnM1 = false;
    }
    this.pokeAll();
  }

  /** M1 with a closed, unlocked handle, no fault and power on: request activation (M1 → M2). */
  private reactivateIfRepaired(rt: FruRuntime): void {
    const c = rt.hs.context;
    if (c.state !== 1 || !c.handleClosed || c.activationLocked || rt.faults.size > 0 || rt.chassisOff) return;
    const a = rt.hs.dispatch('fru.activate.request');
    if (a.kind !== 'illegal') this.pokeAll();
  }

  private updateService(rt: FruRuntime, initial = false): void {
    if (!BOARD_KINDS.has(rt.cfg.kind)) return;
    const want = rt.hs.context.state === 4 && !rt.resetting;
    if (!initial && want === rt.inService) return;
    rt.inService = want;
    let lost = 0;
    try {
      lost = this.dataPlane.setInService(rt.cfg.slot!, want).sessionsLost;
    } catch (e) {
      this.log.error({ category: 'dataplane', fru: rt.cfg.name, err: String(e) }, 'data plane refused a service change');
    }
    if (lost > 0) {
      rt.sessionsLost += lost;
      this.sessionsLostTotal += lost;
    }
    if (!initial) this.emit({ type: 'service', at: this.now(), fru: rt.cfg.name, slot: rt.cfg.slot!, inService: want, sessionsLost: lost });
  }

  private pokeAll(): void {
    for (const r of this.order) r.hs.poke();
  }

  /** Power budget of the shelf: capacity of the PEMs in M4 without a fault (W). */
  powerBudgetW(): number {
    const pems = this.order.filter((r) => r.cfg.kind === 'pem');
    if (pems.length === 0) return Infinity;
    return pems.filter((r) => r.hs.context.state === 4 && r.faults.size === 0).reduce((n, r) => n + (r.cfg.capacityW ?? 0), 0);
  }

  /** Power drawn at the present levels (W). */
  powerUsedW(except?: FruRuntime): number {
    return this.order.filter((r) => r !== except).reduce((n, r) => n + drawAt(r.cfg.power, r.powerLevel), 0);
  }

  private grantActivation(rt: FruRuntime): boolean {
    const at = this.now();
    const fru = rt.cfg.name;
    if (rt.faults.size > 0) {
      this.emit({ type: 'activation.waiting', at, fru, reason: 'faulted' });
      return false;
    }
    if (rt.cfg.kind !== 'shmc') {
      if (!this.config.hotSwap.autoActivate) return false;
      if (this.activeShmc() === undefined) {
        this.emit({ type: 'activation.waiting', at, fru, reason: 'no_shelf_manager' });
        return false;
      }
      if (BOARD_KINDS.has(rt.cfg.kind) && !this.powerOn) return false;
    }
    return this.negotiatePower(rt);
  }

  /** Compute Power Properties + Set Power Level as the shelf manager does before M2→M3. */
  private negotiatePower(rt: FruRuntime): boolean {
    if (rt.cfg.kind === 'pem') {
      rt.powerLevel = rt.desiredLevel;
      return true;
    }
    const available = this.powerBudgetW() - this.powerUsedW(rt);
    for (let level = rt.desiredLevel; level >= 1; level--) {
      const w = drawAt(rt.cfg.power, level);
      if (w <= available) {
        rt.powerLevel = level;
        this.emit({ type: 'power.level', at: this.now(), fru: rt.cfg.name, level, watts: w });
        return true;
      }
    }
    this.emit({ type: 'activation.waiting', at: this.now(), fru: rt.cfg.name, reason: 'power_budget', neededW: drawAt(rt.cfg.power, 1), availableW: Math.max(0, available) });
    return false;
  }

  // ------------------------------------------------------------------ hot-swap commands

  private dispatch(rt: FruRuntime, ev: HotSwapEvent): HotSwapStep {
    const r = rt.hs.dispatch(ev);
    if (r.kind === 'illegal') {
      throw new CommandError('illegal_state', `${rt.cfg.name} is in ${mLabel(r.state)}: cannot ${ev.replace('.', ' ')}`);
    }
    return r;
  }

  private outcome(rt: FruRuntime, r: HotSwapStep): HotSwapOutcome {
    return { fru: rt.cfg.name, state: rt.hs.context.state, changed: r.kind === 'transition' };
  }

  private requirePresent(rt: FruRuntime): void {
    if (rt.hs.context.state === 0) throw new CommandError('not_present', `${rt.cfg.name} is not installed (M0)`);
  }

  /**
   * The operator opens the ejector handle (TUI `x`): M4 → M5 → (shelf manager approves) M6 → M1,
   * the board stays present; M2 → M1; M3 → M6 → M1.
   * @throws CommandError('not_present') in M0; CommandError('deactivation_locked') when the FRU's
   *   policy keeps it in M4 (the handle is open nevertheless)
   */
  openHandle(ref: FruRef): HotSwapOutcome {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const r = this.dispatch(rt, 'handle.open');
    this.emit({ type: 'handle', at: this.now(), fru: rt.cfg.name, closed: false });
    if (r.kind === 'unchanged' && r.blockedBy === 'deactivationUnlocked') {
      throw new CommandError('deactivation_locked', `${rt.cfg.name} stays in M4: its deactivation is locked (Set FRU Activation Policy)`);
    }
    return this.outcome(rt, r);
  }

  /**
   * The operator closes the handle (TUI `i`): M1 → M2 → (granted) M3 → M4; M5 → M4.
   * @throws CommandError('not_present'); CommandError('activation_locked') when the policy keeps
   *   the FRU in M1 (clearing the lock later activates it); CommandError('faulted') while a payload
   *   fault is injected (repair first)
   */
  closeHandle(ref: FruRef): HotSwapOutcome {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const c = rt.hs.context;
    if (c.state === 1 && rt.faults.has('payload')) {
      rt.hs.patch({ handleClosed: true });
      this.emit({ type: 'handle', at: this.now(), fru: rt.cfg.name, closed: true });
      throw new CommandError('faulted', `${rt.cfg.name} has a payload fault: it stays in M1 until repaired`);
    }
    const r = this.dispatch(rt, 'handle.close');
    this.emit({ type: 'handle', at: this.now(), fru: rt.cfg.name, closed: true });
    if (r.kind === 'unchanged' && r.blockedBy === 'activationUnlocked') {
      throw new CommandError('activation_locked', `${rt.cfg.name} stays in M1: its activation is locked (Set FRU Activation Policy)`);
    }
    return this.outcome(rt, r);
  }

  /**
   * Set FRU Activation (activate) from the shelf manager: M1 → M2 (then granted after one step),
   * M2 → M3 at once (power budgeted now), M5 → M4 (deactivation refused). In M3/M4: nothing to do.
   * @throws CommandError('not_present' | 'illegal_state' (M6, M7) | 'faulted' | 'power_budget' | 'chassis_off')
   */
  activate(ref: FruRef): HotSwapOutcome {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const s = rt.hs.context.state;
    if (s === 3 || s === 4) return { fru: rt.cfg.name, state: s, changed: false };
    if ((s === 1 || s === 2) && rt.faults.size > 0) throw new CommandError('faulted', `${rt.cfg.name} is faulted (${[...rt.faults].join(', ')}): repair it first`);
    if ((s === 1 || s === 2) && BOARD_KINDS.has(rt.cfg.kind) && !this.powerOn) throw new CommandError('chassis_off', 'chassis power is off');
    if (s === 2 && !this.negotiatePower(rt)) throw new CommandError('power_budget', `not enough power budget to activate ${rt.cfg.name}`);
    return this.outcome(rt, this.dispatch(rt, 'shm.activate'));
  }

  /**
   * Set FRU Activation (deactivate) from the shelf manager (`picmg deactivate`, `clia deactivate`):
   * M4 → M6 → M1 directly (no M5), M5 → M6, M3 → M6, M2 → M1. In M1: nothing to do.
   * @throws CommandError('not_present' | 'illegal_state' (M6, M7))
   */
  deactivate(ref: FruRef): HotSwapOutcome {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    if (rt.hs.context.state === 1) return { fru: rt.cfg.name, state: 1, changed: false };
    return this.outcome(rt, this.dispatch(rt, 'shm.deactivate'));
  }

  /**
   * The board is pulled from the backplane (TUI `e`): any state → M0 (a surprise extraction unless
   * it was in M1). Its sensors and SDR records disappear; it stops carrying traffic at once.
   * @throws CommandError('not_present') when already extracted
   */
  extract(ref: FruRef): HotSwapOutcome {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    return this.outcome(rt, this.dispatch(rt, 'extract'));
  }

  /**
   * The board is plugged in: M0 → M1, and (default) the operator closes its handle → M2 → M3 → M4.
   * @throws CommandError('already_present') unless the FRU is in M0
   */
  insert(ref: FruRef, opts: { closeHandle?: boolean } = {}): HotSwapOutcome {
    const rt = this.rt(ref);
    if (rt.hs.context.state !== 0) throw new CommandError('already_present', `${rt.cfg.name} is already installed (${mLabel(rt.hs.context.state)})`);
    const r = this.dispatch(rt, 'insert');
    if (opts.closeHandle ?? true) {
      try {
        this.closeHandle(rt.cfg.name);
      } catch (e) {
        if (!(e instanceof CommandError)) throw e; // locked or faulted: stays in M1
      }
    }
    return this.outcome(rt, r);
  }

  /**
   * Injects a fault (TUI `f`). `payload`: the payload dies — M3/M4/M5 → M6 (cause: unexpected
   * deactivation) → M1, and the FRU stays in M1 until repaired. `comm`: the IPMC stops answering
   * on IPMB-0 — M1..M6 → M7 (sensors unavailable). A SEL record is logged either way.
   * @throws CommandError('not_present' | 'already_faulted')
   */
  injectFault(ref: FruRef, kind: FaultKind = 'payload'): HotSwapOutcome {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    if (rt.faults.has(kind)) throw new CommandError('already_faulted', `${rt.cfg.name} already has a ${kind} fault`);
    rt.faults.add(kind);
    this.commit([rt], [this.faultSel(rt, kind, true)], [{ type: 'fault', at: this.now(), fru: rt.cfg.name, fault: kind, active: true }]);
    let r: HotSwapStep = { kind: 'unchanged', context: rt.hs.context };
    const s = rt.hs.context.state;
    if (kind === 'payload' && (s === 3 || s === 4 || s === 5)) r = this.dispatch(rt, 'payload.fault');
    else if (kind === 'payload' && s === 2) r = this.dispatch(rt, 'shm.deactivate');
    else if (kind === 'comm' && s >= 1 && s <= 6) r = this.dispatch(rt, 'comm.lost');
    return this.outcome(rt, r);
  }

  /**
   * Repairs injected faults (TUI `r`; all kinds unless one is named): communication regained
   * returns M7 to the state it left; a repaired payload with a closed, unlocked handle asks for
   * activation again (M1 → M2 → M3 → M4).
   * @throws CommandError('not_faulted')
   */
  repair(ref: FruRef, kind?: FaultKind): HotSwapOutcome {
    const rt = this.rt(ref);
    const kinds = kind ? [kind] : [...rt.faults];
    if (kinds.length === 0 || kinds.some((k) => !rt.faults.has(k))) throw new CommandError('not_faulted', `${rt.cfg.name} has no ${kind ?? ''} fault to repair`.replace('  ', ' '));
    for (const k of kinds) rt.faults.delete(k);
    this.commit(
      [rt],
      kinds.map((k) => this.faultSel(rt, k, false)),
      kinds.map((k) => ({ type: 'fault' as const, at: this.now(), fru: rt.cfg.name, fault: k, active: false })),
    );
    let r: HotSwapStep = { kind: 'unchanged', context: rt.hs.context };
    if (kinds.includes('comm') && rt.hs.context.state === 7) r = this.dispatch(rt, 'comm.restored');
    const c = rt.hs.context;
    if (kinds.includes('payload') && c.state === 1 && c.handleClosed && !c.activationLocked && rt.faults.size === 0 && !rt.chassisOff) {
      const a = rt.hs.dispatch('fru.activate.request');
      if (a.kind !== 'illegal') r = a;
    } else if (kinds.includes('payload') && (c.state === 5 || c.state === 6)) {
      rt.reactivateOnM1 = true; // still shutting down: re-activate once it reaches M1
    }
    this.pokeAll();
    return this.outcome(rt, r);
  }

  /**
   * Set FRU Activation Policy (PICMG 2Ch/0Ah): set or clear the Activation Locked / Deactivation
   * Locked bits (undefined = unchanged). Clearing the activation lock of a FRU in M1 whose handle
   * closed meanwhile moves it to M2.
   */
  setActivationPolicy(ref: FruRef, p: { activationLocked?: boolean; deactivationLocked?: boolean }): { activationLocked: boolean; deactivationLocked: boolean } {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    rt.hs.setPolicy(p);
    const c = rt.hs.context;
    this.emit({ type: 'policy', at: this.now(), fru: rt.cfg.name, activationLocked: c.activationLocked, deactivationLocked: c.deactivationLocked });
    return { activationLocked: c.activationLocked, deactivationLocked: c.deactivationLocked };
  }

  /** Get FRU Activation Policy (PICMG 2Ch/0Bh). */
  activationPolicy(ref: FruRef): { activationLocked: boolean; deactivationLocked: boolean } {
    const c = this.rt(ref).hs.context;
    return { activationLocked: c.activationLocked, deactivationLocked: c.deactivationLocked };
  }

  // ------------------------------------------------------------------ power levels

  /** Compute Power Properties (PICMG 2Ch/10h): slots spanned and IPMC location. */
  computePowerProperties(ref: FruRef): { spannedSlots: number; ipmcLocation: number } {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    return { spannedSlots: 1, ipmcLocation: 0 };
  }

  /** Get Power Level (PICMG 2Ch/12h). */
  powerLevel(ref: FruRef, type: PowerLevelType = 'steady'): PowerLevelInfo {
    const rt = this.rt(ref);
    return powerLevelInfo({ ...rt.cfg.power, desiredLevel: rt.desiredLevel }, rt.powerLevel, type);
  }

  /**
   * Set Power Level (PICMG 2Ch/11h). `level` 0 powers the payload off (an active FRU deactivates:
   * → M6 → M1); 1..n sets the present level within the power budget; 'no-change' (FFh) keeps it.
   * `copyDesired` copies the desired level to the present level.
   * @throws CommandError('out_of_range' | 'power_budget' | 'not_present')
   */
  setPowerLevel(ref: FruRef, level: number | 'no-change', copyDesired = false): { level: number; watts: number } {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const n = rt.cfg.power.levelsW.length;
    let target = level === 'no-change' ? rt.powerLevel : level;
    if (copyDesired) target = rt.desiredLevel;
    if (!Number.isInteger(target) || target < 0 || target > n) throw new CommandError('out_of_range', `power level ${target} out of range 0..${n}`);
    const s = rt.hs.context.state;
    if (target === 0) {
      if (s >= 3 && s <= 5) this.dispatch(rt, 'shm.deactivate');
      return { level: rt.powerLevel, watts: drawAt(rt.cfg.power, rt.powerLevel) };
    }
    const w = drawAt(rt.cfg.power, target);
    if (rt.powerLevel > 0 || s === 2 || s === 3 || s === 4) {
      if (w > this.powerBudgetW() - this.powerUsedW(rt)) throw new CommandError('power_budget', `${w} W for ${rt.cfg.name} exceeds the remaining power budget`);
      rt.powerLevel = target;
    } else {
      // Inactive FRU: the level becomes the desired one for its next activation.
      rt.desiredLevel = target;
    }
    this.commit([rt], [], [{ type: 'power.level', at: this.now(), fru: rt.cfg.name, level: rt.powerLevel, watts: drawAt(rt.cfg.power, rt.powerLevel) }]);
    return { level: rt.powerLevel, watts: drawAt(rt.cfg.power, rt.powerLevel) };
  }

  // ------------------------------------------------------------------ LEDs

  private ledInputs(rt: FruRuntime, state: MState = rt.hs.context.state) {
    return { state, lastBlue: rt.lastBlue, faulted: rt.faults.size > 0, inService: rt.inService };
  }

  private expireLampTests(rt: FruRuntime): void {
    const now = this.now();
    for (const [led, o] of rt.ledOverrides) if (o.until !== undefined && o.until <= now) rt.ledOverrides.delete(led);
  }

  /** Get FRU LED Properties (PICMG 2Ch/05h): the four status LEDs, no application LEDs. */
  ledProperties(ref: FruRef): { statusLeds: number; applicationLeds: number } {
    this.requirePresent(this.rt(ref));
    return { statusLeds: 0x0f, applicationLeds: 0 };
  }

  /** Get LED Color Capabilities (PICMG 2Ch/06h). @throws CommandError('out_of_range') for an unknown LED */
  ledColors(ref: FruRef, led: number): { colors: LedColorName[]; defaultLocal: LedColorName; defaultOverride: LedColorName } {
    this.requirePresent(this.rt(ref));
    const d = STANDARD_LEDS[led];
    if (!d) throw new CommandError('out_of_range', `LED ${led} does not exist (0..3)`);
    return { colors: [...d.colors], defaultLocal: d.defaultLocalColor, defaultOverride: d.defaultOverrideColor };
  }

  /** Get FRU LED State (PICMG 2Ch/08h). @throws CommandError('out_of_range') */
  led(ref: FruRef, led: number): LedStateView {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const d = STANDARD_LEDS[led];
    if (!d) throw new CommandError('out_of_range', `LED ${led} does not exist (0..3)`);
    this.expireLampTests(rt);
    const local = { fn: localLedFunction(led, this.ledInputs(rt)), color: d.defaultLocalColor };
    const o = rt.ledOverrides.get(led);
    const view: LedStateView = { led, local, lampTest: o?.fn.mode === 'lamp-test', effective: o ? { fn: o.fn, color: o.color } : local };
    if (o) view.override = { fn: o.fn, color: o.color };
    return view;
  }

  /**
   * Set FRU LED State (PICMG 2Ch/07h) for LED `led` (or 'all'): a function overrides local control,
   * 'restore' returns to it; a lamp test lasts `fn.onMs`. `color` defaults to the LED's override
   * colour. @throws CommandError('out_of_range') for an unknown LED or a colour it cannot show
   */
  setLed(ref: FruRef, led: number | 'all', fn: LedFunction | 'restore', color?: LedColorName): void {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const ids = led === 'all' ? [0, 1, 2, 3] : [led];
    for (const id of ids) {
      const d = STANDARD_LEDS[id];
      if (!d) throw new CommandError('out_of_range', `LED ${id} does not exist (0..3)`);
      if (color && !d.colors.includes(color)) throw new CommandError('out_of_range', `LED ${id} cannot show ${color} (${d.colors.join(', ')})`);
    }
    for (const id of ids) {
      const d = STANDARD_LEDS[id]!;
      if (fn === 'restore') rt.ledOverrides.delete(id);
      else {
        const o: LedOverride = { fn: { ...fn }, color: color ?? d.defaultOverrideColor };
        if (fn.mode === 'lamp-test') o.until = this.now() + fn.onMs;
        rt.ledOverrides.set(id, o);
      }
    }
    this.commit([rt], [], ids.map((id) => ({ type: 'led' as const, at: this.now(), fru: rt.cfg.name, led: id })));
  }

  // ------------------------------------------------------------------ ports (E-keying)

  private linkEnabled(rt: FruRuntime, l: PortLink): boolean {
    const o = rt.portOverrides.get(portKey(l.interface, l.channel));
    if (o !== undefined) return o;
    const peer = this.frus.get(l.peer);
    const up = (s: MState) => s >= 3 && s <= 5;
    return up(rt.hs.context.state) && !!peer && up(peer.hs.context.state);
  }

  /** Links of a FRU with their E-keying state (PICMG Get Port State). `channel` filters. */
  portStates(ref: FruRef, iface?: PortInterfaceName, channel?: number): PortStateView[] {
    const rt = this.rt(ref);
    return rt.links.filter((l) => (iface === undefined || l.interface === iface) && (channel === undefined || l.channel === channel)).map((l) => ({ ...l, enabled: this.linkEnabled(rt, l) }));
  }

  /**
   * Set Port State (PICMG 2Ch/0Eh): enables or disables a link (overrides E-keying until the FRU
   * is deactivated). @throws CommandError('out_of_range') when the FRU has no such link
   */
  setPortState(ref: FruRef, iface: PortInterfaceName | number, channel: number, enabled: boolean): PortStateView {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const name = typeof iface === 'number' ? (Object.keys(PORT_INTERFACE) as PortInterfaceName[]).find((k) => PORT_INTERFACE[k] === iface) : iface;
    const l = rt.links.find((x) => x.interface === name && x.channel === channel);
    if (!l) throw new CommandError('out_of_range', `${rt.cfg.name} has no ${String(name ?? iface)} channel ${channel}`);
    rt.portOverrides.set(portKey(l.interface, l.channel), enabled);
    this.commit([rt], [], [{ type: 'port', at: this.now(), fru: rt.cfg.name, interface: l.interface, channel, enabled }]);
    return { ...l, enabled };
  }

  // ------------------------------------------------------------------ FRU control

  /** FRU Control Capabilities (PICMG 2Ch/1Eh): the options besides cold reset. */
  fruControlCapabilities(ref: FruRef): FruControlOption[] {
    const c = this.rt(ref).cfg.fruControl;
    const out: FruControlOption[] = ['cold-reset'];
    if (c.warmReset) out.push('warm-reset');
    if (c.gracefulReboot) out.push('graceful-reboot');
    if (c.diagnosticInterrupt) out.push('diagnostic-interrupt');
    return out;
  }

  /**
   * FRU Control (PICMG 2Ch/04h). Resets and graceful reboots restart the payload of an active board:
   * it leaves service for one hot-swap step and comes back (its sessions are lost); the M-state stays
   * M4. A diagnostic interrupt only announces itself. (The HA wiring turns a cold reset of the
   * active ShMC into a switchover.)
   * @throws CommandError('unsupported' | 'not_present' | 'comm_lost')
   */
  fruControl(ref: FruRef, option: FruControlOption): void {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    if (rt.hs.context.state === 7) throw new CommandError('comm_lost', `${rt.cfg.name} does not answer (M7)`);
    if (!this.fruControlCapabilities(rt.cfg.name).includes(option)) throw new CommandError('unsupported', `${rt.cfg.name} does not support ${option}`);
    this.emit({ type: 'fru.control', at: this.now(), fru: rt.cfg.name, option });
    if (option !== 'diagnostic-interrupt' && rt.hs.context.state === 4) this.restartPayload(rt);
  }

  private restartPayload(rt: FruRuntime): void {
    this.cancelReset(rt);
    rt.resetting = true;
    this.updateService(rt);
    const t = this.clock.setTimeout(() => {
      this.resetTimers.delete(rt.cfg.name);
      rt.resetting = false;
      this.updateService(rt);
    }, this.config.hotSwap.stepMs);
    this.resetTimers.set(rt.cfg.name, t);
  }

  private cancelReset(rt: FruRuntime): void {
    const t = this.resetTimers.get(rt.cfg.name);
    if (t !== undefined) this.clock.clearTimeout(t);
    this.resetTimers.delete(rt.cfg.name);
    rt.resetting = false;
  }

  // ------------------------------------------------------------------ fans

  /** Get Fan Speed Properties (PICMG 2Ch/14h). @throws CommandError('unsupported') for a FRU without fans */
  fanProperties(ref: FruRef): { minLevel: number; maxLevel: number; normalLevel: number; localControl: boolean } {
    const rt = this.rt(ref);
    if (!rt.cfg.fan) throw new CommandError('unsupported', `${rt.cfg.name} has no fans`);
    return { ...rt.cfg.fan, localControl: true };
  }

  /** Get Fan Level (PICMG 2Ch/16h). */
  fanLevel(ref: FruRef): { level: number; local: boolean } {
    const rt = this.rt(ref);
    if (!rt.cfg.fan) throw new CommandError('unsupported', `${rt.cfg.name} has no fans`);
    return { level: rt.fanLevel!, local: rt.fanLocal };
  }

  /**
   * Set Fan Level (PICMG 2Ch/15h): the fan speed sensors follow (speed = nominal × level / normal
   * level), which may cross their thresholds. @throws CommandError('unsupported' | 'out_of_range')
   */
  setFanLevel(ref: FruRef, level: number, localControl?: boolean): void {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const f = rt.cfg.fan;
    if (!f) throw new CommandError('unsupported', `${rt.cfg.name} has no fans`);
    if (!Number.isInteger(level) || level < f.minLevel || level > f.maxLevel) throw new CommandError('out_of_range', `fan level ${level} out of range ${f.minLevel}..${f.maxLevel}`);
    rt.fanLevel = level;
    if (localControl !== undefined) rt.fanLocal = localControl;
    this.commit([rt], [], [{ type: 'fan.level', at: this.now(), fru: rt.cfg.name, level, local: rt.fanLocal }]);
    this.applyFanSpeed(rt, true);
  }

  private applyFanSpeed(rt: FruRuntime, log: boolean): void {
    const f = rt.cfg.fan!;
    for (const s of rt.thresholds.values()) {
      if (s.def.sensorType !== 0x04) continue;
      const v = f.normalLevel > 0 ? (s.def.nominal * rt.fanLevel!) / f.normalLevel : s.def.nominal;
      const evs = s.setValue(v);
      if (log) this.sensorChanged(rt, s, evs);
    }
  }

  // ------------------------------------------------------------------ sensors

  private sensorRef(rt: FruRuntime, sensor: string | number): ThresholdSensor | HotSwapSensorConfig {
    for (const s of rt.thresholds.values()) if (s.def.number === sensor || s.def.name === sensor) return s;
    if (rt.hotSwapSensor.number === sensor || rt.hotSwapSensor.name === sensor) return rt.hotSwapSensor;
    throw new CommandError('no_such_sensor', `${rt.cfg.name} has no sensor ${JSON.stringify(sensor)}`);
  }

  private owner(rt: FruRuntime): number {
    return rt.cfg.kind === 'shmc' ? this.shelfManagerAddress : rt.cfg.ipmbAddress;
  }

  private view(rt: FruRuntime, s: ThresholdSensor | HotSwapSensorConfig): SensorView {
    const state = rt.hs.context.state;
    const available = state !== 0 && state !== 7;
    if (s instanceof ThresholdSensor) {
      const status = available ? statusOf(s) : 'ns';
      return {
        fru: rt.cfg.name,
        owner: this.owner(rt),
        name: s.def.name,
        number: s.def.number,
        kind: 'threshold',
        sensorType: s.def.sensorType,
        readingType: READING_TYPE.threshold,
        available,
        raw: s.raw,
        value: s.value,
        unit: (rt.cfg.sensors.find((x) => x.number === s.def.number) as ThresholdSensorConfig).unit,
        states: s.comparisonStatus(),
        rawThresholds: { ...s.rawThresholds },
        thresholdMask: s.thresholdMask,
        thresholds: s.thresholds,
        hysteresis: s.rawHysteresis,
        asserted: [...s.assertedThresholds],
        status,
      };
    }
    return {
      fru: rt.cfg.name,
      owner: this.owner(rt),
      name: s.name,
      number: s.number,
      kind: 'hotswap',
      sensorType: 0xf0,
      readingType: READING_TYPE.sensorSpecific,
      available: state !== 0,
      raw: state,
      value: state,
      unit: '',
      states: 1 << state,
      status: state === 0 ? 'ns' : 'ok',
    };
  }

  /** Every sensor of a FRU, in number order. */
  sensors(ref: FruRef): SensorView[] {
    const rt = this.rt(ref);
    const all: Array<ThresholdSensor | HotSwapSensorConfig> = [...rt.thresholds.values(), rt.hotSwapSensor];
    return all.map((s) => this.view(rt, s)).sort((a, b) => a.number - b.number);
  }

  /** One sensor of a FRU by name or number. @throws CommandError('no_such_sensor') */
  sensor(ref: FruRef, sensor: string | number): SensorView {
    const rt = this.rt(ref);
    return this.view(rt, this.sensorRef(rt, sensor));
  }

  /** The sensor `number` of the controller at IPMB `address` (20h = the active ShMC), or undefined. */
  sensorAt(address: number, number: number): SensorView | undefined {
    const fru = this.resolveAddress(address);
    if (!fru) return undefined;
    const rt = this.frus.get(fru)!;
    try {
      return this.view(rt, this.sensorRef(rt, number));
    } catch {
      return undefined;
    }
  }

  /** Finds a sensor by its (shelf-unique) name; ShMC sensor names resolve to the active ShMC. */
  findSensor(name: string): SensorView | undefined {
    const active = this.activeShmc();
    for (const rt of this.order) {
      if (rt.cfg.kind === 'shmc' && active && rt.cfg.name !== active) continue;
      for (const s of [...rt.thresholds.values(), rt.hotSwapSensor]) {
        const n = s instanceof ThresholdSensor ? s.def.name : s.name;
        if (n === name) return this.view(rt, s);
      }
    }
    return undefined;
  }

  /**
   * Injects a reading (engineering units) into a threshold sensor; crossings are logged.
   * @throws CommandError('no_such_sensor' | 'not_present' | 'bad_value' (hot-swap sensors follow the M-state))
   */
  setSensorValue(ref: FruRef, sensor: string | number, value: number): SensorView {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const s = this.sensorRef(rt, sensor);
    if (!(s instanceof ThresholdSensor)) throw new CommandError('bad_value', `${rt.cfg.name}: the Hot Swap sensor follows the M-state; use the hot-swap commands`);
    if (!Number.isFinite(value)) throw new CommandError('bad_value', `reading ${value} is not a number`);
    const evs = s.setValue(value);
    this.sensorChanged(rt, s, evs);
    return this.view(rt, s);
  }

  private sensorChanged(rt: FruRuntime, s: ThresholdSensor, evs: ThresholdEvent[]): void {
    const at = this.now();
    const events: ChassisEvent[] = [{ type: 'sensor.value', at, fru: rt.cfg.name, sensor: s.def.name, number: s.def.number, value: s.value }];
    for (const e of evs) {
      events.push({ type: 'sensor.threshold', at, fru: rt.cfg.name, sensor: s.def.name, number: s.def.number, threshold: e.threshold, asserted: e.asserted, value: e.value, thresholdValue: e.thresholdValue });
    }
    this.commit([], evs.map((e) => this.thresholdSel(rt, s, e)), events);
  }

  /**
   * Set Sensor Thresholds (IPMI v2.0 §35.8): keys present are set (null removes a threshold); the
   * change persists across restarts (until the configured thresholds change).
   * @throws CommandError('no_such_sensor' | 'bad_value' (not a threshold sensor, or a value outside its range))
   */
  setSensorThresholds(ref: FruRef, sensor: string | number, t: Partial<Record<ThresholdName, number | null>>): SensorView {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const s = this.sensorRef(rt, sensor);
    if (!(s instanceof ThresholdSensor)) throw new CommandError('bad_value', `${rt.cfg.name}: ${s.name} has no thresholds`);
    let evs: ThresholdEvent[];
    try {
      evs = s.setThresholds(t);
    } catch (e) {
      throw new CommandError('bad_value', (e as Error).message);
    }
    const cfg = rt.cfg.sensors.find((x) => x.number === s.def.number) as ThresholdSensorConfig;
    const values: Record<string, number | null> = {};
    const cur = s.thresholds;
    for (const n of THRESHOLD_NAMES) values[n] = cur[n] ?? null;
    this.store.putThresholds({ fru: rt.cfg.name, sensor: s.def.number, values, baseline: thresholdBaseline(cfg) });
    this.emit({ type: 'sensor.thresholds', at: this.now(), fru: rt.cfg.name, sensor: s.def.name, number: s.def.number });
    this.sensorChanged(rt, s, evs);
    return this.view(rt, s);
  }

  // ------------------------------------------------------------------ SEL

  /** Get SEL Info (§31.2). */
  selInfo(): SelInfo {
    return this.sel.info();
  }

  /** Reserve SEL (§31.4). */
  reserveSel(): number {
    return this.sel.reserve();
  }

  /** Get SEL Entry (§31.5): `id` 0 = first, FFFFh = last. @throws CommandError('not_found') */
  selEntry(id: number): { record: SelRecord; bytes: Uint8Array; next: number } {
    const r = this.sel.get(id);
    if (!r) throw new CommandError('not_found', `no SEL record ${id}`);
    return r;
  }

  /** Every SEL record in log order. */
  selRecords(): readonly SelRecord[] {
    return this.sel.list();
  }

  /** ipmitool-style text of a SEL record (names resolved through this shelf's sensors). */
  describeSel(r: SelRecord): string {
    return describeSelRecord(r, (addr, num) => this.sensorNameAt(addr, num));
  }

  private sensorNameAt(address: number, number: number): string | undefined {
    const logical = address === this.shelfManagerAddress;
    const rt = logical ? this.order.find((r) => r.cfg.kind === 'shmc') : this.order.find((r) => r.cfg.ipmbAddress === address);
    if (!rt) return undefined;
    const s = rt.cfg.sensors.find((x) => x.number === number);
    if (s) return s.name;
    const e = eventSensors(rt.cfg).find((x) => x.number === number);
    return e && eventSensorName(logical ? this.config.shelfManager.label : rt.cfg.label, e);
  }

  /**
   * Logs a system event (any sensor type): HA watchdog events, Platform Event Message (04h/02h) from
   * IPMI. @returns the record, or undefined when the SEL is full (overflow flag set).
   * @throws CommandError('bad_value') on out-of-range fields
   */
  logEvent(ev: SelEventInput): SelRecord | undefined {
    let r: SelAddResult[];
    try {
      r = this.commit([], [ev], []);
    } catch (e) {
      if (e instanceof RangeError) throw new CommandError('bad_value', e.message);
      throw e;
    }
    const x = r[0]!;
    return x.logged ? x.record : undefined;
  }

  /**
   * Add SEL Entry (§31.6): logs a complete record (its ID is replaced; a system event's timestamp
   * is set to the SEL time). @throws CommandError('sel_full' | 'bad_value')
   */
  addSelEntry(record: SelRecord): SelRecord {
    const before = this.sel.state();
    let r: SelAddResult;
    try {
      r = this.sel.addRecord(record, this.selTime());
    } catch (e) {
      throw new CommandError('bad_value', (e as Error).message);
    }
    try {
      if (r.logged) this.store.appendSel(r.record.recordId, r.bytes, this.selMeta());
      else this.store.putSelMeta(this.selMeta());
    } catch (e) {
      this.sel = new SelRepository(this.config.selCapacity, before);
      throw e;
    }
    if (!r.logged) {
      this.emit({ type: 'sel.full', at: this.now(), selTime: this.selTime() });
      throw new CommandError('sel_full', 'the SEL is full (overflow flag set)');
    }
    this.emit({ type: 'sel.added', at: this.now(), selTime: this.selTime(), record: r.record });
    return r.record;
  }

  /**
   * Delete SEL Entry (§31.8). @param reservation the current SEL reservation (required)
   * @throws CommandError('reservation_invalid' | 'not_found')
   */
  deleteSel(id: number, reservation: number): number {
    const before = this.sel.state();
    const r = this.sel.delete(id, reservation);
    if (!r.ok) throw new CommandError(r.reason, r.reason === 'not_found' ? `no SEL record ${id}` : 'SEL reservation is not current');
    try {
      this.store.deleteSel(r.recordId, this.selMeta());
    } catch (e) {
      this.sel = new SelRepository(this.config.selCapacity, before);
      throw e;
    }
    this.emit({ type: 'sel.deleted', at: this.now(), recordId: r.recordId });
    return r.recordId;
  }

  /**
   * Clear SEL (§31.9). IPMI callers pass their reservation; local callers (TUI, CLI) may omit it.
   * @throws CommandError('reservation_invalid')
   */
  clearSel(reservation?: number): void {
    if (reservation !== undefined && !this.sel.reservationValid(reservation)) throw new CommandError('reservation_invalid', 'SEL reservation is not current');
    const before = this.sel.state();
    this.sel.clear(this.selTime());
    try {
      this.store.clearSel(this.selMeta());
    } catch (e) {
      this.sel = new SelRepository(this.config.selCapacity, before);
      throw e;
    }
    this.emit({ type: 'sel.cleared', at: this.now(), selTime: this.selTime() });
  }

  // ------------------------------------------------------------------ SDR

  private rebuildSdr(): void {
    const recs: SdrRecord[] = [];
    const shmcs = this.order.filter((r) => r.cfg.kind === 'shmc');
    const tmpl = shmcs.find((r) => r.cfg.name === this.activeShmc()) ?? shmcs[0];
    if (tmpl) recs.push(...controllerRecords(tmpl.cfg, this.shelfManagerAddress, this.config.shelfManager.label, true));
    // then every installed controller at its own IPMB address — the ShMCs too (10h/12h): the standby
    // ShMC's own SEL records name their sensors there, as PICMG 3.0 shelf managers list both
    for (const rt of this.order) {
      if (rt.hs.context.state === 0) continue;
      recs.push(...controllerRecords(rt.cfg, rt.cfg.ipmbAddress, rt.cfg.label, false));
    }
    this.sdr.replace(recs, this.selTime());
  }

  /** Get SDR Repository Info (§33.9). */
  sdrInfo(): SdrInfo {
    return this.sdr.info();
  }

  /** Reserve SDR Repository (§33.11). */
  reserveSdr(): number {
    return this.sdr.reserve();
  }

  /**
   * Get SDR (§33.12): `count` bytes (FFh = all) of record `id` (0 = first) from `offset`.
   * @throws CommandError('not_found' | 'reservation_invalid' | 'offset_out_of_range')
   */
  sdrGet(id: number, offset: number, count: number, reservation: number): { next: number; data: Uint8Array } {
    const r = this.sdr.get(id, offset, count, reservation);
    if (!r.ok) throw new CommandError(r.reason satisfies SdrRefusal, `Get SDR ${id}: ${r.reason.replace(/_/g, ' ')}`);
    return { next: r.next, data: r.data };
  }

  /** The SDR records (decoded) in ID order. */
  sdrRecords(): SdrRecord[] {
    return this.sdr.list();
  }

  // ------------------------------------------------------------------ FRU inventory data

  /** Get FRU Inventory Area Info (§34.1): size in bytes, accessed by bytes. */
  fruInventoryInfo(ref: FruRef): { size: number; byWords: false } {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    return { size: rt.fru.size, byWords: false };
  }

  /** Read FRU Data (§34.2). @throws CommandError('out_of_range' | 'not_present') */
  readFru(ref: FruRef, offset: number, count: number): Uint8Array {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const r = rt.fru.read(offset, count);
    if (!r.ok) throw new CommandError('out_of_range', `FRU offset ${offset} out of range (size ${rt.fru.size})`);
    return r.data;
  }

  /**
   * Write FRU Data (§34.3): stored as written (a write that breaks a checksum is kept, as an EEPROM
   * would) and persisted before returning. @returns bytes written
   * @throws CommandError('out_of_range' | 'not_present')
   */
  writeFru(ref: FruRef, offset: number, bytes: Uint8Array): number {
    const rt = this.rt(ref);
    this.requirePresent(rt);
    const before = rt.fru.bytes();
    const r = rt.fru.write(offset, bytes);
    if (!r.ok) throw new CommandError('out_of_range', `write of ${bytes.length} bytes at ${offset} runs past the FRU device (${rt.fru.size} bytes)`);
    const baseline = fingerprint(encodeFruInventory(rt.cfg.inventory));
    try {
      this.store.putFruData(rt.cfg.name, { bytes: rt.fru.bytes(), baseline });
    } catch (e) {
      rt.fru.write(0, before);
      throw e;
    }
    this.emit({ type: 'fru.data', at: this.now(), fru: rt.cfg.name, offset, length: r.written });
    return r.written;
  }

  /** Decoded FRU inventory of a FRU. @throws CommandError('bad_fru_data') when its image does not decode */
  fruInventory(ref: FruRef): FruInventory {
    const r = this.rt(ref).fru.inventory();
    if (!r.ok) throw new CommandError('bad_fru_data', r.error.message);
    return r.inventory;
  }

  // ------------------------------------------------------------------ chassis

  /** Get Chassis Status (IPMI v2.0 §28.2). */
  chassisStatus(): ChassisStatus {
    const pems = this.order.filter((r) => r.cfg.kind === 'pem');
    const fans = this.order.filter((r) => r.cfg.kind === 'fan');
    return {
      powerOn: this.powerOn,
      powerOverload: this.powerUsedW() > this.powerBudgetW(),
      interlock: false,
      powerFault: pems.some((r) => r.faults.size > 0 || r.hs.context.state !== 4),
      powerControlFault: false,
      restorePolicy: 'previous',
      lastPowerByCommand: this.lastPowerByCommand,
      identify: this.identifyState,
      fanFault: fans.some(
        (r) => r.faults.size > 0 || r.hs.context.state !== 4 || [...r.thresholds.values()].some((s) => s.assertedThresholds.has('lc') || s.assertedThresholds.has('lnr')),
      ),
    };
  }

  /**
   * Chassis Control (IPMI v2.0 §28.3) on the shelf: `off` deactivates every board (M4 → M6 → M1),
   * `on` activates the boards the power-off deactivated, `cycle` = off, then on after
   * `shelf.power_cycle_interval`, `reset`/`soft` restart every active board's payload, `diag`
   * sends a diagnostic interrupt. ShMCs, fan trays and PEMs stay up (management power).
   */
  chassisControl(action: ChassisPowerAction): void {
    const at = this.now();
    this.lastPowerByCommand = true;
    const boards = this.order.filter((r) => BOARD_KINDS.has(r.cfg.kind));
    if (action === 'off' || action === 'cycle') {
      if (this.cycleTimer !== undefined) this.clock.clearTimeout(this.cycleTimer);
      this.cycleTimer = undefined;
      this.setPower(false);
      for (const rt of boards) {
        const s = rt.hs.context.state;
        if (s >= 2 && s <= 5) {
          rt.chassisOff = true;
          this.dispatch(rt, 'shm.deactivate');
        }
      }
      this.emit({ type: 'chassis.power', at, on: false, action });
      if (action === 'cycle') {
        this.cycleTimer = this.clock.setTimeout(() => {
          this.cycleTimer = undefined;
          this.powerUp('cycle');
        }, this.config.powerCycleIntervalMs);
      }
    } else if (action === 'on') {
      this.powerUp('on');
    } else if (action === 'reset' || action === 'soft') {
      this.restartCauseCode = 0x01;
      for (const rt of boards) if (rt.hs.context.state === 4) this.restartPayload(rt);
      this.emit({ type: 'chassis.power', at, on: this.powerOn, action });
    } else {
      for (const rt of boards) if (rt.hs.context.state === 4) this.emit({ type: 'fru.control', at, fru: rt.cfg.name, option: 'diagnostic-interrupt' });
      this.emit({ type: 'chassis.power', at, on: this.powerOn, action });
    }
  }

  private powerUp(action: ChassisPowerAction): void {
    this.setPower(true);
    this.restartCauseCode = 0x01;
    for (const rt of this.order) {
      if (!rt.chassisOff) continue;
      rt.chassisOff = false;
      const c = rt.hs.context;
      if (c.state === 1 && rt.faults.size === 0 && c.handleClosed) rt.hs.dispatch('shm.activate');
      else {
        // still deactivating from the power-off (M5/M6, e.g. an HA handover in progress): activate once in M1
        if (c.state === 5 || c.state === 6) rt.reactivateOnM1 = true;
        this.safePersist(() => this.store.putFruState(this.record(rt)));
      }
    }
    this.emit({ type: 'chassis.power', at: this.now(), on: true, action });
  }

  private setPower(on: boolean): void {
    if (on === this.powerOn) return;
    this.accruePoh();
    this.powerOn = on;
    this.pohOnSince = on ? this.now() : undefined;
    this.store.putMeta('chassis_power', on ? 'on' : 'off');
  }

  /**
   * Chassis Identify (§28.5): `seconds` 0 turns it off, 'force' lights it until turned off;
   * default 15 s.
   */
  chassisIdentify(seconds: number | 'force' = 15): void {
    if (this.identifyTimer !== undefined) this.clock.clearTimeout(this.identifyTimer);
    this.identifyTimer = undefined;
    if (seconds === 'force') {
      this.identifyState = 'indefinite';
    } else if (seconds <= 0) {
      this.identifyState = 'off';
    } else {
      this.identifyState = 'timed';
      this.identifyTimer = this.clock.setTimeout(() => {
        this.identifyTimer = undefined;
        this.identifyState = 'off';
        this.emit({ type: 'chassis.identify', at: this.now(), active: false, seconds: 0 });
      }, seconds * 1000);
    }
    this.emit({ type: 'chassis.identify', at: this.now(), active: this.identifyState !== 'off', seconds: seconds === 'force' ? 'indefinite' : Math.max(0, seconds) });
  }

  /** Get System Restart Cause (§28.11): 07h after an emulator start (power restored, "restore
   * previous" policy), 01h after a Chassis Control command. */
  restartCause(): number {
    return this.restartCauseCode;
  }

  /** Get POH Counter (§28.14): minutes per count (1) and powered-on minutes, persisted. */
  poh(): { minutesPerCount: number; count: number } {
    const extra = this.pohOnSince !== undefined ? (this.now() - this.pohOnSince) / 60000 : 0;
    return { minutesPerCount: 1, count: Math.floor(this.pohBaseMinutes + extra) >>> 0 };
  }

  private accruePoh(): void {
    if (this.pohOnSince === undefined) return;
    const now = this.now();
    this.pohBaseMinutes += (now - this.pohOnSince) / 60000;
    this.pohOnSince = now;
    try {
      this.store.putMeta('poh_minutes', String(this.pohBaseMinutes));
    } catch (e) {
      this.log.warn({ category: 'store', err: String(e) }, 'POH counter not persisted');
    }
  }

  private schedulePoh(): void {
    if (this.closed) return;
    this.pohTimer = this.clock.setTimeout(() => {
      this.accruePoh();
      this.schedulePoh();
    }, 60_000);
  }

  // ------------------------------------------------------------------ HA roles

  /**
   * The HA layer reports a node's role (display and audit only: never restored as authority).
   * Persisted with its epoch, logged as a SEL record (sensor type 28h Management Subsystem Health
   * for ShMCs, 15h Module/Board for boards; availability offsets: active = "Transition to On Line",
   * standby = "Off Duty", booting/arbitrating = "In Test", resetting = "Power Off", failed =
   * "Off Line"; data 2 = role index, data 3 = epoch mod 256). When the active ShMC changes, the
   * shelf-manager address follows it.
   * @param opts.share the processor share the role is for (e.g. 'lb1/slot3'); default the node itself
   * @throws CommandError('unknown_fru' | 'bad_value')
   */
  setRole(node: FruRef, role: HaRoleName, epoch: number, opts: { share?: string } = {}): void {
    const rt = this.rt(node);
    if (!(HA_ROLES as readonly string[]).includes(role)) throw new CommandError('bad_value', `"${role}" is not a role (${HA_ROLES.join(', ')})`);
    if (!Number.isInteger(epoch) || epoch < 0) throw new CommandError('bad_value', `epoch ${epoch} must be a non-negative integer`);
    const key = opts.share ?? rt.cfg.name;
    const previous = rt.roles.get(key);
    if (previous && previous.role === role && previous.epoch === epoch) return;
    const wasActive = this.activeShmc();
    rt.roles.set(key, { role, epoch });
    const rec: HaRoleRecord = { key, node: rt.cfg.name, role, epoch, at: this.selTime() };
    // the controller's HA role sensor (chassis/sensors/event-sensors.ts); a FRU kind HA pairs are not
    // made of has none, and its role records carry the reserved number FFh
    const roleSensor = eventSensor(rt.cfg, 'ha-role');
    const sel: SelEventInput = {
      generatorId: this.generatorFor(rt),
      sensorType: roleSensor?.sensorType ?? (rt.cfg.kind === 'shmc' ? SENSOR_TYPE.managementSubsystemHealth : SENSOR_TYPE.moduleBoard),
      sensorNumber: roleSensor?.number ?? 0xff,
      eventDirType: READING_TYPE.availability,
      eventData: [0xa0 | ROLE_OFFSET[role], HA_ROLES.indexOf(role), epoch & 0xff],
    };
    try {
      this.commit([], [sel], [{ type: 'role', at: this.now(), node: rt.cfg.name, key, role, ...(previous ? { previous: previous.role } : {}), epoch }], () =>
        this.store.putRole(rec),
      );
    } catch (e) {
      if (previous) rt.roles.set(key, previous);
      else rt.roles.delete(key);
      throw e;
    }
    if (rt.cfg.kind === 'shmc' && wasActive !== this.activeShmc()) {
      this.rebuildSdr();
      this.pokeAll();
    }
  }

  /** Current roles of a node (key → role, epoch). */
  roles(node: FruRef): Array<{ key: string; role: HaRoleName; epoch: number }> {
    return [...this.rt(node).roles].map(([key, v]) => ({ key, ...v }));
  }

  // ------------------------------------------------------------------ snapshot

  /** A readonly, versioned picture of the shelf (cached until the next event). */
  snapshot(): ChassisSnapshot {
    if (this.cached && this.cached.at === this.now()) return this.cached;
    const frus: FruSnapshot[] = this.order.map((rt) => this.fruSnapshot(rt));
    const recent = this.sel.list().slice(-50).map((r) => ({ recordId: r.recordId, timestamp: r.timestamp ?? 0, text: this.describeSel(r) }));
    const info = this.sel.info();
    const activeShmc = this.activeShmc();
    const snap: ChassisSnapshot = {
      version: SNAPSHOT_VERSION,
      seq: this.seq,
      at: this.now(),
      selTime: this.selTime(),
      shelf: {
        name: this.config.name,
        slotCount: this.config.slotCount,
        shelfManagerAddress: this.shelfManagerAddress,
        ...(activeShmc ? { activeShmc } : {}),
        powerOn: this.powerOn,
        identify: this.identifyState,
        restartCause: this.restartCauseCode,
        pohMinutes: this.poh().count,
        powerBudgetW: Number.isFinite(this.powerBudgetW()) ? this.powerBudgetW() : 0,
        powerUsedW: this.powerUsedW(),
        sessionsLost: this.sessionsLostTotal,
      },
      slots: slotsOf(this.config).map((s) => ({ logical: s.logical, physical: s.physical, role: s.role, ...(s.occupant ? { occupant: s.occupant } : {}) })),
      frus,
      sel: { entries: info.entries, capacity: info.capacity, overflow: info.overflow, recent },
    };
    this.cached = deepFreeze(snap);
    return this.cached;
  }

  private fruSnapshot(rt: FruRuntime): FruSnapshot {
    this.expireLampTests(rt);
    const c = rt.hs.context;
    const inv = rt.fru.inventory();
    const sensors: SensorSnapshot[] = this.sensors(rt.cfg.name).map((v) => {
      const s: SensorSnapshot = { name: v.name, number: v.number, kind: v.kind, value: v.value, unit: v.unit, status: v.status };
      if (v.kind === 'threshold') return { ...s, thresholds: v.thresholds!, asserted: v.asserted! };
      return s;
    });
    const snap: FruSnapshot = {
      name: rt.cfg.name,
      kind: rt.cfg.kind,
      label: rt.cfg.label,
      ...(rt.cfg.slot !== undefined ? { slot: rt.cfg.slot, physicalSlot: rt.cfg.physicalSlot! } : {}),
      siteType: rt.cfg.siteType,
      siteNumber: rt.cfg.siteNumber,
      hardwareAddress: rt.cfg.hardwareAddress,
      ipmbAddress: rt.cfg.ipmbAddress,
      present: c.state !== 0,
      state: c.state,
      stateLabel: mLabel(c.state),
      previous: c.previous,
      lastCause: c.lastCause,
      transitioning: rt.hs.busy,
      handleClosed: c.handleClosed,
      activationLocked: c.activationLocked,
      deactivationLocked: c.deactivationLocked,
      faults: [...rt.faults],
      inService: rt.inService,
      sessionsLost: rt.sessionsLost,
      powerLevel: rt.powerLevel,
      powerW: drawAt(rt.cfg.power, rt.powerLevel),
      roles: [...rt.roles].map(([key, v]) => ({ key, role: v.role, epoch: v.epoch })),
      leds: STANDARD_LEDS.map((d) => {
        const local = localLedFunction(d.id, this.ledInputs(rt));
        const o = rt.ledOverrides.get(d.id);
        return { id: d.id, name: d.name, color: o?.color ?? d.defaultLocalColor, fn: o?.fn ?? local, override: !!o };
      }),
      sensors,
      inventory: inv.ok ? inv.inventory : { error: inv.error.message },
      ...(rt.cfg.console ? { console: rt.cfg.console } : {}),
      ...(rt.fanLevel !== undefined ? { fanLevel: rt.fanLevel } : {}),
    };
    return snap;
  }

  // ------------------------------------------------------------------ shutdown

  /** Stops every timer and persists the POH counter. The store stays open (its owner closes it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const rt of this.order) rt.hs.stop();
    for (const t of [this.identifyTimer, this.cycleTimer, this.pohTimer, ...this.resetTimers.values()]) if (t !== undefined) this.clock.clearTimeout(t);
    this.resetTimers.clear();
    this.accruePoh();
  }
}

const CAUSES: Record<HotSwapCause, true> = {
  normal: true,
  shelfManager: true,
  handle: true,
  programmatic: true,
  communication: true,
  communicationLocal: true,
  surpriseExtraction: true,
  providedInformation: true,
  invalidHardwareAddress: true,
  unexpectedDeactivation: true,
  unknown: true,
};

function clampState(n: number): MState {
  return (Number.isInteger(n) && n >= 0 && n <= 7 ? n : 1) as MState;
}

function present(rt: FruRuntime): boolean {
  const s = rt.hs.context.state;
  return s !== 0 && s !== 7;
}

function statusOf(s: ThresholdSensor): SensorStatus {
  const a = s.assertedThresholds;
  if (a.has('unr') || a.has('lnr')) return 'nr';
  if (a.has('uc') || a.has('lc')) return 'cr';
  if (a.has('unc') || a.has('lnc')) return 'nc';
  return 'ok';
}
