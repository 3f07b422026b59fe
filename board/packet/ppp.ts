/**
 * PPP (RFC 1661 §2): an optional RFC 1662 address/control pair (0xFF, control), then the protocol
 * field — 2 bytes, or 1 byte when protocol-field compression left its low bit set (RFC 1661
 * §6.5). Used for LINKTYPE_PPP (9), PPP over GRE (PPTP, RFC 2637, GRE type 0x880b) and PPP in
 * HDLC-like framing after NULL/SLL headers. Protocols followed: 0x0021 IPv4, 0x0057 IPv6,
 * 0x0281/0x0283 MPLS (and 0x0800/0x86dd, which tshark's ppp.protocol table also maps to IP).
 */
import { PacketErrorKind } from './packet-error.ts';
import type { Dissector } from './dissector.ts';

/**
 * PPP frame at `off`. `hdlc` = the frame may start with FF 03 (always checked; the flag only
 * documents the caller's framing).
 */
export function dissectPpp(d: Dissector, off: number, cap: number, rep: number, hdlc: boolean): void {
  void hdlc;
  const b = d.b;
  let p = off;
  // tshark checks the address byte only: 0xFF means address + control (2 bytes) are present.
  if (p < cap && b[p] === 0xff) p += 2;
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

/** PPPoE session header length (RFC 2516 §4: ver/type, code, session ID, length). */
export const PPPOE_HEADER_LEN = 6;

/**
 * PPPoE session stage (ethertype 0x8864, RFC 2516 §4): a 6-byte header whose length field
 * counts the PPP frame (protocol field + payload), then the PPP protocol field (no
 * address/control bytes) and the payload.
 */
export function dissectPppoeSession(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + PPPOE_HEADER_LEN > cap) {
    d.short('pppoe', 'length', off, PPPOE_HEADER_LEN, rep);
    return;
  }
  const b = d.b;
  const len = (b[off + 4]! << 8) | b[off + 5]!;
  const end = off + PPPOE_HEADER_LEN + len;
  if (end > rep) {
    // tshark: "Possible bad payload length" (malformed); the rest of the frame is decoded.
    d.fail(PacketErrorKind.BAD_LENGTH, 'pppoe', 'length', off + 4);
  } else {
    rep = end;
    if (end < cap) cap = end;
  }
  const p = off + PPPOE_HEADER_LEN;
  if (p + 2 > cap) {
    d.short('ppp', 'protocol', p, 2, rep);
    return;
  }
  d.pppProto((b[p]! << 8) | b[p + 1]!, p + 2, cap, rep);
}
