/**
 * Forwarding encapsulation: the processor board sends a client's packet to its RS inside an IP
 * tunnel so the RS sees the client's address (TGW: IPIP to physical servers, GRE to virtual
 * machines; IPVS's TUN forwarding). Output frames are complete: Ethernet II, the outer IP header
 * (with a correct header checksum for IPv4), the GRE header when asked for, then the inner IP
 * datagram exactly as captured.
 *
 * - IPIP (RFC 2003 IPv4-in-IPv4, protocol 4; RFC 4213 IPv6-in-IPv4, protocol 41; RFC 2473
 *   IPv4/IPv6-in-IPv6, next header 4/41): the outer family is the RS's family, the protocol
 *   number names the inner family.
 * - GRE (RFC 2784, protocol 47): 4-byte header without checksum, key or sequence (C = K = S = 0,
 *   version 0), protocol type = the inner ethertype (0x0800 / 0x86DD).
 * - Outer IPv4: TTL 64, TOS copied from the inner header (RFC 2003 §3.1), DF copied from an IPv4
 *   inner header, a per-board identification counter. Outer IPv6: hop limit 64, traffic class
 *   copied, flow label from the flow hash (RFC 6438) so ECMP downstream can spread tunnels.
 * - Truncated captures: the inner datagram carries only the captured bytes, but every outer length
 *   field counts the whole datagram (its IPv4 total length / IPv6 payload length), and the frame's
 *   wire length (pcap orig_len) says the same. A pcap writer records caplen < orig_len, which
 *   tshark reads as "packet size limited during capture", not as a malformed packet.
 * - Ethernet padding after the datagram is not carried.
 * Frames are built into one reused buffer: nothing is allocated per packet.
 */
import type { FlowTuple } from '../packet/flow-tuple.ts';
import type { Encapsulation } from './processor-config.ts';

const ETH = 14;
/** Largest frame the builder produces (outer IPv6 + GRE + a full 64 KiB datagram). */
const OUT_MAX = ETH + 40 + 4 + 65535 + 40;

/** Where frames built by the board go (a pcap writer, a counting sink, a real forwarder). */
export interface EmitSink {
  /**
   * One frame the board emits. `bytes[0 .. length)` is the frame; the buffer is reused for the
   * next frame, so copy what you keep.
   * @param timestampMs the packet's time (the `now` the board was given), ms
   * @param wireLength length on the wire (≥ length; larger when the inner capture was truncated):
   *   write it as the pcap record's orig_len
   */
  emit(bytes: Uint8Array, length: number, timestampMs: number, wireLength: number): void;
}

/** Builds tunnel and pass-through frames for one board. */
export class Encapsulator {
  /** The output buffer (valid until the next build). */
  readonly out = new Uint8Array(OUT_MAX);
  /** Wire length of the last frame built. */
  wireLength = 0;
  private ipId = 0;

  /**
   * @param boardMac the board's MAC (Ethernet source of every frame)
   * @param gatewayMac next hop towards clients (destination of reply frames)
   * @param srcV4 4-byte outer source for IPv4 tunnels; srcV6 16-byte source for IPv6 tunnels
   */
  constructor(
    readonly boardMac: Uint8Array,
    readonly gatewayMac: Uint8Array,
    readonly srcV4: Uint8Array,
    readonly srcV6: Uint8Array,
  ) {}

