/**
 * FRU inventory data: the binary format of the IPMI Platform Management FRU Information Storage
 * Definition v1.0 (rev 1.3): 8-byte common header (§8), chassis info area (§10), board info area
 * (§11), product info area (§12), type/length bytes (§13), zero checksums, areas padded to
 * multiples of 8 bytes. Plus FruStorage, the byte-addressed FRU device behind Get FRU Inventory
 * Area Info / Read FRU Data / Write FRU Data (IPMI v2.0 §34.1–34.3).
 * Byte layout checked against the FRU images of ../shared/ipmi/sim/atca.emu and by FreeIPMI's
 * `ipmi-fru --fru-file` in the unit tests.
 */
import { DecodeError } from '../../board/common/errors.ts';

/** Chassis info area fields (FRU spec §10). `type` is the SMBIOS chassis type code, e.g. 17h rack mount chassis. */
export interface FruChassisArea {
  type: number;
  partNumber: string;
  serial: string;
  custom?: string[];
}

/** Board info area fields (FRU spec §11). `mfgMinutes` = minutes since 1996-01-01 00:00 UTC (0 = unspecified). */
export interface FruBoardArea {
  language?: number;
  mfgMinutes: number;
  manufacturer: string;
  product: string;
  serial: string;
  partNumber: string;
  fileId: string;
  custom?: string[];
}

/** Product info area fields (FRU spec §12). */
export interface FruProductArea {
  language?: number;
  manufacturer: string;
  name: string;
  partNumber: string;
  version: string;
  serial: string;
  assetTag: string;
  fileId: string;
  custom?: string[];
}

/** A FRU inventory as decoded or to be encoded; absent areas are not present in the image. */
export interface FruInventory {
  chassis?: FruChassisArea;
  board?: FruBoardArea;
  product?: FruProductArea;
}

/** Unix ms of the FRU date epoch, 1996-01-01T00:00:00Z (FRU spec §11, board mfg date/time). */
export const FRU_EPOCH_MS = Date.UTC(1996, 0, 1);

/** Minutes since 1996-01-01 UTC for an ISO-8601 date. @throws RangeError on an invalid or pre-1996 date. */
export function fruMinutesFromIso(iso: string): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new RangeError(`invalid date "${iso}"`);
  const min = Math.floor((ms - FRU_EPOCH_MS) / 60000);
  if (min < 0 || min > 0xffffff) throw new RangeError(`date "${iso}" outside 1996-01-01 … 2027-11-24 (3-byte minutes)`);
  return min;
}

/** ISO-8601 text of FRU minutes (UTC). */
export function fruMinutesToIso(min: number): string {
  return new Date(FRU_EPOCH_MS + min * 60000).toISOString();
}

const END_OF_FIELDS = 0xc1;

/**
 * Type/length byte + bytes of an 8-bit ASCII + Latin-1 field (FRU spec §13, type 11b).
 * @throws RangeError for strings longer than 63 bytes, non-Latin-1 text, or exactly one character
 * (C1h is reserved as the end-of-fields marker).
 */
export function encodeField(s: string): number[] {
  if ([...s].some((c) => c.charCodeAt(0) > 0xff)) throw new RangeError(`FRU field "${s}" is not Latin-1`);
  const b = [...Buffer.from(s, 'latin1')];
  if (b.length > 63) throw new RangeError(`FRU field "${s}" longer than 63 bytes`);
  if (b.length === 1) throw new RangeError(`FRU field "${s}": one-character fields cannot be encoded (C1h marks the end of fields)`);
  return [0xc0 | b.length, ...b];
}

function checksum(bytes: number[]): number {
  let s = 0;
  for (const b of bytes) s = (s + b) & 0xff;
  return (0x100 - s) & 0xff;
}

function finishArea(prefix: number[], fields: number[]): number[] {
  const body = [...prefix, ...fields, END_OF_FIELDS];
  const len = Math.ceil((body.length + 1) / 8) * 8;
  while (body.length < len - 1) body.push(0);
  body[1] = len / 8;
  body.push(checksum(body));
  return body;
}

/** Encodes the chassis info area (§10). */
export function encodeChassisArea(a: FruChassisArea): number[] {
  if (!Number.isInteger(a.type) || a.type < 0 || a.type > 0xff) throw new RangeError(`chassis type ${a.type} out of range`);
  return finishArea([0x01, 0, a.type], [...encodeField(a.partNumber), ...encodeField(a.serial), ...(a.custom ?? []).flatMap(encodeField)]);
}

/** Encodes the board info area (§11). */
export function encodeBoardArea(a: FruBoardArea): number[] {
  const m = a.mfgMinutes;
  if (!Number.isInteger(m) || m < 0 || m > 0xffffff) throw new RangeError(`board mfg minutes ${m} out of range`);
  return finishArea(
    [0x01, 0, a.language ?? 0, m & 0xff, (m >> 8) & 0xff, (m >> 16) & 0xff],
    [
      ...encodeField(a.manufacturer),
      ...encodeField(a.product),
      ...encodeField(a.serial),
      ...encodeField(a.partNumber),
      ...encodeField(a.fileId),
      ...(a.custom ?? []).flatMap(encodeField),
    ],
  );
}

