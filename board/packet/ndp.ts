/**
 * IPv6 Neighbour Discovery messages the appliance needs (RFC 4861): Neighbour Solicitation (type
 * 135, §4.3) to resolve or probe a neighbour, Neighbour Advertisement (type 136, §4.4) answering a
 * solicitation for one of its addresses, and the unsolicited NA (§7.2.6: S clear, O set, to the
 * all-nodes group) sent when an address's owner changes. Options: Source/Target Link-Layer
 * Address (types 1 and 2, §4.6.1). ICMPv6 checksum with the IPv6 pseudo-header (RFC 4443 §2.3,
 * RFC 8200 §8.1).
 *
 * Addressing: a resolving NS goes to the target's solicited-node multicast address ff02::1:ffXX:XXXX
 * (RFC 4291 §2.7.1) whose Ethernet address is 33:33 + its last four bytes (RFC 2464 §7); a probe of
 * a known neighbour (§7.3.3 PROBE) is unicast. Every ND message is sent with hop limit 255, and a
 * received one is refused unless its hop limit is 255 and its checksum, code and length are right
 * (§7.1.1, §7.1.2) — so no off-link host can forge one.
 * Builders write into the caller's buffer and return the frame length; nothing allocates.
 */
import { checksumOf, fold, onesSum, pseudoHeaderSum, write16 } from './checksum.ts';
import { ETH_LEN, ETHERTYPE_IPV6, writeEthernet } from './ether-frame.ts';

export const ND_NEIGHBOR_SOLICIT = 135;
export const ND_NEIGHBOR_ADVERT = 136;
/** NA flag bits (first byte after the checksum): Router, Solicited, Override (RFC 4861 §4.4). */
export const NA_ROUTER = 0x80;
export const NA_SOLICITED = 0x40;
export const NA_OVERRIDE = 0x20;
/** Frame length of every NS/NA built here: Ethernet 14 + IPv6 40 + ICMPv6 24 + one 8-byte option. */
export const ND_FRAME_LEN = ETH_LEN + 40 + 32;