  /**
   * Encapsulates the IP datagram of `t` (from `t.l3Offset` in `frame`) towards an RS.
   * @param rsFamily 4 or 6; `rsAddr` 16-byte address; `rsMac` destination MAC
   * @returns the frame length in `out`, or −1 when the datagram cannot be encapsulated (no IP
   *   header offset, nothing captured, or the tunnel packet would exceed 65535 bytes)
   */
  encapsulate(frame: Uint8Array, t: FlowTuple, kind: Encapsulation, rsFamily: 4 | 6, rsAddr: Uint8Array, rsMac: Uint8Array, flowHash: number): number {
    const start = t.l3Offset;
    if (start < 0 || start >= frame.length) return -1;
    const captured = frame.length - start;
    const declared = t.ipLength > 0 ? t.ipLength : captured;
    const carried = captured < declared ? captured : declared;
    const innerV6 = t.family === 6;
    const gre = kind === 'gre' ? 4 : 0;
    const outerHdr = rsFamily === 6 ? 40 : 20;
    if (declared + gre + (rsFamily === 4 ? outerHdr : 0) > 0xffff) return -1;
    const o = this.out;
    // Ethernet II
    o.set(rsMac, 0);
    o.set(this.boardMac, 6);
    o[12] = rsFamily === 6 ? 0x86 : 0x08;
    o[13] = rsFamily === 6 ? 0xdd : 0x00;
    // traffic class / TOS of the inner header
    const b0 = frame[start]!;
    const b1 = captured > 1 ? frame[start + 1]! : 0;
    const tos = innerV6 ? ((b0 & 0x0f) << 4) | (b1 >> 4) : b1;
    const proto = gre ? 47 : innerV6 ? 41 : 4;
    const ip = ETH;
    if (rsFamily === 4) {
      const total = outerHdr + gre + declared;
      const df = !innerV6 && captured > 6 && (frame[start + 6]! & 0x40) !== 0;
      const id = this.ipId;
      this.ipId = (this.ipId + 1) & 0xffff;
      o[ip] = 0x45;
      o[ip + 1] = tos;
      o[ip + 2] = total >> 8;
      o[ip + 3] = total & 0xff;
      o[ip + 4] = id >> 8;
      o[ip + 5] = id & 0xff;
      o[ip + 6] = df ? 0x40 : 0;
      o[ip + 7] = 0;
      o[ip + 8] = 64;
      o[ip + 9] = proto;
      o[ip + 10] = 0;
      o[ip + 11] = 0;
      for (let i = 0; i < 4; i++) {
        o[ip + 12 + i] = this.srcV4[i]!;
        o[ip + 16 + i] = rsAddr[i]!;
      }
      const c = ipv4HeaderChecksum(o, ip, 20);
      o[ip + 10] = c >> 8;
      o[ip + 11] = c & 0xff;
    } else {
      const payload = gre + declared;
      const fl = flowHash & 0xfffff;
      o[ip] = 0x60 | (tos >> 4);
      o[ip + 1] = ((tos & 0x0f) << 4) | (fl >> 16);
      o[ip + 2] = (fl >> 8) & 0xff;
      o[ip + 3] = fl & 0xff;
      o[ip + 4] = payload >> 8;
      o[ip + 5] = payload & 0xff;
      o[ip + 6] = proto;
      o[ip + 7] = 64;
      o.set(this.srcV6, ip + 8);
      o.set(rsAddr.subarray(0, 16), ip + 24);
    }
    let p = ip + outerHdr;
    if (gre) {
      o[p] = 0;
      o[p + 1] = 0;
      o[p + 2] = innerV6 ? 0x86 : 0x08;
      o[p + 3] = innerV6 ? 0xdd : 0x00;
      p += 4;
    }
    o.set(frame.subarray(start, start + carried), p);
    this.wireLength = p + declared;
    return p + carried;
  }

  /**
   * A reply (server → client) leaves the board as it came: the IP datagram in a new Ethernet
   * frame towards the gateway (replies come back through the balancer, as in TGW).
   * @returns the frame length in `out`, or −1 when there is no IP datagram
   */
  passThrough(frame: Uint8Array, t: FlowTuple): number {
    const start = t.l3Offset;
    if (start < 0 || start >= frame.length) return -1;
    const captured = frame.length - start;
    const declared = t.ipLength > 0 ? t.ipLength : captured;
    const carried = captured < declared ? captured : declared;
    const o = this.out;
    o.set(this.gatewayMac, 0);
    o.set(this.boardMac, 6);
    o[12] = t.family === 6 ? 0x86 : 0x08;
    o[13] = t.family === 6 ? 0xdd : 0x00;
    o.set(frame.subarray(start, start + carried), ETH);
    this.wireLength = ETH + declared;
    return ETH + carried;
  }
}

/** RFC 791 / RFC 1071 header checksum of `len` bytes at `off` (the checksum field must be 0). */
export function ipv4HeaderChecksum(b: Uint8Array, off: number, len: number): number {
  let s = 0;
  for (let i = 0; i < len; i += 2) s += (b[off + i]! << 8) | b[off + i + 1]!;
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return ~s & 0xffff;
}
