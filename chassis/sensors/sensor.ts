/**
 * Sensors of an IPM controller: threshold sensors with the six IPMI thresholds and hysteresis,
 * and the discrete PICMG Hot Swap sensor.
 *
 * Follows IPMI v2.0 §36 (sensor readings, linearisation y = (M·x + B·10^Bexp)·10^Rexp, §36.3),
 * §36.1/Table 42-2 (threshold event offsets: 00h LNC going low … 0Bh UNR going high), §35.14 (Get
 * Sensor Reading: threshold comparison status, b0 ≤ LNC … b5 ≥ UNR) and §29.7 (event data 1 for
 * threshold events: b7:6 = 01b trigger reading in byte 2, b5:4 = 01b trigger threshold in byte 3).
 * Comparisons happen on raw (8-bit, unsigned) readings, as a BMC does.
 * Conversions are in ./linearization.ts, the thresholds' names, bits and order rule in ./thresholds.ts.
 * Pure: readings are injected with setValue; nothing ticks.
 */

import { hysteresisToRaw, rawToValue, representable, valueToRaw, type Linearization } from './linearization.ts';
import { THRESHOLD_BIT, THRESHOLD_EVENT_OFFSET, THRESHOLD_NAMES, thresholdOrderProblem, type ThresholdName, type ThresholdValues } from './thresholds.ts';

const UPPER: ReadonlySet<ThresholdName> = new Set(['unc', 'uc', 'unr']);

/** Static description of a threshold sensor (from the shelf configuration). */
export interface ThresholdSensorDef {
  /** Sensor number within its controller, 1..254 (FFh reserved). */
  number: number;
  /** ID string, ≤ 16 characters. */
  name: string;
  /** IPMI sensor type code (01h temperature, 02h voltage, …). */
  sensorType: number;
  /** IPMI base unit code (Table 43-15). */
  unitCode: number;
  linearization: Linearization;
  thresholds: ThresholdValues;
  /** Hysteresis in engineering units, applied when deasserting. */
  hysteresis: { positive: number; negative: number };
  /** Initial reading (engineering units). */
  nominal: number;
}

/** One threshold assertion change produced by a new reading or new thresholds. */
export interface ThresholdEvent {
  threshold: ThresholdName;
  /** true = assertion (crossed), false = deassertion (back past threshold ∓ hysteresis). */
  asserted: boolean;
  /** Event offset (Table 42-2). */
  offset: number;
  /** Raw reading and raw threshold, as event data 2 and 3 carry them. */
  rawReading: number;
  rawThreshold: number;
  /** Engineering values for display. */
  value: number;
  thresholdValue: number;
  /** SEL event data bytes 1–3 (§29.7). */
  eventData: [number, number, number];
  /** Event dir/type byte: 01h (threshold) with b7 set on deassertion. */
  eventDirType: number;
}

/**
 * A threshold sensor with injectable readings. Tracks which thresholds are asserted (with
 * hysteresis on the way back) and reports each change as a ThresholdEvent.
 */
export class ThresholdSensor {
  private rawValue: number;
  private thresholdsRaw: Partial<Record<ThresholdName, number>> = {};
  private asserted = new Set<ThresholdName>();
  private thresholdValues: ThresholdValues;

  /** @throws RangeError when a threshold is not representable or the thresholds are out of order
   * (thresholdOrderProblem); M = 0. */
  constructor(readonly def: ThresholdSensorDef) {
    if (def.linearization.m === 0) throw new RangeError(`sensor ${def.name}: M must not be 0`);
    this.thresholdValues = { ...def.thresholds };
    this.rawValue = valueToRaw(def.nominal, def.linearization);
    this.applyThresholds(def.thresholds);
    // Initial state is evaluated silently (no events for the configured starting point).
    this.evaluate();
  }

  /** Current raw reading (0..255). */
  get raw(): number {
    return this.rawValue;
  }

  /** Current reading in engineering units (rounded to the sensor's resolution). */
  get value(): number {
    return rawToValue(this.rawValue, this.def.linearization);
  }

  /** Thresholds in force (engineering units, as rounded to raw counts). */
  get thresholds(): ThresholdValues {
    const out: ThresholdValues = {};
    for (const n of THRESHOLD_NAMES) {
      const r = this.thresholdsRaw[n];
      if (r !== undefined) out[n] = rawToValue(r, this.def.linearization);
    }
    return out;
  }

  /** Raw threshold values in force (absent = not used). */
  get rawThresholds(): Readonly<Partial<Record<ThresholdName, number>>> {
    return this.thresholdsRaw;
  }

  /** Thresholds that are currently asserted. */
  get assertedThresholds(): ReadonlySet<ThresholdName> {
    return this.asserted;
  }

