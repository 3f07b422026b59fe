/**
 * Builds the ChassisSnapshot (../snapshot.ts): a readonly, versioned, deeply frozen picture of the
 * shelf and every FRU for the TUI, the headless stats line and tests, cached until the next event
 * (or the next Clock tick).
 */
import { slotsOf } from '../../config/slots.ts';
import { mLabel } from '../hot-swap.ts';
import { drawAt } from '../power.ts';
import { deepFreeze, SNAPSHOT_VERSION, type ChassisSnapshot, type FruSnapshot, type SensorSnapshot } from '../snapshot.ts';
import type { ShelfChassis } from './chassis.ts';
import type { ShelfContext } from './context.ts';
import type { FruRuntime } from './frus.ts';
import type { ShelfLeds } from './leds.ts';
import type { ShelfPayload } from './payload.ts';
import type { ShelfPower } from './power.ts';
import type { ShelfSel } from './sel.ts';
import type { ShelfSensors } from './sensors.ts';

/** The parts a snapshot reads. */
export interface SnapshotParts {
  sel: ShelfSel;
  power: ShelfPower;
  chassis: ShelfChassis;
  leds: ShelfLeds;
  sensors: ShelfSensors;
  payload: ShelfPayload;
}

/** The shelf's snapshots, one built per event (seq) and Clock time. */
export class ShelfSnapshots {
  private cached: ChassisSnapshot | undefined;

  constructor(
    private readonly ctx: ShelfContext,
    private readonly parts: SnapshotParts,
  ) {}

  /** A readonly, versioned picture of the shelf (cached until the next event). */
  snapshot(): ChassisSnapshot {
    const { clock, config, events, frus } = this.ctx;
    const { sel, power, chassis, payload } = this.parts;
    const now = clock.now();
    if (this.cached && this.cached.at === now && this.cached.seq === events.seq) return this.cached;
    const list: FruSnapshot[] = frus.all.map((rt) => this.fru(rt));
    const recent = sel.records().slice(-50).map((r) => ({ recordId: r.recordId, timestamp: r.timestamp ?? 0, text: sel.describe(r) }));
    const info = sel.info();
    const activeShmc = frus.activeShmc();
    const snap: ChassisSnapshot = {
      version: SNAPSHOT_VERSION,
      seq: events.seq,
      at: now,
      selTime: sel.time(),
      shelf: {
        name: config.name,
        slotCount: config.slotCount,
        shelfManagerAddress: frus.shelfManagerAddress,
        ...(activeShmc ? { activeShmc } : {}),
        powerOn: chassis.powerOn,
        identify: chassis.identifyState,
        restartCause: chassis.restartCause(),
        pohMinutes: chassis.poh().count,
        powerBudgetW: Number.isFinite(power.budgetW()) ? power.budgetW() : 0,
        powerUsedW: power.usedW(),
        sessionsLost: payload.sessionsLost,
      },
      slots: slotsOf(config).map((s) => ({ logical: s.logical, physical: s.physical, role: s.role, ...(s.occupant ? { occupant: s.occupant } : {}) })),
      frus: list,
      sel: { entries: info.entries, capacity: info.capacity, overflow: info.overflow, recent },
    };
    this.cached = deepFreeze(snap);
    return this.cached;
  }

  private fru(rt: FruRuntime): FruSnapshot {
    const { leds, sensors } = this.parts;
    leds.expireLampTests(rt);
    const c = rt.hs.context;
    const inv = rt.fruData.inventory();
    const sensorList: SensorSnapshot[] = sensors.listOf(rt).map((v) => {
      const s: SensorSnapshot = { name: v.name, number: v.number, kind: v.kind, value: v.value, unit: v.unit, status: v.status };
      if (v.kind === 'threshold') return { ...s, thresholds: v.thresholds!, asserted: v.asserted! };
      return s;
    });
    return {
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
      inService: rt.payload.inService,
      sessionsLost: rt.payload.sessionsLost,
      powerLevel: rt.power.level,
      powerW: drawAt(rt.cfg.power, rt.power.level),
      roles: [...rt.roles].map(([key, v]) => ({ key, role: v.role, epoch: v.epoch })),
      leds: leds.snapshot(rt),
      sensors: sensorList,
      inventory: inv.ok ? inv.inventory : { error: inv.error.message },
      ...(rt.cfg.console ? { console: rt.cfg.console } : {}),
      ...(rt.fan ? { fanLevel: rt.fan.level } : {}),
    };
  }
}
