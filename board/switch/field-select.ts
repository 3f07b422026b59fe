/**
 * Field selection: the switch chip's hash profile. Builds the bytes that feed the ECMP hash into a
 * buffer the selector owns and reuses (no allocation per packet).
 *
 * Layouts (network byte order; "src"/"dst" after the symmetric ordering below):
 * - `l3l4`, standard layout: src addr ‖ dst addr ‖ protocol (1 byte) ‖ src port (2) ‖ dst port (2)
 *   — 13 bytes for IPv4, 37 for IPv6.
 * - `l3l4`, RSS layout (Toeplitz): src addr ‖ dst addr ‖ src port ‖ dst port — 12 / 36 bytes, as
 *   the Microsoft RSS verification suite (../shared/vectors/toeplitz.json) lays them out.
 * - `l3`, or `l3l4` without usable ports (not TCP/UDP/SCTP, or any fragment: FlowTuple.hashPorts
 *   false, so all pieces of a datagram take one path): src addr ‖ dst addr ‖ protocol; RSS
 *   layout src addr ‖ dst addr.
 * - `l2`: src MAC (6) ‖ dst MAC (6) ‖ each 802.1Q/802.1ad VLAN ID as 2 bytes (12-bit ID, outer
 *   tag first), at most 8 tags; the same bytes for every hash.
 *
 * Which header: EcmpConfig.tunnel `outer` hashes the first IP header (what a transit switch sees);
 * `inner` the innermost one after decapsulation (PacketView.inner), or the outer one when the
 * packet is not tunnelled or its inner header could not be read.
 *
 * Frames without the selected fields — documented behaviour, since a real switch still forwards
 * them:
 * - l3/l3l4 profile, no usable IP header (ARP, LLDP, other non-IP ethertypes, truncated IP):
 *   the L2 fields are hashed instead (MACs and VLAN IDs), as a switch chip's L2 key does for
 *   non-IP frames, so they spread by MAC pair.
 * - l2 profile on a frame without an Ethernet header (Linux SLL, BSD loopback, raw-IP captures):
 *   the L3+L4 fields are hashed instead.
 * - Neither (no Ethernet, no IP): the key is empty (length 0); SwitchBoard then uses hash 0, so
 *   all such frames take one fixed path (the member that owns bucket 0).
 *
 * Symmetric option (dataplane.md §2.3): the two endpoints are put in canonical order before the
 * bytes are written — the endpoint with the lower address first, compared as unsigned bytes in
 * network order; on equal addresses the lower port first. Both directions of a flow therefore
 * produce the same bytes and the same hash with any hash function. (Comparing unsigned bytes
 * avoids the signed-difference bug Linux's __flow_hash_consistentify had, which made
 * 192.168.37.50 ↔ 192.168.37.178 asymmetric.) In the l2 profile the two MACs are ordered the
 * same way.
 */
import type { FlowTuple, PacketView } from '../packet/flow-tuple.ts';
import type { HashLayout } from './hash/index.ts';
import type { FieldSet, TunnelHeader } from './switch-config.ts';

/** Most VLAN tags the l2 key includes. */
export const MAX_L2_VLANS = 8;
/** Size of the selector's key buffer, bytes (≥ the longest key: 12 + 2·8 for l2, 37 for IPv6). */
export const KEY_BUFFER_BYTES = 64;

/** What a FieldSelector hashes (the switch-relevant part of EcmpConfig plus the hash's layout). */
export interface FieldSelectOptions {
  fields: FieldSet;
  symmetric: boolean;
  tunnel: TunnelHeader;
  layout: HashLayout;
}

/**
 * Compares `a[0..n)` with `b[0..n)` as unsigned big-endian numbers.
 * @returns negative, 0 or positive
 */
