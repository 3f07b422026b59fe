/**
 * Packet header parser: one frame in, a reused `ParsedPacket` (the `PacketView` of
 * flow-tuple.ts) out. Link layer by the capture's link type, then Ethernet/VLAN/MPLS/PPP down to
 * the first IP header (`outer`, what a switch hashes), through every tunnel (IP-in-IP, GRE,
 * ERSPAN, VXLAN, Geneve) to the innermost IP header (`inner`, what a tunnel endpoint hashes),
 * and into the packet quoted by an ICMP/ICMPv6 error (`quoted`, reversed to the flow's direction).
 *
 * Contract of the hot path: no allocation per packet, no exception, no read outside
 * `buf[start, start + caplen)`. A problem stops decoding where it is found and is recorded once
 * in `ParsedPacket.err` (kind, layer, field, frame offset); `malformed` is set for every kind but
 * `truncated` (capture cut short by the snaplen). One header per file (ethernet.ts, ipv4.ts, …);
 * this file holds the result object, the per-packet state and the dispatch tables.
 *
 * Reported vs captured length (as tshark): every layer knows where its captured bytes end (`cap`)
 * and where its bytes should end per the enclosing length fields (`rep`, e.g. IPv4 total length,
 * UDP length, the frame's original length). A read past `cap` but within `rep` is truncation;
 * past `rep` is malformation. Inside an ICMP error quote every shortfall is truncation (quotes are
 * cut by design) and is not reported for the packet; contradictions (e.g. a UDP length < 8) are.
 *
 * `fields` support: an optional FieldRecorder receives every occurrence of the 18 tshark fields
 * in tshark's order (see field-recorder.ts). Decoding choices follow tshark 4.0's registered
 * dissectors (ethertype, ip.proto, gre.proto, udp.port tables) with heuristics off.
 */
import { FlowTuple } from './flow-tuple.ts';
import type { Dissector } from './dissector.ts';
import type { FieldRecorder } from './field-recorder.ts';
import { PACKET_ERROR_KINDS, PacketErrorKind, type PacketErrorKindValue } from './packet-error.ts';
import { ParsedPacket, clearTuple, copyOuterToInner } from './parsed-packet.ts';
import { LinkType } from './link-type.ts';
import { dissectEthernet, dissectLlc, dissectVlan } from './ethernet.ts';
import { dissectLinuxSll, dissectLinuxSll2 } from './linux-sll.ts';
import { dissectNull, dissectLoop } from './null-loop.ts';
import { dissectPpp, dissectPppoeSession } from './ppp.ts';
import { dissectMpls } from './mpls.ts';
import { dissectIpv4 } from './ipv4.ts';
import { dissectIpv6, isExtensionHeader, walkExtensionHeaders } from './ipv6.ts';
import { dissectTcp } from './tcp.ts';
import { dissectUdp } from './udp.ts';
import { dissectSctp } from './sctp.ts';
import { dissectIcmp, dissectIcmpv6 } from './icmp.ts';
import { dissectCiscoMetadataEth, dissectCiscoMetadataGre, dissectErspan, dissectEtherIp, dissectGre } from './gre.ts';
import { dissectGeneve, dissectVxlan } from './udp-tunnel.ts';

export { MAX_VLAN_TAGS, ParsedPacket } from './parsed-packet.ts';

/** Most nested headers decoded (tunnels, tags, labels); deeper packets get a `too-deep` error. */
export const MAX_DEPTH = 64;
/** Reported end used inside ICMP quotes: nothing there counts as malformed. */
const UNBOUNDED = 0x7fffffff;
const EMPTY = new Uint8Array(0);

/**
 * The parser's implementation of the Dissector contract (dissector.ts): the per-parse state the
 * header functions share and the dispatch on type fields into them. Offsets are absolute indexes
 * into `b`; `base` is the frame's first byte.
 */
