/**
 * UDP header (RFC 768): ports, length (>= 8, and within the IP payload unless the datagram is a
 * fragment or quoted in an ICMP error), checksum. The payload is decoded by port when it is a
 * tunnel: VXLAN (4789, RFC 7348) or Geneve (6081, RFC 8926), trying the lower port first as
 * tshark does.
 *
 * Fields recorded: udp.srcport, udp.dstport (once both ports are captured; tshark reads both
 * before adding either).
 */
import { Field } from './field-recorder.ts';
import type { FlowTuple } from './flow-tuple.ts';
import { PacketErrorKind } from './packet-error.ts';
import type { Dissector } from './dissector.ts';

export const UDP_HEADER_LEN = 8;

/** UDP header at `off` into tuple `t`; `fragmented` relaxes the length check (first fragment);
 * `lite` = UDP-Lite (RFC 3828, IP protocol 136): same ports, no length check, no tunnels. */
export function dissectUdp(d: Dissector, t: FlowTuple, off: number, cap: number, rep: number, fragmented: boolean, lite: boolean): void {
  const b = d.b;
  if (off + 4 > cap) {
    d.short('udp', off + 2 > cap ? 'source_port' : 'destination_port', off, 4, rep);
    return;
  }
  const sport = (b[off]! << 8) | b[off + 1]!;
  const dport = (b[off + 2]! << 8) | b[off + 3]!;
  t.hasPorts = true;
  t.sport = sport;
  t.dport = dport;
  if (d.rec !== null) {
    d.rec.num(Field.UDP_SRCPORT, sport);
    d.rec.num(Field.UDP_DSTPORT, dport);
  }
  if (off + 6 > cap) {
    d.short('udp', 'length', off + 4, 2, rep);
    return;
  }
  const ulen = (b[off + 4]! << 8) | b[off + 5]!;
  let uRep = rep;
  if (lite) {
    // UDP-Lite: the field is the checksum coverage, 0 (everything) or 8..payload length.
    if (ulen !== 0 && (ulen < UDP_HEADER_LEN || off + ulen > rep)) d.fail(PacketErrorKind.BAD_LENGTH, 'udplite', 'checksum_coverage', off + 4);
    else if (off + UDP_HEADER_LEN > cap) d.short('udplite', 'checksum', off + 6, 2, rep);
    return;
  }
  // tshark checks the length as soon as it has read it.
  if (ulen < UDP_HEADER_LEN) {
    d.fail(PacketErrorKind.BAD_LENGTH, 'udp', 'length', off + 4);
    return;
  }
  if (off + ulen > rep) {
    if (!fragmented && d.quote === 0) {
      d.fail(PacketErrorKind.OVERRUN, 'udp', 'length', off + 4);
      return;
    }
  } else {
    uRep = off + ulen;
  }
  if (off + UDP_HEADER_LEN > cap) {
    d.short('udp', 'checksum', off + 6, 2, rep);
    return;
  }
  d.udpPayload(sport, dport, off + UDP_HEADER_LEN, cap < uRep ? cap : uRep, uRep);
}
