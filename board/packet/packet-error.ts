/**
 * Typed per-packet parse errors. The parser never throws: it records the first problem of a packet
 * in a reused `PacketError` (kind, layer, field, offset) and stops decoding there. Kinds are a
 * small closed set so counters can live in a fixed array (no allocation on the hot path).
 *
 * `truncated` is not malformation: the capture stopped (snaplen) before the header was complete,
 * what tshark reports as "[Packet size limited during capture]". Every other kind means the bytes
 * contradict themselves and sets `malformed` (tshark's `_ws.malformed` plus the headers tshark
 * refuses to decode: bad version, bad header length, bad total length).
 */
import { DecodeError } from '../common/errors.ts';

export const PacketErrorKind = {
  /** No error. */
  NONE: 0,
  /** Captured bytes end inside a header (snaplen); the header's length fields say more follows. */
  TRUNCATED: 1,
  /** A header runs past the length its enclosing header (or the frame) gives it. */
  OVERRUN: 2,
  /** IP version nibble is not what the encapsulation announced. */
  BAD_VERSION: 3,
  /** A header length field is below the protocol minimum (IPv4 IHL < 5, TCP data offset < 5…). */
  BAD_HEADER_LENGTH: 4,
  /** A datagram/segment length field is impossible (IPv4 total length < IHL, UDP length < 8…). */
  BAD_LENGTH: 5,
  /** An option/TLV/chunk inside a header is malformed (IPv6 option past its header, SCTP chunk length…). */
  BAD_OPTION: 6,
  /** The interface's link type is not one atcasim decodes. */
  UNSUPPORTED_LINK_TYPE: 7,
  /** More nested headers (tunnels, tags, labels) than the parser follows (parse.ts MAX_DEPTH). */
  TOO_DEEP: 8,
} as const;

export type PacketErrorKindValue = (typeof PacketErrorKind)[keyof typeof PacketErrorKind];

/** Stable names of the kinds, indexed by value (for counters, logs and `fields` warnings). */
export const PACKET_ERROR_NAMES: readonly string[] = [
  'none',
  'truncated',
  'overrun',
  'bad-version',
  'bad-header-length',
  'bad-length',
  'bad-option',
  'unsupported-link-type',
  'too-deep',
];

/** Number of kinds (size of a counter array). */
export const PACKET_ERROR_KINDS = PACKET_ERROR_NAMES.length;

/** The first problem found in a packet (reused per parser; copy what you keep). */
export class PacketError {
  kind: PacketErrorKindValue = PacketErrorKind.NONE;
  /** Protocol layer, e.g. 'ipv4', 'tcp', 'gre', 'link'. Constant strings: no allocation. */
  layer = '';
  /** Field that is wrong or missing, e.g. 'ihl', 'data_offset', 'total_length'. */
  field = '';
  /** Byte offset of that field from the start of the frame. */
  offset = -1;

  /** Resets to "no error". */
  clear(): void {
    this.kind = PacketErrorKind.NONE;
    this.layer = '';
    this.field = '';
    this.offset = -1;
  }

  /** Stable kind name ('truncated', 'bad-header-length', …). */
  get kindName(): string {
    return PACKET_ERROR_NAMES[this.kind]!;
  }

  /** A DecodeError with the same layer/field/offset, for logs and messages (allocates). */
  toDecodeError(): DecodeError {
    return new DecodeError(this.layer, this.field, this.offset, this.kindName);
  }
}

/** Per-kind packet counters in a fixed array (index = PacketErrorKind value). */
export class PacketErrorCounters {
  readonly counts = new Float64Array(PACKET_ERROR_KINDS);

  /** Counts one packet's error kind (NONE counts good packets). */
  add(kind: PacketErrorKindValue): void {
    this.counts[kind]!++;
  }

  /** Non-zero counters by name, excluding 'none' (allocates; for reports). */
  summary(): Record<string, number> {
    const out: Record<string, number> = {};
    for (let k = 1; k < PACKET_ERROR_KINDS; k++) if (this.counts[k]) out[PACKET_ERROR_NAMES[k]!] = this.counts[k]!;
    return out;
  }
}
