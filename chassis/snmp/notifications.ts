/**
 * The shelf's events as SNMP notifications (what docs/snmp.md lists):
 *
 * - a hot-swap transition (ChassisEvent `hotswap`) → atcasimFruHotSwapTransition (BASE.0.1) with
 *   entPhysicalName.I, atcasimFruHotSwapState.I (the new M-state), atcasimFruPreviousState.I and
 *   atcasimFruStateCause.I (PICMG 3.0 cause code) — I = the FRU's entPhysicalIndex (./rows.ts);
 * - a threshold crossing or its recovery (`sensor.threshold`) → atcasimSensorThresholdEvent
 *   (BASE.0.2) with entPhysicalName.I and entPhySensorValue.I of the sensor, the IPMI event offset
 *   (0 lower-non-critical going low … 11 upper-non-recoverable going high, IPMI v2.0 Table 42-2),
 *   assertion(1)/deassertion(2), the threshold's value (same precision as the reading) and name;
 * - a FRU entering or leaving M0 changes entPhysicalTable → entConfigChange (RFC 6933), which
 *   carries no objects; the caller keeps RFC 6933's limit of one per 5 s.
 *
 * ENTITY-SENSOR-MIB defines no notifications (RFC 3433), hence the enterprise one.
 * Pure: no I/O.
 */
import type { FruConfig, ShelfConfig, ThresholdSensorConfig } from '../config/types.ts';
import type { ChassisEventOf } from '../model/events.ts';
import { HOT_SWAP_CAUSE } from '../model/hot-swap.ts';
import { THRESHOLD_EVENT_OFFSET } from '../sensors/thresholds.ts';
import { ENT_COL, ENT_CONFIG_CHANGE, ENT_PHY_SENSOR_ENTRY, ENT_PHYSICAL_ENTRY, FRU_COL, SENSOR_COL, type EnterpriseOids } from './oids.ts';
import { fruIndex, sensorIndex } from './rows.ts';
import { encodeSensorValue, sensorPrecision } from './sensor-value.ts';
import type { SnmpNotification } from './view.ts';

function fruOf(c: ShelfConfig, name: string): FruConfig | undefined {
  return c.frus.find((f) => f.name === name);
}

/** atcasimFruHotSwapTransition for a hot-swap event, or undefined for a FRU the configuration does not have. */
export function hotSwapNotification(c: ShelfConfig, oids: EnterpriseOids, e: ChassisEventOf<'hotswap'>): SnmpNotification | undefined {
  const f = fruOf(c, e.fru);
  if (!f) return undefined;
  const i = fruIndex(f);
  return {
    kind: 'hotswap',
    trapOid: oids.hotSwapTransition,
    varbinds: [
      { oid: `${ENT_PHYSICAL_ENTRY}.${ENT_COL.name}.${i}`, type: 'octets', value: f.name },
      { oid: `${oids.fruEntry}.${FRU_COL.hotSwapState}.${i}`, type: 'integer', value: e.to },
      { oid: `${oids.fruEntry}.${FRU_COL.previousState}.${i}`, type: 'integer', value: e.from },
      { oid: `${oids.fruEntry}.${FRU_COL.stateCause}.${i}`, type: 'integer', value: HOT_SWAP_CAUSE[e.cause] },
    ],
  };
}

/** atcasimSensorThresholdEvent for a threshold event, or undefined for a sensor the configuration does not have. */
export function thresholdNotification(c: ShelfConfig, oids: EnterpriseOids, e: ChassisEventOf<'sensor.threshold'>): SnmpNotification | undefined {
  const f = fruOf(c, e.fru);
  const s = f?.sensors.find((x) => x.number === e.number && x.kind === 'threshold') as ThresholdSensorConfig | undefined;
  if (!f || !s) return undefined;
  const i = sensorIndex(f, e.number);
  const p = sensorPrecision(s.linearization);
  return {
    kind: 'threshold',
    trapOid: oids.sensorThresholdEvent,
    varbinds: [
      { oid: `${ENT_PHYSICAL_ENTRY}.${ENT_COL.name}.${i}`, type: 'octets', value: e.sensor },
      { oid: `${ENT_PHY_SENSOR_ENTRY}.${SENSOR_COL.value}.${i}`, type: 'integer', value: encodeSensorValue(e.value, p) },
      { oid: oids.thresholdOffset, type: 'integer', value: THRESHOLD_EVENT_OFFSET[e.threshold] },
      { oid: oids.thresholdDirection, type: 'integer', value: e.asserted ? 1 : 2 },
      { oid: oids.thresholdValue, type: 'integer', value: encodeSensorValue(e.thresholdValue, p) },
      { oid: oids.thresholdName, type: 'octets', value: e.threshold },
    ],
  };
}

/** entConfigChange (no objects). */
export function configChangeNotification(): SnmpNotification {
  return { kind: 'configChange', trapOid: ENT_CONFIG_CHANGE, varbinds: [] };
}
