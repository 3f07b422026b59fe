/**
 * One-line text of a SEL record in the style of `ipmitool sel elist`
 * (`<sensor type> <sensor name> | <event> | Asserted|Deasserted[ | Reading …]`), for the TUI's
 * event pane and logs. Covers the event types the shelf itself logs (IPMI v2.0 Tables 42-2/42-3:
 * threshold, generic severity and availability, PICMG Hot Swap); others print their codes.
 */
import type { SelRecord } from './sel.ts';

const SENSOR_TYPE_TEXT: Readonly<Record<number, string>> = {
  0x01: 'Temperature',
  0x02: 'Voltage',
  0x03: 'Current',
  0x04: 'Fan',
  0x08: 'Power Supply',
  0x15: 'Module/Board',
  0x23: 'Watchdog 2',
  0x28: 'Management Subsystem Health',
  0xf0: 'FRU Hot Swap',
};

const THRESHOLD_TEXT = [
  'Lower Non-critical going low',
  'Lower Non-critical going high',
  'Lower Critical going low',
  'Lower Critical going high',
  'Lower Non-recoverable going low',
  'Lower Non-recoverable going high',
  'Upper Non-critical going low',
  'Upper Non-critical going high',
  'Upper Critical going low',
  'Upper Critical going high',
  'Upper Non-recoverable going low',
  'Upper Non-recoverable going high',
];

const SEVERITY_TEXT = [
  'Transition to OK',
  'Transition to Non-critical from OK',
  'Transition to Critical from less severe',
  'Transition to Non-recoverable from less severe',
  'Transition to Non-critical from more severe',
  'Transition to Critical from Non-recoverable',
  'Transition to Non-recoverable',
  'Monitor',
  'Informational',
];

const AVAILABILITY_TEXT = [
  'Transition to Running',
  'Transition to In Test',
  'Transition to Power Off',
  'Transition to On Line',
  'Transition to Off Line',
  'Transition to Off Duty',
  'Transition to Degraded',
  'Transition to Power Save',
  'Install Error',
];

const WATCHDOG2_TEXT = ['Timer expired', 'Hard reset', 'Power down', 'Power cycle', '', '', '', '', 'Timer interrupt'];

/**
 * Renders a record. @param sensorName resolves (generator address, sensor number) to the sensor's
 * ID string, as ipmitool does through the SDR; unresolved sensors print `#0xNN`.
 */
export function describeSelRecord(r: SelRecord, sensorName?: (address: number, number: number) => string | undefined): string {
  if (r.recordType !== 0x02 || r.eventData === undefined) return `OEM record type 0x${r.recordType.toString(16).padStart(2, '0')}`;
  const st = r.sensorType!;
  const addr = r.generatorId! & 0xff;
  const name = sensorName?.(addr, r.sensorNumber!) ?? `#0x${r.sensorNumber!.toString(16).padStart(2, '0')}`;
  const type = r.eventDirType! & 0x7f;
  const dir = r.eventDirType! & 0x80 ? 'Deasserted' : 'Asserted';
  const offset = r.eventData[0] & 0x0f;
  let text: string;
  let extra = '';
  if (type === 0x01) {
    text = THRESHOLD_TEXT[offset] ?? `Threshold offset ${offset}`;
    if ((r.eventData[0] & 0xf0) === 0x50) extra = ` | Reading ${r.eventData[1]} ${offset % 2 ? '>' : '<'} Threshold ${r.eventData[2]} (raw)`;
  } else if (type === 0x07) text = SEVERITY_TEXT[offset] ?? `State ${offset}`;
  else if (type === 0x0a) text = AVAILABILITY_TEXT[offset] ?? `State ${offset}`;
  else if (type === 0x6f && st === 0xf0) text = offset <= 7 ? `Transition to M${offset}` : `State ${offset}`;
  else if (type === 0x6f && st === 0x23) text = WATCHDOG2_TEXT[offset] || `State ${offset}`;
  else text = `Event type 0x${type.toString(16)} offset ${offset}`;
  return `${SENSOR_TYPE_TEXT[st] ?? `Sensor type 0x${st.toString(16)}`} ${name} | ${text} | ${dir}${extra}`;
}
