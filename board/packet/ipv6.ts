/**
 * IPv6 header (RFC 8200 §3) and its extension-header chain (RFC 8200 §4): hop-by-hop (0),
 * routing (43), destination options (60), fragment (44) and AH (51, RFC 4302 §2.2: length in
 * 4-octet units minus 2) are walked to the upper-layer protocol. Payload length 0 means an empty
 * payload unless a hop-by-hop Jumbo Payload option (RFC 2675) gives the length. A fragment header
 * with a non-zero offset ends the walk (no L4 header; the tuple's proto is the fragment header's
 * next header). An "atomic" fragment (offset 0, M clear; RFC 6946) is not a fragment.
 * Options are walked as tshark walks them (see walkOptions).
 *
 * Fields recorded in tshark's order: ipv6.nxt (the fixed header's next header), ipv6.src, ipv6.dst.
 */
import { Field } from './field-recorder.ts';
import { PacketErrorKind } from './packet-error.ts';
import type { FlowTuple } from './flow-tuple.ts';
import type { Dissector } from './dissector.ts';

export const IPV6_HEADER_LEN = 40;

/** IPv6 header at `off`; fills the next L3 tuple and continues with the payload. */
export function dissectIpv6(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + 1 > cap) {
    d.short('ipv6', 'version', off, 1, rep);
    return;
  }
  if (b[off]! >> 4 !== 6) {
    d.fail(PacketErrorKind.BAD_VERSION, 'ipv6', 'version', off);
    return;
  }
  const t = d.beginL3(off);
  const rec = d.rec;
  if (off + IPV6_HEADER_LEN > cap) {
    if (rec !== null) {
      if (off + 7 <= cap) rec.num(Field.IPV6_NXT, b[off + 6]!);
      if (off + 24 <= cap) rec.addr(Field.IPV6_SRC, b, off + 8);
    }
    // tshark: a quoted IPv6 header cut by the end of the ICMPv6 message is malformed.
    if (d.quote > 0 && off + IPV6_HEADER_LEN > d.quoteRep) d.fail(PacketErrorKind.BAD_LENGTH, 'ipv6', 'header', off);
    else d.short('ipv6', 'header', off, IPV6_HEADER_LEN, rep);
    return;
  }
  const plen = (b[off + 4]! << 8) | b[off + 5]!;
  let nh = b[off + 6]!;
  if (rec !== null) {
    rec.num(Field.IPV6_NXT, nh);
    rec.addr(Field.IPV6_SRC, b, off + 8);
    rec.addr(Field.IPV6_DST, b, off + 24);
  }
  t.family = 6;
  const s = t.src;
  const dst = t.dst;
  for (let i = 0; i < 16; i++) {
    s[i] = b[off + 8 + i]!;
    dst[i] = b[off + 24 + i]!;
  }
  t.ipLength = IPV6_HEADER_LEN + plen;
  let payRep: number;
  if (plen === 0) {
    payRep = off + IPV6_HEADER_LEN;
    if (nh === 0) {
      const jumbo = jumboLength(b, off + IPV6_HEADER_LEN, cap);
      if (jumbo > 0) {
        payRep = off + IPV6_HEADER_LEN + jumbo;
        t.ipLength = payRep - off;
        if (payRep > rep) payRep = rep;
      }
    }
  } else {
    payRep = off + IPV6_HEADER_LEN + plen;
    if (payRep > rep) payRep = rep;
  }
  const payCap = cap < payRep ? cap : payRep;
  t.proto = nh;
  d.ipProto(t, nh, off + IPV6_HEADER_LEN, payCap, payRep, false);
}

/** True for the IPv6 extension headers walked to reach the upper layer. */
export function isExtensionHeader(nh: number): boolean {
  return nh === 0 || nh === 43 || nh === 44 || nh === 60 || nh === 51;
}

/**
 * Walks extension headers starting with `nh` at `p` (RFC 8200 §4; AH per RFC 4302). Sets
 * `t.proto` to the next header where the walk ends and `t.fragment` for a fragment header with
 * offset != 0 or M set. tshark walks these after an IPv4 header too (its ip.proto table holds
 * them), and so does atcasim.
 * @returns the offset of the upper-layer header, or -1 when decoding stops here (truncated or
 *   malformed header, or a non-first fragment: no upper-layer header follows).
 */
