/**
 * The sensors of the shelf's controllers as IPMI reads them: threshold sensors with injectable
 * readings and settable thresholds (crossings logged as SEL records and announced), and each
 * controller's PICMG Hot Swap sensor, whose reading is the M-state. A controller's sensors are
 * unavailable in M0 and M7; the ShMCs' sensors sit at the shelf-manager address (20h), whose
 * sensors are the active ShMC's.
 *
 * Sources: IPMI v2.0 §35 (sensor commands: Get Sensor Reading, Set/Get Sensor Thresholds), §36
 * (readings, thresholds, hysteresis); PICMG 3.0 §3.2.4 (hot swap: the FRU Hot Swap sensor, type F0h).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { HotSwapSensorConfig, ThresholdSensorConfig } from '../../config/types.ts';
import type { FruRef } from '../../config/slots.ts';
import type { SelEventInput } from '../../sensors/sel.ts';
import { READING_TYPE } from '../../sensors/sensor-types.ts';
import { ThresholdSensor, type ThresholdEvent } from '../../sensors/sensor.ts';
import { THRESHOLD_NAMES, type ThresholdName, type ThresholdValues } from '../../sensors/thresholds.ts';
import type { ChassisEvent } from '../events.ts';
import type { SensorStatus } from '../snapshot.ts';
import type { ShelfContext } from './context.ts';
import type { FruRuntime } from './frus.ts';
import { thresholdBaseline } from './records.ts';
import type { ShelfSel } from './sel.ts';

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

/** Sensor commands (`shelf.sensors`). */
export class ShelfSensors {
  constructor(
    private readonly ctx: ShelfContext,
    private readonly sel: ShelfSel,
  ) {}

  /** Every sensor of a FRU, in number order. */
  list(ref: FruRef): SensorView[] {
    return this.listOf(this.ctx.frus.get(ref));
  }

  /** Every sensor of a FRU's runtime, in number order. */
  listOf(rt: FruRuntime): SensorView[] {
    const all: Array<ThresholdSensor | HotSwapSensorConfig> = [...rt.sensors.thresholds.values(), rt.sensors.hotSwap];
    return all.map((s) => this.view(rt, s)).sort((a, b) => a.number - b.number);
  }

  /** One sensor of a FRU by name or number. @throws CommandError('no_such_sensor') */
  get(ref: FruRef, sensor: string | number): SensorView {
    const rt = this.ctx.frus.get(ref);
    return this.view(rt, this.ref(rt, sensor));
  }

  /** The sensor `number` of the controller at IPMB `address` (20h = the active ShMC), or undefined. */
  at(address: number, number: number): SensorView | undefined {
    const fru = this.ctx.frus.resolveAddress(address);
    if (!fru) return undefined;
    const rt = this.ctx.frus.named(fru)!;
    try {
      return this.view(rt, this.ref(rt, number));
    } catch {
      return undefined;
    }
  }

  /** Finds a sensor by its (shelf-unique) name; ShMC sensor names resolve to the active ShMC. */
  find(name: string): SensorView | undefined {
    const active = this.ctx.frus.activeShmc();
    for (const rt of this.ctx.frus.all) {
      if (rt.cfg.kind === 'shmc' && active && rt.cfg.name !== active) continue;
      for (const s of [...rt.sensors.thresholds.values(), rt.sensors.hotSwap]) {
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
  setValue(ref: FruRef, sensor: string | number, value: number): SensorView {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const s = this.ref(rt, sensor);
    if (!(s instanceof ThresholdSensor)) throw new CommandError('bad_value', `${rt.cfg.name}: the Hot Swap sensor follows the M-state; use the hot-swap commands`);
    if (!Number.isFinite(value)) throw new CommandError('bad_value', `reading ${value} is not a number`);
    const evs = s.setValue(value);
    this.changed(rt, s, evs);
    return this.view(rt, s);
  }

  /**
   * Set Sensor Thresholds (IPMI v2.0 §35.8): keys present are set (null removes a threshold); the
   * change persists across restarts (until the configured thresholds change).
   * @throws CommandError('no_such_sensor' | 'bad_value' (not a threshold sensor, or a value outside its range))
   */
  setThresholds(ref: FruRef, sensor: string | number, t: Partial<Record<ThresholdName, number | null>>): SensorView {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const s = this.ref(rt, sensor);
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
    this.ctx.store.putThresholds({ fru: rt.cfg.name, sensor: s.def.number, values, baseline: thresholdBaseline(cfg) });
    this.ctx.events.emit({ type: 'sensor.thresholds', at: this.ctx.clock.now(), fru: rt.cfg.name, sensor: s.def.name, number: s.def.number });
    this.changed(rt, s, evs);
    return this.view(rt, s);
  }

  /** A reading changed (injected, or derived from the fan level): logs its crossings and announces it. */
  changed(rt: FruRuntime, s: ThresholdSensor, evs: ThresholdEvent[]): void {
    const at = this.ctx.clock.now();
    const events: ChassisEvent[] = [{ type: 'sensor.value', at, fru: rt.cfg.name, sensor: s.def.name, number: s.def.number, value: s.value }];
    for (const e of evs) {
      events.push({ type: 'sensor.threshold', at, fru: rt.cfg.name, sensor: s.def.name, number: s.def.number, threshold: e.threshold, asserted: e.asserted, value: e.value, thresholdValue: e.thresholdValue });
    }
    this.sel.commit([], evs.map((e) => this.thresholdSel(rt, s, e)), events);
  }

  private thresholdSel(rt: FruRuntime, s: ThresholdSensor, ev: ThresholdEvent): SelEventInput {
    return { generatorId: this.ctx.frus.generatorFor(rt), sensorType: s.def.sensorType, sensorNumber: s.def.number, eventDirType: ev.eventDirType, eventData: ev.eventData };
  }

  private ref(rt: FruRuntime, sensor: string | number): ThresholdSensor | HotSwapSensorConfig {
    for (const s of rt.sensors.thresholds.values()) if (s.def.number === sensor || s.def.name === sensor) return s;
    const hs = rt.sensors.hotSwap;
    if (hs.number === sensor || hs.name === sensor) return hs;
    throw new CommandError('no_such_sensor', `${rt.cfg.name} has no sensor ${JSON.stringify(sensor)}`);
  }

  private view(rt: FruRuntime, s: ThresholdSensor | HotSwapSensorConfig): SensorView {
    const state = rt.hs.context.state;
    const available = state !== 0 && state !== 7;
    const owner = this.ctx.frus.owner(rt);
    if (s instanceof ThresholdSensor) {
      const status = available ? statusOf(s) : 'ns';
      return {
        fru: rt.cfg.name,
        owner,
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
      owner,
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
}

function statusOf(s: ThresholdSensor): SensorStatus {
  const a = s.assertedThresholds;
  if (a.has('unr') || a.has('lnr')) return 'nr';
  if (a.has('uc') || a.has('lc')) return 'cr';
  if (a.has('unc') || a.has('lnc')) return 'nc';
  return 'ok';
}