class ParseState implements Dissector {
  b: Uint8Array = EMPTY;
  base = 0;
  rec: FieldRecorder | null = null;
  /** >0 while decoding the packet quoted inside an ICMP error. */
  quote = 0;
  /** Reported end of the ICMP message holding the outermost quote. */
  quoteRep = 0;
  /** IP headers met outside quotes. */
  l3Count = 0;
  /** True until the first IP header or inner Ethernet: VLAN tags go to `vlanIds`. */
  outerL2 = true;
  depth = 0;
  /** Target for IP headers nested inside a quote (not exposed). */
  readonly scratch = new FlowTuple();

  constructor(readonly p: ParsedPacket) {}

  /** Records the first error; sets `malformed` or `truncated`. Inside a quote truncation is
   * expected (quotes are cut short by design) and not recorded; contradictions are. */
  fail(kind: PacketErrorKindValue, layer: string, field: string, at: number): void {
    if (this.quote > 0 && kind === PacketErrorKind.TRUNCATED) return;
    const p = this.p;
    if (kind === PacketErrorKind.TRUNCATED) p.truncated = true;
    else p.malformed = true;
    const e = p.err;
    if (e.kind === PacketErrorKind.NONE) {
      e.kind = kind;
      e.layer = layer;
      e.field = field;
      e.offset = at - this.base;
    }
  }

  /** Bytes [at, at + need) are not all captured: truncation if `rep` allows them, else overrun. */
  short(layer: string, field: string, at: number, need: number, rep: number): void {
    this.fail(at + need <= rep ? PacketErrorKind.TRUNCATED : PacketErrorKind.OVERRUN, layer, field, at);
  }

  /** The tuple the next IP header fills: outer, then inner per tunnel level, quoted in a quote. */
  beginL3(at: number): FlowTuple {
    this.outerL2 = false;
    let t: FlowTuple;
    if (this.quote > 0) {
      t = this.quote === 1 && this.p.quoted.l3Offset < 0 ? this.p.quoted : this.scratch;
      if (t === this.scratch) t.reset();
    } else if (this.l3Count++ === 0) {
      t = this.p.outer;
    } else {
      this.p.tunnelDepth++;
      t = this.p.inner;
      clearTuple(t, this.p.iw0, this.p.iw1);
    }
    t.l3Offset = at - this.base;
    return t;
  }

  private enter(at: number): boolean {
    if (++this.depth > MAX_DEPTH) {
      this.depth--;
      this.fail(PacketErrorKind.TOO_DEEP, 'packet', 'nesting', at);
      return false;
    }
    return true;
  }

  /** Dispatch on an ethertype (tshark's "ethertype" table, the entries atcasim decodes). */
  ethertype(type: number, off: number, cap: number, rep: number): void {
    if (!this.enter(off)) return;
    switch (type) {
      case 0x0800:
        dissectIpv4(this, off, cap, rep);
        break;
      case 0x86dd:
        dissectIpv6(this, off, cap, rep);
        break;
      case 0x8100:
      case 0x9100:
        dissectVlan(this, off, cap, rep, false);
        break;
      case 0x88a8:
        dissectVlan(this, off, cap, rep, true);
        break;
      case 0x8847:
      case 0x8848:
        dissectMpls(this, off, cap, rep);
        break;
      case 0x6558:
        this.innerEthernet(off, cap, rep);
        break;
      case 0x8909:
        dissectCiscoMetadataEth(this, off, cap, rep);
        break;
      case 0x8864:
        dissectPppoeSession(this, off, cap, rep);
        break;
      default:
        break;
    }
    this.depth--;
  }

  /** Dispatch on a GRE protocol type (tshark's "gre.proto" table, the entries atcasim decodes). */
  greProto(type: number, flags: number, off: number, cap: number, rep: number): void {
    if (!this.enter(off)) return;
    switch (type) {
      case 0x0800:
      case 0x883e:
        dissectIpv4(this, off, cap, rep);
        break;
      case 0x86dd:
        dissectIpv6(this, off, cap, rep);
        break;
      case 0x6558:
      case 0x6400:
        this.innerEthernet(off, cap, rep);
        break;
      case 0x88be:
      case 0x22eb:
        dissectErspan(this, type, flags, off, cap, rep);
        break;
      case 0x880b:
        dissectPpp(this, off, cap, rep, true);
        break;
      case 0x8909:
        dissectCiscoMetadataGre(this, off, cap, rep);
        break;
      case 0x8847:
      case 0x8848:
        dissectMpls(this, off, cap, rep);
        break;
      default:
        break;
    }
    this.depth--;
  }

