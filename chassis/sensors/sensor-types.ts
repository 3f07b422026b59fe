/**
 * IPMI code tables the shelf's sensors use: sensor types (IPMI v2.0 Table 42-3, plus PICMG 3.0's
 * F0h FRU Hot Swap), event/reading types (Table 42-1/42-2), unit codes (Table 43-15), entity IDs
 * (Table 43-13 and PICMG 3.0 Table 3-x: A0h front board, F0h ShMC, F2h shelf FRU information).
 */

/** Sensor type names accepted in the shelf YAML, with their IPMI codes and default units. */
export const SENSOR_KINDS = {
  temperature: { sensorType: 0x01, unit: 'degrees C', threshold: true },
  voltage: { sensorType: 0x02, unit: 'Volts', threshold: true },
  current: { sensorType: 0x03, unit: 'Amps', threshold: true },
  fan: { sensorType: 0x04, unit: 'RPM', threshold: true },
  power: { sensorType: 0x08, unit: 'Watts', threshold: true },
  /** PICMG 3.0 FRU Hot Swap sensor (type F0h, reading type 6Fh): reading = bit of the M-state. */
  hotswap: { sensorType: 0xf0, unit: 'unspecified', threshold: false },
} as const;

/** A sensor kind name as written in the shelf YAML (`type:`). */
export type SensorKindName = keyof typeof SENSOR_KINDS;

/** True when `s` names a sensor kind. */
export function isSensorKind(s: string): s is SensorKindName {
  return Object.prototype.hasOwnProperty.call(SENSOR_KINDS, s);
}

/** IPMI sensor unit codes (IPMI v2.0 Table 43-15), by the name ipmitool prints. */
export const UNIT_CODES = {
  unspecified: 0,
  'degrees C': 1,
  'degrees F': 2,
  Volts: 4,
  Amps: 5,
  Watts: 6,
  RPM: 18,
  percent: 0, // percentage is a flag in units 1, base unit unspecified
} as const;

export type UnitName = keyof typeof UNIT_CODES;

/** True when `s` names a unit. */
export function isUnitName(s: string): s is UnitName {
  return Object.prototype.hasOwnProperty.call(UNIT_CODES, s);
}

/** Event/reading type codes (IPMI v2.0 Table 42-1). */
export const READING_TYPE = {
  threshold: 0x01,
  /** Generic "severity" states (Transition to OK … Critical), Table 42-2 type 07h. */
  severity: 0x07,
  /** Generic availability states (Running, In Test, Power Off, On Line, Off Line, Off Duty, …), type 0Ah. */
  availability: 0x0a,
  sensorSpecific: 0x6f,
} as const;

/** Sensor type codes used for events the shelf logs itself (Table 42-3). */
export const SENSOR_TYPE = {
  temperature: 0x01,
  moduleBoard: 0x15,
  watchdog2: 0x23,
  managementSubsystemHealth: 0x28,
  fruHotSwap: 0xf0,
} as const;

/** Entity IDs (IPMI v2.0 Table 43-13; PICMG 3.0 §3.9 for A0h/F0h/F2h). */
export const ENTITY_ID = {
  frontBoard: 0xa0,
  shmc: 0xf0,
  shelfFru: 0xf2,
  /** Cooling unit (fan tray). */
  coolingUnit: 0x1e,
  /** Power module / power entry module. */
  powerModule: 0x0a,
} as const;

/** Device-relative entity instance 0 (b7 of the instance byte clear, 60h + n, IPMI v2.0 §39.1). */
export const ENTITY_INSTANCE_DEVICE_RELATIVE = 0x60;
