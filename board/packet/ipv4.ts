/**
 * IPv4 header (RFC 791 §3.1): version 4, IHL >= 5 words, total length >= IHL (0 = TSO capture:
 * the frame's length is used, as tshark does), fragments (RFC 791 MF flag and 13-bit offset in
 * 8-octet units), options skipped by IHL (the L4 offset comes from IHL, never from walking the
 * options). The payload is decoded only for unfragmented datagrams and first fragments (offset
 * 0): later fragments carry no L4 header. A version-6 header under an IPv4 code point is decoded
 * as IPv6 (tshark's ip dissector hands it over the same way).
 *
 * Fields recorded in tshark's order: ip.flags.mf, ip.frag_offset (raw 8-octet units), ip.proto,
 * ip.src, ip.dst — each only if its bytes were captured. An unusable header (bad version, IHL < 5,
 * total length < IHL) records none and leaves the tuple at family 0.
 */
import { Field } from './field-recorder.ts';
import { PacketErrorKind } from './packet-error.ts';
import type { Dissector } from './dissector.ts';
import { dissectIpv6 } from './ipv6.ts';

export const IPV4_MIN_HEADER_LEN = 20;

/** IPv4 header at `off`; fills the next L3 tuple and continues with the payload. */
export function dissectIpv4(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + 1 > cap) {
    d.short('ipv4', 'version', off, 1, rep);
    return;
  }
  const vhl = b[off]!;
  if (vhl >> 4 !== 4) {
    if (vhl >> 4 === 6) {
      dissectIpv6(d, off, cap, rep);
      return;
    }
    d.fail(PacketErrorKind.BAD_VERSION, 'ipv4', 'version', off);
    return;
  }
  const hlen = (vhl & 15) << 2;
  if (hlen < IPV4_MIN_HEADER_LEN) {
    d.fail(PacketErrorKind.BAD_HEADER_LENGTH, 'ipv4', 'ihl', off);
    return;
  }
  if (off + 4 > cap) {
    d.short('ipv4', 'total_length', off + 2, 2, rep);
    return;
  }
  const tl = (b[off + 2]! << 8) | b[off + 3]!;
  let ipRep = rep;
  if (tl !== 0) {
    if (tl < hlen) {
      d.fail(PacketErrorKind.BAD_LENGTH, 'ipv4', 'total_length', off + 2);
      return;
    }
    if (off + tl < rep) ipRep = off + tl;
  }
  const ipCap = cap < ipRep ? cap : ipRep;
  const t = d.beginL3(off);
  const rec = d.rec;
  if (off + IPV4_MIN_HEADER_LEN > ipCap) {
    if (rec !== null) {
      if (off + 8 <= ipCap) {
        rec.num(Field.IP_MF, (b[off + 6]! >> 5) & 1);
        rec.num(Field.IP_FRAG_OFFSET, ((b[off + 6]! << 8) | b[off + 7]!) & 0x1fff);
      }
      if (off + 10 <= ipCap) rec.num(Field.IP_PROTO, b[off + 9]!);
      if (off + 16 <= ipCap) rec.addr(Field.IP_SRC, b, off + 12);
    }
    d.short('ipv4', 'header', off, IPV4_MIN_HEADER_LEN, ipRep);
    return;
  }
  const fw = (b[off + 6]! << 8) | b[off + 7]!;
  const fragOff = fw & 0x1fff;
  const proto = b[off + 9]!;
  if (rec !== null) {
    rec.num(Field.IP_MF, (fw >> 13) & 1);
    rec.num(Field.IP_FRAG_OFFSET, fragOff);
    rec.num(Field.IP_PROTO, proto);
    rec.addr(Field.IP_SRC, b, off + 12);
    rec.addr(Field.IP_DST, b, off + 16);
  }
  t.family = 4;
  const s = t.src;
  const dst = t.dst;
  s[0] = b[off + 12]!;
  s[1] = b[off + 13]!;
  s[2] = b[off + 14]!;
  s[3] = b[off + 15]!;
  dst[0] = b[off + 16]!;
  dst[1] = b[off + 17]!;
  dst[2] = b[off + 18]!;
  dst[3] = b[off + 19]!;
  t.proto = proto;
  t.ipLength = tl;
  t.fragment = (fw & 0x2000) !== 0 || fragOff !== 0;
  if (off + hlen > ipCap) {
    d.short('ipv4', 'options', off + IPV4_MIN_HEADER_LEN, hlen - IPV4_MIN_HEADER_LEN, ipRep);
    return;
  }
  if (fragOff !== 0) return;
  const l4 = off + hlen;
  if (l4 >= ipRep) return;
  d.ipProto(t, proto, l4, ipCap, ipRep, t.fragment);
}
