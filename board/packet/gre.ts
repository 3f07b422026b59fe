/**
 * GRE (RFC 2784, key and sequence number of RFC 2890, enhanced GRE version 1 of RFC 2637 §4.1 for
 * PPTP with its acknowledgment number, and RFC 1701 routing), plus two GRE payloads that need
 * their own header: ERSPAN (Cisco; draft-foschiano-erspan) and Cisco MetaData (0x8909).
 *
 * Header: flags/version (C 0x8000, R 0x4000, K 0x2000, S 0x1000, A 0x0080 in v1), protocol type,
 * then checksum + offset (C or R), key (K; PPTP: payload length + call ID), sequence (S),
 * acknowledgment (A, PPP payloads only, as tshark decides), routing SREs (R) up to the null SRE,
 * and for WCCP (0x883e) a WCCPv2 redirect header when no IPv4 header follows at once. The payload goes by protocol
 * type (parse.ts greProto): IPv4, IPv6, 0x6558 transparent Ethernet bridging, ERSPAN, PPP, Cisco
 * MetaData, MPLS. A keepalive (type 0) is not decoded further, as in tshark.
 *
 * Field recorded: gre.proto (one per GRE header).
 */
import { Field } from './field-recorder.ts';
import type { Dissector } from './dissector.ts';

export const GRE_BASE_LEN = 4;
/** Flag bits of the first 16-bit word. */
export const GreFlag = { CHECKSUM: 0x8000, ROUTING: 0x4000, KEY: 0x2000, SEQUENCE: 0x1000, ACK: 0x0080 } as const;

/** GRE header at `off`. */
export function dissectGre(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + GRE_BASE_LEN > cap) {
    d.short('gre', off + 2 > cap ? 'flags' : 'protocol', off, GRE_BASE_LEN, rep);
    return;
  }
  const fv = (b[off]! << 8) | b[off + 1]!;
  const proto = (b[off + 2]! << 8) | b[off + 3]!;
  let wccp2 = false;
  if (proto === GRE_WCCP) {
    // WCCPv2 adds a 4-byte redirect header unless an IPv4 header follows the base header
    // (tshark looks at that byte before adding any field).
    if (off + GRE_BASE_LEN + 1 > cap) {
      d.short('gre', 'wccp', off + GRE_BASE_LEN, 1, rep);
      return;
    }
    wccp2 = (b[off + GRE_BASE_LEN]! & 0xf0) !== 0x40;
  }
  if (d.rec !== null) d.rec.num(Field.GRE_PROTO, proto);
  // Enhanced GRE (RFC 2637 §4.1): the acknowledgment number exists only for PPP payloads.
  const ppp = proto === 0x880b || proto === 0x88d2 || proto === 0x8881;
  let p = off + GRE_BASE_LEN;
  if ((fv & (GreFlag.CHECKSUM | GreFlag.ROUTING)) !== 0) p += 4;
  if ((fv & GreFlag.KEY) !== 0) p += 4;
  if ((fv & GreFlag.SEQUENCE) !== 0) p += 4;
  if (ppp && (fv & GreFlag.ACK) !== 0) p += 4;
  if (p > cap) {
    d.short('gre', 'optional_fields', off + GRE_BASE_LEN, p - off - GRE_BASE_LEN, rep);
    return;
  }
  if ((fv & GreFlag.ROUTING) !== 0) {
    for (;;) {
      if (p + 4 > cap) {
        d.short('gre', 'routing', p, 4, rep);
        return;
      }
      const af = (b[p]! << 8) | b[p + 1]!;
      const sreLen = b[p + 3]!;
      p += 4;
      if (af === 0 && sreLen === 0) break;
      p += sreLen;
      if (p > cap) {
        d.short('gre', 'routing', p - sreLen, sreLen, rep);
        return;
      }
    }
  }
  if (wccp2) {
    p += 4;
    if (p > cap) {
      d.short('gre', 'wccp_redirect_header', p - 4, 4, rep);
      return;
    }
  }
  // Without the S bit an empty payload is allowed (keepalives).
  if ((fv & GreFlag.SEQUENCE) === 0 && p >= rep) return;
  d.greProto(proto, fv, p, cap, rep);
}

/** GRE protocol type of WCCP redirection (IPv4 payload, possibly after a WCCPv2 header). */
export const GRE_WCCP = 0x883e;

/**
 * ERSPAN after a GRE header of type 0x88be (Type I when the GRE S bit is clear: Ethernet follows
 * at once; else Type II, 8-byte header) or 0x22eb (Type III, 12-byte header, +8 with the O bit;
 * the frame type must be 0 = Ethernet). Other versions are not decoded.
 */
export function dissectErspan(d: Dissector, type: number, greFlags: number, off: number, cap: number, rep: number): void {
  if (type === 0x88be && (greFlags & GreFlag.SEQUENCE) === 0) {
    d.innerEthernet(off, cap, rep);
    return;
  }
  const b = d.b;
  if (off + 2 > cap) {
    d.short('erspan', 'version', off, 2, rep);
    return;
  }
  const version = b[off]! >> 4;
  if (version === 1) {
    if (off + 8 > cap) {
      d.short('erspan', 'header', off, 8, rep);
      return;
    }
    d.innerEthernet(off + 8, cap, rep);
  } else if (version === 2) {
    if (off + 12 > cap) {
      d.short('erspan', 'header', off, 12, rep);
      return;
    }
    const w = (b[off + 10]! << 8) | b[off + 11]!;
    let p = off + 12;
    if ((w & 1) !== 0) {
      if (p + 8 > cap) {
        d.short('erspan', 'platform_subheader', p, 8, rep);
        return;
      }
      p += 8;
    }
    if (((w >> 10) & 0x1f) === 0) d.innerEthernet(p, cap, rep);
  }
}

/** Cisco MetaData as an ethertype (0x8909): version, length, options, SGT, then the ethertype at +6. */
export function dissectCiscoMetadataEth(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + 8 > cap) {
    d.short('cmd', 'header', off, 8, rep);
    return;
  }
  const b = d.b;
  d.ethertype((b[off + 6]! << 8) | b[off + 7]!, off + 8, cap, rep);
}

/** Cisco MetaData as a GRE payload (0x8909): the next GRE protocol type first, then 6 bytes. */
export function dissectCiscoMetadataGre(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + 8 > cap) {
    d.short('cmd', 'header', off, 8, rep);
    return;
  }
  const b = d.b;
  d.greProto((b[off]! << 8) | b[off + 1]!, 0, off + 8, cap, rep);
}

/** EtherIP (RFC 3378, IP protocol 97): a 2-byte header (version 3), then an Ethernet frame. */
export function dissectEtherIp(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + 2 > cap) {
    d.short('etherip', 'version', off, 2, rep);
    return;
  }
  d.innerEthernet(off + 2, cap, rep);
}
