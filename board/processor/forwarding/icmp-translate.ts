/**
 * ICMP and ICMPv6 errors about a translated connection, translated too (RFC 5508 §4.2 for NAT
 * of ICMP errors; RFC 3022 §4.3): the error quotes the datagram as the sender of the error saw
 * it, so both the outer header and the quoted datagram are mapped to what the other side knows.
 *
 * - From the server side (the RS or a router behind the board, about a client → RS datagram;
 *   e.g. a Packet Too Big for the back-side MTU): the quote reads backSource:port → RS:rport and
 *   becomes client:cport → VIP:vport; the outer destination (the local address under `fullnat`)
 *   becomes the client, and an outer source that is the RS itself becomes the VIP.
 * - From the client side (about an RS → client reply; e.g. the client's router's Fragmentation
 *   Needed): the quote reads VIP:vport → client:cport and becomes RS:rport → backSource:port; the
 *   outer destination (the VIP) becomes the RS, and an outer source that is the client becomes
 *   the local address under `fullnat`.
 * Quoted IPv4 header and quoted TCP/UDP checksums are adjusted incrementally (when quoted); the
 * ICMP/ICMPv6 checksum, which covers the quote, is recomputed over the message. Errors handled:
 * ICMP 3, 4, 11, 12 and ICMPv6 1–4 (RFC 792, RFC 4443 §3). The caller sets the MACs.
 */
import { internetChecksum, write16 } from '../../packet/checksum.ts';
import { type IpLayout, locateIp } from '../../packet/ip-layout.ts';
import { setIcmpv6Checksum } from '../../packet/ndp.ts';
import { rewriteDatagram } from './rewrite.ts';
import { backSource, backSourcePort, type Translation, XlateResult } from './translation.ts';

/** True when datagram `ip` is an ICMP (3, 4, 11, 12) or ICMPv6 (1–4) error with its 8-byte header. */
export function isIcmpError(frame: Uint8Array, ip: IpLayout): boolean {
  if (ip.l4 < 0 || ip.l4 + 8 > ip.end) return false;
  const t = frame[ip.l4]!;
  if (ip.family === 4) return ip.proto === 1 && (t === 3 || t === 4 || t === 11 || t === 12);
  return ip.family === 6 && ip.proto === 58 && t >= 1 && t <= 4;
}

function sameAddr(frame: Uint8Array, off: number, a: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (frame[off + i] !== a[i]) return false;
  return true;
}

/** True when the quote's addresses (and ports, if quoted) are src:sp → dst:dp. */
function quoteIs(frame: Uint8Array, q: IpLayout, src: Uint8Array, sp: number, dst: Uint8Array, dp: number): boolean {
  const n = q.family === 6 ? 16 : 4;
  const s = q.l3 + (q.family === 6 ? 8 : 12);
  if (!sameAddr(frame, s, src, n) || !sameAddr(frame, s + n, dst, n)) return false;
  if (q.l4 >= 0 && q.l4 + 4 <= q.end && (q.proto === 6 || q.proto === 17)) {
    if (((frame[q.l4]! << 8) | frame[q.l4 + 1]!) !== sp || ((frame[q.l4 + 2]! << 8) | frame[q.l4 + 3]!) !== dp) return false;
  }
  return true;
}

function locateQuote(frame: Uint8Array, outer: IpLayout, t: Translation, quote: IpLayout): boolean {
  return locateIp(frame, outer.l4 + 8, outer.end, quote, true) && quote.family === t.family && outer.family === t.family;
}

function resum(frame: Uint8Array, outer: IpLayout): void {
  if (outer.family === 6) {
    setIcmpv6Checksum(frame, outer.l3, outer.l4, outer.end - outer.l4);
    return;
  }
  write16(frame, outer.l4 + 2, 0);
  write16(frame, outer.l4 + 2, internetChecksum(frame, outer.l4, outer.end - outer.l4));
}

/**
 * Translates an error from the server side (see the module header) for connection `t`.
 * @param quote scratch layout for the quoted datagram (reused)
 */
export function translateIcmpFromServer(frame: Uint8Array, outer: IpLayout, t: Translation, quote: IpLayout): XlateResult {
  if (!isIcmpError(frame, outer) || !locateQuote(frame, outer, t, quote)) return XlateResult.MALFORMED;
  if (!quoteIs(frame, quote, backSource(t), backSourcePort(t), t.rs, t.rsPort)) return XlateResult.QUOTE_MISMATCH;
  const full = t.mode === 'fullnat';
  const n = t.family === 6 ? 16 : 4;
  const outerSrcIsRs = sameAddr(frame, outer.l3 + (t.family === 6 ? 8 : 12), t.rs, n);
  rewriteDatagram(frame, quote, full ? t.client : null, full ? t.clientPort : -1, t.vip, t.vipPort);
  rewriteDatagram(frame, outer, outerSrcIsRs ? t.vip : null, -1, full ? t.client : null, -1);
  resum(frame, outer);
  return XlateResult.OK;
}

/**
 * Translates an error from the client side (see the module header) for connection `t`.
 * @param quote scratch layout for the quoted datagram (reused)
 */
export function translateIcmpFromClient(frame: Uint8Array, outer: IpLayout, t: Translation, quote: IpLayout): XlateResult {
  if (!isIcmpError(frame, outer) || !locateQuote(frame, outer, t, quote)) return XlateResult.MALFORMED;
  if (!quoteIs(frame, quote, t.vip, t.vipPort, t.client, t.clientPort)) return XlateResult.QUOTE_MISMATCH;
  const full = t.mode === 'fullnat';
  const n = t.family === 6 ? 16 : 4;
  const outerSrcIsClient = sameAddr(frame, outer.l3 + (t.family === 6 ? 8 : 12), t.client, n);
  rewriteDatagram(frame, quote, t.rs, t.rsPort, full ? t.local : null, full ? t.localPort : -1);
  rewriteDatagram(frame, outer, full && outerSrcIsClient ? t.local : null, -1, t.rs, -1);
  resum(frame, outer);
  return XlateResult.OK;
}
