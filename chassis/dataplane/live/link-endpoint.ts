/**
 * One port of the appliance on a live link (a hub's front port, a processor board's back port):
 * its MAC, the addresses it answers ARP (RFC 826) and Neighbour Discovery (RFC 4861 §7.2) for,
 * and its neighbour table (board/packet/neighbour-table.ts: resolution, aging, a bounded queue
 * per unresolved neighbour). Frames leave through a FramePort the io adapter implements
 * (chassis/io/live-attach.ts over a TAP), so this stays pure: no I/O, time from the Clock port.
 *
 * Answered: ARP requests and NS for an address of `owns` (the port's own addresses and what the
 * path gives it: VIPs on the front, full-NAT local addresses and the back gateway on the back).
 * Learned: the sender of any ARP or NS addressed to us (STALE, RFC 4861 §7.2.3), the answers to
 * our solicitations (REACHABLE). Echo requests to an owned address are answered by the path.
 */
import type { Clock } from '../../../board/common/clock.ts';
import { ARP_REPLY, ARP_REQUEST, ArpMessage, buildArpAnnouncement, buildArpProbe, buildArpReply, buildArpRequest, parseArp } from '../../../board/packet/arp.ts';
import { ETH_LEN } from '../../../board/packet/ether-frame.ts';
import type { IpLayout } from '../../../board/packet/ip-layout.ts';
import { buildNeighbourAdvert, buildNeighbourSolicit, buildUnsolicitedAdvert, NA_SOLICITED, ND_NEIGHBOR_ADVERT, ND_NEIGHBOR_SOLICIT, NdMessage, parseNd } from '../../../board/packet/ndp.ts';
import { NeighbourTable, type NeighbourOptions } from '../../../board/packet/neighbour-table.ts';

/** Where a port's frames go (the io adapter: a TAP, a test's array). */
export interface FramePort {
  /** Sends `frame[0..length)` (the callee copies it before returning). */
  send(frame: Uint8Array, length: number): void;
}

/** Key of an address for the owned-address sets: IPv4 as a u32 number, IPv6 as hex text. */
export function addressKey(family: 4 | 6, b: Uint8Array, off = 0): number | string {
  if (family === 4) return ((b[off]! << 24) | (b[off + 1]! << 16) | (b[off + 2]! << 8) | b[off + 3]!) >>> 0;
  let s = '';
  for (let i = 0; i < 16; i++) s += (b[off + i]! < 16 ? '0' : '') + b[off + i]!.toString(16);
  return s;
}

/** Options of a LinkEndpoint. */
export interface LinkEndpointOptions {
  /** For logs and counters: 'slot1 front', 'slot3 back'. */
  name: string;
  mac: Uint8Array;
  /** The port's own IPv4 / IPv6 address (16-byte arrays), the source of its solicitations. */
  own4: Uint8Array | null;
  own6: Uint8Array | null;
  /** Link MTU (IP bytes). */
  mtu: number;
  port: FramePort;
  clock: Clock;
  neighbour?: Partial<NeighbourOptions>;
  /** Counted drops (neighbour_unresolved, neighbour_queue_full, …). */
  onDrop?: (reason: string, frames: number) => void;
}

/** Counters of an endpoint. */
export interface LinkEndpointStats {
  arpAnswered: number;
  ndAnswered: number;
  rxFrames: number;
  txFrames: number;
}

export class LinkEndpoint {
  readonly name: string;
  readonly mac: Uint8Array;
  readonly own4: Uint8Array | null;
  readonly own6: Uint8Array | null;
  readonly mtu: number;
  readonly neighbours: NeighbourTable;
  readonly stats: LinkEndpointStats = { arpAnswered: 0, ndAnswered: 0, rxFrames: 0, txFrames: 0 };
  /** Addresses answered for (own ones included); the path adds VIPs, local addresses, the gateway. */
  readonly owned = new Set<number | string>();
  private readonly port: FramePort;
  private readonly out = new Uint8Array(128);
  private readonly arp = new ArpMessage();
  private readonly nd = new NdMessage();

  constructor(opts: LinkEndpointOptions) {
    this.name = opts.name;
    this.mac = opts.mac;
    this.own4 = opts.own4;
    this.own6 = opts.own6;
    this.mtu = opts.mtu;
    this.port = opts.port;
    if (opts.own4) this.owned.add(addressKey(4, opts.own4));
    if (opts.own6) this.owned.add(addressKey(6, opts.own6));
    const onDrop = opts.onDrop ?? (() => undefined);
    this.neighbours = new NeighbourTable(opts.clock, {
      solicit: (family, address, unicastMac) => this.solicit(family, address, unicastMac),
      transmit: (frame, length) => this.transmit(frame, length),
      dropped: (reason, frames) => onDrop(reason, frames),
    }, opts.neighbour ?? {});
  }