/** Encodes the product info area (§12). */
export function encodeProductArea(a: FruProductArea): number[] {
  return finishArea(
    [0x01, 0, a.language ?? 0],
    [
      ...encodeField(a.manufacturer),
      ...encodeField(a.name),
      ...encodeField(a.partNumber),
      ...encodeField(a.version),
      ...encodeField(a.serial),
      ...encodeField(a.assetTag),
      ...encodeField(a.fileId),
      ...(a.custom ?? []).flatMap(encodeField),
    ],
  );
}

/**
 * Encodes a complete FRU image: common header (§8: version 01h, internal use, chassis, board,
 * product, multirecord offsets in 8-byte units, pad, checksum), then the areas in that order.
 * @throws RangeError on unencodable fields or an image over 2040 bytes (offsets are 8-bit × 8).
 */
export function encodeFruInventory(inv: FruInventory): Uint8Array {
  const areas: Array<[number, number[]]> = [];
  let at = 8;
  const offsets = [0, 0, 0, 0, 0];
  const add = (slot: number, bytes: number[] | undefined) => {
    if (!bytes) return;
    offsets[slot] = at / 8;
    areas.push([slot, bytes]);
    at += bytes.length;
  };
  add(1, inv.chassis && encodeChassisArea(inv.chassis));
  add(2, inv.board && encodeBoardArea(inv.board));
  add(3, inv.product && encodeProductArea(inv.product));
  if (at / 8 > 0xff) throw new RangeError(`FRU image of ${at} bytes is too large for 8-bit area offsets`);
  const head = [0x01, ...offsets, 0x00];
  head.push(checksum(head));
  return Uint8Array.from([...head, ...areas.flatMap(([, b]) => b)]);
}

/** Decodes one type/length field at `pos`; returns undefined at the end-of-fields marker. */
function decodeField(buf: Uint8Array, pos: number, limit: number, area: string): { text: string; next: number } | undefined {
  if (pos >= limit) throw new DecodeError('fru', `${area}.field`, pos, 'area ends without the end-of-fields marker C1h');
  const tl = buf[pos]!;
  if (tl === END_OF_FIELDS) return undefined;
  const type = tl >> 6;
  const n = tl & 0x3f;
  if (pos + 1 + n > limit) throw new DecodeError('fru', `${area}.field`, pos, `field length ${n} runs past the area`);
  const data = buf.subarray(pos + 1, pos + 1 + n);
  let text: string;
  switch (type) {
    case 0: // binary
      text = Buffer.from(data).toString('hex');
      break;
    case 1: // BCD plus
      text = [...data].flatMap((b) => [b >> 4, b & 0xf]).map((d) => '0123456789 -.???'[d]).join('');
      break;
    case 2: {
      // 6-bit ASCII packed, LSB first
      let bits = 0;
      let acc = 0;
      const chars: string[] = [];
      for (const b of data) {
        acc |= b << bits;
        bits += 8;
        while (bits >= 6) {
          chars.push(String.fromCharCode(0x20 + (acc & 0x3f)));
          acc >>= 6;
          bits -= 6;
        }
      }
      text = chars.join('');
      break;
    }
    default:
      text = Buffer.from(data).toString('latin1');
  }
  return { text, next: pos + 1 + n };
}

function areaBounds(buf: Uint8Array, start: number, name: string): { end: number } {
  if (start + 2 > buf.length) throw new DecodeError('fru', `${name}.header`, start, 'area header past the end of the image');
  const ver = buf[start]!;
  if (ver !== 0x01) throw new DecodeError('fru', `${name}.version`, start, `expected format version 01h, got ${ver.toString(16)}h`);
  const len = buf[start + 1]! * 8;
  if (len === 0 || start + len > buf.length) throw new DecodeError('fru', `${name}.length`, start + 1, `area length ${len} runs past the image (${buf.length} bytes)`);
  let s = 0;
  for (let i = start; i < start + len; i++) s = (s + buf[i]!) & 0xff;
  if (s !== 0) throw new DecodeError('fru', `${name}.checksum`, start + len - 1, 'area checksum does not sum to zero');
  return { end: start + len };
}

function fields(buf: Uint8Array, pos: number, end: number, name: string): string[] {
  const out: string[] = [];
  for (;;) {
    const f = decodeField(buf, pos, end, name);
    if (!f) return out;
    out.push(f.text);
    pos = f.next;
  }
}

/**
 * Decodes a FRU image (inverse of encodeFruInventory; also reads BCD-plus, 6-bit ASCII and binary
 * fields written by other tools).
 * @throws DecodeError('fru', …) on a bad header checksum, version, area length or area checksum.
 */
