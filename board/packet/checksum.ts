/**
 * The Internet checksum and its incremental update, for every header the appliance writes or
 * rewrites: IPv4 header (RFC 791 §3.1), ICMP (RFC 792), ICMPv6 (RFC 4443 §2.3), UDP (RFC 768),
 * TCP (RFC 9293 §3.1), with the IPv4 pseudo-header (RFC 768, RFC 9293 §3.1) and the IPv6 one
 * (RFC 8200 §8.1).
 *
 * - `onesSum` adds 16-bit big-endian words (RFC 1071 §4.1; an odd last byte is padded with a zero
 *   byte on the right) without folding, so partial sums of several regions can be added;
 *   `fold` folds the carries back in; `checksumOf` = ~fold(sum).
 * - `adjust16` / `adjustBytes` are RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), for one changed
 *   16-bit word or a run of changed bytes (an address): no re-reading of the rest of the packet.
 *   Eqn. 3 (unlike RFC 1141's eqn. 2) never turns a correct checksum into the other zero.
 * - UDP over IPv4 sends 0 for "no checksum" (RFC 768): `adjustUdp` leaves a 0 as it is, and a
 *   computed 0 is sent as 0xFFFF (RFC 768, RFC 8200 §8.1).
 *
 * Offsets are byte offsets into the buffer handed in; nothing allocates. The same rule was
 * written inline twice before this module (the port shift of chassis/dataplane/traffic.ts and
 * `ipv4HeaderChecksum` of board/processor/encap.ts); both can call this one.
 */

/** Unfolded ones'-complement sum of `len` bytes at `off`, added to `initial` (RFC 1071). */
export function onesSum(b: Uint8Array, off: number, len: number, initial = 0): number {
  let s = initial;
  const end = off + len - 1;
  let i = off;
  for (; i < end; i += 2) s += (b[i]! << 8) | b[i + 1]!;
  if (i === end) s += b[i]! << 8;
  // Keep the sum well inside 2^53 for very long inputs.
  return s > 0x7fffffff ? (s % 0xffff) || 0xffff : s;
}

/** A sum folded to 16 bits (end-around carry). */
export function fold(s: number): number {
  let v = s;
  while (v > 0xffff) v = (v & 0xffff) + Math.floor(v / 0x10000);
  return v;
}

/** The checksum field value for data whose unfolded sum (checksum field taken as 0) is `s`. */
export function checksumOf(s: number): number {
  return ~fold(s) & 0xffff;
}

/** RFC 1071 checksum of `len` bytes at `off` (the checksum field inside must read 0). */
export function internetChecksum(b: Uint8Array, off: number, len: number, initial = 0): number {
  return checksumOf(onesSum(b, off, len, initial));
}

/**
 * Unfolded sum of the pseudo-header of a TCP/UDP/ICMPv6 checksum: IPv4 (src, dst, zero, protocol,
 * length; RFC 768, RFC 9293 §3.1) or IPv6 (src, dst, upper-layer length, zeros, next header;
 * RFC 8200 §8.1). Addresses are read at `srcOff`/`dstOff` of `b` (4 or 16 bytes).
 * @param length upper-layer length in bytes (header + payload)
 */
export function pseudoHeaderSum(family: 4 | 6, b: Uint8Array, srcOff: number, dstOff: number, proto: number, length: number): number {
  const n = family === 6 ? 16 : 4;
  let s = onesSum(b, srcOff, n) + onesSum(b, dstOff, n);
  s += proto + (length >>> 16) + (length & 0xffff);
  return s;
}

/** Recomputes the IPv4 header checksum of the header at `off` in place (RFC 791 §3.1). */
export function setIpv4HeaderChecksum(b: Uint8Array, off: number): void {
  const hlen = (b[off]! & 15) << 2;
  b[off + 10] = 0;
  b[off + 11] = 0;
  const c = internetChecksum(b, off, hlen);
  b[off + 10] = c >>> 8;
  b[off + 11] = c & 0xff;
}

/** RFC 1624 eqn. 3 for one 16-bit word changed from `oldWord` to `newWord`. */
export function adjust16(ck: number, oldWord: number, newWord: number): number {
  const s = (~ck & 0xffff) + (~oldWord & 0xffff) + (newWord & 0xffff);
  return ~fold(s) & 0xffff;
}

/**
 * RFC 1624 eqn. 3 for `len` bytes (even) changed from `oldB[oldOff..]` to `newB[newOff..]`:
 * e.g. an address rewrite (4 or 16 bytes) under an IPv4 header, TCP, UDP or ICMPv6 checksum.
 */
export function adjustBytes(ck: number, oldB: Uint8Array, oldOff: number, newB: Uint8Array, newOff: number, len: number): number {
  let s = ~ck & 0xffff;
  for (let i = 0; i < len; i += 2) {
    s += (~((oldB[oldOff + i]! << 8) | oldB[oldOff + i + 1]!) & 0xffff) + ((newB[newOff + i]! << 8) | newB[newOff + i + 1]!);
  }
  return ~fold(s) & 0xffff;
}

/** Reads the big-endian 16-bit field at `off`. */
export function read16(b: Uint8Array, off: number): number {
  return (b[off]! << 8) | b[off + 1]!;
}

/** Writes `v` as a big-endian 16-bit field at `off`. */
export function write16(b: Uint8Array, off: number, v: number): void {
  b[off] = (v >>> 8) & 0xff;
  b[off + 1] = v & 0xff;
}

/**
 * A UDP checksum after the same change as `adjust16`/`adjustBytes` gave `adjusted`: 0 (IPv4,
 * "not computed") stays 0, and a result of 0 is sent as 0xFFFF (RFC 768).
 */
export function udpChecksumAfter(old: number, adjusted: number): number {
  if (old === 0) return 0;
  return adjusted === 0 ? 0xffff : adjusted;
}

/**
 * Computes and writes the full checksum of a TCP (field at +16), UDP (+6), ICMPv6 (+2) or ICMP
 * (+2, no pseudo-header) message of `len` bytes at `l4Off`, the IP header at `l3Off`.
 * @param family 4 or 6 (where the addresses are: IPv4 at +12/+16, IPv6 at +8/+24)
 */
export function setL4Checksum(b: Uint8Array, family: 4 | 6, l3Off: number, proto: number, l4Off: number, len: number): void {
  const at = proto === 6 ? 16 : proto === 17 ? 6 : 2;
  b[l4Off + at] = 0;
  b[l4Off + at + 1] = 0;
  let s = 0;
  if (proto !== 1) {
    s = family === 6 ? pseudoHeaderSum(6, b, l3Off + 8, l3Off + 24, proto, len) : pseudoHeaderSum(4, b, l3Off + 12, l3Off + 16, proto, len);
  }
  let c = internetChecksum(b, l4Off, len, s);
  if (proto === 17 && c === 0) c = 0xffff;
  write16(b, l4Off + at, c);
}
