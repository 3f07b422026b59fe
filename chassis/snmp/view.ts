/**
 * SnmpView: the rows the shelf's SNMP agent serves, as plain JSON-safe data — built from the
 * Shelf in the process that holds it (./rows.ts) and handed to the agent (chassis/io/snmp-agent.ts)
 * directly, or across the shelf–ShMC bus in split mode. Times are ages in ms at the moment the view
 * was built (`ageMs`, null = not since the view's source started), so the agent turns them into
 * TimeStamps (sysUpTime hundredths) on its own clock, whichever process it runs in.
 *
 * Pure: no I/O.
 */

/** One entPhysicalTable row (RFC 6933 entPhysicalEntry). Binary columns as hex strings. */
export interface EntityRow {
  index: number;
  descr: string;
  /** AutonomousType OID ('0.0' = zeroDotZero). */
  vendorType: string;
  containedIn: number;
  class: number;
  parentRelPos: number;
  name: string;
  hardwareRev: string;
  firmwareRev: string;
  softwareRev: string;
  serialNum: string;
  mfgName: string;
  modelName: string;
  alias: string;
  assetId: string;
  /** TruthValue: 1 true, 2 false. */
  isFru: number;
  /** DateAndTime, hex (8 or 11 octets; 8 zero octets when unknown). */
  mfgDate: string;
  uris: string;
  /** UUIDorZero, hex (16 octets, or '' for none). */
  uuid: string;
}

/** One entPhySensorTable row (RFC 3433 entPhySensorEntry), same index as its entPhysicalTable row. */
export interface SensorRow {
  index: number;
  type: number;
  scale: number;
  precision: number;
  /** Integer32: the reading × 10^precision (−10^9 … 10^9). */
  value: number;
  operStatus: number;
  unitsDisplay: string;
  /** Age of the reading (entPhySensorValueTimeStamp), ms; null = unchanged since the source started. */
  valueAgeMs: number | null;
  /** entPhySensorValueUpdateRate, ms (0 = unknown: readings change when set, not on a period). */
  updateRateMs: number;
}

/** One atcasimFruEntry row (the hot-swap state of a FRU), INDEX entPhysicalIndex. */
export interface FruStateRow {
  index: number;
  /** M-state 0..7. */
  state: number;
  /** 'M0' … 'M7'. */
  stateName: string;
  previous: number;
  /** PICMG 3.0 cause code 0..15. */
  cause: number;
  /** Age of the last transition, ms; null = none since the source started. */
  changedAgeMs: number | null;
  ipmbAddress: number;
  hardwareAddress: number;
}

/** Everything the agent serves besides its fixed scalars. */
export interface SnmpView {
  /** ChassisSnapshot.seq the view was built from. */
  seq: number;
  /** sysName.0 (the shelf's name). */
  shelfName: string;
  entities: EntityRow[];
  sensors: SensorRow[];
  frus: FruStateRow[];
  /** Age of the last change of entPhysicalTable (entLastChangeTime), ms; null = none since start. */
  lastChangeAgeMs: number | null;
}

/** A variable binding of a notification (types as SMIv2 names them). */
export interface SnmpVarbind {
  oid: string;
  type: 'integer' | 'octets' | 'oid' | 'timeticks' | 'gauge';
  value: number | string;
}

/** A notification to send (SNMPv2-Trap or InformRequest; sysUpTime.0 and snmpTrapOID.0 are added by the sender). */
export interface SnmpNotification {
  /** snmpTrapOID.0. */
  trapOid: string;
  varbinds: SnmpVarbind[];
  /** What it reports, for logs and tests. */
  kind: 'hotswap' | 'threshold' | 'configChange';
}

/** What the shelf side hands the agent: the current view, and notifications as they happen. */
export interface SnmpSink {
  view(v: SnmpView): void;
  notify(n: SnmpNotification): void;
}