export function decodeFruInventory(buf: Uint8Array): FruInventory {
  if (buf.length < 8) throw new DecodeError('fru', 'common_header', 0, `need 8 bytes, have ${buf.length}`);
  if (buf[0] !== 0x01) throw new DecodeError('fru', 'common_header.version', 0, `expected 01h, got ${buf[0]!.toString(16)}h`);
  let s = 0;
  for (let i = 0; i < 8; i++) s = (s + buf[i]!) & 0xff;
  if (s !== 0) throw new DecodeError('fru', 'common_header.checksum', 7, 'header checksum does not sum to zero');
  const inv: FruInventory = {};
  const chassisAt = buf[2]! * 8;
  const boardAt = buf[3]! * 8;
  const productAt = buf[4]! * 8;
  if (chassisAt) {
    const { end } = areaBounds(buf, chassisAt, 'chassis');
    const f = fields(buf, chassisAt + 3, end - 1, 'chassis');
    inv.chassis = { type: buf[chassisAt + 2]!, partNumber: f[0] ?? '', serial: f[1] ?? '', custom: f.slice(2) };
  }
  if (boardAt) {
    const { end } = areaBounds(buf, boardAt, 'board');
    const f = fields(buf, boardAt + 6, end - 1, 'board');
    inv.board = {
      language: buf[boardAt + 2]!,
      mfgMinutes: buf[boardAt + 3]! | (buf[boardAt + 4]! << 8) | (buf[boardAt + 5]! << 16),
      manufacturer: f[0] ?? '',
      product: f[1] ?? '',
      serial: f[2] ?? '',
      partNumber: f[3] ?? '',
      fileId: f[4] ?? '',
      custom: f.slice(5),
    };
  }
  if (productAt) {
    const { end } = areaBounds(buf, productAt, 'product');
    const f = fields(buf, productAt + 3, end - 1, 'product');
    inv.product = {
      language: buf[productAt + 2]!,
      manufacturer: f[0] ?? '',
      name: f[1] ?? '',
      partNumber: f[2] ?? '',
      version: f[3] ?? '',
      serial: f[4] ?? '',
      assetTag: f[5] ?? '',
      fileId: f[6] ?? '',
      custom: f.slice(7),
    };
  }
  return inv;
}

/** Default FRU device size in bytes (room for a user to write larger areas). */
export const DEFAULT_FRU_SIZE = 1024;

/** Why a FRU data access was refused (IPMI layer: out_of_range → C9h "parameter out of range"). */
export type FruRefusal = 'out_of_range';

/**
 * A FRU inventory device addressed by byte offset (Get FRU Inventory Area Info / Read FRU Data /
 * Write FRU Data, IPMI v2.0 §34). Unused bytes read as FFh (a blank EEPROM). Writes are applied
 * as given — a write that breaks a checksum is stored as written, like a real EEPROM; `inventory()`
 * then reports the decode error.
 */
export class FruStorage {
  private data: Uint8Array;

  /** @param image initial bytes; @param size device size (≥ image length, ≤ 65535). */
  constructor(image: Uint8Array, size = Math.max(DEFAULT_FRU_SIZE, image.length)) {
    if (size < image.length || size > 0xffff) throw new RangeError(`FRU size ${size} invalid for a ${image.length}-byte image`);
    this.data = new Uint8Array(size).fill(0xff);
    this.data.set(image);
  }

  /** Device size in bytes (Get FRU Inventory Area Info; access by bytes). */
  get size(): number {
    return this.data.length;
  }

  /** A copy of every byte. */
  bytes(): Uint8Array {
    return Uint8Array.from(this.data);
  }

  /** Read FRU Data (§34.2): up to `count` bytes from `offset` (fewer at the end of the device). */
  read(offset: number, count: number): { ok: true; data: Uint8Array } | { ok: false; reason: FruRefusal } {
    if (!Number.isInteger(offset) || !Number.isInteger(count) || offset < 0 || count < 0 || offset >= this.data.length) {
      return { ok: false, reason: 'out_of_range' };
    }
    return { ok: true, data: this.data.slice(offset, Math.min(this.data.length, offset + count)) };
  }

  /** Write FRU Data (§34.3): writes `bytes` at `offset`; refuses writes past the end. @returns bytes written. */
  write(offset: number, bytes: Uint8Array): { ok: true; written: number } | { ok: false; reason: FruRefusal } {
    if (!Number.isInteger(offset) || offset < 0 || offset + bytes.length > this.data.length) return { ok: false, reason: 'out_of_range' };
    this.data.set(bytes, offset);
    return { ok: true, written: bytes.length };
  }

  /** The decoded inventory, or the DecodeError describing why the image is invalid. */
  inventory(): { ok: true; inventory: FruInventory } | { ok: false; error: DecodeError } {
    try {
      return { ok: true, inventory: decodeFruInventory(this.data) };
    } catch (e) {
      if (e instanceof DecodeError) return { ok: false, error: e };
      throw e;
    }
  }
}