  /** Bitmap of readable (= configured) thresholds (b0 LNC … b5 UNR). */
  get thresholdMask(): number {
    let m = 0;
    for (const n of THRESHOLD_NAMES) if (this.thresholdsRaw[n] !== undefined) m |= 1 << THRESHOLD_BIT[n];
    return m;
  }

  /** Raw hysteresis counts. */
  get rawHysteresis(): { positive: number; negative: number } {
    return {
      positive: hysteresisToRaw(this.def.hysteresis.positive, this.def.linearization),
      negative: hysteresisToRaw(this.def.hysteresis.negative, this.def.linearization),
    };
  }

  /**
   * Get Sensor Reading byte 3 (§35.14): present comparison of the reading with each threshold,
   * b0 ≤ LNC, b1 ≤ LC, b2 ≤ LNR, b3 ≥ UNC, b4 ≥ UC, b5 ≥ UNR.
   */
  comparisonStatus(): number {
    let s = 0;
    for (const n of THRESHOLD_NAMES) {
      const t = this.thresholdsRaw[n];
      if (t === undefined) continue;
      if (UPPER.has(n) ? this.rawValue >= t : this.rawValue <= t) s |= 1 << THRESHOLD_BIT[n];
    }
    return s;
  }

  /** Injects a reading (engineering units; clamped to the raw range) and returns the resulting
   * assertion changes, lowest severity first. */
  setValue(value: number): ThresholdEvent[] {
    if (!Number.isFinite(value)) throw new RangeError(`sensor ${this.def.name}: reading must be a finite number`);
    this.rawValue = valueToRaw(value, this.def.linearization);
    return this.evaluate();
  }

  /** Injects a raw reading (0..255). */
  setRaw(raw: number): ThresholdEvent[] {
    if (!Number.isInteger(raw) || raw < 0 || raw > 255) throw new RangeError(`sensor ${this.def.name}: raw reading ${raw} out of 0..255`);
    this.rawValue = raw;
    return this.evaluate();
  }

  /**
   * Replaces the thresholds (Set Sensor Thresholds, §35.8): keys present in `t` are set (a value of
   * `null` removes that threshold), others are kept. Re-evaluates assertions. Nothing changes when
   * it throws.
   * @throws RangeError when a value is not representable, or when the resulting thresholds (set and
   *   kept) are out of raw-reading order (thresholdOrderProblem).
   */
  setThresholds(t: Partial<Record<ThresholdName, number | null>>): ThresholdEvent[] {
    const next: ThresholdValues = { ...this.thresholdValues };
    for (const n of THRESHOLD_NAMES) {
      if (!(n in t)) continue;
      const v = t[n];
      if (v === null || v === undefined) delete next[n];
      else next[n] = v;
    }
    this.applyThresholds(next);
    this.thresholdValues = next;
    return this.evaluate();
  }

  private applyThresholds(t: ThresholdValues): void {
    const raw: Partial<Record<ThresholdName, number>> = {};
    for (const n of THRESHOLD_NAMES) {
      const v = t[n];
      if (v === undefined) continue;
      if (!Number.isFinite(v) || !representable(v, this.def.linearization)) {
        throw new RangeError(`sensor ${this.def.name}: threshold ${n}=${v} is outside the sensor's range`);
      }
      raw[n] = valueToRaw(v, this.def.linearization);
    }
    const disorder = thresholdOrderProblem(t, this.def.linearization);
    if (disorder) throw new RangeError(`sensor ${this.def.name}: ${disorder.message}`);
    this.thresholdsRaw = raw;
    for (const n of [...this.asserted]) if (raw[n] === undefined) this.asserted.delete(n);
  }

  private evaluate(): ThresholdEvent[] {
    const out: ThresholdEvent[] = [];
    const h = this.rawHysteresis;
    for (const n of THRESHOLD_NAMES) {
      const t = this.thresholdsRaw[n];
      if (t === undefined) continue;
      const upper = UPPER.has(n);
      const on = this.asserted.has(n);
      let change: boolean | undefined;
      if (upper) {
        if (!on && this.rawValue >= t) change = true;
        else if (on && this.rawValue < t - h.negative) change = false;
      } else {
        if (!on && this.rawValue <= t) change = true;
        else if (on && this.rawValue > t + h.positive) change = false;
      }
      if (change === undefined) continue;
      if (change) this.asserted.add(n);
      else this.asserted.delete(n);
      const offset = THRESHOLD_EVENT_OFFSET[n];
      out.push({
        threshold: n,
        asserted: change,
        offset,
        rawReading: this.rawValue,
        rawThreshold: t,
        value: this.value,
        thresholdValue: rawToValue(t, this.def.linearization),
        eventData: [0x50 | offset, this.rawValue, t],
        eventDirType: (change ? 0x00 : 0x80) | 0x01,
      });
    }
    return out;
  }
}
