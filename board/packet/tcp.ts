/**
 * TCP header (RFC 9293 §3.1): ports, then the 12-bit flags field of the data-offset word (FIN
 * 0x001 … CWR 0x080, AE 0x100 of RFC 9768 / the former NS bit, 0x200-0x800 reserved), then the
 * data offset (>= 5 words, and the header must fit the segment's reported length).
 *
 * Fields recorded in tshark's order: tcp.srcport, tcp.dstport (once both ports are captured),
 * tcp.flags (only with a data offset >= 5 and bytes 4-15 captured: tshark reads sequence,
 * acknowledgment, data offset and window first, so a quote of 8 bytes shows ports but no flags).
 * The tuple's `tcpFlags` is set as soon as bytes 12-13 are captured.
 */
import { Field } from './field-recorder.ts';
import type { FlowTuple } from './flow-tuple.ts';
import { PacketErrorKind } from './packet-error.ts';
import type { Dissector } from './dissector.ts';

export const TCP_MIN_HEADER_LEN = 20;

/** TCP header at `off` into tuple `t`. */
export function dissectTcp(d: Dissector, t: FlowTuple, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + 4 > cap) {
    d.short('tcp', off + 2 > cap ? 'source_port' : 'destination_port', off, 4, rep);
    return;
  }
  const sport = (b[off]! << 8) | b[off + 1]!;
  const dport = (b[off + 2]! << 8) | b[off + 3]!;
  t.hasPorts = true;
  t.sport = sport;
  t.dport = dport;
  const rec = d.rec;
  if (rec !== null) {
    rec.num(Field.TCP_SRCPORT, sport);
    rec.num(Field.TCP_DSTPORT, dport);
  }
  if (off + 14 > cap) {
    if (off + 8 > cap) d.short('tcp', 'sequence_number', off + 4, 4, rep);
    else if (off + 12 > cap) d.short('tcp', 'acknowledgment_number', off + 8, 4, rep);
    else d.short('tcp', 'flags', off + 12, 2, rep);
    return;
  }
  const w = (b[off + 12]! << 8) | b[off + 13]!;
  const flags = w & 0x0fff;
  t.tcpFlags = flags;
  const hlen = (w >> 12) << 2;
  if (hlen < TCP_MIN_HEADER_LEN) {
    d.fail(PacketErrorKind.BAD_HEADER_LENGTH, 'tcp', 'data_offset', off + 12);
    return;
  }
  if (off + 16 > cap) {
    d.short('tcp', 'window', off + 14, 2, rep);
    return;
  }
  // tshark adds tcp.flags after checking the data offset and reading the window.
  if (rec !== null) rec.num(Field.TCP_FLAGS, flags);
  if (off + hlen > cap) d.short('tcp', 'options', off, hlen, rep);
}