export function walkExtensionHeaders(d: Dissector, t: FlowTuple, nh: number, p: number, cap: number, rep: number): number {
  const b = d.b;
  for (;;) {
    t.proto = nh;
    if (nh === 0 || nh === 60 || nh === 43) {
      const name = nh === 0 ? 'hop_by_hop' : nh === 60 ? 'destination_options' : 'routing';
      if (p + 2 > cap) {
        d.short('ipv6', name, p, 2, rep);
        return -1;
      }
      const len = (b[p + 1]! + 1) << 3;
      if (nh !== 43 && !walkOptions(d, p + 2, p + len, cap, rep)) return -1;
      if (p + len > cap) {
        d.short('ipv6', name, p, len, rep);
        return -1;
      }
      nh = b[p]!;
      p += len;
    } else if (nh === 44) {
      if (p + 8 > cap) {
        d.short('ipv6', 'fragment', p, 8, rep);
        return -1;
      }
      const fo = (b[p + 2]! << 8) | b[p + 3]!;
      if (fo >> 3 !== 0 || (fo & 1) !== 0) t.fragment = true;
      nh = b[p]!;
      p += 8;
      if (fo >> 3 !== 0) {
        t.proto = nh;
        return -1;
      }
    } else if (nh === 51) {
      if (p + 2 > cap) {
        d.short('ah', 'length', p, 2, rep);
        return -1;
      }
      const len = (b[p + 1]! + 2) << 2;
      if (p + len > cap) {
        d.short('ah', 'header', p, len, rep);
        return -1;
      }
      nh = b[p]!;
      p += len;
    } else {
      return p;
    }
  }
}

/**
 * Walks the TLV options of a hop-by-hop/destination-options header, b[s, e) (RFC 8200 §4.2), as
 * tshark does: a fixed-length option with the wrong length — Tunnel Encapsulation Limit (RFC
 * 2473) 1, Router Alert (RFC 2711) 2, Jumbo Payload (RFC 2675) 4, Path MTU (RFC 9268) 4 — is
 * malformed (bad-option) but the walk goes on; an option whose data runs past the header is
 * read anyway, so it stops decoding only when its bytes were not captured (truncated) or lie past
 * the reported end (overrun).
 * @returns false when decoding must stop here
 */
function walkOptions(d: Dissector, s: number, e: number, cap: number, rep: number): boolean {
  const b = d.b;
  let q = s;
  while (q < e) {
    if (q + 1 > cap) {
      d.short('ipv6', 'option_type', q, 1, rep);
      return false;
    }
    const type = b[q]!;
    if (type === 0) {
      q++;
      continue;
    }
    if (q + 2 > cap) {
      d.short('ipv6', 'option_length', q + 1, 1, rep);
      return false;
    }
    const len = b[q + 1]!;
    const want = type === 0x04 ? 1 : type === 0x05 ? 2 : type === 0xc2 || type === 0x30 ? 4 : -1;
    if (want >= 0 && len !== want) d.fail(PacketErrorKind.BAD_OPTION, 'ipv6', 'option_length', q + 1);
    if (q + 2 + len > cap) {
      d.short('ipv6', 'option_data', q + 2, len, rep);
      return false;
    }
    q += 2 + len;
  }
  return true;
}

/** Jumbo Payload length from a hop-by-hop header at `p` (RFC 2675 §2), or 0. Reads below `cap` only. */
function jumboLength(b: Uint8Array, p: number, cap: number): number {
  if (p + 2 > cap) return 0;
  const end = p + ((b[p + 1]! + 1) << 3);
  if (end > cap) return 0;
  let q = p + 2;
  while (q < end) {
    const type = b[q]!;
    if (type === 0) {
      q++;
      continue;
    }
    if (q + 2 > end) return 0;
    const len = b[q + 1]!;
    if (type === 0xc2 && len === 4 && q + 6 <= end) {
      return ((b[q + 2]! << 24) | (b[q + 3]! << 16) | (b[q + 4]! << 8) | b[q + 5]!) >>> 0;
    }
    q += 2 + len;
  }
  return 0;
}
