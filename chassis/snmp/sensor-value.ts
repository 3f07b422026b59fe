/**
 * An IPMI threshold sensor's reading as ENTITY-SENSOR-MIB carries it: entPhySensorValue is an
 * Integer32 in units of 10^−precision (scale units(9)), so the reading y = (M·x + B·10^Bexp)·10^Rexp
 * (IPMI v2.0 §36.3; chassis/sensors/linearization.ts computes y) is exact when the precision is the
 * number of decimals M·x·10^Rexp and B·10^(Bexp+Rexp) can have: max(0, −Rexp, −(Bexp + Rexp)),
 * capped at 9 (RFC 3433 allows −8..9).
 *
 * Sources: RFC 3433 §4 (EntitySensorPrecision, EntitySensorValue: −10^9 … 10^9).
 * Pure: no I/O.
 */
import type { Linearization } from '../sensors/linearization.ts';

/** Largest magnitude of entPhySensorValue (RFC 3433 EntitySensorValue). */
export const SENSOR_VALUE_LIMIT = 1_000_000_000;

/** entPhySensorPrecision for a sensor's linearisation: the decimals its readings can have (0..9). */
export function sensorPrecision(l: Linearization): number {
  return Math.min(9, Math.max(0, -l.rExp, -(l.bExp + l.rExp)));
}

/** entPhySensorValue of engineering value `value` at `precision` decimals (rounded; clamped to ±10^9). */
export function encodeSensorValue(value: number, precision: number): number {
  const v = Math.round(value * 10 ** precision);
  return Math.max(-SENSOR_VALUE_LIMIT, Math.min(SENSOR_VALUE_LIMIT, v));
}

/** The engineering value an entPhySensorValue stands for (the inverse, for tests and displays). */
export function decodeSensorValue(value: number, precision: number): number {
  return value / 10 ** precision;
}
