/**
 * The firmware of one emulated component, as it travels in the data of an HPM.1 upload action
 * (what Upload Firmware Block carries to the IPMC; the HPM.1 image around it is image.ts). HPM.1
 * leaves this format to the vendor; atcasim's is:
 *
 *   0 "ATCAFW" 00h 01h (magic and format 1) · 8 component ID · 9 version (major, minor BCD,
 *   4 auxiliary bytes) · 15 body length (4, little-endian) · 19 body · MD5 (16) of everything
 *   before it.
 *
 * The IPMC checks it when the upload is finished (Finish Firmware Upload): a body shorter or
 * longer than its length field (a truncated upload) is an image length mismatch (HPM.1 81h), a
 * wrong magic, component or digest an internal checksum error (82h). The body is filler that
 * names the component and version; nothing runs it. Pure.
 */
import { md5 } from '../crypto.ts';
import { decodeVersion, encodeVersion, type FirmwareVersion } from './image.ts';

/** Magic and format of a component image. */
export const COMPONENT_MAGIC = Uint8Array.of(0x41, 0x54, 0x43, 0x41, 0x46, 0x57, 0x00, 0x01);
/** Bytes before the body. */
export const COMPONENT_HEADER_LENGTH = 19;
const DIGEST_LENGTH = 16;

/** A component image's contents. */
export interface ComponentImage {
  /** HPM.1 component ID 0..7. */
  component: number;
  version: FirmwareVersion;
  body: Uint8Array;
}

/** Why a component image is refused: 'length' → HPM.1 81h, 'checksum' → 82h. */
export class ComponentImageError extends Error {
  constructor(
    readonly fault: 'length' | 'checksum',
    message: string,
  ) {
    super(message);
    this.name = 'ComponentImageError';
  }
}

/**
 * Deterministic filler of `length` bytes naming the component and version (what `atcasim hpm
 * pack` puts in the body).
 */
export function fillerBody(component: string, version: string, length: number): Uint8Array {
  const line = Buffer.from(`atcasim ${component} firmware ${version}\n`, 'latin1');
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = line[i % line.length]!;
  return out;
}

/** Encodes a component image. @throws RangeError for a component outside 0..7 or a bad version */
export function encodeComponentImage(c: ComponentImage): Uint8Array {
  if (!Number.isInteger(c.component) || c.component < 0 || c.component > 7) throw new RangeError(`component ${c.component}: must be 0..7`);
  const n = c.body.length;
  const head = Uint8Array.from([...COMPONENT_MAGIC, c.component, ...encodeVersion(c.version), n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]);
  const out = new Uint8Array(head.length + n + DIGEST_LENGTH);
  out.set(head, 0);
  out.set(c.body, head.length);
  out.set(md5(out.subarray(0, head.length + n)), head.length + n);
  return out;
}

/**
 * Checks and decodes the image uploaded for `component`.
 * @throws ComponentImageError('length') when the bytes are fewer or more than the length field
 *   says (truncated); ComponentImageError('checksum') for a wrong magic, a digest mismatch or an
 *   image of another component
 */
export function parseComponentImage(bytes: Uint8Array, component: number): ComponentImage {
  if (bytes.length < COMPONENT_HEADER_LENGTH + DIGEST_LENGTH) throw new ComponentImageError('length', `${bytes.length} bytes is shorter than a component image header and digest`);
  if (!COMPONENT_MAGIC.every((b, i) => bytes[i] === b)) throw new ComponentImageError('checksum', 'not an atcasim component image (magic)');
  const n = (bytes[15]! | (bytes[16]! << 8) | (bytes[17]! << 16) | (bytes[18]! << 24)) >>> 0;
  const want = COMPONENT_HEADER_LENGTH + n + DIGEST_LENGTH;
  if (bytes.length !== want) throw new ComponentImageError('length', `component image is ${bytes.length} bytes, its header says ${want}`);
  const digestAt = COMPONENT_HEADER_LENGTH + n;
  if (!Buffer.from(md5(bytes.subarray(0, digestAt))).equals(Buffer.from(bytes.subarray(digestAt)))) throw new ComponentImageError('checksum', 'component image digest does not match');
  if (bytes[8] !== component) throw new ComponentImageError('checksum', `image of component ${bytes[8]} uploaded for component ${component}`);
  return { component, version: decodeVersion(bytes, 9), body: bytes.slice(COMPONENT_HEADER_LENGTH, digestAt) };
}
