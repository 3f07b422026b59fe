/**
 * SCTP common header (RFC 9260 §3.1: ports, verification tag, checksum) and a structural walk of
 * its chunks (§3.2: type, flags, length >= 4 and within the packet; chunks padded to 4 bytes).
 * INIT and INIT ACK parameters (§3.2.1) are checked too, including the rule that the last
 * parameter's padding is the chunk's padding and so is not counted in the chunk length (tshark
 * flags a violation as malformed).
 *
 * Fields recorded: sctp.srcport, sctp.dstport, once the 12-byte common header is captured (the
 * tuple gets the ports from the first 4 bytes).
 */
import { Field } from './field-recorder.ts';
import type { FlowTuple } from './flow-tuple.ts';
import { PacketErrorKind } from './packet-error.ts';
import type { Dissector } from './dissector.ts';

export const SCTP_COMMON_HEADER_LEN = 12;

/** SCTP packet at `off` into tuple `t`. */
export function dissectSctp(d: Dissector, t: FlowTuple, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + 4 > cap) {
    d.short('sctp', off + 2 > cap ? 'source_port' : 'destination_port', off, 4, rep);
    return;
  }
  const sport = (b[off]! << 8) | b[off + 1]!;
  const dport = (b[off + 2]! << 8) | b[off + 3]!;
  t.hasPorts = true;
  t.sport = sport;
  t.dport = dport;
  if (off + SCTP_COMMON_HEADER_LEN > cap) {
    d.short('sctp', off + 8 > cap ? 'verification_tag' : 'checksum', off + 4, 8, rep);
    return;
  }
  // tshark reads the whole common header before adding the ports.
  if (d.rec !== null) {
    d.rec.num(Field.SCTP_SRCPORT, sport);
    d.rec.num(Field.SCTP_DSTPORT, dport);
  }
  let p = off + SCTP_COMMON_HEADER_LEN;
  while (p < rep) {
    if (p + 4 > cap) {
      d.short('sctp', 'chunk_length', p, 4, rep);
      return;
    }
    const type = b[p]!;
    const clen = (b[p + 2]! << 8) | b[p + 3]!;
    if (clen < 4) {
      d.fail(PacketErrorKind.BAD_OPTION, 'sctp', 'chunk_length', p + 2);
      return;
    }
    const end = p + clen;
    if (end > cap) {
      d.short('sctp', 'chunk', p, clen, rep);
      return;
    }
    if ((type === 1 || type === 2) && !initParametersFit(b, p + 20, end)) {
      d.fail(PacketErrorKind.BAD_OPTION, 'sctp', 'parameter', p);
      return;
    }
    p += (clen + 3) & ~3;
  }
}

/** INIT/INIT ACK parameters in b[s, e): each fits, the last one's padding is outside `e`. */
function initParametersFit(b: Uint8Array, s: number, e: number): boolean {
  if (s > e) return false;
  let q = s;
  while (q < e) {
    if (q + 4 > e) return false;
    const plen = (b[q + 2]! << 8) | b[q + 3]!;
    if (plen < 4 || q + plen > e) return false;
    const padded = (plen + 3) & ~3;
    if (q + padded >= e) return !(padded > plen && q + padded === e);
    q += padded;
  }
  return true;
}
