/**
 * FlowTuple: the L3/L4 identity of one IP header level of a packet, as the switch board hashes it
 * and the processor boards key their sessions. Filled in place by the parser
 * (board/packet/parse.ts) into preallocated storage: reading a packet allocates nothing.
 *
 * Contract shared by board/packet (producer) and board/switch, board/processor (consumers):
 * - `family` 4 or 6; 0 means "no usable IP header at this level" (then the rest is meaningless).
 * - `src`/`dst` are 16-byte arrays owned by the tuple; IPv4 uses bytes 0..3, the rest is zero.
 * - `proto` is the upper-layer protocol: for IPv6 the protocol after the extension-header chain
 *   (hop-by-hop, routing, destination options, fragment, AH are walked), not the fixed header's
 *   next-header; for a non-first IPv6 fragment the fragment header's next-header.
 * - `hasPorts` is true only for TCP (6), UDP (17) and SCTP (132) headers that were actually read:
 *   never on a non-first fragment. `sport`/`dport` are 0 when `hasPorts` is false.
 * - `fragment` is true for any fragment (IPv4 MF set or offset != 0; IPv6 fragment header with
 *   offset != 0 or M set; an IPv6 "atomic" fragment, offset 0 and M clear, is NOT a fragment).
 *   A consistent ECMP hash uses (src, dst, proto) for fragments, so all pieces go the same way,
 *   even though the first fragment carries ports (`hasPorts` stays true there for the `fields`
 *   view); `hashPorts` tells consumers whether ports may enter a hash or a session key.
 * - `tcpFlags` is the 12-bit TCP flags field (FIN 0x001 … AE 0x100) or -1 when there is no
 *   complete TCP flags byte pair.
 * - Offsets are byte offsets into the frame handed to the parser; -1 when absent.
 */
export class FlowTuple {
  family: 0 | 4 | 6 = 0;
  readonly src = new Uint8Array(16);
  readonly dst = new Uint8Array(16);
  proto = -1;
  hasPorts = false;
  sport = 0;
  dport = 0;
  fragment = false;
  tcpFlags = -1;
  /** Offset of this IP header in the frame. */
  l3Offset = -1;
  /** Offset of the L4 (TCP/UDP/SCTP/ICMP/GRE…) header, -1 when none was reached. */
  l4Offset = -1;
  /** Bytes of this IP datagram per its header length fields (IPv4 total length, IPv6 40 + payload
   * length); what a tunnel encapsulation would carry. */
  ipLength = 0;

  /** True when ports may be used for hashing/keying: TCP/UDP/SCTP ports present and not a fragment. */
  get hashPorts(): boolean {
    return this.hasPorts && !this.fragment;
  }

  /** Resets to "no IP header". Does not clear the address bytes beyond what `family` uses later. */
  reset(): void {
    this.family = 0;
    this.src.fill(0);
    this.dst.fill(0);
    this.proto = -1;
    this.hasPorts = false;
    this.sport = 0;
    this.dport = 0;
    this.fragment = false;
    this.tcpFlags = -1;
    this.l3Offset = -1;
    this.l4Offset = -1;
    this.ipLength = 0;
  }

  /** Copies another tuple's values into this one (no allocation). */
  copyFrom(o: FlowTuple): void {
    this.family = o.family;
    this.src.set(o.src);
    this.dst.set(o.dst);
    this.proto = o.proto;
    this.hasPorts = o.hasPorts;
    this.sport = o.sport;
    this.dport = o.dport;
    this.fragment = o.fragment;
    this.tcpFlags = o.tcpFlags;
    this.l3Offset = o.l3Offset;
    this.l4Offset = o.l4Offset;
    this.ipLength = o.ipLength;
  }
}

/** Address text for logs and reports (allocates: not for the hot path). IPv6 per RFC 5952. */
export function addressText(family: 0 | 4 | 6, a: Uint8Array): string {
  if (family === 4) return `${a[0]}.${a[1]}.${a[2]}.${a[3]}`;
  if (family !== 6) return '';
  const w: number[] = [];
  for (let i = 0; i < 16; i += 2) w.push((a[i]! << 8) | a[i + 1]!);
  // RFC 5952 §4.2: compress the longest run (>= 2) of zero words, the first one on a tie.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (w[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (ws: number[]) => ws.map((x) => x.toString(16)).join(':');
  if (bestStart < 0) return hex(w);
  return `${hex(w.slice(0, bestStart))}::${hex(w.slice(bestStart + bestLen))}`;
}

/**
 * What the boards may read of a parsed packet (implemented by the parser's result object,
 * board/packet/parse.ts). Everything is valid until the next packet is parsed into the same
 * object: consumers copy what they keep.
 */
export interface PacketView {
  /** The captured bytes of the frame (a view; reused by the reader for the next packet). */
  readonly frame: Uint8Array;
  /** Original length on the wire (pcap orig_len), bytes. */
  readonly origLen: number;
  /** Link type of the interface the packet came from (low 16 bits, FCS bits stripped). */
  readonly linkType: number;
  /** Offset of the outermost Ethernet header (destination MAC at +0, source MAC at +6), or -1. */
  readonly ethOffset: number;
  /** Number of 802.1Q/802.1ad tags on the outermost Ethernet header (IDs in vlanIds[0..count-1], outer first). */
  readonly vlanCount: number;
  readonly vlanIds: Uint16Array;
  /** First IP header (the switch/transit view). family 0 when the packet has no usable IP header. */
  readonly outer: FlowTuple;
  /** Innermost IP header after decapsulating every tunnel (IP-in-IP, GRE, VXLAN, Geneve…);
   * same values as `outer` when there is no tunnel. Never the header quoted in an ICMP error. */
  readonly inner: FlowTuple;
  /** Number of tunnel levels stripped to reach `inner` (0 = not tunnelled). */
  readonly tunnelDepth: number;
  /** True when `outer` is an ICMP/ICMPv6 error quoting another packet; `quoted` then holds the
   * quoted packet's tuple with src/dst and ports swapped back to the original flow's direction
   * reversed, i.e. as the flow's owner would see the flow (for PMTUD steering). */
  readonly icmpError: boolean;
  readonly quoted: FlowTuple;
  /** True when the parser flagged the packet as malformed (see `error`). */
  readonly malformed: boolean;
  /** Optional (added by the parser, board/packet/parse.ts): true when the capture cut the packet
   * inside a header (snaplen). Not malformation: the headers that were captured are valid. */
  readonly truncated?: boolean;
  /** Optional (added by the parser): true when the ICMP/ICMPv6 error is inside a tunnel (carried
   * by `inner`, not by `outer`); `quoted` then holds the quoted packet's tuple, reversed, as for
   * `icmpError`. */
  readonly innerIcmpError?: boolean;
  /** Optional (added by the parser): the first problem found, or null for a clean packet.
   * `kindName` is one of board/packet/packet-error.ts PACKET_ERROR_NAMES ('truncated',
   * 'overrun', 'bad-version', 'bad-header-length', 'bad-length', 'bad-option',
   * 'unsupported-link-type', 'too-deep'); `offset` is a byte offset into `frame`. */
  readonly error?: PacketViewError | null;
}

/** The typed error of a PacketView (see PacketView.error). */
export interface PacketViewError {
  readonly kind: number;
  readonly kindName: string;
  /** Protocol layer, e.g. 'ipv4', 'tcp'. */
  readonly layer: string;
  /** Field that is wrong or missing, e.g. 'ihl'. */
  readonly field: string;
  /** Byte offset of that field in the frame. */
  readonly offset: number;
}
