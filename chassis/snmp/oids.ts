/**
 * The OIDs the shelf's SNMP agent serves and sends, numeric (Debian ships no ENTITY MIB files).
 *
 * Standard objects: the system group (RFC 3418), ENTITY-MIB's entPhysicalTable, entLastChangeTime
 * and entConfigChange (RFC 6933 §3–§4), ENTITY-SENSOR-MIB's entPhySensorTable (RFC 3433 §4).
 * atcasim's own objects sit under a configurable enterprise base (`snmp.enterprise_oid`, default
 * 1.3.6.1.4.1.32473, the documentation PEN of RFC 5612), laid out as docs/snmp.md lists:
 *
 *   BASE.0.1          atcasimFruHotSwapTransition  (notification)
 *   BASE.0.2          atcasimSensorThresholdEvent  (notification)
 *   BASE.1.1.1.C.I    atcasimFruEntry, column C, INDEX entPhysicalIndex I
 *   BASE.1.2.N.0      accessible-for-notify objects of the threshold notification
 *   BASE.2.1          sysObjectID of the agent (atcasimShelfManager)
 *
 * Pure: no I/O.
 */

/** Columns of entPhysicalEntry (RFC 6933). */
export const ENT_PHYSICAL_ENTRY = '1.3.6.1.2.1.47.1.1.1.1';
/** entLastChangeTime.0 (TimeStamp of the last change of entPhysicalTable). */
export const ENT_LAST_CHANGE_TIME = '1.3.6.1.2.1.47.1.4.1';
/** entConfigChange notification (RFC 6933: at most one per 5 s). */
export const ENT_CONFIG_CHANGE = '1.3.6.1.2.1.47.2.0.1';
/** Columns of entPhySensorEntry (RFC 3433). */
export const ENT_PHY_SENSOR_ENTRY = '1.3.6.1.2.1.99.1.1.1';

/** The system group (RFC 3418): sysDescr .1, sysObjectID .2, sysUpTime .3, sysContact .4, sysName .5, sysLocation .6, sysServices .7. */
export const SYSTEM = '1.3.6.1.2.1.1';

/** entPhysicalEntry column numbers. */
export const ENT_COL = {
  index: 1,
  descr: 2,
  vendorType: 3,
  containedIn: 4,
  class: 5,
  parentRelPos: 6,
  name: 7,
  hardwareRev: 8,
  firmwareRev: 9,
  softwareRev: 10,
  serialNum: 11,
  mfgName: 12,
  modelName: 13,
  alias: 14,
  assetId: 15,
  isFru: 16,
  mfgDate: 17,
  uris: 18,
  uuid: 19,
} as const;

/** entPhySensorEntry column numbers. */
export const SENSOR_COL = {
  type: 1,
  scale: 2,
  precision: 3,
  value: 4,
  operStatus: 5,
  unitsDisplay: 6,
  valueTimeStamp: 7,
  valueUpdateRate: 8,
} as const;

/** atcasimFruEntry column numbers (BASE.1.1.1.C). */
export const FRU_COL = {
  hotSwapState: 1,
  hotSwapStateName: 2,
  previousState: 3,
  stateCause: 4,
  stateLastChanged: 5,
  ipmbAddress: 6,
  hardwareAddress: 7,
} as const;

/** The OIDs of atcasim's enterprise subtree under `base`. */
export interface EnterpriseOids {
  base: string;
  /** atcasimFruEntry (columns below it). */
  fruEntry: string;
  hotSwapTransition: string;
  sensorThresholdEvent: string;
  /** Threshold notification objects (instance .0): IPMI event offset, assertion(1)/deassertion(2), threshold value, threshold name. */
  thresholdOffset: string;
  thresholdDirection: string;
  thresholdValue: string;
  thresholdName: string;
  sysObjectId: string;
}

/** Builds the enterprise OIDs under `base` (e.g. '1.3.6.1.4.1.32473'). */
export function enterpriseOids(base: string): EnterpriseOids {
  return {
    base,
    fruEntry: `${base}.1.1.1`,
    hotSwapTransition: `${base}.0.1`,
    sensorThresholdEvent: `${base}.0.2`,
    thresholdOffset: `${base}.1.2.1.0`,
    thresholdDirection: `${base}.1.2.2.0`,
    thresholdValue: `${base}.1.2.3.0`,
    thresholdName: `${base}.1.2.4.0`,
    sysObjectId: `${base}.2.1`,
  };
}

/** entPhysicalClass values (RFC 6933 PhysicalClass). */
export const PHYSICAL_CLASS = { other: 1, unknown: 2, chassis: 3, backplane: 4, container: 5, powerSupply: 6, fan: 7, sensor: 8, module: 9, port: 10, stack: 11, cpu: 12 } as const;

/** entPhySensorType values (RFC 3433 EntitySensorDataType). */
export const SENSOR_TYPE = { other: 1, unknown: 2, voltsAC: 3, voltsDC: 4, amperes: 5, watts: 6, hertz: 7, celsius: 8, percentRH: 9, rpm: 10, cmm: 11, truthvalue: 12, specialEnum: 13 } as const;

/** entPhySensorScale units(9) (RFC 3433 EntitySensorDataScale: yocto(1) … units(9) … yotta(17)). */
export const SCALE_UNITS = 9;

/** entPhySensorOperStatus values (RFC 3433 EntitySensorStatus). */
export const SENSOR_STATUS = { ok: 1, unavailable: 2, nonoperational: 3 } as const;

/** TruthValue (SNMPv2-TC). */
export const TRUTH = { true: 1, false: 2 } as const;
