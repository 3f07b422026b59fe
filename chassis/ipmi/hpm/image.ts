/**
 * HPM.1 upgrade image files (PICMG HPM.1 r1.0 §4, the format `ipmitool hpm` reads): encoding and
 * validation. Pure.
 *
 * Layout (multi-byte integers little-endian):
 *
 *   header  0 "PICMGFWU" · 8 format version (0) · 9 device ID · 10 manufacturer ID (3) ·
 *           13 product ID (2) · 15 time (4, seconds since 1970) · 19 image capabilities ·
 *           20 components mask · 21 self-test timeout · 22 rollback timeout ·
 *           23 inaccessibility timeout (the three in 5 s units) · 24 earliest compatible revision
 *           (major, minor BCD) · 26 firmware revision (major, minor BCD, 4 auxiliary bytes) ·
 *           32 OEM data length (2) · 34 OEM data · header checksum (1 byte: the header, its OEM
 *           data and the checksum sum to 0 mod 256)
 *   actions type (0 backup components, 1 prepare components, 2 upload firmware image) ·
 *           components mask · checksum (the 3 bytes sum to 0); an upload action goes on with the
 *           image's firmware version (6), a description (21 bytes, NUL-padded), the data length
 *           (4) and the data. ipmitool also accepts an upload action whose checksum covers the
 *           34 bytes before the data (the spec is read both ways); so does `parseHpmImage`.
 *   MD5     16 bytes: RFC 1321 digest of everything before it.
 *
 * `ipmitool hpm upgrade` checks the MD5, the signature, the format version and the header
 * checksum before it sends anything (and, per action, the action checksum); then it compares the
 * device ID, manufacturer and product ID with the target's Get Device ID and refuses an image
 * whose earliest compatible revision is above the target's firmware revision
 * (`isUpgradableFrom`). Only the data of the upload actions is sent to the target.
 */
import { md5 } from '../crypto.ts';

/** The image signature. */
export const HPM_SIGNATURE = 'PICMGFWU';
/** Bytes of the fixed header before the OEM data. */
export const HPM_HEADER_LENGTH = 34;
/** Bytes of an upload action before its data (type, mask, checksum, version, description, length). */
export const HPM_UPLOAD_PREFIX = 34;
/** Length of the description field of an upload action. */
export const HPM_DESCRIPTION_LENGTH = 21;
/** Length of the trailing MD5 signature. */
export const HPM_MD5_LENGTH = 16;

/** A firmware revision as HPM.1 carries it: major 0..127 (binary), minor 0..99 (sent as BCD), 4 auxiliary bytes. */
export interface FirmwareVersion {
  major: number;
  minor: number;
  aux: readonly number[];
}

/** The image header (everything but the signature and checksum). */
export interface HpmHeader {
  formatVersion: number;
  deviceId: number;
  /** IANA manufacturer ID (20 bits). */
  manufacturerId: number;
  productId: number;
  /** Creation time, seconds since 1970. */
  timeS: number;
  /** Image capabilities byte, kept as written. */
  capabilities: number;
  /** Bit n set: the image holds component n. */
  components: number;
  /** Timeouts in 5 s units. */
  selfTestTimeout: number;
  rollbackTimeout: number;
  inaccessTimeout: number;
  /** The oldest target firmware revision this image may be installed over (major, minor). */
  earliestCompatible: { major: number; minor: number };
  /** The image's firmware revision. */
  firmware: FirmwareVersion;
  oemData: Uint8Array;
}

/** One action record of an image. */
export type HpmAction =
  | { type: 'backup' | 'prepare'; components: number }
  | { type: 'upload'; components: number; version: FirmwareVersion; description: string; data: Uint8Array };

/** A parsed image. */
export interface HpmImage {
  header: HpmHeader;
  actions: HpmAction[];
}

/** Why an image is invalid (the check that failed). */
export type HpmImageFault = 'truncated' | 'md5' | 'signature' | 'format' | 'header_checksum' | 'action_checksum' | 'action_type' | 'bad_value';

/** An invalid image: `fault` names the check, `offset` the byte where it was found. */
export class HpmImageError extends Error {
  constructor(
    readonly fault: HpmImageFault,
    readonly offset: number,
    message: string,
  ) {
    super(`HPM.1 image: ${message} (byte ${offset})`);
    this.name = 'HpmImageError';
  }
}

const ACTION_TYPES = ['backup', 'prepare', 'upload'] as const;

/** Two's-complement checksum byte of `bytes` (the byte that makes them sum to 0 mod 256). */
export function zeroChecksum(bytes: Uint8Array): number {
  let s = 0;
  for (const b of bytes) s = (s + b) & 0xff;
  return (0x100 - s) & 0xff;
}

function sum8(bytes: Uint8Array): number {
  let s = 0;
  for (const b of bytes) s = (s + b) & 0xff;
  return s;
}

