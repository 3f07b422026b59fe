/**
 * UDP-encapsulated Ethernet tunnels: VXLAN (RFC 7348 §5: 8-byte header — flags with the I bit,
 * 24-bit VNI — then an Ethernet frame) and Geneve (RFC 8926 §3.4: version, option length in
 * 4-byte words, protocol type as an ethertype — 0x6558 for Ethernet — VNI, then options).
 */
import type { Dissector } from './dissector.ts';

export const VXLAN_HEADER_LEN = 8;
export const GENEVE_BASE_LEN = 8;

/** VXLAN header at `off` (UDP payload). */
export function dissectVxlan(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + VXLAN_HEADER_LEN > cap) {
    d.short('vxlan', 'header', off, VXLAN_HEADER_LEN, rep);
    return;
  }
  d.innerEthernet(off + VXLAN_HEADER_LEN, cap, rep);
}

/** Geneve header at `off` (UDP payload). */
export function dissectGeneve(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + GENEVE_BASE_LEN > cap) {
    d.short('geneve', 'header', off, GENEVE_BASE_LEN, rep);
    return;
  }
  const b = d.b;
  // tshark warns about a version other than 0 but decodes on.
  const p = off + GENEVE_BASE_LEN + ((b[off]! & 0x3f) << 2);
  if (p > cap) {
    d.short('geneve', 'options', off + GENEVE_BASE_LEN, p - off - GENEVE_BASE_LEN, rep);
    return;
  }
  d.ethertype((b[off + 2]! << 8) | b[off + 3]!, p, cap, rep);
}
