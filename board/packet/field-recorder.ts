/**
 * Optional side channel of the parser for `atcasim fields`: every occurrence of the 18 multi-valued
 * header fields, in the order the parser meets them (outermost first), formatted as tshark 4.0
 * prints them with `-T fields -E occurrence=a -E aggregator=,` (see ../shared/pcap/README.md §2).
 * The replay hot path parses with no recorder (null) and pays one null check per header.
 *
 * Fields are recorded as tshark adds them: a field whose bytes were not captured is absent, and so
 * is every field after it in the same header (tshark stops a dissector at the first missing byte).
 */
import { addressText } from './flow-tuple.ts';

/** Column ids of the recorded fields, in the CSV column order of `atcasim fields`. */
export const Field = {
  ETH_TYPE: 0,
  VLAN_ID: 1,
  IP_SRC: 2,
  IP_DST: 3,
  IP_PROTO: 4,
  IP_MF: 5,
  IP_FRAG_OFFSET: 6,
  IPV6_SRC: 7,
  IPV6_DST: 8,
  IPV6_NXT: 9,
  TCP_SRCPORT: 10,
  TCP_DSTPORT: 11,
  TCP_FLAGS: 12,
  UDP_SRCPORT: 13,
  UDP_DSTPORT: 14,
  SCTP_SRCPORT: 15,
  SCTP_DSTPORT: 16,
  GRE_PROTO: 17,
} as const;

export type FieldId = (typeof Field)[keyof typeof Field];

/** tshark field names, indexed by FieldId. */
export const FIELD_NAMES: readonly string[] = [
  'eth.type',
  'vlan.id',
  'ip.src',
  'ip.dst',
  'ip.proto',
  'ip.flags.mf',
  'ip.frag_offset',
  'ipv6.src',
  'ipv6.dst',
  'ipv6.nxt',
  'tcp.srcport',
  'tcp.dstport',
  'tcp.flags',
  'udp.srcport',
  'udp.dstport',
  'sctp.srcport',
  'sctp.dstport',
  'gre.proto',
];

/** What the parser calls when a recorder is attached. */
export interface FieldRecorder {
  /** A numeric field (ethertypes, protocols, ports, flags, fragment fields, VLAN IDs). */
  num(field: FieldId, value: number): void;
  /** An address field: 4 bytes (ip.src/dst) or 16 bytes (ipv6.src/dst) at buf[off]. */
  addr(field: FieldId, buf: Uint8Array, off: number): void;
}

const HEX4 = new Set<number>([Field.ETH_TYPE, Field.GRE_PROTO, Field.TCP_FLAGS]);

/**
 * Collects one packet's occurrences as tshark-formatted text: `0x` + 4 lower-case hex digits for
 * eth.type, gre.proto and tcp.flags; dotted quads; RFC 5952 IPv6 text; decimal otherwise.
 * Allocates (strings): for `atcasim fields` and tests, not for replay.
 */
export class TextFieldRecorder implements FieldRecorder {
  readonly values: string[][] = FIELD_NAMES.map(() => []);

  /** Forgets the previous packet's values. */
  clear(): void {
    for (const v of this.values) v.length = 0;
  }

  num(field: FieldId, value: number): void {
    this.values[field]!.push(HEX4.has(field) ? `0x${value.toString(16).padStart(4, '0')}` : String(value));
  }

  addr(field: FieldId, buf: Uint8Array, off: number): void {
    const v6 = field === Field.IPV6_SRC || field === Field.IPV6_DST;
    const a = new Uint8Array(16);
    a.set(buf.subarray(off, off + (v6 ? 16 : 4)));
    this.values[field]!.push(addressText(v6 ? 6 : 4, a));
  }

  /** The comma-joined occurrences of one field ('' when absent). */
  text(field: FieldId): string {
    return this.values[field]!.join(',');
  }
}
