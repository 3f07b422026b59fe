/**
 * The `sensors:` list of a controller in the shelf YAML (shelf_managers, boards, fan trays, PEMs) →
 * SensorConfig[]: sensor numbers (explicit or the next free one), shelf-unique names, units,
 * thresholds, hysteresis and the linearisation (given, or picked to fit the values), and the one
 * Hot Swap sensor every controller has (added when the list names none).
 *
 * Sources: IPMI v2.0 §43 (sensor ID strings ≤ 16 bytes, linearisation ranges), §35.8 (the order of
 * thresholds, as Set Sensor Thresholds checks it).
 */
import { representable, type Linearization } from '../sensors/linearization.ts';
import { SDR_ID_MAX } from '../sensors/sdr.ts';
import { SENSOR_KINDS, UNIT_CODES, isSensorKind, isUnitName, type SensorKindName } from '../sensors/sensor-types.ts';
import { thresholdOrderProblem, type ThresholdName, type ThresholdValues } from '../sensors/thresholds.ts';
import type { SensorConfig, ThresholdSensorConfig } from './types.ts';
import type { MapReader, Value, YamlSource } from './yaml-reader.ts';

const THRESHOLD_KEYS: readonly ThresholdName[] = ['lnr', 'lc', 'lnc', 'unc', 'uc', 'unr'];

/** What reading sensors needs from the whole file. */
export interface SensorContext {
  src: YamlSource;
  /** Sensor name → where it was defined (names are unique in the shelf, except the ShMC template). */
  sensorNames: Map<string, string>;
}

/** Picks a linearisation for an analog reading: the finest resolution m·10^r (m ∈ {1, 2, 5})
 * whose 8-bit range covers 1.25 × the largest configured value. */
function autoScale(maxValue: number): Linearization {
  const need = Math.max(1e-9, maxValue * 1.25);
  for (let r = -3; r <= 3; r++) {
    for (const m of [1, 2, 5]) {
      if (255 * m * 10 ** r >= need) return { m, b: 0, bExp: 0, rExp: r };
    }
  }
  return { m: 1, b: 0, bExp: 0, rExp: 4 };
}

/**
 * Reads one controller's sensor list.
 * @param v the `sensors` value (absent: only the default Hot Swap sensor)
 * @param label the controller's label (the default Hot Swap sensor is named "<label> HotSwap")
 * @param shared true for the ShMC template, read once and shared by both shelf managers
 * @throws ConfigError at the offending key (duplicate number or name, unknown type or unit, values
 *   outside the 8-bit range, thresholds out of order, a second Hot Swap sensor)
 */
export function readSensors(v: Value | undefined, label: string, ctx: SensorContext, shared: boolean): SensorConfig[] {
  const out: SensorConfig[] = [];
  const used = new Set<number>();
  const pending: Array<{ m: MapReader; explicit?: number }> = [];
  const items = v ? v.list() : [];
  for (const item of items) {
    const m = item.map();
    const explicit = m.opt('number')?.int({ min: 1, max: 254 });
    if (explicit !== undefined) {
      if (used.has(explicit)) m.req('number').fail(`sensor number ${explicit} is used twice in this controller`);
      used.add(explicit);
    }
    pending.push({ m, explicit });
  }
  let next = 1;
  const nextFree = () => {
    while (used.has(next)) next++;
    used.add(next);
    return next;
  };
  let hotswaps = 0;
  for (const { m, explicit } of pending) {
    const nameV = m.req('name');
    const name = nameV.str({ min: 1, max: SDR_ID_MAX });
    if ([...name].some((c) => c.charCodeAt(0) > 0xff)) nameV.fail('sensor names are Latin-1 text');
    const where = ctx.sensorNames.get(name);
    if (where && !(shared && where === 'shmc')) nameV.fail(`sensor name "${name}" is already used (${where}); names are unique in the shelf`);
    ctx.sensorNames.set(name, shared ? 'shmc' : `${label}`);
    const typeV: Value = m.req('type');
    const type = typeV.str();
    if (!isSensorKind(type)) typeV.fail(`"${type}" is not a sensor type (one of ${Object.keys(SENSOR_KINDS).join(', ')})`);
    const number = explicit ?? nextFree();
    if (type === 'hotswap') {
      hotswaps++;
      if (hotswaps > 1) typeV.fail('a controller has exactly one Hot Swap sensor');
      out.push({ kind: 'hotswap', name, number, sensorType: 0xf0 });
      m.done(['name', 'type', 'number']);
      continue;
    }
    out.push(readThresholdSensor(m, type, name, number));
  }
  if (hotswaps === 0) {
    const name = `${label} HotSwap`;
    if (name.length > SDR_ID_MAX) {
      (v ?? ctx.src.root()).fail(`add a sensor of type hotswap: the default name "${name}" is longer than ${SDR_ID_MAX} characters`);
    }
    if (!(shared && ctx.sensorNames.get(name) === 'shmc') && ctx.sensorNames.has(name)) {
      (v ?? ctx.src.root()).fail(`the default Hot Swap sensor name "${name}" is already used`);
    }
    ctx.sensorNames.set(name, shared ? 'shmc' : label);
    out.push({ kind: 'hotswap', name, number: nextFree(), sensorType: 0xf0 });
  }
  return out;
}

