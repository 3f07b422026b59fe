/**
 * ICMP (RFC 792) and ICMPv6 (RFC 4443). Error messages carry the offending packet after their
 * 8-byte header — ICMP destination unreachable (3), source quench (4), redirect (5), time
 * exceeded (11), parameter problem (12); ICMPv6 destination unreachable (1), packet too big (2),
 * time exceeded (3), parameter problem (4) — and an ICMPv6 redirect (137, RFC 4861 §4.5) carries
 * it in its Redirected Header option (type 4). That packet is NOT a tunnel: it is decoded into
 * the `quoted` tuple (reversed to the original flow's direction), never into `inner`.
 * The 8-byte header (type, code, checksum, 4 type-specific bytes) must be present, as tshark
 * requires. No fields of ICMP itself are recorded; the quoted headers' fields are.
 */
import type { Dissector } from './dissector.ts';

export const ICMP_HEADER_LEN = 8;

/** ICMP message at `off`. */
export function dissectIcmp(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + ICMP_HEADER_LEN > cap) {
    d.short('icmp', 'header', off, ICMP_HEADER_LEN, rep);
    return;
  }
  const type = b[off]!;
  if (type !== 3 && type !== 4 && type !== 5 && type !== 11 && type !== 12) return;
  d.icmpQuote(off + ICMP_HEADER_LEN, cap, rep, false);
}

/** ICMPv6 message at `off`. */
export function dissectIcmpv6(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + ICMP_HEADER_LEN > cap) {
    d.short('icmpv6', 'header', off, ICMP_HEADER_LEN, rep);
    return;
  }
  const type = b[off]!;
  // Neighbour discovery and MLD messages have longer fixed parts (RFC 4861 §4, RFC 2710 §3).
  const min = type === 134 ? 16 : type === 135 || type === 136 || (type >= 130 && type <= 132) ? 24 : type === 137 ? 40 : ICMP_HEADER_LEN;
  if (off + min > cap) {
    d.short('icmpv6', 'body', off + ICMP_HEADER_LEN, min - ICMP_HEADER_LEN, rep);
    return;
  }
  if (type >= 1 && type <= 4) {
    d.icmpQuote(off + ICMP_HEADER_LEN, cap, rep, true);
    return;
  }
  if (type === 137) {
    // Redirect: 4 reserved bytes, target and destination addresses, then ND options.
    let p = off + 40;
    while (p + 2 <= cap) {
      const len = b[p + 1]! << 3;
      if (len === 0) return;
      if (b[p] === 4) {
        if (p + 8 < cap) d.icmpQuote(p + 8, p + len < cap ? p + len : cap, p + len < rep ? p + len : rep, true);
        return;
      }
      p += len;
    }
  }
}
