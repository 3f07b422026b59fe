/**
 * The rewrite every NAT-style forwarding mode is made of: new source and/or destination address
 * and port of one TCP or UDP datagram, in place, with every checksum the change touches adjusted
 * incrementally (RFC 1624 eqn. 3; RFC 3022 §4.2 lists them for a NAT): the IPv4 header checksum
 * (addresses), and the TCP/UDP checksum (pseudo-header addresses and the ports). IPv6 has no
 * header checksum (RFC 8200 §8.1). A UDP/IPv4 checksum of 0 ("none", RFC 768) stays 0.
 *
 * Fragments: the first fragment carries the L4 header and its checksum covers the whole
 * reassembled datagram, so adjusting it there for the address change is right; later fragments
 * get only the address rewrite (no ports to rewrite). A datagram quoted in an ICMP error may stop
 * before its L4 checksum: then only the parts present are rewritten (`IpLayout.end`).
 *
 * Addresses are 16-byte arrays, IPv4 in bytes 0..3 (the FlowTuple convention). No allocation.
 */
import { adjust16, adjustBytes, read16, udpChecksumAfter, write16 } from '../../packet/checksum.ts';
import type { IpLayout } from '../../packet/ip-layout.ts';

/** Protocols whose ports and checksum the rewrite knows: TCP and UDP. */
export function rewritable(proto: number): boolean {
  return proto === 6 || proto === 17;
}

/**
 * Rewrites datagram `ip` of `frame` in place.
 * @param src new source address (16 bytes, family of `ip`) or null to keep it
 * @param sport new source port, or −1 to keep it
 * @param dst new destination address or null; `dport` new destination port or −1
 * @returns false when ports must change but the datagram is neither TCP nor UDP (nothing changed)
 */
export function rewriteDatagram(frame: Uint8Array, ip: IpLayout, src: Uint8Array | null, sport: number, dst: Uint8Array | null, dport: number): boolean {
  const l4 = ip.l4;
  const proto = ip.proto;
  const portsWanted = sport >= 0 || dport >= 0;
  if (portsWanted && l4 >= 0 && !rewritable(proto)) return false;
  const v6 = ip.family === 6;
  const an = v6 ? 16 : 4;
  const sOff = ip.l3 + (v6 ? 8 : 12);
  const dOff = sOff + an;
  const ckAt = l4 < 0 ? -1 : proto === 6 ? l4 + 16 : proto === 17 ? l4 + 6 : -1;
  const hasCk = ckAt >= 0 && ckAt + 2 <= ip.end;
  const oldL4 = hasCk ? read16(frame, ckAt) : 0;
  let l4ck = oldL4;
  let ipck = v6 ? 0 : read16(frame, ip.l3 + 10);
  if (src !== null) {
    if (hasCk) l4ck = adjustBytes(l4ck, frame, sOff, src, 0, an);
    if (!v6) ipck = adjustBytes(ipck, frame, sOff, src, 0, an);
    frame.set(src.subarray(0, an), sOff);
  }
  if (dst !== null) {
    if (hasCk) l4ck = adjustBytes(l4ck, frame, dOff, dst, 0, an);
    if (!v6) ipck = adjustBytes(ipck, frame, dOff, dst, 0, an);
    frame.set(dst.subarray(0, an), dOff);
  }
  if (l4 >= 0 && rewritable(proto)) {
    if (sport >= 0 && l4 + 2 <= ip.end) {
      if (hasCk) l4ck = adjust16(l4ck, read16(frame, l4), sport);
      write16(frame, l4, sport);
    }
    if (dport >= 0 && l4 + 4 <= ip.end) {
      if (hasCk) l4ck = adjust16(l4ck, read16(frame, l4 + 2), dport);
      write16(frame, l4 + 2, dport);
    }
  }
  if (hasCk) write16(frame, ckAt, proto === 17 && !v6 ? udpChecksumAfter(oldL4, l4ck) : proto === 17 && l4ck === 0 ? 0xffff : l4ck);
  if (!v6) write16(frame, ip.l3 + 10, ipck);
  return true;
}
