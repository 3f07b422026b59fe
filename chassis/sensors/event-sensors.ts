/**
 * The event-only sensors every controller of the shelf has besides the sensors its configuration
 * lists: the sensors behind the SEL records the shelf writes itself, so that each (generator
 * address, sensor number, sensor type) of a SEL record has an SDR record and `ipmitool sel elist`
 * / FreeIPMI `ipmi-sel` print a sensor name instead of `#0xNN` (ipmitool 1.8.19
 * ipmi_sdr_find_sdr_bynumtype matches owner ID, sensor number and sensor type).
 *
 * | key        | which controllers               | sensor type                        | event/reading type      | preferred number | name            |
 * |------------|---------------------------------|------------------------------------|-------------------------|------------------|-----------------|
 * | `watchdog` | ShMCs, processor boards         | 23h Watchdog 2                     | 6Fh sensor-specific     | FEh              | `<label> Watchdog` |
 * | `ha-role`  | ShMCs                           | 28h Management Subsystem Health    | 0Ah generic availability| FDh              | `<label> HA Role`  |
 * | `ha-role`  | processor boards                | 15h Module/Board                   | 0Ah generic availability| FDh              | `<label> HA Role`  |
 * | `health`   | every controller                | 15h Module/Board                   | 07h generic severity    | FCh              | `<label> Health`   |
 *
 * ShMCs and processor boards are the kinds HA pairs are made of (chassis/config/ha.ts); the
 * watchdog sensor of a ShMC also stands for the IPMI watchdog its controllers answer. The sensors
 * are event-only (IPMI v2.0 §43.3): they return no reading. A number the configuration already
 * gives to one of the controller's sensors is skipped: the next lower free number is taken, so the
 * numbers depend only on the controller's configuration and are the same at its own IPMB address
 * and, for a ShMC, at the logical shelf-manager address.
 */
import { READING_TYPE, SENSOR_TYPE } from './sensor-types.ts';
import { SDR_ID_MAX } from './sdr.ts';

/** Which event sensor: the HA watchdog, the HA role, the fault/health state. */
export type EventSensorKey = 'watchdog' | 'ha-role' | 'health';

/** One event-only sensor of a controller. */
export interface EventSensorDef {
  key: EventSensorKey;
  /** Sensor number (1..254). */
  number: number;
  /** Sensor type code (IPMI v2.0 Table 42-3). */
  sensorType: number;
  /** Event/reading type code (Table 42-1). */
  readingType: number;
  /** ID string suffix after the controller's label ('Watchdog', 'HA Role', 'Health'). */
  suffix: string;
}

/** What the definitions need of a controller's configuration (FruConfig fits). */
export interface EventSensorOwner {
  kind: string;
  sensors: ReadonlyArray<{ number: number }>;
}

const PREFERRED: Record<EventSensorKey, number> = { watchdog: 0xfe, 'ha-role': 0xfd, health: 0xfc };

/**
 * The event-only sensors of a controller, in the order their numbers are assigned (watchdog, HA
 * role, health; the ones its kind has). @param owner its kind ('shmc', 'processor', …) and configured sensor numbers
 * @throws RangeError when the controller has no free sensor number left (254 configured sensors)
 */
export function eventSensors(owner: EventSensorOwner): EventSensorDef[] {
  const used = new Set(owner.sensors.map((s) => s.number));
  const take = (key: EventSensorKey): number => {
    for (let n = PREFERRED[key]; n >= 1; n--) {
      if (!used.has(n)) {
        used.add(n);
        return n;
      }
    }
    throw new RangeError(`no free sensor number for the ${key} sensor`);
  };
  const ha = owner.kind === 'shmc' || owner.kind === 'processor';
  const out: EventSensorDef[] = [];
  if (ha) {
    out.push({ key: 'watchdog', number: take('watchdog'), sensorType: SENSOR_TYPE.watchdog2, readingType: READING_TYPE.sensorSpecific, suffix: 'Watchdog' });
    out.push({
      key: 'ha-role',
      number: take('ha-role'),
      sensorType: owner.kind === 'shmc' ? SENSOR_TYPE.managementSubsystemHealth : SENSOR_TYPE.moduleBoard,
      readingType: READING_TYPE.availability,
      suffix: 'HA Role',
    });
  }
  out.push({ key: 'health', number: take('health'), sensorType: SENSOR_TYPE.moduleBoard, readingType: READING_TYPE.severity, suffix: 'Health' });
  return out;
}

/**
 * The event sensor `key` of a controller, or undefined when it has none (a fan tray has no
 * watchdog or HA role sensor).
 */
export function eventSensor(owner: EventSensorOwner, key: EventSensorKey): EventSensorDef | undefined {
  return eventSensors(owner).find((s) => s.key === key);
}

/**
 * The ID string of an event sensor: `<label> <suffix>`, the label shortened so the whole fits the
 * 16 bytes of an SDR ID string (Table 43-3 byte 17).
 */
export function eventSensorName(label: string, def: EventSensorDef): string {
  const room = SDR_ID_MAX - def.suffix.length - 1;
  return `${label.slice(0, Math.max(0, room)).trimEnd()} ${def.suffix}`.trim();
}
