/**
 * The capture loop's port shift (chassis/dataplane/traffic.ts): on loop L ≥ 1 of a replay the
 * client port of every TCP/UDP/SCTP conversation is moved, so each loop brings new
 * conversations and every processor board stays busy.
 *
 * The *client port* of a packet is the larger of its two ports (ephemeral client ports lie above
 * the well-known and registered server ports); when both ports are equal both are shifted. A port
 * p becomes 1024 + ((p − 1024 + L·4099) mod 64512) when p ≥ 1024, else (p + L·1023) mod 1024 —
 * the same rule for both directions, so a conversation stays one conversation, and a new one in
 * each loop (4099 and 1023 are coprime with 64512 and 1024: no repeat within 1024 loops for low
 * ports, 64512 for high ones).
 *
 * The ports are rewritten in the packet bytes too (the outer TCP/UDP/SCTP header; the TCP and UDP
 * checksums are updated incrementally, RFC 1624 eqn. 3; a UDP checksum of 0 — not computed —
 * stays 0 and a result of 0 is sent as 0xFFFF, RFC 768; an SCTP CRC32c is left as captured) and
 * restored after delivery, so the boards and `--out` see the shifted packet and the capture
 * buffer is unchanged. An ICMP error's quoted tuple is shifted the same way (its bytes are not),
 * so it still finds its session. IP fragments after the first carry no ports and are not
 * shifted; they are keyed by address pair and protocol anyway.
 *
 * Hot path: no allocation, no division per packet (the loop's shifts are precomputed).
 */
import type { FlowTuple, PacketView } from '../../board/packet/flow-tuple.ts';
import type { ParsedPacket } from '../../board/packet/parsed-packet.ts';

/** Where a shifted packet goes (traffic.ts PacketSink; DataPlane implements it). */
interface Sink {
  deliver(pkt: PacketView, now: number): number;
}

/** The per-loop shift of high (≥ 1024) client ports; coprime with 64512. */
export const PORT_SHIFT_HIGH = 4099;
/** The per-loop shift of low (< 1024) client ports; coprime with 1024. */
export const PORT_SHIFT_LOW = 1023;

// module-local: read on every shifted packet (an exported binding is loaded from its module cell)
const SHIFT_HIGH = PORT_SHIFT_HIGH;
const SHIFT_LOW = PORT_SHIFT_LOW;

/**
 * A client port shifted for loop `L` (module header): high ports rotate within 1024..65535 by
 * L·4099, low ports within 0..1023 by L·1023.
 */
export function shiftPort(p: number, L: number): number {
  if (p >= 1024) return 1024 + ((p - 1024 + ((L * PORT_SHIFT_HIGH) % 64512)) % 64512);
  return (p + ((L * PORT_SHIFT_LOW) % 1024)) % 1024;
}

/**
 * The shift of one loop, applied to parsed packets: `deliver` rewrites a packet's ports (tuples
 * and bytes), delivers it and puts the captured bytes back.
 */
export class PortShift {
  /** Shifts of the loop in progress (see shiftPort): high ports, low ports. */
  private hi = 0;
  private lo = 0;

  /** Sets the loop whose shift `apply` uses (0: no shift). */
  setLoop(L: number): void {
    this.hi = (L * SHIFT_HIGH) % 64512;
    this.lo = (L * SHIFT_LOW) % 1024;
  }

  /** shiftPort(p, loop) without divisions. */
  shift(p: number): number {
    if (p >= 1024) {
      const v = p + this.hi;
      return v > 65535 ? v - 64512 : v;
    }
    return (p + this.lo) & 1023;
  }

  /** The client-port rule of the module header applied to a bare tuple (ICMP-error quotes). */
  shiftTuple(t: FlowTuple): void {
    const sp = t.sport;
    const dp = t.dport;
    if (sp >= dp) t.sport = this.shift(sp);
    if (dp >= sp) t.dport = this.shift(dp);
  }

  /**
   * Shifts the ports of a packet whose outer tuple has ports — the outer tuple (and the inner one
   * when there is no tunnel), the quoted tuple of an ICMP error, and the outer L4 header's bytes
   * with their TCP/UDP checksum when they were captured — delivers it to `sink`, and puts the
   * captured bytes back. One method, so what is restored stays in locals across the delivery.
   * @returns what `sink.deliver` returned
   */
  deliver(p: ParsedPacket, now: number, sink: Sink): number {
    const t = p.outer;
    const sp = t.sport;
    const dp = t.dport;
    const nsp = sp >= dp ? this.shift(sp) : sp;
    const ndp = dp >= sp ? this.shift(dp) : dp;
    const b = p.buf;
    const l4 = p.start + t.l4Offset;
    const end = p.start + p.caplen;
    const patch = t.l4Offset >= 0 && l4 + 4 <= end;
    let ckOff = -1;
    let ck = 0;
    if (patch) {
      if (t.proto === 6 && l4 + 18 <= end) ckOff = l4 + 16;
      else if (t.proto === 17 && l4 + 8 <= end) ckOff = l4 + 6;
      if (ckOff >= 0) {
        ck = (b[ckOff]! << 8) | b[ckOff + 1]!;
        if (t.proto === 17 && ck === 0) ckOff = -1;
      }
      b[l4] = nsp >>> 8;
      b[l4 + 1] = nsp & 0xff;
      b[l4 + 2] = ndp >>> 8;
      b[l4 + 3] = ndp & 0xff;
      if (ckOff >= 0) {
        // RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') per changed 16-bit word.
        let s = ~ck & 0xffff;
        s += (~sp & 0xffff) + nsp;
        s += (~dp & 0xffff) + ndp;
        while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
        let nck = ~s & 0xffff;
        if (t.proto === 17 && nck === 0) nck = 0xffff;
        b[ckOff] = nck >>> 8;
        b[ckOff + 1] = nck & 0xff;
      }
    }
    t.sport = nsp;
    t.dport = ndp;
    if (p.tunnelDepth === 0) {
      p.inner.sport = nsp;
      p.inner.dport = ndp;
    }
    if (p.icmpError === true && p.quoted.hasPorts === true) this.shiftTuple(p.quoted);
    const r = sink.deliver(p, now);
    if (patch) {
      b[l4] = sp >>> 8;
      b[l4 + 1] = sp & 0xff;
      b[l4 + 2] = dp >>> 8;
      b[l4 + 3] = dp & 0xff;
      if (ckOff >= 0) {
        b[ckOff] = ck >>> 8;
        b[ckOff + 1] = ck & 0xff;
      }
    }
    return r;
  }
}
