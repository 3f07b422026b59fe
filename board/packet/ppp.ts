/**
 * PPP (RFC 1661 §2): an optional RFC 1662 address/control pair (0xFF 0x03), then the protocol
 * field — 2 bytes, or 1 byte when protocol-field compression left its low bit set (RFC 1661
 * §6.5). Used for LINKTYPE_PPP (9), PPP over GRE (PPTP, RFC 2637, GRE type 0x880b) and PPP in
 * HDLC-like framing after NULL/SLL headers. Protocols followed: 0x0021 IPv4, 0x0057 IPv6,
 * 0x0281/0x0283 MPLS (and 0x0800/0x86dd, which tshark's ppp.protocol table also maps to IP).
 */
import type { Dissector } from './parse.ts';

/**
 * PPP frame at `off`. `hdlc` = the frame may start with FF 03 (always checked; the flag only
 * documents the caller's framing).
 */
export function dissectPpp(d: Dissector, off: number, cap: number, rep: number, hdlc: boolean): void {
  void hdlc;
  const b = d.b;
  let p = off;
  if (p + 2 <= cap && b[p] === 0xff && b[p + 1] === 0x03) p += 2;
  if (p + 1 > cap) {
    d.short('ppp', 'protocol', p, 1, rep);
    return;
  }
  let proto = b[p]!;
  if ((proto & 1) !== 0) {
    p += 1;
  } else {
    if (p + 2 > cap) {
      d.short('ppp', 'protocol', p, 2, rep);
      return;
    }
    proto = (proto << 8) | b[p + 1]!;
    p += 2;
  }
  d.pppProto(proto, p, cap, rep);
}
