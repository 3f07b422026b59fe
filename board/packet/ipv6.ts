/**
 * IPv6 header (RFC 8200 §3) and its extension-header chain (RFC 8200 §4): hop-by-hop (0),
 * routing (43), destination options (60), fragment (44) and AH (51, RFC 4302 §2.2: length in
 * 4-octet units minus 2) are walked to the upper-layer protocol. Payload length 0 means an empty
 * payload unless a hop-by-hop Jumbo Payload option (RFC 2675) gives the length. A fragment header
 * with a non-zero offset ends the walk (no L4 header; the tuple's proto is the fragment header's
 * next header). An "atomic" fragment (offset 0, M clear; RFC 6946) is not a fragment.
 * Options inside hop-by-hop/destination-options headers must fit their header (else bad-option).
 *
 * Fields recorded in tshark's order: ipv6.nxt (the fixed header's next header), ipv6.src, ipv6.dst.
 */
import { Field } from './field-recorder.ts';
import { PacketErrorKind } from './packet-error.ts';
import type { Dissector } from './parse.ts';

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
    d.short('ipv6', 'header', off, IPV6_HEADER_LEN, rep);
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
  let p = off + IPV6_HEADER_LEN;
  for (;;) {
    if (nh === 0 || nh === 60 || nh === 43) {
      const name = nh === 0 ? 'hop_by_hop' : nh === 60 ? 'destination_options' : 'routing';
      if (p + 2 > payCap) {
        t.proto = nh;
        d.short('ipv6', name, p, 2, payRep);
        return;
      }
      const len = (b[p + 1]! + 1) << 3;
      if (p + len > payCap) {
        t.proto = nh;
        d.short('ipv6', name, p, len, payRep);
        return;
      }
      if (nh !== 43 && !optionsFit(b, p + 2, p + len)) {
        t.proto = nh;
        d.fail(PacketErrorKind.BAD_OPTION, 'ipv6', 'option_length', p + 2);
        return;
      }
      nh = b[p]!;
      p += len;
    } else if (nh === 44) {
      if (p + 8 > payCap) {
        t.proto = nh;
        d.short('ipv6', 'fragment', p, 8, payRep);
        return;
      }
      const fo = (b[p + 2]! << 8) | b[p + 3]!;
      if (fo >> 3 !== 0 || (fo & 1) !== 0) t.fragment = true;
      nh = b[p]!;
      p += 8;
      if (fo >> 3 !== 0) {
        t.proto = nh;
        return;
      }
    } else if (nh === 51) {
      if (p + 2 > payCap) {
        t.proto = nh;
        d.short('ipv6', 'ah', p, 2, payRep);
        return;
      }
      const len = (b[p + 1]! + 2) << 2;
      if (p + len > payCap) {
        t.proto = nh;
        d.short('ipv6', 'ah', p, len, payRep);
        return;
      }
      nh = b[p]!;
      p += len;
    } else {
      break;
    }
  }
  t.proto = nh;
  d.ipProto(t, nh, p, payCap, payRep, t.fragment);
}

/** True when the TLV options in b[s, e) each fit before `e` (RFC 8200 §4.2; Pad1 is one byte). */
function optionsFit(b: Uint8Array, s: number, e: number): boolean {
  let q = s;
  while (q < e) {
    if (b[q] === 0) {
      q++;
      continue;
    }
    if (q + 2 > e) return false;
    q += 2 + b[q + 1]!;
    if (q > e) return false;
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
