/**
 * Builds the SDR records of the shelf from its configuration (IPMI v2.0 §43): per controller a
 * Management Controller Device Locator (12h), then a Full Sensor Record (01h) per threshold sensor
 * and a Compact Sensor Record (02h) for its PICMG Hot Swap sensor, then an Event-Only Sensor Record
 * (03h) per event sensor behind the SEL records the shelf writes itself (HA watchdog, HA role,
 * health; chassis/sensors/event-sensors.ts). Field choices follow the records
 * of the reference shelf (../shared/ipmi/sim/atca.emu), so ipmitool prints them the same way:
 * sensor initialisation 67h/63h, capabilities 68h (auto re-arm, readable hysteresis, readable and
 * settable thresholds) / 40h, device-relative entity instance 60h.
 */
import type { FruConfig, HotSwapSensorConfig, ThresholdSensorConfig } from '../config/types.ts';
import { eventSensorName, eventSensors, type EventSensorDef } from '../sensors/event-sensors.ts';
import { MC_CAP, type CompactSensorRecord, type EventOnlySensorRecord, type FullSensorRecord, type McLocatorRecord } from '../sensors/sdr.ts';
import { THRESHOLD_BIT, THRESHOLD_EVENT_OFFSET, THRESHOLD_NAMES, type ThresholdName } from '../sensors/thresholds.ts';
import { hysteresisToRaw, valueToRaw } from '../sensors/linearization.ts';

const LOWER_READING_BIT: Partial<Record<ThresholdName, number>> = { lnc: 12, lc: 13, lnr: 14 };
const UPPER_READING_BIT: Partial<Record<ThresholdName, number>> = { unc: 12, uc: 13, unr: 14 };

/** Full sensor record of a threshold sensor owned by IPMB address `owner`. */
export function fullSensorRecord(s: ThresholdSensorConfig, owner: number, entityId: number, entityInstance: number): FullSensorRecord {
  let assertion = 0;
  let deassertion = 0;
  let readable = 0;
  const raw: Record<ThresholdName, number> = { lnr: 0, lc: 0, lnc: 0, unc: 0, uc: 0, unr: 0 };
  for (const n of THRESHOLD_NAMES) {
    const v = s.thresholds[n];
    if (v === undefined) continue;
    raw[n] = valueToRaw(v, s.linearization);
    readable |= 1 << THRESHOLD_BIT[n];
    assertion |= 1 << THRESHOLD_EVENT_OFFSET[n];
    deassertion |= 1 << THRESHOLD_EVENT_OFFSET[n];
    const lo = LOWER_READING_BIT[n];
    if (lo !== undefined) assertion |= 1 << lo;
    const hi = UPPER_READING_BIT[n];
    if (hi !== undefined) deassertion |= 1 << hi;
  }
  return {
    type: 'full',
    recordId: 0,
    ownerId: owner,
    ownerLun: 0,
    channel: 0,
    sensorNumber: s.number,
    entityId,
    entityInstance,
    init: 0x67,
    capabilities: 0x68,
    sensorType: s.sensorType,
    readingType: 0x01,
    assertionMask: assertion,
    deassertionMask: deassertion,
    readingMask: readable | (readable << 8),
    units1: 0x00,
    unitCode: s.unitCode,
    modifierUnitCode: 0,
    linearizationType: 0,
    linearization: s.linearization,
    tolerance: 0,
    accuracy: 0,
    accuracyExp: 0,
    direction: 0,
    analogFlags: 0x01,
    nominalRaw: valueToRaw(s.nominal, s.linearization),
    normalMaxRaw: 0,
    normalMinRaw: 0,
    sensorMaxRaw: 0xff,
    sensorMinRaw: 0x00,
    thresholds: raw,
    hysteresis: { positive: hysteresisToRaw(s.hysteresis.positive, s.linearization), negative: hysteresisToRaw(s.hysteresis.negative, s.linearization) },
    oem: 0,
    idString: s.name,
  };
}

/** Compact sensor record of a PICMG Hot Swap sensor (type F0h, reading type 6Fh, states M0–M7). */
export function hotSwapSensorRecord(s: HotSwapSensorConfig, owner: number, entityId: number, entityInstance: number): CompactSensorRecord {
  return {
    type: 'compact',
    recordId: 0,
    ownerId: owner,
    ownerLun: 0,
    channel: 0,
    sensorNumber: s.number,
    entityId,
    entityInstance,
    init: 0x63,
    capabilities: 0x40,
    sensorType: 0xf0,
    readingType: 0x6f,
    assertionMask: 0x00ff,
    deassertionMask: 0x0000,
    readingMask: 0x00ff,
    units1: 0xc0,
    unitCode: 0,
    modifierUnitCode: 0,
    sharing: 0x01,
    instanceSharing: 0x00,
    hysteresis: { positive: 0, negative: 0 },
    oem: 0,
    idString: s.name,
  };
}

/**
 * Event-only sensor record (03h, IPMI v2.0 Table 43-3) of an event sensor of the controller at IPMB
 * address `owner`, named `<label> <suffix>` (e.g. 'Node3 HA Role').
 */
export function eventOnlySensorRecord(def: EventSensorDef, owner: number, label: string, entityId: number, entityInstance: number): EventOnlySensorRecord {
  return {
    type: 'event-only',
    recordId: 0,
    ownerId: owner,
    ownerLun: 0,
    channel: 0,
    sensorNumber: def.number,
    entityId,
    entityInstance,
    sensorType: def.sensorType,
    readingType: def.readingType,
    sharing: 0x01,
    instanceSharing: 0x00,
    oem: 0,
    idString: eventSensorName(label, def),
  };
}

/** MC device locator of a controller at IPMB `address`. The logical shelf manager additionally
 * declares SEL, SDR repository and event receiver capabilities. */
export function mcLocatorRecord(address: number, label: string, entityId: number, entityInstance: number, shelfManager: boolean): McLocatorRecord {
  const caps = MC_CAP.eventGenerator | MC_CAP.fruInventory | MC_CAP.sensor | (shelfManager ? MC_CAP.sel | MC_CAP.sdrRepository | MC_CAP.eventReceiver : 0);
  return {
    type: 'mc-locator',
    recordId: 0,
    slaveAddress: address,
    channel: 0,
    powerStateInit: 0,
    capabilities: caps,
    entityId,
    entityInstance,
    oem: 0,
    idString: label,
  };
}

/**
 * The records of one controller at IPMB address `owner`: its locator, its configured sensors in
 * number order, then its event-only sensors (named after `label`).
 */
export function controllerRecords(fru: FruConfig, owner: number, label: string, shelfManager: boolean) {
  const recs: Array<McLocatorRecord | FullSensorRecord | CompactSensorRecord | EventOnlySensorRecord> = [
    mcLocatorRecord(owner, label, fru.entityId, fru.entityInstance, shelfManager),
  ];
  for (const s of [...fru.sensors].sort((a, b) => a.number - b.number)) {
    recs.push(s.kind === 'hotswap' ? hotSwapSensorRecord(s, owner, fru.entityId, fru.entityInstance) : fullSensorRecord(s, owner, fru.entityId, fru.entityInstance));
  }
  for (const e of eventSensors(fru)) recs.push(eventOnlySensorRecord(e, owner, label, fru.entityId, fru.entityInstance));
  return recs;
}
