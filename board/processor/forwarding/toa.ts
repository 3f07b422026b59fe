/**
 * TOA ("TCP option address"): under `fullnat` the RS sees the board's local address as the
 * client, so the board writes the client's real port and address into a TCP option that a module
 * on the RS reads (the HPGW design; DPVS and the Linux `toa` module use the same layouts). The
 * option kind is 254, one of the two experimental kinds of RFC 4727 §7.2; tshark shows it as an
 * RFC 6994 experimental option and its bytes after kind and length as the ExID and data.
 *
 * Layouts (big-endian, every field network order):
 *
 *   IPv4, 8 bytes:   kind 254 | length 8  | client port (2) | client IPv4 address (4)
 *   IPv6, 20 bytes:  kind 254 | length 20 | client port (2) | client IPv6 address (16)
 *
 * Both lengths are multiples of 4, and the option goes first, right after the 20-byte fixed
 * header (before the segment's own options), so the options after it keep their alignment and an
 * End-of-Option-List among them cannot hide it.
 *
 * Which segments carry it (as DPVS does): the client's SYN and its first segment after the SYN
 * (the handshake's ACK, or the first data) — `ClientAddressStage` (client-address.ts) decides; this
 * module writes it. Room: a SYN of Linux carries 20 option bytes, so IPv4 (28) and IPv6 (40) fit;
 * a segment whose options or MTU leave no room goes out unchanged and is counted, never cut.
 */
import type { IpLayout } from '../../packet/ip-layout.ts';
import { InsertResult, openTcpSpace, roomFor } from './tcp-insert.ts';

/** The TCP option kind of TOA. */
export const TOA_KIND = 254;

/** Bytes of the option for a client of `family`: 8 (IPv4) or 20 (IPv6). */
export function toaLength(family: 4 | 6): number {
  return family === 6 ? 20 : 8;
}

/**
 * Writes the TOA option for client `address`:`port` into `buf` at `offset`.
 * @param address 16-byte address array (IPv4 in bytes 0..3)
 * @returns the offset after the option
 * @throws RangeError on a port outside 0..65535 or a buffer too short
 */
export function encodeToa(family: 4 | 6, address: Uint8Array, port: number, buf: Uint8Array, offset: number): number {
  const n = toaLength(family);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new RangeError(`TOA: port ${port} outside 0..65535`);
  if (offset < 0 || offset + n > buf.length) throw new RangeError(`TOA: need ${n} bytes at ${offset}, buffer has ${buf.length}`);
  buf[offset] = TOA_KIND;
  buf[offset + 1] = n;
  buf[offset + 2] = port >>> 8;
  buf[offset + 3] = port & 0xff;
  buf.set(address.subarray(0, n - 4), offset + 4);
  return offset + n;
}

/** A decoded TOA option. */
export interface ToaValue {
  family: 4 | 6;
  port: number;
  /** 16 bytes, IPv4 in 0..3. */
  address: Uint8Array;
}

/**
 * Finds and decodes the TOA option among the TCP options of the segment at `l4` (as the RS's
 * module does: walk the options, NOP is one byte, EOL ends them).
 * @returns the option, or null when the segment has none (or a malformed option list)
 */
export function findToa(frame: Uint8Array, l4: number): ToaValue | null {
  const end = l4 + ((frame[l4 + 12]! >> 4) << 2);
  let p = l4 + 20;
  while (p < end) {
    const kind = frame[p]!;
    if (kind === 0) return null;
    if (kind === 1) {
      p++;
      continue;
    }
    if (p + 1 >= end) return null;
    const len = frame[p + 1]!;
    if (len < 2 || p + len > end) return null;
    if (kind === TOA_KIND && (len === 8 || len === 20)) {
      const address = new Uint8Array(16);
      address.set(frame.subarray(p + 4, p + len));
      return { family: len === 8 ? 4 : 6, port: (frame[p + 2]! << 8) | frame[p + 3]!, address };
    }
    p += len;
  }
  return null;
}

/**
 * Inserts the TOA option of client `address`:`port` into the TCP segment of `frame` (in place).
 * @param scratch at least 20 bytes, reused
 * @returns the new frame length, or −code of the InsertResult when the segment has no room (see
 *   tcp-insert.ts); then nothing changed
 */
export function insertToa(frame: Uint8Array, ip: IpLayout, len: number, address: Uint8Array, port: number, mtu: number, scratch: Uint8Array): number {
  const fam = ip.family === 6 ? 6 : 4;
  const n = toaLength(fam);
  const why = roomFor(frame, ip, len, n, mtu, true);
  if (why !== InsertResult.OK) return -why;
  encodeToa(fam, address, port, scratch, 0);
  return openTcpSpace(frame, ip, len, ip.l4 + 20, scratch.subarray(0, n), mtu, true);
}
