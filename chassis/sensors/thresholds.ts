/**
 * The six thresholds of an IPMI threshold sensor (lower/upper non-critical, critical,
 * non-recoverable): their names, their bits in the SDR masks and Get Sensor Reading, the event
 * offsets atcasim generates for them (IPMI v2.0 Table 42-2), and the order rule shared by the shelf
 * YAML loader and Set Sensor Thresholds (§35.8): over the thresholds present (readable/settable),
 * in raw-reading order, lnr ≤ lc ≤ lnc ≤ unc ≤ uc ≤ unr.
 *
 * Why raw order: a BMC compares raw readings with raw thresholds (§35.14: b3 "≥ UNC" … on the 8-bit
 * reading), so the thresholds must be ordered the way the comparison sees them. With a positive M
 * (§36.3, y = (M·x + B·10^Bexp)·10^Rexp) raw and engineering order agree; with a negative M a higher
 * value is a lower raw reading, so the engineering values run the other way.
 * Pure: no I/O.
 */
import type { Linearization } from './linearization.ts';

/** The six thresholds, in the order the SDR stores them (UNR, UC, UNC, LNR, LC, LNC). */
export type ThresholdName = 'lnr' | 'lc' | 'lnc' | 'unc' | 'uc' | 'unr';
export const THRESHOLD_NAMES: readonly ThresholdName[] = ['lnc', 'lc', 'lnr', 'unc', 'uc', 'unr'];

/** Threshold values in engineering units (°C, V, A, RPM, W); an absent key = threshold not used. */
export type ThresholdValues = Partial<Record<ThresholdName, number>>;

/** Bit of each threshold in the SDR readable/settable masks and in Get Sensor Reading byte 3. */
export const THRESHOLD_BIT: Readonly<Record<ThresholdName, number>> = { lnc: 0, lc: 1, lnr: 2, unc: 3, uc: 4, unr: 5 };

/** Event offset (Table 42-2) of each threshold's "going" direction that atcasim generates:
 * lower thresholds going low, upper thresholds going high. */
export const THRESHOLD_EVENT_OFFSET: Readonly<Record<ThresholdName, number>> = {
  lnc: 0x00,
  lc: 0x02,
  lnr: 0x04,
  unc: 0x07,
  uc: 0x09,
  unr: 0x0b,
};

/** The thresholds from the lowest raw reading to the highest. */
export const THRESHOLDS_ASCENDING: readonly ThresholdName[] = ['lnr', 'lc', 'lnc', 'unc', 'uc', 'unr'];

/** A pair of thresholds out of order: `threshold` sits below `neighbour` in raw-reading order. */
export interface ThresholdOrderProblem {
  /** The threshold that is out of place (the higher of the two in the rule). */
  threshold: ThresholdName;
  /** The next lower threshold present, which it must not be below. */
  neighbour: ThresholdName;
  /** e.g. "threshold uc (85) must not be below unc (95)" (engineering values as given). */
  message: string;
}

/** Raw position of an engineering value (the raw reading it converts to, before clamping to 0..255). */
function rawPosition(value: number, l: Linearization): number {
  return Math.round((value / 10 ** l.rExp - l.b * 10 ** l.bExp) / l.m);
}

/**
 * Checks the order of thresholds (engineering units; absent keys = not used).
 * Two thresholds on the same raw reading are in order.
 * @param l the sensor's linearisation (M ≠ 0); decides the raw order
 * @returns the first pair out of order (lowest first), or undefined when the set is in order
 */
export function thresholdOrderProblem(t: ThresholdValues, l: Linearization): ThresholdOrderProblem | undefined {
  const present = THRESHOLDS_ASCENDING.filter((n) => t[n] !== undefined);
  for (let i = 1; i < present.length; i++) {
    const a = present[i - 1]!;
    const b = present[i]!;
    if (rawPosition(t[a]!, l) <= rawPosition(t[b]!, l)) continue;
    const message =
      l.m > 0
        ? `threshold ${b} (${t[b]}) must not be below ${a} (${t[a]})`
        : `threshold ${b} (${t[b]}) must not be above ${a} (${t[a]}): M is negative, so higher values are lower raw readings`;
    return { threshold: b, neighbour: a, message };
  }
  return undefined;
}