/** ff02::1, all nodes (RFC 4291 §2.7.1). */
export const ALL_NODES: Readonly<Uint8Array> = Uint8Array.from([0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);

/** One parsed NS or NA (reused: `parseNd` fills it). */
export class NdMessage {
  /** 135 or 136. */
  type = 0;
  readonly src = new Uint8Array(16);
  readonly dst = new Uint8Array(16);
  readonly target = new Uint8Array(16);
  /** NA flags (NA_ROUTER | NA_SOLICITED | NA_OVERRIDE); 0 for an NS. */
  flags = 0;
  /** True when a Source (NS) / Target (NA) Link-Layer Address option was present. */
  hasLinkAddress = false;
  readonly linkAddress = new Uint8Array(6);
}

/** The solicited-node multicast address of `target` into `out` (16 bytes). */
export function solicitedNode(target: Uint8Array, out: Uint8Array): Uint8Array {
  out.fill(0);
  out[0] = 0xff;
  out[1] = 0x02;
  out[11] = 0x01;
  out[12] = 0xff;
  out[13] = target[13]!;
  out[14] = target[14]!;
  out[15] = target[15]!;
  return out;
}

/** The Ethernet multicast address of IPv6 multicast `group` (RFC 2464 §7) into `out`. */
export function multicastMac(group: Uint8Array, out: Uint8Array): Uint8Array {
  out[0] = 0x33;
  out[1] = 0x33;
  out[2] = group[12]!;
  out[3] = group[13]!;
  out[4] = group[14]!;
  out[5] = group[15]!;
  return out;
}

/** Writes an IPv6 header (hop limit `hops`, no flow label) at `off`; returns the payload offset. */
export function writeIpv6Header(out: Uint8Array, off: number, payloadLen: number, next: number, hops: number, src: Uint8Array, dst: Uint8Array): number {
  out[off] = 0x60;
  out[off + 1] = 0;
  out[off + 2] = 0;
  out[off + 3] = 0;
  write16(out, off + 4, payloadLen);
  out[off + 6] = next;
  out[off + 7] = hops;
  out.set(src.subarray(0, 16), off + 8);
  out.set(dst.subarray(0, 16), off + 24);
  return off + 40;
}

/** ICMPv6 checksum of the `len`-byte message at `l4` under the IPv6 header at `l3`, written in place. */
export function setIcmpv6Checksum(out: Uint8Array, l3: number, l4: number, len: number): void {
  out[l4 + 2] = 0;
  out[l4 + 3] = 0;
  const c = checksumOf(onesSum(out, l4, len, pseudoHeaderSum(6, out, l3 + 8, l3 + 24, 58, len)));
  write16(out, l4 + 2, c);
}

function buildNd(
  out: Uint8Array, ethDst: Uint8Array, myMac: Uint8Array, src: Uint8Array, dst: Uint8Array,
  type: number, flags: number, target: Uint8Array,
): number {
  if (out.length < ND_FRAME_LEN) throw new RangeError(`ndp: need ${ND_FRAME_LEN} bytes, buffer has ${out.length}`);
  const l3 = writeEthernet(out, 0, ethDst, myMac, ETHERTYPE_IPV6);
  const l4 = writeIpv6Header(out, l3, 32, 58, 255, src, dst);
  out[l4] = type;
  out[l4 + 1] = 0;
  out[l4 + 4] = flags;
  out[l4 + 5] = 0;
  out[l4 + 6] = 0;
  out[l4 + 7] = 0;
  out.set(target.subarray(0, 16), l4 + 8);
  out[l4 + 24] = type === ND_NEIGHBOR_SOLICIT ? 1 : 2;
  out[l4 + 25] = 1;
  out.set(myMac.subarray(0, 6), l4 + 26);
  setIcmpv6Checksum(out, l3, l4, 32);
  return ND_FRAME_LEN;
}

/**
 * A Neighbour Solicitation for `target` from (`myMac`, `myIp`), with the Source Link-Layer
 * Address option. `probeMac` null: resolution, to the solicited-node group; a MAC: a unicast
 * probe of a known neighbour (RFC 4861 §7.3.3).
 * @returns the frame length (ND_FRAME_LEN)
 */
export function buildNeighbourSolicit(out: Uint8Array, myMac: Uint8Array, myIp: Uint8Array, target: Uint8Array, probeMac: Uint8Array | null): number {
  const dst = probeMac === null ? solicitedNode(target, new Uint8Array(16)) : target;
  const mac = probeMac ?? multicastMac(dst, new Uint8Array(6));
  return buildNd(out, mac, myMac, myIp, dst, ND_NEIGHBOR_SOLICIT, 0, target);
}

/**
 * The solicited Neighbour Advertisement answering `ns` for our address `ns.target` (RFC 4861
 * §7.2.4: S and O set; to the solicitor, or to all nodes when it solicited from ::).
 * @param solicitorMac the NS frame's Ethernet source (used when it carried no SLLA option)
 */
export function buildNeighbourAdvert(out: Uint8Array, ns: NdMessage, myMac: Uint8Array, solicitorMac: Uint8Array): number {
  const unspecified = ns.src.every((b) => b === 0);
  const dst = unspecified ? ALL_NODES : ns.src;
  const ethDst = unspecified ? multicastMac(ALL_NODES, new Uint8Array(6)) : ns.hasLinkAddress ? ns.linkAddress : solicitorMac;
  const flags = unspecified ? NA_OVERRIDE : NA_SOLICITED | NA_OVERRIDE;
  return buildNd(out, ethDst, myMac, ns.target, dst, ND_NEIGHBOR_ADVERT, flags, ns.target);
}

/** An unsolicited Neighbour Advertisement of `target` at `mac` to all nodes (RFC 4861 §7.2.6). */
export function buildUnsolicitedAdvert(out: Uint8Array, mac: Uint8Array, target: Uint8Array): number {
  return buildNd(out, multicastMac(ALL_NODES, new Uint8Array(6)), mac, target, ALL_NODES, ND_NEIGHBOR_ADVERT, NA_OVERRIDE, target);
}

/**
 * Parses and validates an NS or NA (RFC 4861 §7.1.1, §7.1.2) whose IPv6 header is at `l3`, the
 * ICMPv6 message at `l4` (`l4Len` bytes, after any extension headers).
 * @returns false for any other message, a hop limit other than 255, a bad checksum, code or
 *   length, a multicast target, a malformed option, or an NA to a multicast group with S set
 */
export function parseNd(frame: Uint8Array, l3: number, l4: number, l4Len: number, out: NdMessage): boolean {
  const type = frame[l4]!;
  if ((type !== ND_NEIGHBOR_SOLICIT && type !== ND_NEIGHBOR_ADVERT) || l4Len < 24 || frame[l4 + 1] !== 0) return false;
  if (frame[l3 + 7] !== 255) return false;
  if (fold(onesSum(frame, l4, l4Len, pseudoHeaderSum(6, frame, l3 + 8, l3 + 24, 58, l4Len))) !== 0xffff) return false;
  if (frame[l4 + 8] === 0xff) return false;
  out.type = type;
  out.src.set(frame.subarray(l3 + 8, l3 + 24));
  out.dst.set(frame.subarray(l3 + 24, l3 + 40));
  out.target.set(frame.subarray(l4 + 8, l4 + 24));
  out.flags = type === ND_NEIGHBOR_ADVERT ? frame[l4 + 4]! & 0xe0 : 0;
  if (type === ND_NEIGHBOR_ADVERT && out.dst[0] === 0xff && (out.flags & NA_SOLICITED) !== 0) return false;
  out.hasLinkAddress = false;
  const want = type === ND_NEIGHBOR_SOLICIT ? 1 : 2;
  for (let p = l4 + 24; p < l4 + l4Len; ) {
    if (p + 2 > l4 + l4Len) return false;
    const olen = frame[p + 1]! << 3;
    if (olen === 0 || p + olen > l4 + l4Len) return false;
    if (frame[p] === want && olen >= 8) {
      out.hasLinkAddress = true;
      out.linkAddress.set(frame.subarray(p + 2, p + 8));
    }
    p += olen;
  }
  // An NS from the unspecified address (duplicate address detection) carries no SLLA (§7.1.1).
  if (type === ND_NEIGHBOR_SOLICIT && out.hasLinkAddress && out.src.every((b) => b === 0)) return false;
  return true;
}

