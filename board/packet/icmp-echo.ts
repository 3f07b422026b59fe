/**
 * ICMP echo (RFC 792 type 8 → 0) and ICMPv6 echo (RFC 4443 §4.1/§4.2, type 128 → 129): the reply
 * to a ping of a VIP or of a board's own address, made in place from the request frame. The reply
 * goes back on the link it came from (Ethernet destination = the request's source), from the
 * address that was pinged, with the identifier, sequence number and data of the request
 * (RFC 792; RFC 4443 §4.2: "the data received in the ICMPv6 Echo Request message MUST be
 * returned entirely and unmodified").
 *
 * Checksums: the IPv4 header checksum is recomputed (TTL reset to 64); the ICMP checksum changes
 * only by the type word (RFC 1624 eqn. 3). Under IPv6 the pseudo-header sum is the same with the
 * addresses swapped (ones'-complement addition commutes), so again only the type word changes.
 * A request whose ICMP checksum is wrong gets no reply (RFC 1122 §3.2.2: silently discarded).
 */
import { adjust16, fold, onesSum, pseudoHeaderSum, read16, setIpv4HeaderChecksum, write16 } from './checksum.ts';
import type { IpLayout } from './ip-layout.ts';

/** Reply hop limit / TTL (RFC 1700's recommended default for IP; Linux's 64). */
export const ECHO_REPLY_TTL = 64;

/**
 * True when the datagram `ip` (located in `frame`) is an ICMP/ICMPv6 echo request with a correct
 * checksum, not a fragment.
 */
export function isEchoRequest(frame: Uint8Array, ip: IpLayout): boolean {
  if (ip.l4 < 0 || ip.fragment || ip.l4Len < 8) return false;
  if (ip.family === 4) {
    return ip.proto === 1 && frame[ip.l4] === 8 && frame[ip.l4 + 1] === 0 && fold(onesSum(frame, ip.l4, ip.l4Len)) === 0xffff;
  }
  if (ip.family !== 6 || ip.proto !== 58 || frame[ip.l4] !== 128 || frame[ip.l4 + 1] !== 0) return false;
  return fold(onesSum(frame, ip.l4, ip.l4Len, pseudoHeaderSum(6, frame, ip.l3 + 8, ip.l3 + 24, 58, ip.l4Len))) === 0xffff;
}

/**
 * Turns the echo request `ip` in `frame` into its reply, in place.
 * @param myMac the Ethernet source of the reply (the port's MAC)
 * @returns the reply's frame length (the datagram's end: Ethernet padding is dropped)
 */
export function echoReplyInPlace(frame: Uint8Array, ip: IpLayout, myMac: Uint8Array): number {
  frame.copyWithin(0, 6, 12);
  frame.set(myMac.subarray(0, 6), 6);
  const l3 = ip.l3;
  const an = ip.family === 6 ? 16 : 4;
  const sa = ip.family === 6 ? l3 + 8 : l3 + 12;
  const da = sa + an;
  for (let i = 0; i < an; i++) {
    const t = frame[sa + i]!;
    frame[sa + i] = frame[da + i]!;
    frame[da + i] = t;
  }
  const ck = read16(frame, ip.l4 + 2);
  if (ip.family === 4) {
    frame[l3 + 8] = ECHO_REPLY_TTL;
    setIpv4HeaderChecksum(frame, l3);
    frame[ip.l4] = 0;
    write16(frame, ip.l4 + 2, adjust16(ck, 0x0800, 0x0000));
  } else {
    frame[l3 + 7] = ECHO_REPLY_TTL;
    frame[ip.l4] = 129;
    write16(frame, ip.l4 + 2, adjust16(ck, 0x8000, 0x8100));
  }
  return ip.end;
}
