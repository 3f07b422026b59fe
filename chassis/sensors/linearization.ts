/**
 * Linear conversion between raw 8-bit readings and engineering units (IPMI v2.0 §36.3:
 * y = (M·x + B·10^Bexp)·10^Rexp), as the SDR describes an analog sensor. Shared by the threshold
 * sensors, the SDR builder, the shelf YAML loader and the IPMI sensor commands.
 * Pure: no I/O.
 */

/** Linear conversion factors of an analog sensor (IPMI v2.0 §36.3). M is 10-bit signed, B 10-bit
 * signed, Bexp and Rexp 4-bit signed. */
export interface Linearization {
  m: number;
  b: number;
  bExp: number;
  rExp: number;
}

/** Converts a raw reading to engineering units. */
export function rawToValue(raw: number, l: Linearization): number {
  const v = (l.m * raw + l.b * 10 ** l.bExp) * 10 ** l.rExp;
  // Round away binary noise (e.g. 0.1 * 3 = 0.30000000000000004) to 10 significant digits.
  return Number(v.toPrecision(10));
}

/** Converts an engineering value to the nearest raw reading, clamped to 0..255. */
export function valueToRaw(value: number, l: Linearization): number {
  const x = Math.round((value / 10 ** l.rExp - l.b * 10 ** l.bExp) / l.m);
  return Math.max(0, Math.min(255, x));
}

/** Converts a hysteresis amount (engineering units, ≥ 0) to raw counts (0..255). */
export function hysteresisToRaw(amount: number, l: Linearization): number {
  return Math.max(0, Math.min(255, Math.round(amount / (Math.abs(l.m) * 10 ** l.rExp))));
}

/** True when `value` survives the value → raw → value round trip within half a count. */
export function representable(value: number, l: Linearization): boolean {
  const x = (value / 10 ** l.rExp - l.b * 10 ** l.bExp) / l.m;
  return x >= -0.5 && x <= 255.5;
}