/** Encodes 0..99 as BCD. @throws RangeError */
export function toBcd(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 99) throw new RangeError(`minor revision ${n}: must be 0..99`);
  return ((n / 10) | 0) * 16 + (n % 10);
}

/** Decodes a BCD byte; undefined when a nibble is above 9. */
export function fromBcd(b: number): number | undefined {
  const hi = b >> 4;
  const lo = b & 0x0f;
  return hi > 9 || lo > 9 ? undefined : hi * 10 + lo;
}

/** The 6 wire bytes of a firmware version. @throws RangeError for out-of-range parts */
export function encodeVersion(v: FirmwareVersion): number[] {
  if (!Number.isInteger(v.major) || v.major < 0 || v.major > 127) throw new RangeError(`major revision ${v.major}: must be 0..127`);
  if (v.aux.length !== 4 || v.aux.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) throw new RangeError('auxiliary revision: 4 bytes');
  return [v.major, toBcd(v.minor), ...v.aux];
}

/** Reads a firmware version from 6 bytes (an invalid BCD minor reads as its raw value). */
export function decodeVersion(b: Uint8Array, at: number): FirmwareVersion {
  const minorByte = b[at + 1]!;
  return { major: b[at]! & 0x7f, minor: fromBcd(minorByte) ?? minorByte, aux: [...b.subarray(at + 2, at + 6)] };
}

/** 'major.minor' as ipmitool prints it (minor two digits). */
export function formatVersion(v: { major: number; minor: number }): string {
  return `${v.major}.${String(v.minor).padStart(2, '0')}`;
}

function u16(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff];
}

function u32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}

function encodeHeader(h: HpmHeader): Uint8Array {
  if (h.oemData.length > 0xffff) throw new RangeError('OEM data longer than 65535 bytes');
  const ec = h.earliestCompatible;
  if (!Number.isInteger(ec.major) || ec.major < 0 || ec.major > 127) throw new RangeError(`earliest compatible major ${ec.major}: must be 0..127`);
  const fixed = [
    ...Buffer.from(HPM_SIGNATURE, 'latin1'),
    h.formatVersion & 0xff,
    h.deviceId & 0xff,
    h.manufacturerId & 0xff, (h.manufacturerId >>> 8) & 0xff, (h.manufacturerId >>> 16) & 0x0f,
    ...u16(h.productId),
    ...u32(h.timeS >>> 0),
    h.capabilities & 0xff,
    h.components & 0xff,
    h.selfTestTimeout & 0xff,
    h.rollbackTimeout & 0xff,
    h.inaccessTimeout & 0xff,
    ec.major, toBcd(ec.minor),
    ...encodeVersion(h.firmware),
    ...u16(h.oemData.length),
  ];
  const body = Uint8Array.from([...fixed, ...h.oemData]);
  return Uint8Array.from([...body, zeroChecksum(body)]);
}

function encodeAction(a: HpmAction): Uint8Array {
  const head = Uint8Array.of(ACTION_TYPES.indexOf(a.type), a.components & 0xff);
  const rec = Uint8Array.of(...head, zeroChecksum(head));
  if (a.type !== 'upload') return rec;
  const desc = Buffer.alloc(HPM_DESCRIPTION_LENGTH);
  const text = Buffer.from(a.description, 'latin1');
  if (text.length >= HPM_DESCRIPTION_LENGTH) throw new RangeError(`description "${a.description}": at most ${HPM_DESCRIPTION_LENGTH - 1} characters`);
  text.copy(desc);
  return Uint8Array.from([...rec, ...encodeVersion(a.version), ...desc, ...u32(a.data.length), ...a.data]);
}

/**
 * Encodes an image: header with its checksum, the actions with theirs, the MD5 signature.
 * @throws RangeError for a field out of range (versions, description length, OEM data length)
 */
export function encodeHpmImage(image: HpmImage): Uint8Array {
  const parts = [encodeHeader(image.header), ...image.actions.map(encodeAction)];
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total + HPM_MD5_LENGTH);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  out.set(md5(out.subarray(0, total)), total);
  return out;
}

function need(b: Uint8Array, at: number, n: number, what: string): void {
  if (at + n > b.length) throw new HpmImageError('truncated', b.length, `${what} needs ${n} bytes at ${at}, the image ends at ${b.length}`);
}

