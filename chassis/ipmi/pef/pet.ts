/**
 * Platform Event Traps (IPMI Platform Event Trap Format Specification v1.0; IPMI v2.0 §17.16): the
 * SNMPv1 Trap a PEF alert sends for one SEL event, as plain data — chassis/io/pet-sender.ts puts it
 * on the wire through net-snmp.
 *
 * - enterprise 1.3.6.1.4.1.3183.1.1 (the wired-for-management PET OID), generic trap 6;
 * - specific trap = sensor type << 16 | event/reading type << 8 | direction << 7 | offset
 *   (b7 = 1 for a deassertion, b3:0 the event offset of event data 1);
 * - one variable binding, 1.3.6.1.4.1.3183.1.1.1, an OCTET STRING of 47 bytes then the OEM
 *   custom fields ending with C1h:
 *
 * | bytes | field |
 * |---|---|
 * | 0–15 | system GUID (the one PEF parameter 10 gives, else the shelf's) |
 * | 16–17 | sequence number (big-endian, per alert) |
 * | 18–21 | local timestamp: seconds since 1998-01-01 00:00 UTC (big-endian) |
 * | 22–23 | UTC offset, minutes: FFFFh unspecified |
 * | 24 | trap source type: 20h (BMC / platform firmware) |
 * | 25 | event source type: 20h (IPMI) |
 * | 26 | event severity (the filter's: 01h monitor … 20h non-recoverable) |
 * | 27 | sensor device: the generator's slave address |
 * | 28 | sensor number |
 * | 29, 30 | entity ID, entity instance |
 * | 31–38 | event data 1–3, then FFh × 5 |
 * | 39 | language code 19h (English) |
 * | 40–43 | manufacturer ID (IANA, big-endian) |
 * | 44–45 | system ID (product ID, big-endian) |
 * | 46 | OEM custom fields: C1h (none) |
 */
import type { SelRecord } from '../../sensors/sel.ts';

/** The PET enterprise OID. */
export const PET_ENTERPRISE = '1.3.6.1.4.1.3183.1.1';
/** The OID of the PET's one variable binding. */
export const PET_VARBIND_OID = '1.3.6.1.4.1.3183.1.1.1';
/** Seconds from 1970-01-01 to 1998-01-01 (the PET timestamp's epoch). */
export const PET_EPOCH_OFFSET = 883_612_800;

/** One PET as data: what the adapter sends. */
export interface PetTrap {
  /** The 24-bit specific trap number. */
  specific: number;
  /** The variable binding's octets. */
  data: Uint8Array;
}

/** What a PET needs besides the SEL record. */
export interface PetContext {
  guid: Uint8Array;
  sequence: number;
  /** Event time, Unix seconds. */
  unixTime: number;
  severity: number;
  entityId: number;
  entityInstance: number;
  manufacturerId: number;
  systemId: number;
}

/** Builds the PET of a system event record. @throws RangeError for a record without the event fields */
export function petTrap(r: SelRecord, c: PetContext): PetTrap {
  if (r.sensorType === undefined || r.sensorNumber === undefined || r.eventDirType === undefined || !r.eventData) throw new RangeError('not a system event record');
  const d1 = r.eventData[0]!;
  const deassert = (r.eventDirType & 0x80) !== 0;
  const specific = ((r.sensorType & 0xff) << 16) | ((r.eventDirType & 0x7f) << 8) | (deassert ? 0x80 : 0) | (d1 & 0x0f);
  const out = new Uint8Array(47);
  const v = new DataView(out.buffer);
  out.set(c.guid.subarray(0, 16), 0);
  v.setUint16(16, c.sequence & 0xffff);
  v.setUint32(18, Math.max(0, c.unixTime - PET_EPOCH_OFFSET) >>> 0);
  v.setUint16(22, 0xffff);
  out[24] = 0x20;
  out[25] = 0x20;
  out[26] = c.severity & 0xff;
  out[27] = (r.generatorId ?? 0) & 0xff;
  out[28] = r.sensorNumber & 0xff;
  out[29] = c.entityId & 0xff;
  out[30] = c.entityInstance & 0xff;
  out.set([r.eventData[0]!, r.eventData[1]!, r.eventData[2]!, 0xff, 0xff, 0xff, 0xff, 0xff], 31);
  out[39] = 0x19;
  v.setUint32(40, c.manufacturerId >>> 0);
  v.setUint16(44, c.systemId & 0xffff);
  out[46] = 0xc1;
  return { specific, data: out };
}

/** Decodes a PET's variable binding (for tests and logs): the fields of the table above. */
export function decodePet(data: Uint8Array): { sequence: number; unixTime: number; severity: number; sensorDevice: number; sensorNumber: number; entityId: number; entityInstance: number; eventData: number[] } {
  if (data.length < 47) throw new RangeError(`PET data ${data.length} bytes, at least 47 expected`);
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    sequence: v.getUint16(16),
    unixTime: v.getUint32(18) + PET_EPOCH_OFFSET,
    severity: data[26]!,
    sensorDevice: data[27]!,
    sensorNumber: data[28]!,
    entityId: data[29]!,
    entityInstance: data[30]!,
    eventData: [data[31]!, data[32]!, data[33]!],
  };
}