  /** Dispatch on an IP protocol number into tuple `t` (tshark's "ip.proto" table subset). */
  ipProto(t: FlowTuple, proto: number, off: number, cap: number, rep: number, fragmented: boolean): void {
    if (isExtensionHeader(proto)) {
      off = walkExtensionHeaders(this, t, proto, off, cap, rep);
      if (off < 0) return;
      proto = t.proto;
      fragmented = fragmented || t.fragment;
    }
    if (t.l4Offset < 0) t.l4Offset = off - this.base;
    if (!this.enter(off)) return;
    switch (proto) {
      case 6:
        dissectTcp(this, t, off, cap, rep);
        break;
      case 17:
        dissectUdp(this, t, off, cap, rep, fragmented, false);
        break;
      case 136:
        // UDP-Lite (RFC 3828): tshark lists its ports as udp.*; not a port-carrying protocol of
        // the FlowTuple contract, so the tuple is left alone.
        this.scratch.reset();
        dissectUdp(this, this.scratch, off, cap, rep, fragmented, true);
        break;
      case 132:
        dissectSctp(this, t, off, cap, rep);
        break;
      case 1:
        dissectIcmp(this, off, cap, rep);
        break;
      case 58:
        dissectIcmpv6(this, off, cap, rep);
        break;
      case 47:
        dissectGre(this, off, cap, rep);
        break;
      case 4:
        dissectIpv4(this, off, cap, rep);
        break;
      case 41:
        dissectIpv6(this, off, cap, rep);
        break;
      case 137:
        dissectMpls(this, off, cap, rep);
        break;
      case 143:
        // Ethernet over IP (RFC 8986 §10.1, SRv6 End.DX2).
        this.innerEthernet(off, cap, rep);
        break;
      case 97:
        dissectEtherIp(this, off, cap, rep);
        break;
      default:
        break;
    }
    this.depth--;
  }

  /** An Ethernet header inside a tunnel (TEB, ERSPAN, VXLAN, Geneve, MPLS pseudo-wire). */
  innerEthernet(off: number, cap: number, rep: number): void {
    this.outerL2 = false;
    dissectEthernet(this, off, cap, rep);
  }

  /** A PPP protocol number (RFC 1661 §2; tshark's "ppp.protocol" table subset). */
  pppProto(proto: number, off: number, cap: number, rep: number): void {
    if (!this.enter(off)) return;
    switch (proto) {
      case 0x0021:
      case 0x0800:
        dissectIpv4(this, off, cap, rep);
        break;
      case 0x0057:
      case 0x86dd:
        dissectIpv6(this, off, cap, rep);
        break;
      case 0x0281:
      case 0x0283:
        dissectMpls(this, off, cap, rep);
        break;
      default:
        break;
    }
    this.depth--;
  }

  /** UDP payload by port, lower port first as tshark tries them (VXLAN 4789, Geneve 6081). */
  udpPayload(sport: number, dport: number, off: number, cap: number, rep: number): void {
    const lo = sport < dport ? sport : dport;
    const hi = sport < dport ? dport : sport;
    const port = isUdpTunnelPort(lo) ? lo : isUdpTunnelPort(hi) && !isKnownUdpPort(lo) ? hi : 0;
    if (port === 0) return;
    if (!this.enter(off)) return;
    if (port === 4789) dissectVxlan(this, off, cap, rep);
    else dissectGeneve(this, off, cap, rep);
    this.depth--;
  }

