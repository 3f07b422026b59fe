/**
 * Where the parts of one IP datagram lie in a frame the appliance is about to rewrite: the IP
 * header, the upper-layer header and its length, and whether that header is present (IPv4:
 * unfragmented or first fragment, RFC 791 §3.2; IPv6: after the extension-header chain —
 * hop-by-hop 0, routing 43, fragment 44, destination options 60, AH 51 — RFC 8200 §4).
 * The dissector (parse.ts) records what tshark shows of a capture; this locator only answers the
 * rewriting code's question, in one reused result object (no allocation).
 */

/** The result of `locateIp` (reused by the caller). */
export class IpLayout {
  /** 4 or 6; 0 when there is no usable IP header. */
  family: 0 | 4 | 6 = 0;
  /** Offset of the IP header. */
  l3 = -1;
  /** Bytes of the IP header (IPv4 IHL × 4; IPv6 40 + extension headers). */
  l3Len = 0;
  /** Upper-layer protocol (after IPv6 extension headers). */
  proto = -1;
  /** Offset of the upper-layer header; −1 when the datagram carries none here (a later fragment). */
  l4 = -1;
  /** Upper-layer bytes per the IP length fields (for the pseudo-header). */
  l4Len = 0;
  /** Offset one past the datagram per its length field, or where the bytes stop when it was
   * located with `cut` (a quote) and is shorter. */
  end = 0;
  /** True for any fragment (IPv4 MF or offset; IPv6 fragment header with M or offset). */
  fragment = false;
  /** IPv4 DF bit (always true for IPv6: routers never fragment it). */
  dontFragment = false;
}

/**
 * Fills `out` for the IP datagram at `l3` of `frame[0..len)`.
 * @param cut true for a datagram quoted in an ICMP error, which may stop short of its length
 *   fields (`end` is then where the bytes stop)
 * @returns false when the header is short or inconsistent (the caller drops the frame)
 */
export function locateIp(frame: Uint8Array, l3: number, len: number, out: IpLayout, cut = false): boolean {
  out.family = 0;
  out.l4 = -1;
  out.fragment = false;
  if (l3 < 0 || l3 + 1 > len) return false;
  const v = frame[l3]! >> 4;
  if (v === 4) {
    if (l3 + 20 > len) return false;
    const hl = (frame[l3]! & 15) << 2;
    const tl = (frame[l3 + 2]! << 8) | frame[l3 + 3]!;
    if (hl < 20 || tl < hl || (l3 + tl > len && !cut) || l3 + hl > len) return false;
    const fw = (frame[l3 + 6]! << 8) | frame[l3 + 7]!;
    out.family = 4;
    out.l3 = l3;
    out.l3Len = hl;
    out.proto = frame[l3 + 9]!;
    out.end = l3 + tl > len ? len : l3 + tl;
    out.fragment = (fw & 0x3fff) !== 0;
    out.dontFragment = (fw & 0x4000) !== 0;
    out.l4 = (fw & 0x1fff) === 0 ? l3 + hl : -1;
    out.l4Len = tl - hl;
    return true;
  }
  if (v !== 6 || l3 + 40 > len) return false;
  const pl = (frame[l3 + 4]! << 8) | frame[l3 + 5]!;
  if (l3 + 40 + pl > len && !cut) return false;
  out.family = 6;
  out.l3 = l3;
  out.end = l3 + 40 + pl > len ? len : l3 + 40 + pl;
  out.dontFragment = true;
  let next = frame[l3 + 6]!;
  let p = l3 + 40;
  let first = true;
  for (let hops = 0; hops < 8; hops++) {
    if (next === 0 || next === 43 || next === 60 || next === 51 || next === 44) {
      if (p + 8 > out.end) return false;
      const nh = frame[p]!;
      let hlen: number;
      if (next === 44) {
        const fo = (frame[p + 2]! << 8) | frame[p + 3]!;
        out.fragment = (fo & 0xfff9) !== 0;
        first = (fo & 0xfff8) === 0;
        hlen = 8;
      } else {
        hlen = next === 51 ? (frame[p + 1]! + 2) << 2 : (frame[p + 1]! + 1) << 3;
      }
      next = nh;
      p += hlen;
      continue;
    }
    break;
  }
  if (p > out.end) return false;
  out.proto = next;
  out.l3Len = p - l3;
  out.l4 = first ? p : -1;
  out.l4Len = l3 + 40 + pl - p;
  return true;
}