  /** True when the endpoint answers for `family` address at `b[off..]`. */
  owns(family: 4 | 6, b: Uint8Array, off = 0): boolean {
    return this.owned.has(addressKey(family, b, off));
  }

  /** Sends a frame as it is (its MACs already written). */
  transmit(frame: Uint8Array, length: number): void {
    this.stats.txFrames++;
    this.port.send(frame, length);
  }

  /**
   * Sends the IP datagram in `frame` to next hop `hop` (16 bytes): writes this port's MAC as the
   * source, resolves the hop's MAC (queueing the frame meanwhile).
   */
  output(family: 4 | 6, hop: Uint8Array, frame: Uint8Array, length: number): void {
    frame.set(this.mac, 6);
    this.neighbours.output(family, hop, frame, length);
  }

  /** Announces the owned addresses of each family this port has (gratuitous ARP, unsolicited NA). */
  announce(addresses: ReadonlyArray<{ family: 4 | 6; bytes: Uint8Array }>): void {
    for (const a of addresses) {
      const n = a.family === 4 ? buildArpAnnouncement(this.out, this.mac, a.bytes) : buildUnsolicitedAdvert(this.out, this.mac, a.bytes);
      this.transmit(this.out, n);
    }
  }

  /**
   * Handles an ARP frame (payload at ETH_LEN). Answers a request for an owned address, learns
   * the sender when we are the target or resolve it.
   */
  handleArp(frame: Uint8Array, length: number): void {
    const m = this.arp;
    if (!parseArp(frame, ETH_LEN, length, m)) return;
    const forUs = this.owns(4, m.targetIp);
    const zeroSender = m.senderIp[0] === 0 && m.senderIp[1] === 0 && m.senderIp[2] === 0 && m.senderIp[3] === 0;
    if (!zeroSender) {
      const spa = widen(m.senderIp);
      // A reply answers our solicitation; a request to us records its sender (RFC 826 "merge").
      if (m.op === ARP_REPLY) this.neighbours.learn(4, spa, m.senderMac, true, true, false);
      else this.neighbours.learn(4, spa, m.senderMac, false, true, forUs);
    }
    if (m.op === ARP_REQUEST && forUs && !zeroSender) {
      this.stats.arpAnswered++;
      const n = buildArpReply(this.out, m, this.mac);
      this.transmit(this.out, n);
    } else if (m.op === ARP_REQUEST && forUs && zeroSender) {
      // an ARP probe (RFC 5227) for our address: defend it
      this.stats.arpAnswered++;
      const n = buildArpReply(this.out, m, this.mac);
      this.transmit(this.out, n);
    }
  }

  /**
   * Handles an ICMPv6 message that may be NS/NA (`ip` located). @returns true when it was one.
   */
  handleNd(frame: Uint8Array, ip: IpLayout): boolean {
    if (ip.proto !== 58 || ip.l4 < 0) return false;
    const t = frame[ip.l4];
    if (t !== ND_NEIGHBOR_SOLICIT && t !== ND_NEIGHBOR_ADVERT) return false;
    const m = this.nd;
    if (!parseNd(frame, ip.l3, ip.l4, ip.l4Len, m)) return true;
    if (m.type === ND_NEIGHBOR_ADVERT) {
      if (m.hasLinkAddress) this.neighbours.learn(6, m.target, m.linkAddress, (m.flags & NA_SOLICITED) !== 0, (m.flags & 0x20) !== 0, false);
      return true;
    }
    if (!this.owns(6, m.target)) return true;
    const unspecified = m.src.every((b) => b === 0);
    if (!unspecified && m.hasLinkAddress) this.neighbours.learn(6, m.src, m.linkAddress, false, true, true);
    this.stats.ndAnswered++;
    const n = buildNeighbourAdvert(this.out, m, this.mac, frame.subarray(6, 12));
    this.transmit(this.out, n);
    return true;
  }

  private solicit(family: 4 | 6, address: Uint8Array, unicastMac: Uint8Array | null): void {
    if (family === 4) {
      if (this.own4 === null) return;
      const n = unicastMac === null ? buildArpRequest(this.out, this.mac, this.own4, address) : buildArpProbe(this.out, this.mac, this.own4, unicastMac, address);
      this.transmit(this.out, n);
    } else {
      if (this.own6 === null) return;
      const n = buildNeighbourSolicit(this.out, this.mac, this.own6, address, unicastMac);
      this.transmit(this.out, n);
    }
  }
}

/** An IPv4 address (4 bytes) as the 16-byte form the neighbour table keys. */
function widen(a4: Uint8Array): Uint8Array {
  const b = new Uint8Array(16);
  b.set(a4.subarray(0, 4));
  return b;
}
