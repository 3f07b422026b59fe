/**
 * The PROXY protocol version 2 binary header (HAProxy's "The PROXY protocol", versions 1 & 2,
 * §2.2), written by the board at the start of a `fullnat` connection's client → RS stream so that
 * a server without a TOA module (HAProxy `accept-proxy`, nginx `proxy_protocol`) learns the
 * client's address; and the sequence-number shift it costs for the rest of the connection.
 *
 * The header (all fields network order):
 *
 *   bytes 0..11  signature 0D 0A 0D 0A 00 0D 0A 51 55 49 54 0A
 *   byte  12     0x21: version 2 (high nibble), command PROXY (low nibble 1)
 *   byte  13     address family and transport: 0x11 TCP over IPv4, 0x21 TCP over IPv6
 *                (0x12 / 0x22 for UDP)
 *   bytes 14..15 length of the address block: 12 (IPv4) or 36 (IPv6)
 *   then         source address, destination address, source port, destination port —
 *                the client's address and port and the VIP's, as the client connected
 *
 * so 28 bytes for IPv4 and 52 for IPv6. No TLVs are sent.
 *
 * The shift. The header takes `delta` bytes of the RS's sequence space that the client never
 * sent: with F the client's first data sequence number (its ISN + 1), a client → RS segment at
 * F carries the header before its data and keeps its number; every later one (after F) is moved
 * up by delta; the RS's acknowledgements (and SACK edges, RFC 2018) after F are moved down by
 * delta (an acknowledgement inside the header becomes F). Sequence numbers compare modulo 2^32
 * (RFC 9293 §3.4). F and delta are the state a takeover needs (client-address.ts syncs them).
 */
import { adjust16, read16, write16 } from '../../packet/checksum.ts';
import type { IpLayout } from '../../packet/ip-layout.ts';

/** The 12-byte PROXY v2 signature. */
export const PROXY_V2_SIGNATURE: readonly number[] = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];

/** Bytes of the header for a connection of `family`: 28 (IPv4) or 52 (IPv6). */
export function proxyV2Length(family: 4 | 6): number {
  return family === 6 ? 52 : 28;
}

/** The endpoints of a proxied connection. Addresses are 16-byte arrays (IPv4 in 0..3). */
export interface ProxyEndpoints {
  family: 4 | 6;
  /** 6 (TCP) or 17 (UDP). */
  proto: number;
  src: Uint8Array;
  srcPort: number;
  dst: Uint8Array;
  dstPort: number;
}

/**
 * Writes the PROXY v2 header of `e` into `buf` at `offset`.
 * @returns the offset after it
 * @throws RangeError on a protocol other than TCP/UDP, a port outside 0..65535, a buffer too short
 */
export function encodeProxyV2(e: ProxyEndpoints, buf: Uint8Array, offset: number): number {
  const n = proxyV2Length(e.family);
  if (e.proto !== 6 && e.proto !== 17) throw new RangeError(`PROXY v2: protocol ${e.proto} is neither TCP nor UDP`);
  for (const p of [e.srcPort, e.dstPort]) if (!(Number.isInteger(p) && p >= 0 && p <= 65535)) throw new RangeError(`PROXY v2: port ${p} outside 0..65535`);
  if (offset < 0 || offset + n > buf.length) throw new RangeError(`PROXY v2: need ${n} bytes at ${offset}, buffer has ${buf.length}`);
  buf.set(PROXY_V2_SIGNATURE, offset);
  buf[offset + 12] = 0x21;
  buf[offset + 13] = ((e.family === 6 ? 2 : 1) << 4) | (e.proto === 6 ? 1 : 2);
  const al = e.family === 6 ? 16 : 4;
  write16(buf, offset + 14, 2 * al + 4);
  buf.set(e.src.subarray(0, al), offset + 16);
  buf.set(e.dst.subarray(0, al), offset + 16 + al);
  write16(buf, offset + 16 + 2 * al, e.srcPort);
  write16(buf, offset + 18 + 2 * al, e.dstPort);
  return offset + n;
}

/** `a` after `b` in sequence space (RFC 9293 §3.4: a − b in (0, 2^31)). */
export function seqAfter(a: number, b: number): boolean {
  const d = (a - b) >>> 0;
  return d !== 0 && d < 0x80000000;
}

function read32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

/** Rewrites the 32-bit field at `o` to `v`, returning the TCP checksum adjusted (RFC 1624). */
function put32(b: Uint8Array, o: number, v: number, ck: number): number {
  let c = adjust16(ck, read16(b, o), v >>> 16);
  c = adjust16(c, read16(b, o + 2), v & 0xffff);
  b[o] = v >>> 24;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
  return c;
}

/** The sequence number of the TCP segment at `l4`. */
export function tcpSeq(frame: Uint8Array, l4: number): number {
  return read32(frame, l4 + 4);
}

/**
 * Client → RS: moves the segment's sequence number up by `delta` when it lies after `first`
 * (incremental checksum). A segment at `first` is left alone (it carries the header).
 * @returns true when it changed the segment
 */
export function shiftSeqInbound(frame: Uint8Array, ip: IpLayout, first: number, delta: number): boolean {
  const l4 = ip.l4;
  const s = read32(frame, l4 + 4);
  if (!seqAfter(s, first)) return false;
  const ck = put32(frame, l4 + 4, (s + delta) >>> 0, read16(frame, l4 + 16));
  write16(frame, l4 + 16, ck);
  return true;
}

/** Maps an RS-space number after `first` back to the client's space. */
function unshift(v: number, first: number, delta: number): number {
  if (!seqAfter(v, first)) return v;
  return ((v - first) >>> 0) >= delta ? (v - delta) >>> 0 : first;
}

/**
 * RS → client: moves the acknowledgement number (when ACK is set) and the edges of SACK blocks
 * that lie after `first` down by `delta` (an edge inside the header becomes `first`), with the
 * checksum adjusted incrementally.
 * @returns true when it changed the segment
 */
export function shiftAckOutbound(frame: Uint8Array, ip: IpLayout, first: number, delta: number): boolean {
  const l4 = ip.l4;
  let ck = read16(frame, l4 + 16);
  let changed = false;
  if ((frame[l4 + 13]! & 0x10) !== 0) {
    const a = read32(frame, l4 + 8);
    const na = unshift(a, first, delta);
    if (na !== a) {
      ck = put32(frame, l4 + 8, na, ck);
      changed = true;
    }
  }
  const end = l4 + ((frame[l4 + 12]! >> 4) << 2);
  let p = l4 + 20;
  while (p < end) {
    const kind = frame[p]!;
    if (kind === 0) break;
    if (kind === 1) {
      p++;
      continue;
    }
    if (p + 1 >= end) break;
    const len = frame[p + 1]!;
    if (len < 2 || p + len > end) break;
    if (kind === 5) {
      for (let q = p + 2; q + 4 <= p + len; q += 4) {
        const v = read32(frame, q);
        const nv = unshift(v, first, delta);
        if (nv !== v) {
          ck = put32(frame, q, nv, ck);
          changed = true;
        }
      }
    }
    p += len;
  }
  if (changed) write16(frame, l4 + 16, ck);
  return changed;
}
