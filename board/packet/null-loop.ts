/**
 * BSD loopback encapsulations: LINKTYPE_NULL (0) — a 4-byte address family in the capturing
 * host's byte order — and LINKTYPE_LOOP (108) — the same in network byte order
 * (tcpdump.org/linktypes/LINKTYPE_NULL.html). AF_INET = 2; AF_INET6 = 24 (NetBSD/OpenBSD),
 * 28 (FreeBSD), 30 (macOS).
 *
 * For NULL the byte order is guessed as tshark's packet-null.c does (read on a little-endian
 * host): FF 03 first means PPP in HDLC-like framing; a value with non-zero upper 16 bits is
 * byte-swapped (or, IRIX style, taken from its upper half); a value above 1500 is an ethertype.
 */
import type { Dissector } from './dissector.ts';
import { dissectIpv4 } from './ipv4.ts';
import { dissectIpv6 } from './ipv6.ts';
import { dissectPpp } from './ppp.ts';

export const NULL_HEADER_LEN = 4;

/** LINKTYPE_NULL header at `off`. */
export function dissectNull(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + 2 > cap) {
    d.short('null', 'family', off, NULL_HEADER_LEN, rep);
    return;
  }
  if (b[off] === 0xff && b[off + 1] === 0x03) {
    dissectPpp(d, off, cap, rep, true);
    return;
  }
  if (off + NULL_HEADER_LEN > cap) {
    d.short('null', 'family', off, NULL_HEADER_LEN, rep);
    return;
  }
  let h = (b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16) | (b[off + 3]! << 24)) >>> 0;
  if ((h & 0xffff0000) !== 0) {
    if ((h & 0xff000000) === 0 && (h & 0x00ff0000) < 0x00060000) h >>>= 16;
    else h = (((h & 0xff) << 24) | ((h & 0xff00) << 8) | ((h >>> 8) & 0xff00) | (h >>> 24)) >>> 0;
  } else if ((h & 0xff) === 0 && (h & 0xff00) < 0x0600) {
    h = ((h & 0xff) << 8) | ((h >>> 8) & 0xff);
  }
  if (h > 1500) {
    d.ethertype(h & 0xffff, off + NULL_HEADER_LEN, cap, rep);
    return;
  }
  family(d, h, off + NULL_HEADER_LEN, cap, rep);
}

/** LINKTYPE_LOOP header at `off` (family in network byte order). */
export function dissectLoop(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + NULL_HEADER_LEN > cap) {
    d.short('loop', 'family', off, NULL_HEADER_LEN, rep);
    return;
  }
  const b = d.b;
  family(d, ((b[off]! << 24) | (b[off + 1]! << 16) | (b[off + 2]! << 8) | b[off + 3]!) >>> 0, off + NULL_HEADER_LEN, cap, rep);
}

function family(d: Dissector, af: number, off: number, cap: number, rep: number): void {
  if (af === 2) dissectIpv4(d, off, cap, rep);
  else if (af === 24 || af === 28 || af === 30) dissectIpv6(d, off, cap, rep);
}
