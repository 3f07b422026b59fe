/**
 * The contract between the packet parser (parse.ts) and the header decoders (ethernet.ts,
 * ipv4.ts, gre.ts, …, one header per file): the per-parse state they share and the dispatch on
 * type fields (ethertype, IP protocol, GRE protocol, PPP protocol, UDP port) they call to decode
 * the next header. The parser implements it and imports the decoders; the decoders know only
 * this interface, so no decoder imports the parser.
 *
 * Offsets are absolute indexes into `b`; `base` is the frame's first byte. `cap` is where the
 * captured bytes of a layer end, `rep` where its bytes should end per the enclosing length
 * fields (parse.ts explains truncation vs malformation).
 */
import type { FieldRecorder } from './field-recorder.ts';
import type { FlowTuple } from './flow-tuple.ts';
import type { PacketErrorKindValue } from './packet-error.ts';
import type { ParsedPacket } from './parsed-packet.ts';

/** Per-parse state and next-header dispatch, as the header decoders see them. */
export interface Dissector {
  /** The result being filled. */
  readonly p: ParsedPacket;
  /** Buffer holding the frame. */
  b: Uint8Array;
  /** Offset of the frame's first byte in `b`. */
  base: number;
  /** Field recorder of `atcasim fields`, null on the hot path. */
  rec: FieldRecorder | null;
  /** >0 while decoding the packet quoted inside an ICMP error. */
  quote: number;
  /** Reported end of the ICMP message holding the outermost quote. */
  quoteRep: number;
  /** IP headers met outside quotes. */
  l3Count: number;
  /** True until the first IP header or inner Ethernet: VLAN tags go to `vlanIds`. */
  outerL2: boolean;
  /** Nesting depth of the header being decoded. */
  depth: number;
  /** Target for IP headers nested inside a quote (not exposed). */
  readonly scratch: FlowTuple;

  /** Records the first error; sets `malformed` or `truncated` (truncation inside a quote is expected and not recorded). */
  fail(kind: PacketErrorKindValue, layer: string, field: string, at: number): void;
  /** Bytes [at, at + need) are not all captured: truncation if `rep` allows them, else overrun. */
  short(layer: string, field: string, at: number, need: number, rep: number): void;
  /** The tuple the next IP header at `at` fills: outer, then inner per tunnel level, quoted in a quote. */
  beginL3(at: number): FlowTuple;
  /** Decodes the header after an ethertype (tshark's "ethertype" table, the entries atcasim decodes). */
  ethertype(type: number, off: number, cap: number, rep: number): void;
  /** Decodes the header after a GRE protocol type (tshark's "gre.proto" table subset). */
  greProto(type: number, flags: number, off: number, cap: number, rep: number): void;
  /** Decodes the header after an IP protocol number into tuple `t` (IPv6 extension headers first). */
  ipProto(t: FlowTuple, proto: number, off: number, cap: number, rep: number, fragmented: boolean): void;
  /** Decodes an Ethernet header inside a tunnel (TEB, ERSPAN, VXLAN, Geneve, MPLS pseudo-wire). */
  innerEthernet(off: number, cap: number, rep: number): void;
  /** Decodes the header after a PPP protocol number (RFC 1661 §2; tshark's "ppp.protocol" subset). */
  pppProto(proto: number, off: number, cap: number, rep: number): void;
  /** Decodes a UDP payload by port (VXLAN 4789, Geneve 6081; lower port first, as tshark). */
  udpPayload(sport: number, dport: number, off: number, cap: number, rep: number): void;
  /** Decodes the packet quoted by an ICMP/ICMPv6 error at `off` into `quoted`, in the flow's direction. */
  icmpQuote(off: number, cap: number, rep: number, v6: boolean): void;
  /** Decodes LLC/SNAP after an 802.3 length field (IEEE 802.2). */
  llc(off: number, cap: number, rep: number): void;
}
