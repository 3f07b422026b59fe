/**
 * MPLS label stack (RFC 3032): 4-byte entries (label 20 bits, TC 3, S 1, TTL 8) up to the one
 * with the bottom-of-stack bit. The payload is chosen as tshark 4.0 does (RFC 4928 first-nibble
 * rule): 4 → IPv4, 6 → IPv6, 1 → PW associated channel (not decoded), 0 → Ethernet pseudo-wire
 * (RFC 4448): a 4-byte control word, then Ethernet. Other nibbles are not decoded. A GAL (label
 * 13) at the bottom of the stack announces an associated channel (RFC 5586; not decoded).
 *
 * Deliberate simplification: tshark picks "Ethernet without control word" for nibble 0 when both
 * MAC addresses have a registered OUI (its manuf database); atcasim carries no OUI registry and
 * always assumes the control word (what tshark does for tcpreplay's test.pcap pseudo-wires).
 */
import type { Dissector } from './dissector.ts';

export const MPLS_LABEL_GAL = 13;

/** MPLS label stack at `off`. */
export function dissectMpls(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  let p = off;
  for (;;) {
    if (p >= rep) break;
    if (p + 4 > cap) {
      d.short('mpls', 'label', p, 4, rep);
      return;
    }
    const label = (b[p]! << 12) | (b[p + 1]! << 4) | (b[p + 2]! >> 4);
    const bos = b[p + 2]! & 1;
    p += 4;
    if (bos !== 0) {
      if (label === MPLS_LABEL_GAL) return;
      break;
    }
  }
  if (p + 1 > cap) {
    d.short('mpls', 'payload', p, 1, rep);
    return;
  }
  switch (b[p]! >> 4) {
    case 4:
      d.ethertype(0x0800, p, cap, rep);
      return;
    case 6:
      d.ethertype(0x86dd, p, cap, rep);
      return;
    case 0:
      // Ethernet pseudo-wire with control word (RFC 4385 §3: first nibble 0).
      if (p + 4 > rep) return;
      if (p + 4 > cap) {
        d.short('mpls', 'control_word', p, 4, rep);
        return;
      }
      d.innerEthernet(p + 4, cap, rep);
      return;
    default:
      return;
  }
}