/** One analog sensor's entry (name, type and number already read). */
function readThresholdSensor(m: MapReader, type: Exclude<SensorKindName, 'hotswap'>, name: string, number: number): ThresholdSensorConfig {
  const kind = SENSOR_KINDS[type];
  const unitV: Value | undefined = m.opt('unit');
  const unit = unitV ? unitV.str() : kind.unit;
  if (!isUnitName(unit)) return unitV!.fail(`"${unit}" is not a unit (one of ${Object.keys(UNIT_CODES).join(', ')})`);
  const nominalV = m.req('nominal');
  const nominal = nominalV.num();
  const thresholds: ThresholdValues = {};
  const tV = m.opt('thresholds');
  const tNodes: Partial<Record<ThresholdName, Value>> = {};
  if (tV) {
    const tm = tV.map();
    for (const k of THRESHOLD_KEYS) {
      const x = tm.opt(k);
      if (x) {
        thresholds[k] = x.num();
        tNodes[k] = x;
      }
    }
    tm.done(THRESHOLD_KEYS);
  }
  let hysteresis = { positive: 0, negative: 0 };
  const hV = m.opt('hysteresis');
  if (hV) {
    if (hV.isMap) {
      const hm = hV.map();
      hysteresis = { positive: hm.opt('positive')?.num({ min: 0 }) ?? 0, negative: hm.opt('negative')?.num({ min: 0 }) ?? 0 };
      hm.done(['positive', 'negative']);
    } else {
      const h = hV.num({ min: 0 });
      hysteresis = { positive: h, negative: h };
    }
  }
  const linearization = readScale(m.opt('scale'), type, nominal, thresholds);
  if (!representable(nominal, linearization)) nominalV.fail(`${nominal} is outside the sensor's 8-bit range with this scale`);
  for (const k of THRESHOLD_KEYS) {
    const t = thresholds[k];
    if (t !== undefined && !representable(t, linearization)) tNodes[k]!.fail(`${t} is outside the sensor's 8-bit range with this scale`);
  }
  // the same rule as Set Sensor Thresholds: lnr ≤ lc ≤ lnc ≤ unc ≤ uc ≤ unr in raw-reading order
  const disorder = thresholdOrderProblem(thresholds, linearization);
  if (disorder) tNodes[disorder.threshold]!.fail(disorder.message);
  m.done(['name', 'type', 'number', 'unit', 'nominal', 'thresholds', 'hysteresis', 'scale']);
  return { kind: 'threshold', name, number, type, sensorType: kind.sensorType, unitCode: UNIT_CODES[unit], unit, linearization, thresholds, hysteresis, nominal };
}

/** The `scale` key (M, B, Bexp, Rexp), or the default: whole degrees for temperatures, else autoScale. */
function readScale(sV: Value | undefined, type: Exclude<SensorKindName, 'hotswap'>, nominal: number, thresholds: ThresholdValues): Linearization {
  if (sV) {
    const sm = sV.map();
    const linearization = {
      m: sm.opt('m')?.int({ min: -512, max: 511 }) ?? 1,
      b: sm.opt('b')?.int({ min: -512, max: 511 }) ?? 0,
      bExp: sm.opt('b_exp')?.int({ min: -8, max: 7 }) ?? 0,
      rExp: sm.opt('r_exp')?.int({ min: -8, max: 7 }) ?? 0,
    };
    if (linearization.m === 0) sm.req('m').fail('M must not be 0');
    sm.done(['m', 'b', 'b_exp', 'r_exp']);
    return linearization;
  }
  if (type === 'temperature') return { m: 1, b: 0, bExp: 0, rExp: 0 };
  return autoScale(Math.max(Math.abs(nominal), ...Object.values(thresholds).map((x) => Math.abs(x!))));
}
