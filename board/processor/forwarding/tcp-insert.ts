/**
 * Growing a TCP segment in place: `n` bytes opened at an offset inside the segment (after the
 * fixed header for an option, after the options for stream bytes), with every length field and
 * checksum the growth touches brought up to date — IPv4 total length and header checksum
 * (RFC 791 §3.1), IPv6 payload length (RFC 8200 §3), the TCP data offset for an option
 * (RFC 9293 §3.1) and the TCP checksum, recomputed over the grown segment with its pseudo-header.
 *
 * The room test is the caller's promise to the wire: the grown frame must fit the buffer and the
 * grown IP datagram must fit `mtu`; options must stay within the 40 bytes a data offset of 15
 * allows. When any test fails nothing is changed and the reason is returned, so a segment with no
 * room goes out as it came (counted by the caller), never cut or fragmented.
 *
 * Frames are Ethernet frames with the IP header at `ip.l3` (board/packet/ip-layout.ts); IPv6
 * extension headers are kept (their lengths do not change). IPv4 and IPv6 fragments are refused.
 */
import { setIpv4HeaderChecksum, setL4Checksum, write16 } from '../../packet/checksum.ts';
import type { IpLayout } from '../../packet/ip-layout.ts';

/** Outcome of `openTcpSpace`. */
export const InsertResult = {
  OK: 0,
  /** Not an unfragmented TCP segment with its header present. */
  NOT_TCP: 1,
  /** The options would exceed 40 bytes. */
  NO_OPTION_SPACE: 2,
  /** The grown datagram would exceed the MTU, or the frame the buffer. */
  NO_ROOM: 3,
} as const;
export type InsertResult = (typeof InsertResult)[keyof typeof InsertResult];

/** Bytes of the TCP header (fixed part + options) of the segment at `ip.l4`. */
export function tcpHeaderLength(frame: Uint8Array, ip: IpLayout): number {
  return (frame[ip.l4 + 12]! >> 4) << 2;
}

/**
 * Checks that `n` more bytes fit the segment of `ip` (frame length `len`, buffer `frame.length`).
 * @param option true when the bytes are a TCP option (the 40-byte option limit applies)
 */
export function roomFor(frame: Uint8Array, ip: IpLayout, len: number, n: number, mtu: number, option: boolean): InsertResult {
  if (ip.proto !== 6 || ip.l4 < 0 || ip.fragment || ip.l4 + 20 > ip.end) return InsertResult.NOT_TCP;
  const hl = tcpHeaderLength(frame, ip);
  if (hl < 20 || ip.l4 + hl > ip.end) return InsertResult.NOT_TCP;
  if (option && (hl + n > 60 || (n & 3) !== 0)) return InsertResult.NO_OPTION_SPACE;
  if (ip.end > len || ip.end + n > frame.length || ip.end - ip.l3 + n > mtu) return InsertResult.NO_ROOM;
  return InsertResult.OK;
}

/**
 * Opens `n` bytes at `at` (an offset inside the TCP segment) and fills them from `bytes`.
 * @param option true: the bytes are options (data offset grows by n/4); false: stream bytes
 * @returns the new frame length (an Ethernet trailer after the datagram is dropped), or −1 when
 *   `roomFor` refused (nothing changed)
 */
export function openTcpSpace(frame: Uint8Array, ip: IpLayout, len: number, at: number, bytes: Uint8Array, mtu: number, option: boolean): number {
  const n = bytes.length;
  if (roomFor(frame, ip, len, n, mtu, option) !== InsertResult.OK) return -1;
  frame.copyWithin(at + n, at, ip.end);
  frame.set(bytes, at);
  if (option) frame[ip.l4 + 12] = ((((frame[ip.l4 + 12]! >> 4) + (n >> 2)) << 4) | (frame[ip.l4 + 12]! & 0x0f)) & 0xff;
  const end = ip.end + n;
  if (ip.family === 4) {
    write16(frame, ip.l3 + 2, end - ip.l3);
    setIpv4HeaderChecksum(frame, ip.l3);
  } else {
    write16(frame, ip.l3 + 4, end - ip.l3 - 40);
  }
  ip.end = end;
  ip.l4Len += n;
  setL4Checksum(frame, ip.family as 4 | 6, ip.l3, 6, ip.l4, end - ip.l4);
  return end;
}
