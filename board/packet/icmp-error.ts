/**
 * Path-MTU errors the appliance originates when a datagram it would forward does not fit the
 * next link: ICMP Destination Unreachable / Fragmentation Needed and DF Set (type 3 code 4) with
 * the next-hop MTU in the low 16 bits of the second word (RFC 1191 §4), and ICMPv6 Packet Too Big
 * (type 2 code 0) with a 32-bit MTU (RFC 4443 §3.2, used by PMTU discovery per RFC 8201).
 *
 * Quote: the offending datagram from its IP header on, as much as fits — the whole ICMP datagram
 * at most 576 bytes for IPv4 (RFC 1812 §4.3.2.3; at least header + 64 bits, RFC 792) and at most
 * the IPv6 minimum MTU of 1280 bytes (RFC 4443 §2.4 (c)). The error goes back on the link the
 * datagram came from: Ethernet destination = its Ethernet source.
 *
 * When not to send (RFC 1812 §4.3.2.7, RFC 1122 §3.2.2, RFC 4443 §2.4 (e)): never about an ICMP
 * error, a non-first fragment, or a datagram from an unspecified, multicast, broadcast or loopback
 * source — `mayReportError` says so. Rate limiting (RFC 4443 §2.4 (f)) is the caller's, since it
 * needs a clock.
 */
import { internetChecksum, setIpv4HeaderChecksum, write16 } from './checksum.ts';
import { ETH_LEN, ETHERTYPE_IPV4, ETHERTYPE_IPV6, writeEthernet } from './ether-frame.ts';
import type { IpLayout } from './ip-layout.ts';
import { setIcmpv6Checksum, writeIpv6Header } from './ndp.ts';

/** Longest ICMP error datagram for IPv4 (RFC 1812 §4.3.2.3). */
export const ICMP4_ERROR_MAX = 576;
/** Longest ICMPv6 error datagram: the IPv6 minimum MTU (RFC 4443 §2.4 (c)). */
export const ICMP6_ERROR_MAX = 1280;
/** Hop limit / TTL of the errors. */
export const ERROR_TTL = 64;

/** True when the datagram `ip` is longer than `mtu` bytes (IP header included). */
export function exceedsMtu(ip: IpLayout, mtu: number): boolean {
  return ip.end - ip.l3 > mtu;
}

/** True when an ICMP error may be sent about datagram `ip` (see the module header). */
export function mayReportError(frame: Uint8Array, ip: IpLayout): boolean {
  if (ip.family === 4) {
    const s = ip.l3 + 12;
    const a = frame[s]!;
    if (a === 0 || a === 127 || a >= 224) return false;
    if (frame[s + 1] === 255 && frame[s + 2] === 255 && frame[s + 3] === 255) return false;
    if (ip.l4 < 0 && ip.fragment) return false;
    if (ip.proto === 1 && ip.l4 >= 0) {
      const t = frame[ip.l4]!;
      if (t === 3 || t === 4 || t === 5 || t === 11 || t === 12) return false;
    }
    return true;
  }
  if (ip.family !== 6) return false;
  const s = ip.l3 + 8;
  if (frame[s] === 0xff) return false;
  let zero = true;
  for (let i = 0; i < 15; i++) if (frame[s + i] !== 0) zero = false;
  if (zero && (frame[s + 15] === 0 || frame[s + 15] === 1)) return false;
  if (ip.l4 < 0 && ip.fragment) return false;
  if (ip.proto === 58 && ip.l4 >= 0 && frame[ip.l4]! < 128) return false;
  return true;
}

/**
 * Builds Fragmentation Needed (IPv4) about datagram `ip` of `frame`.
 * @param src 4-byte source address of the error (the VIP the datagram was sent to, or the board's)
 * @param myMac Ethernet source; `ipId` the IPv4 identification to use
 * @returns the frame length in `out` (`out` must hold ETH_LEN + 576 bytes)
 */
export function buildFragNeeded(out: Uint8Array, frame: Uint8Array, ip: IpLayout, mtu: number, src: Uint8Array, myMac: Uint8Array, ipId: number): number {
  const quote = Math.min(ip.end - ip.l3, ICMP4_ERROR_MAX - 20 - 8);
  const total = 20 + 8 + quote;
  if (out.length < ETH_LEN + total) throw new RangeError(`icmp-error: need ${ETH_LEN + total} bytes`);
  const l3 = writeEthernet(out, 0, frame.subarray(6, 12), myMac, ETHERTYPE_IPV4);
  out[l3] = 0x45;
  out[l3 + 1] = 0xc0; // precedence "internetwork control", as routers send errors (RFC 1812 §4.3.2.5)
  write16(out, l3 + 2, total);
  write16(out, l3 + 4, ipId & 0xffff);
  out[l3 + 6] = 0;
  out[l3 + 7] = 0;
  out[l3 + 8] = ERROR_TTL;
  out[l3 + 9] = 1;
  out.set(src.subarray(0, 4), l3 + 12);
  out.set(frame.subarray(ip.l3 + 12, ip.l3 + 16), l3 + 16);
  setIpv4HeaderChecksum(out, l3);
  const l4 = l3 + 20;
  out[l4] = 3;
  out[l4 + 1] = 4;
  out[l4 + 2] = 0;
  out[l4 + 3] = 0;
  write16(out, l4 + 4, 0);
  write16(out, l4 + 6, mtu);
  out.set(frame.subarray(ip.l3, ip.l3 + quote), l4 + 8);
  write16(out, l4 + 2, internetChecksum(out, l4, 8 + quote));
  return l3 + total;
}

/**
 * Builds Packet Too Big (ICMPv6) about datagram `ip` of `frame`.
 * @param src 16-byte source address of the error; `myMac` Ethernet source
 * @returns the frame length in `out` (`out` must hold ETH_LEN + 1280 bytes)
 */
export function buildPacketTooBig(out: Uint8Array, frame: Uint8Array, ip: IpLayout, mtu: number, src: Uint8Array, myMac: Uint8Array): number {
  const quote = Math.min(ip.end - ip.l3, ICMP6_ERROR_MAX - 40 - 8);
  const plen = 8 + quote;
  if (out.length < ETH_LEN + 40 + plen) throw new RangeError(`icmp-error: need ${ETH_LEN + 40 + plen} bytes`);
  const l3 = writeEthernet(out, 0, frame.subarray(6, 12), myMac, ETHERTYPE_IPV6);
  const l4 = writeIpv6Header(out, l3, plen, 58, ERROR_TTL, src, frame.subarray(ip.l3 + 8, ip.l3 + 24));
  out[l4] = 2;
  out[l4 + 1] = 0;
  out[l4 + 4] = (mtu >>> 24) & 0xff;
  out[l4 + 5] = (mtu >>> 16) & 0xff;
  out[l4 + 6] = (mtu >>> 8) & 0xff;
  out[l4 + 7] = mtu & 0xff;
  out.set(frame.subarray(ip.l3, ip.l3 + quote), l4 + 8);
  setIcmpv6Checksum(out, l3, l4, plen);
  return l4 + plen;
}