export function compareBytes(a: Uint8Array, b: Uint8Array, n: number): number {
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Builds hash keys for one hash profile into a reused buffer. Not re-entrant: one key at a time. */
export class FieldSelector {
  /** The key bytes of the last select call are `buf[0..length)`; overwritten by the next call. */
  readonly buf = new Uint8Array(KEY_BUFFER_BYTES);
  readonly fields: FieldSet;
  readonly symmetric: boolean;
  readonly tunnel: TunnelHeader;
  readonly layout: HashLayout;
  // The same choices as booleans: the per-packet methods compare no strings.
  private readonly l2: boolean;
  private readonly l3l4: boolean;
  private readonly innerHeader: boolean;
  private readonly standard: boolean;

  /** @throws TypeError for an unknown field set, tunnel header or layout */
  constructor(opts: FieldSelectOptions) {
    if (!['l2', 'l3', 'l3l4'].includes(opts.fields)) throw new TypeError(`unknown field set '${opts.fields}'`);
    if (!['outer', 'inner'].includes(opts.tunnel)) throw new TypeError(`unknown tunnel header '${opts.tunnel}'`);
    if (!['standard', 'rss'].includes(opts.layout)) throw new TypeError(`unknown hash layout '${opts.layout}'`);
    this.fields = opts.fields;
    this.symmetric = opts.symmetric;
    this.tunnel = opts.tunnel;
    this.layout = opts.layout;
    this.l2 = opts.fields === 'l2';
    this.l3l4 = opts.fields === 'l3l4';
    this.innerHeader = opts.tunnel === 'inner';
    this.standard = opts.layout === 'standard';
  }

  /** The IP header level this profile hashes for `pkt` (see the module header). */
  tupleOf(pkt: PacketView): FlowTuple {
    if (this.innerHeader === true && pkt.inner.family !== 0) return pkt.inner;
    return pkt.outer;
  }

  /**
   * Writes the hash key of a packet into `buf`.
   * @returns key length in bytes (0: the frame has neither Ethernet nor IP fields)
   */
  selectPacket(pkt: PacketView): number {
    if (this.l2 === true) {
      const n = this.writeL2(pkt);
      if (n > 0) return n;
      return this.writeL3(this.tupleOf(pkt), true);
    }
    const t = this.tupleOf(pkt);
    if (t.family !== 0) return this.writeL3(t, this.l3l4);
    return this.writeL2(pkt);
  }

  /**
   * Writes the hash key of a bare flow tuple (no L2 information: the l2 profile hashes L3+L4 here).
   * @returns key length in bytes (0 when `t.family` is 0)
   */
  selectTuple(t: FlowTuple): number {
    if (t.family === 0) return 0;
    return this.writeL3(t, this.l2 || this.l3l4);
  }

  private writeL3(t: FlowTuple, wantPorts: boolean): number {
    if (t.family === 0) return 0;
    const alen = t.family === 4 ? 4 : 16;
    // booleans compared with true/false: one word compare each in optimized code
    const usePorts = wantPorts === true && t.hasPorts === true && t.fragment === false;
    let swap = false;
    if (this.symmetric === true) {
      const c = compareBytes(t.src, t.dst, alen);
      swap = c > 0 || (c === 0 && usePorts && t.sport > t.dport);
    }
    const a = swap ? t.dst : t.src;
    const b = swap ? t.src : t.dst;
    const buf = this.buf;
    for (let i = 0; i < alen; i++) {
      buf[i] = a[i]!;
      buf[alen + i] = b[i]!;
    }
    let o = 2 * alen;
    if (this.standard === true) buf[o++] = t.proto & 0xff;
    if (usePorts) {
      const sp = swap ? t.dport : t.sport;
      const dp = swap ? t.sport : t.dport;
      buf[o] = (sp >>> 8) & 0xff;
      buf[o + 1] = sp & 0xff;
      buf[o + 2] = (dp >>> 8) & 0xff;
      buf[o + 3] = dp & 0xff;
      o += 4;
    }
    return o;
  }

  private writeL2(pkt: PacketView): number {
    const eth = pkt.ethOffset;
    const f = pkt.frame;
    if (eth < 0 || eth + 12 > f.length) return 0;
    const buf = this.buf;
    // Frame order is dst MAC (eth+0) then src MAC (eth+6); the key starts with the source.
    let first = eth + 6;
    let second = eth;
    if (this.symmetric) {
      for (let i = 0; i < 6; i++) {
        const d = f[eth + 6 + i]! - f[eth + i]!;
        if (d !== 0) {
          if (d > 0) {
            first = eth;
            second = eth + 6;
          }
          break;
        }
      }
    }
    for (let i = 0; i < 6; i++) {
      buf[i] = f[first + i]!;
      buf[6 + i] = f[second + i]!;
    }
    let o = 12;
    const tags = Math.min(pkt.vlanCount, pkt.vlanIds.length, MAX_L2_VLANS);
    for (let i = 0; i < tags; i++) {
      const id = pkt.vlanIds[i]! & 0x0fff;
      buf[o] = id >>> 8;
      buf[o + 1] = id & 0xff;
      o += 2;
    }
    return o;
  }
}

/** Length of a flow key (writeFlowKey) for IPv6: family, protocol, 2 × 16 address bytes, 2 × 2 port bytes. */
export const FLOW_KEY_BYTES = 38;

/**
 * Writes the direction-insensitive identity of a flow (a conversation, as the processor boards key
 * it): TCP/UDP/SCTP by 5-tuple when ports may be used (FlowTuple.hashPorts), other IP protocols and
 * fragments by address pair and protocol; endpoints in canonical order (lower address, then lower
 * port, first). Layout: family ‖ protocol ‖ addr A ‖ addr B ‖ [port A ‖ port B].
 * @param out at least FLOW_KEY_BYTES long
 * @returns key length, 0 when the tuple has no IP header (not a flow)
 */
export function writeFlowKey(t: FlowTuple, out: Uint8Array): number {
  if (t.family === 0) return 0;
  const alen = t.family === 4 ? 4 : 16;
  const ports = t.hashPorts;
  const c = compareBytes(t.src, t.dst, alen);
  const swap = c > 0 || (c === 0 && ports && t.sport > t.dport);
  const a = swap ? t.dst : t.src;
  const b = swap ? t.src : t.dst;
  out[0] = t.family;
  out[1] = t.proto & 0xff;
  for (let i = 0; i < alen; i++) {
    out[2 + i] = a[i]!;
    out[2 + alen + i] = b[i]!;
  }
  let o = 2 + 2 * alen;
  if (ports) {
    const sp = swap ? t.dport : t.sport;
    const dp = swap ? t.sport : t.dport;
    out[o] = sp >>> 8;
    out[o + 1] = sp & 0xff;
    out[o + 2] = dp >>> 8;
    out[o + 3] = dp & 0xff;
    o += 4;
  }
  return o;
}