  /**
   * The packet quoted by an ICMP error starting at `off` (RFC 792, RFC 4443 §2.4): decoded into
   * `quoted` (first quote only), then reversed so it reads in the original flow's direction.
   */
  icmpQuote(off: number, cap: number, rep: number, v6: boolean): void {
    if (off >= cap) {
      // tshark decodes the quote even when nothing of it is left: an error past the reported end.
      if (off >= rep) this.fail(PacketErrorKind.OVERRUN, v6 ? 'icmpv6' : 'icmp', 'quoted_packet', off);
      else this.fail(PacketErrorKind.TRUNCATED, v6 ? 'icmpv6' : 'icmp', 'quoted_packet', off);
      return;
    }
    if (this.quote === 0) {
      this.quoteRep = rep;
      // PacketView: icmpError when the error is carried by the outer IP header, innerIcmpError
      // when it is inside a tunnel; `quoted` in both cases.
      if (this.l3Count <= 1) this.p.icmpError = true;
      else this.p.innerIcmpError = true;
      clearTuple(this.p.quoted, this.p.qw0, this.p.qw1);
    }
    this.quote++;
    if (this.enter(off)) {
      if (v6) dissectIpv6(this, off, cap, UNBOUNDED);
      else dissectIpv4(this, off, cap, UNBOUNDED);
      this.depth--;
    }
    this.quote--;
    if (this.quote === 0) reverse(this.p.quoted);
  }

  /** LLC/SNAP after an 802.3 length field (IEEE 802.2; SNAP with OUI 0 carries an ethertype). */
  llc(off: number, cap: number, rep: number): void {
    dissectLlc(this, off, cap, rep);
  }
}

/** Swaps a tuple's source and destination (addresses and ports). */
function reverse(t: FlowTuple): void {
  for (let i = 0; i < 16; i++) {
    const x = t.src[i]!;
    t.src[i] = t.dst[i]!;
    t.dst[i] = x;
  }
  const s = t.sport;
  t.sport = t.dport;
  t.dport = s;
}

function isUdpTunnelPort(p: number): boolean {
  return p === 4789 || p === 6081;
}

/** Registered UDP ports below the tunnel ports that tshark would try first (common ones). */
function isKnownUdpPort(p: number): boolean {
  return p === 53 || p === 67 || p === 68 || p === 69 || p === 123 || p === 137 || p === 138 || p === 161 || p === 162 || p === 500 || p === 514 || p === 520 || p === 1701 || p === 1812 || p === 2152 || p === 3544 || p === 4341 || p === 4500 || p === 4754;
}

/**
 * Parses one frame. Allocation-free; never throws; never reads outside `buf[start, start+caplen)`.
 *
 * @param out      result object to fill (reused)
 * @param d        per-parse state bound to `out` (reused; see `PacketParser`)
 * @param buf      buffer holding the frame
 * @param start    offset of the frame's first byte in `buf`
 * @param caplen   captured bytes
 * @param linkType LINKTYPE_* value (low 16 bits)
 * @param origLen  original length on the wire, bytes (reported length; max(origLen, caplen) is used)
 * @param rec      optional FieldRecorder (for `atcasim fields`), null on the hot path
 */
function parseInto(d: ParseState, buf: Uint8Array, start: number, caplen: number, linkType: number, origLen: number, rec: FieldRecorder | null): void {
  const p = d.p;
  p.reset(buf, start, caplen, linkType, origLen);
  d.b = buf;
  d.base = start;
  d.rec = rec;
  d.quote = 0;
  d.l3Count = 0;
  d.outerL2 = true;
  d.depth = 0;
  const cap = start + Math.min(caplen, Math.max(0, buf.length - start));
  const rep = start + (origLen > caplen ? origLen : caplen);
  switch (linkType) {
    case LinkType.ETHERNET:
      dissectEthernet(d, start, cap, rep);
      break;
    case LinkType.RAW:
    case LinkType.RAW_12:
      dissectRaw(d, start, cap, rep);
      break;
    case LinkType.IPV4:
      dissectIpv4(d, start, cap, rep);
      break;
    case LinkType.IPV6:
      dissectIpv6(d, start, cap, rep);
      break;
    case LinkType.LINUX_SLL:
      dissectLinuxSll(d, start, cap, rep);
      break;
    case LinkType.LINUX_SLL2:
      dissectLinuxSll2(d, start, cap, rep);
      break;
    case LinkType.NULL:
      dissectNull(d, start, cap, rep);
      break;
    case LinkType.LOOP:
      dissectLoop(d, start, cap, rep);
      break;
    case LinkType.PPP:
      dissectPpp(d, start, cap, rep, false);
      break;
    default:
      d.fail(PacketErrorKind.UNSUPPORTED_LINK_TYPE, 'link', 'linktype', start);
      break;
  }
  if (p.tunnelDepth === 0) copyOuterToInner(p);
}

