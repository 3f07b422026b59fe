/**
 * ARP for IPv4 over Ethernet (RFC 826): parsing requests and replies, building replies to
 * requests for the appliance's addresses, requests that resolve a server or gateway, and
 * announcements (RFC 5227 §2.3: an ARP *request* with sender and target protocol address both
 * the announced address and target hardware address zero, broadcast; what Linux's `arping -A`
 * and keepalived call gratuitous ARP) sent when an address's owner changes.
 *
 * Packet (28 bytes after the Ethernet header, EtherType 0x0806): hardware type 1, protocol
 * type 0x0800, hardware length 6, protocol length 4, operation (1 request, 2 reply), sender
 * hardware/protocol address, target hardware/protocol address. Frames are padded to the
 * 60-byte Ethernet minimum (IEEE 802.3 §4.2.3.3, FCS not counted). Builders write into the
 * caller's buffer (at least 60 bytes) and return the frame length; nothing allocates.
 */
import { BROADCAST_MAC, ETH_LEN, ETHERTYPE_ARP, writeEthernet } from './ether-frame.ts';

export const ARP_REQUEST = 1;
export const ARP_REPLY = 2;
/** Length of every ARP frame built here (the Ethernet minimum without FCS). */
export const ARP_FRAME_LEN = 60;
const ZERO_MAC = new Uint8Array(6);

/** One parsed ARP message (reused: `parseArp` fills it). */
export class ArpMessage {
  op = 0;
  readonly senderMac = new Uint8Array(6);
  readonly senderIp = new Uint8Array(4);
  readonly targetMac = new Uint8Array(6);
  readonly targetIp = new Uint8Array(4);
}

/**
 * Parses the ARP packet at `off` of `frame[0..len)` into `out`.
 * @returns false for anything but Ethernet/IPv4 ARP of operation 1 or 2, or a short packet
 */
export function parseArp(frame: Uint8Array, off: number, len: number, out: ArpMessage): boolean {
  if (off + 28 > len) return false;
  if (frame[off] !== 0 || frame[off + 1] !== 1 || frame[off + 2] !== 0x08 || frame[off + 3] !== 0 || frame[off + 4] !== 6 || frame[off + 5] !== 4) return false;
  const op = (frame[off + 6]! << 8) | frame[off + 7]!;
  if (op !== ARP_REQUEST && op !== ARP_REPLY) return false;
  out.op = op;
  out.senderMac.set(frame.subarray(off + 8, off + 14));
  out.senderIp.set(frame.subarray(off + 14, off + 18));
  out.targetMac.set(frame.subarray(off + 18, off + 24));
  out.targetIp.set(frame.subarray(off + 24, off + 28));
  return true;
}

/**
 * Builds one ARP frame.
 * @param ethDst Ethernet destination; `ethSrc` Ethernet source
 * @returns the frame length (60)
 * @throws RangeError when `out` is shorter than 60 bytes
 */
export function buildArp(
  out: Uint8Array, ethDst: Uint8Array, ethSrc: Uint8Array, op: number,
  sha: Uint8Array, spa: Uint8Array, tha: Uint8Array, tpa: Uint8Array,
): number {
  if (out.length < ARP_FRAME_LEN) throw new RangeError(`arp: need ${ARP_FRAME_LEN} bytes, buffer has ${out.length}`);
  const p = writeEthernet(out, 0, ethDst, ethSrc, ETHERTYPE_ARP);
  out[p] = 0;
  out[p + 1] = 1;
  out[p + 2] = 0x08;
  out[p + 3] = 0;
  out[p + 4] = 6;
  out[p + 5] = 4;
  out[p + 6] = 0;
  out[p + 7] = op;
  out.set(sha.subarray(0, 6), p + 8);
  out.set(spa.subarray(0, 4), p + 14);
  out.set(tha.subarray(0, 6), p + 18);
  out.set(tpa.subarray(0, 4), p + 24);
  out.fill(0, ETH_LEN + 28, ARP_FRAME_LEN);
  return ARP_FRAME_LEN;
}

/** The reply to request `req` for our address `req.targetIp`, from `myMac` (RFC 826 "swap"). */
export function buildArpReply(out: Uint8Array, req: ArpMessage, myMac: Uint8Array): number {
  return buildArp(out, req.senderMac, myMac, ARP_REPLY, myMac, req.targetIp, req.senderMac, req.senderIp);
}

/** A broadcast request for `targetIp` from (`myMac`, `myIp`). */
export function buildArpRequest(out: Uint8Array, myMac: Uint8Array, myIp: Uint8Array, targetIp: Uint8Array): number {
  return buildArp(out, BROADCAST_MAC, myMac, ARP_REQUEST, myMac, myIp, ZERO_MAC, targetIp);
}

/**
 * A unicast request to `targetMac` (RFC 1122 §2.3.2.1 refresh of a cached entry; the neighbour
 * table's probe of a stale entry).
 */
export function buildArpProbe(out: Uint8Array, myMac: Uint8Array, myIp: Uint8Array, targetMac: Uint8Array, targetIp: Uint8Array): number {
  return buildArp(out, targetMac, myMac, ARP_REQUEST, myMac, myIp, ZERO_MAC, targetIp);
}

/** An announcement of `ip` at `mac` (RFC 5227 §2.3), broadcast. */
export function buildArpAnnouncement(out: Uint8Array, mac: Uint8Array, ip: Uint8Array): number {
  return buildArp(out, BROADCAST_MAC, mac, ARP_REQUEST, mac, ip, ZERO_MAC, ip);
}
