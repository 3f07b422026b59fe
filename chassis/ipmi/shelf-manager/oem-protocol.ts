/**
 * atcasim's OEM IPMI commands: what standard IPMI and PICMG have no command for (shelf-manager role
 * and switchover, console paths, fault and sensor injection, the operator's ejector handle, FRU
 * listing, insert/extract), used by `atcasim clia` and documented byte for byte in docs/clia.md.
 *
 * NetFn 2Eh (OEM/Group, IPMI v2.0 §5.1): every request and response starts with the 3-byte IANA
 * enterprise number, least significant byte first. atcasim uses **0FFFF0h (1048560)** — not an
 * assigned Private Enterprise Number: it is taken from the top of the 20-bit space IPMI carries, far
 * above any assigned number, so it cannot be mistaken for a real vendor's. Requests with another
 * IANA answer C1h. Strings are one length byte + Latin-1 bytes ("str" below); integers little-endian.
 *
 *   01h Get Shelf Manager Status  rq: —                      rs: role, peer role, epoch(4), site, peer site, flags, str self, str peer
 *   02h Switchover                rq: —                      rs: str from, str to
 *   03h Get Console Path          rq: str FRU                rs: str FRU name, str path[, str stable link]
 *   04h FRU Fault                 rq: action, kind, str FRU  rs: M-state
 *   05h Set Sensor Reading        rq: value(4, signed, ×1000), str FRU, str sensor    rs: raw, status, value(4)
 *   06h Hot-Swap Handle           rq: op, str FRU            rs: M-state
 *   07h Get FRU Info              rq: index                  rs: next index, kind, slot, physical slot, site type, site no., HA, IPMB,
 *                                                                 state, previous, cause, flags, power level, str name, str label
 *   08h Insert / Extract          rq: op, str FRU            rs: M-state
 *   09h Get Alarms                rq: index                  rs: outputs, operator, total, next index (FFh last), then per alarm:
 *                                                                 severity, str source, str alarm
 *   0Ah Set Alarm Outputs         rq: op (1 set, 0 clear), bits   rs: outputs, operator
 *   0Bh Get Power Budget          rq: —                      rs: budget W (4; FFFFFFFFh no PEMs), used W (4), PEMs supplying (1)
 *
 * Codes: role = index in OEM_ROLE_CODES (FFh absent); kind = index in KIND_CODES; cause = PICMG cause
 * (hot-swap.ts HOT_SWAP_CAUSE); sensor status = index in STATUS_CODES; fault action 1 inject / 0
 * repair, kind 0 payload / 1 comm / FFh every fault (repair); handle op 0 open / 1 close; insert op
 * 1 insert / 0 extract. A refused command answers its completion code followed by IANA, str code
 * (the shelf's snake_case reason) and str message. Set Sensor Reading refuses a value the sensor's
 * 8-bit linearisation cannot represent with C9h `out_of_range` (nothing is clamped).
 */
import { ByteReader, ByteWriter } from '../../../board/common/bytes.ts';
import { HA_ROLES, type HaRoleName } from '../../model/events.ts';

/** atcasim's OEM IANA enterprise number (not an assigned PEN; see the module note). */
export const OEM_IANA = 0x0ffff0;
/** The IANA as it goes on the wire (LS byte first). */
export const OEM_IANA_BYTES: readonly number[] = [OEM_IANA & 0xff, (OEM_IANA >> 8) & 0xff, (OEM_IANA >> 16) & 0xff];
/** NetFn of the OEM commands (OEM/Group, request). */
export const OEM_NETFN = 0x2e;

/** OEM command numbers. */
export const OemCmd = {
  shmStatus: 0x01,
  switchover: 0x02,
  consolePath: 0x03,
  fault: 0x04,
  sensorValue: 0x05,
  handle: 0x06,
  fruInfo: 0x07,
  insertExtract: 0x08,
  alarms: 0x09,
  setAlarms: 0x0a,
  powerBudget: 0x0b,
} as const;

/** TELCO alarm severities, by bit (Get Alarms / Set Alarm Outputs): b0 minor, b1 major, b2 critical. */
export const ALARM_SEVERITIES = ['minor', 'major', 'critical'] as const;
/** A TELCO alarm severity. */
export type AlarmSeverity = (typeof ALARM_SEVERITIES)[number];
/** Alarm entries one Get Alarms answer carries (the response must stay within 245 bytes). */
export const ALARMS_PER_ANSWER = 6;

/** Role codes (FFh = absent). */
export const OEM_ROLE_CODES: readonly HaRoleName[] = HA_ROLES;
/** FRU kind codes. */
export const KIND_CODES = ['shmc', 'hub', 'processor', 'fan', 'pem'] as const;
/** Sensor status codes. */
export const STATUS_CODES = ['ok', 'nc', 'cr', 'nr', 'ns'] as const;
/** Flag bits of Get Shelf Manager Status. */
export const SHM_FLAG = { answering: 0x01, peerPresent: 0x02, peerActive: 0x04 } as const;
/** Flag bits of Get FRU Info. */
export const FRU_FLAG = {
  handleClosed: 0x01,
  activationLocked: 0x02,
  deactivationLocked: 0x04,
  inService: 0x08,
  transitioning: 0x10,
  payloadFault: 0x20,
  commFault: 0x40,
} as const;

/** Writes the IANA and returns a writer for the rest. */
export function oemWriter(): ByteWriter {
  const w = new ByteWriter(64);
  for (const b of OEM_IANA_BYTES) w.u8(b);
  return w;
}