function parseHeader(b: Uint8Array, end: number): { header: HpmHeader; next: number } {
  need(b.subarray(0, end), 0, HPM_HEADER_LENGTH + 1, 'the header');
  if (Buffer.from(b.subarray(0, 8)).toString('latin1') !== HPM_SIGNATURE) throw new HpmImageError('signature', 0, `signature is not "${HPM_SIGNATURE}"`);
  if (b[8] !== 0) throw new HpmImageError('format', 8, `format version ${b[8]} (only 0 is defined)`);
  const oemLength = b[32]! | (b[33]! << 8);
  const headerEnd = HPM_HEADER_LENGTH + oemLength;
  need(b.subarray(0, end), 0, headerEnd + 1, 'the header with its OEM data');
  if (sum8(b.subarray(0, headerEnd + 1)) !== 0) throw new HpmImageError('header_checksum', headerEnd, 'header checksum does not match');
  const ecMinor = fromBcd(b[25]!);
  if (ecMinor === undefined) throw new HpmImageError('bad_value', 25, `earliest compatible minor revision ${b[25]!.toString(16)}h is not BCD`);
  const header: HpmHeader = {
    formatVersion: b[8]!,
    deviceId: b[9]!,
    manufacturerId: b[10]! | (b[11]! << 8) | ((b[12]! & 0x0f) << 16),
    productId: b[13]! | (b[14]! << 8),
    timeS: (b[15]! | (b[16]! << 8) | (b[17]! << 16) | (b[18]! << 24)) >>> 0,
    capabilities: b[19]!,
    components: b[20]!,
    selfTestTimeout: b[21]!,
    rollbackTimeout: b[22]!,
    inaccessTimeout: b[23]!,
    earliestCompatible: { major: b[24]! & 0x7f, minor: ecMinor },
    firmware: decodeVersion(b, 26),
    oemData: b.slice(HPM_HEADER_LENGTH, headerEnd),
  };
  return { header, next: headerEnd + 1 };
}

function parseAction(b: Uint8Array, at: number, end: number): { action: HpmAction; next: number } {
  need(b.subarray(0, end), at, 3, 'an action record');
  const typeByte = b[at]!;
  const type = ACTION_TYPES[typeByte];
  if (!type) throw new HpmImageError('action_type', at, `action type ${typeByte} (0 backup, 1 prepare, 2 upload)`);
  const shortOk = sum8(b.subarray(at, at + 3)) === 0;
  if (type !== 'upload') {
    if (!shortOk) throw new HpmImageError('action_checksum', at + 2, `${type} action checksum does not match`);
    return { action: { type, components: b[at + 1]! }, next: at + 3 };
  }
  need(b.subarray(0, end), at, HPM_UPLOAD_PREFIX, 'an upload action');
  if (!shortOk && sum8(b.subarray(at, at + HPM_UPLOAD_PREFIX)) !== 0) throw new HpmImageError('action_checksum', at + 2, 'upload action checksum does not match');
  const len = (b[at + 30]! | (b[at + 31]! << 8) | (b[at + 32]! << 16) | (b[at + 33]! << 24)) >>> 0;
  const dataAt = at + HPM_UPLOAD_PREFIX;
  need(b.subarray(0, end), dataAt, len, 'the upload data');
  const desc = Buffer.from(b.subarray(at + 9, at + 9 + HPM_DESCRIPTION_LENGTH)).toString('latin1');
  return {
    action: { type, components: b[at + 1]!, version: decodeVersion(b, at + 3), description: desc.replace(/\0.*$/s, ''), data: b.slice(dataAt, dataAt + len) },
    next: dataAt + len,
  };
}

/**
 * Parses and validates an image: the "PICMGFWU" signature first (a file without it is no image at
 * all, and saying its MD5 does not match would mislead), then the MD5 signature (as ipmitool does), format
 * version, header checksum, every action's type and checksum, and that the actions end exactly
 * where the MD5 begins.
 * @throws HpmImageError naming the failed check
 */
export function parseHpmImage(bytes: Uint8Array): HpmImage {
  if (Buffer.from(bytes.subarray(0, 8)).toString('latin1') !== HPM_SIGNATURE) throw new HpmImageError('signature', 0, `signature is not "${HPM_SIGNATURE}" (not an HPM.1 image)`);
  if (bytes.length < HPM_HEADER_LENGTH + 1 + HPM_MD5_LENGTH) throw new HpmImageError('truncated', bytes.length, `${bytes.length} bytes is shorter than a header and an MD5 signature`);
  const end = bytes.length - HPM_MD5_LENGTH;
  if (!Buffer.from(md5(bytes.subarray(0, end))).equals(Buffer.from(bytes.subarray(end)))) throw new HpmImageError('md5', end, 'MD5 signature does not match the image (corrupt or truncated)');
  const { header, next } = parseHeader(bytes, end);
  const actions: HpmAction[] = [];
  let at = next;
  while (at < end) {
    const r = parseAction(bytes, at, end);
    actions.push(r.action);
    at = r.next;
  }
  return { header, actions };
}

/**
 * True when a target running `current` may take the image: its earliest compatible revision is
 * not above `current` (major first, then minor), the check ipmitool makes against Get Device ID.
 */
export function isUpgradableFrom(header: HpmHeader, current: { major: number; minor: number }): boolean {
  const e = header.earliestCompatible;
  return e.major < current.major || (e.major === current.major && e.minor <= current.minor);
}