/**
 * Raw IP link (LINKTYPE_RAW): the version nibble picks IPv4/IPv6. As tshark's packet-raw.c, PPP
 * remnants of old Linux drivers are recognised first (FF 03 at offset 0, 6 or 1; ten zero bytes
 * before an IPv4 header), which makes tshark read 8 bytes before deciding.
 */
function dissectRaw(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + 2 <= cap && b[off] === 0xff && b[off + 1] === 0x03) {
    dissectPpp(d, off, cap, rep, true);
    return;
  }
  if (off + 8 > cap) {
    d.short('raw', 'header', off, 8, rep);
    return;
  }
  if (b[off + 6] === 0xff && b[off + 7] === 0x03) {
    dissectPpp(d, off + 6, cap, rep, true);
    return;
  }
  if (b[off + 1] === 0xff && b[off + 2] === 0x03) {
    dissectPpp(d, off + 1, cap, rep, true);
    return;
  }
  if (off + 10 <= cap) {
    let zero = true;
    for (let i = 0; i < 10; i++) if (b[off + i] !== 0) zero = false;
    if (zero) {
      dissectIpv4(d, off + 10, cap, rep);
      return;
    }
  }
  const v = b[off]! >> 4;
  if (v === 4) dissectIpv4(d, off, cap, rep);
  else if (v === 6) dissectIpv6(d, off, cap, rep);
}

/**
 * A reusable parser: one `ParsedPacket`, its per-parse state and per-kind error counters.
 * Typical use: `const v = parser.parse(bytes, 1, origLen); if (!v.malformed) hash(v.outer)`.
 */
export class PacketParser {
  readonly result = new ParsedPacket();
  /** Packets parsed, by error kind (index PacketErrorKind; NONE = clean packets). */
  readonly counts: Float64Array;
  private readonly d = new ParseState(this.result);

  constructor(counts?: Float64Array) {
    this.counts = counts ?? new Float64Array(PACKET_ERROR_KINDS);
  }

  /**
   * Parses a whole frame (`frame` holds exactly the captured bytes) into `this.result`.
   * @param linkType LINKTYPE_* of the capture interface
   * @param origLen  original length (defaults to frame.length)
   * @param rec      optional field recorder (`atcasim fields`); omit on the hot path
   */
  parse(frame: Uint8Array, linkType: number, origLen = frame.length, rec: FieldRecorder | null = null): ParsedPacket {
    parseInto(this.d, frame, 0, frame.length, linkType, origLen, rec);
    this.counts[this.result.err.kind]!++;
    return this.result;
  }

  /**
   * Parses the frame at `buf[start, start + caplen)` (e.g. straight from a CaptureRecord's
   * `buf`/`offset`) without making a view. Offsets in the result are relative to `start`.
   */
  parseAt(buf: Uint8Array, start: number, caplen: number, linkType: number, origLen: number, rec: FieldRecorder | null = null): ParsedPacket {
    parseInto(this.d, buf, start, caplen, linkType, origLen, rec);
    this.counts[this.result.err.kind]!++;
    return this.result;
  }
}

/**
 * Parses one frame into `out` (convenience for callers that keep their own ParsedPacket).
 * Allocation-free after the first call for a given `out`.
 */
export function parsePacket(out: ParsedPacket, frame: Uint8Array, linkType: number, origLen = frame.length, rec: FieldRecorder | null = null): ParsedPacket {
  let d = dissectors.get(out);
  if (!d) {
    d = new ParseState(out);
    dissectors.set(out, d);
  }
  parseInto(d, frame, 0, frame.length, linkType, origLen, rec);
  return out;
}

const dissectors = new WeakMap<ParsedPacket, ParseState>();

/** Big-endian u16 at b[o] (caller checked bounds). */
export function be16(b: Uint8Array, o: number): number {
  return (b[o]! << 8) | b[o + 1]!;
}

/** Big-endian u32 at b[o] (caller checked bounds). */
export function be32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}