/** Appends a length-prefixed Latin-1 string (truncated to `max` bytes). */
export function putStr(w: ByteWriter, s: string, max = 64): ByteWriter {
  const b = Buffer.from(s, 'latin1').subarray(0, Math.min(max, 255));
  w.u8(b.length);
  w.bytes(b);
  return w;
}

/** Reads a length-prefixed Latin-1 string. @throws DecodeError when truncated */
export function getStr(r: ByteReader, field: string): string {
  const n = r.u8(`${field}_length`);
  return Buffer.from(r.bytes(n, field)).toString('latin1');
}

/** True when `data` starts with atcasim's IANA. */
export function hasOemIana(data: Uint8Array): boolean {
  return data.length >= 3 && data[0] === OEM_IANA_BYTES[0] && data[1] === OEM_IANA_BYTES[1] && data[2] === OEM_IANA_BYTES[2];
}

/** A reader positioned after the IANA. @throws DecodeError when the IANA is missing */
export function oemReader(data: Uint8Array, layer = 'atcasim-oem'): ByteReader {
  const r = new ByteReader(data, layer);
  r.bytes(3, 'iana');
  return r;
}

/** Get Shelf Manager Status, decoded. */
export interface OemShmStatus {
  role: HaRoleName;
  peerRole: HaRoleName | 'absent';
  epoch: number;
  site: number;
  peerSite: number;
  flags: number;
  self: string;
  peer: string;
}

/** Encodes the response data of Get Shelf Manager Status. */
export function encodeShmStatus(s: OemShmStatus): Uint8Array {
  const w = oemWriter();
  w.u8(OEM_ROLE_CODES.indexOf(s.role));
  w.u8(s.peerRole === 'absent' ? 0xff : OEM_ROLE_CODES.indexOf(s.peerRole));
  w.u32le(s.epoch >>> 0);
  w.u8(s.site).u8(s.peerSite).u8(s.flags);
  putStr(w, s.self);
  putStr(w, s.peer);
  return new Uint8Array(w.toBuffer());
}

function roleOf(code: number, field: string): HaRoleName {
  const r = OEM_ROLE_CODES[code];
  if (!r) throw new RangeError(`${field}: unknown role code ${code}`);
  return r;
}

/** Decodes Get Shelf Manager Status response data. @throws DecodeError / RangeError when malformed */
export function decodeShmStatus(data: Uint8Array): OemShmStatus {
  const r = oemReader(data);
  const role = roleOf(r.u8('role'), 'role');
  const pc = r.u8('peer_role');
  const peerRole = pc === 0xff ? 'absent' : roleOf(pc, 'peer_role');
  const epoch = r.u32le('epoch');
  const site = r.u8('site');
  const peerSite = r.u8('peer_site');
  const flags = r.u8('flags');
  return { role, peerRole, epoch, site, peerSite, flags, self: getStr(r, 'self'), peer: getStr(r, 'peer') };
}

/** Get FRU Info, decoded. */
export interface OemFruInfo {
  next: number;
  kind: (typeof KIND_CODES)[number];
  slot: number;
  physicalSlot: number;
  siteType: number;
  siteNumber: number;
  hardwareAddress: number;
  ipmbAddress: number;
  state: number;
  previous: number;
  cause: number;
  flags: number;
  powerLevel: number;
  name: string;
  label: string;
}

/** Encodes Get FRU Info response data. */
export function encodeFruInfo(f: OemFruInfo): Uint8Array {
  const w = oemWriter();
  w.u8(f.next).u8(KIND_CODES.indexOf(f.kind)).u8(f.slot).u8(f.physicalSlot).u8(f.siteType).u8(f.siteNumber);
  w.u8(f.hardwareAddress).u8(f.ipmbAddress).u8(f.state).u8(f.previous).u8(f.cause).u8(f.flags).u8(f.powerLevel);
  putStr(w, f.name);
  putStr(w, f.label);
  return new Uint8Array(w.toBuffer());
}

/** Decodes Get FRU Info response data. @throws DecodeError / RangeError when malformed */
export function decodeFruInfo(data: Uint8Array): OemFruInfo {
  const r = oemReader(data);
  const next = r.u8('next');
  const kc = r.u8('kind');
  const kind = KIND_CODES[kc];
  if (!kind) throw new RangeError(`unknown FRU kind code ${kc}`);
  return {
    next,
    kind,
    slot: r.u8('slot'),
    physicalSlot: r.u8('physical_slot'),
    siteType: r.u8('site_type'),
    siteNumber: r.u8('site_number'),
    hardwareAddress: r.u8('hardware_address'),
    ipmbAddress: r.u8('ipmb_address'),
    state: r.u8('state'),
    previous: r.u8('previous'),
    cause: r.u8('cause'),
    flags: r.u8('flags'),
    powerLevel: r.u8('power_level'),
    name: getStr(r, 'name'),
    label: getStr(r, 'label'),
  };
}

/** Error data of a refused OEM command: IANA, str code, str message. */
export function encodeOemError(code: string, message: string): Uint8Array {
  const w = oemWriter();
  putStr(w, code, 40);
  putStr(w, message, 160);
  return new Uint8Array(w.toBuffer());
}

/** Decodes the error data of a refused OEM command, or undefined when it carries none. */
export function decodeOemError(data: Uint8Array): { code: string; message: string } | undefined {
  if (!hasOemIana(data) || data.length < 5) return undefined;
  try {
    const r = oemReader(data);
    return { code: getStr(r, 'code'), message: getStr(r, 'message') };
  } catch {
    return undefined;
  }
}
