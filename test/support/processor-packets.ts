/**
 * Test support for the processor board: builds real frames (Ethernet II + IPv4/IPv6 + TCP/UDP
 * with correct checksums) and the PacketView the parser would produce for them, without
 * depending on board/packet's parser (written in parallel). Every field the board reads is set
 * from the bytes written, so the frames are also valid input for tshark.
 */
import { FlowTuple } from '../../board/packet/flow-tuple.ts';
import type { PacketView } from '../../board/packet/flow-tuple.ts';
import { parseAddress } from '../../board/processor/ip-address.ts';

export const FIN = 0x01;
export const SYN = 0x02;
export const RST = 0x04;
export const PSH = 0x08;
export const ACK = 0x10;

/** A PacketView over a built frame. */
export class TestPacket implements PacketView {
  frame: Uint8Array;
  origLen: number;
  linkType = 1;
  ethOffset = 0;
  vlanCount = 0;
  vlanIds = new Uint16Array(4);
  outer = new FlowTuple();
  inner = new FlowTuple();
  tunnelDepth = 0;
  icmpError = false;
  quoted = new FlowTuple();
  malformed = false;

  constructor(frame: Uint8Array, origLen = frame.length) {
    this.frame = frame;
    this.origLen = origLen;
  }
}

export interface PacketSpec {
  src: string;
  dst: string;
  /** 6 tcp (default when flags given), 17 udp, or any other protocol number (no L4 header built). */
  proto?: number;
  sport?: number;
  dport?: number;
  flags?: number;
  payload?: number;
  /** Keep only this many bytes of the frame (a truncated capture); origLen stays the full length. */
  snap?: number;
}

function sum16(b: Uint8Array, off: number, len: number, init = 0): number {
  let s = init;
  for (let i = 0; i + 1 < len; i += 2) s += (b[off + i]! << 8) | b[off + i + 1]!;
  if (len & 1) s += b[off + len - 1]! << 8;
  return s;
}

function fold(s: number): number {
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return ~s & 0xffff;
}

/** Builds the frame and its PacketView. */
export function packet(spec: PacketSpec): TestPacket {
  const s = parseAddress(spec.src);
  const d = parseAddress(spec.dst);
  const v6 = s.family === 6;
  const proto = spec.proto ?? 6;
  const payload = spec.payload ?? 0;
  const l4len = proto === 6 ? 20 : proto === 17 ? 8 : 0;
  const ipHdr = v6 ? 40 : 20;
  const ipLen = ipHdr + l4len + payload;
  const f = new Uint8Array(14 + ipLen);
  f.set([0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02], 0);
  f[12] = v6 ? 0x86 : 0x08;
  f[13] = v6 ? 0xdd : 0x00;
  const ip = 14;
  if (v6) {
    f[ip] = 0x60;
    f[ip + 4] = (l4len + payload) >> 8;
    f[ip + 5] = (l4len + payload) & 0xff;
    f[ip + 6] = proto;
    f[ip + 7] = 64;
    f.set(s.bytes, ip + 8);
    f.set(d.bytes, ip + 24);
  } else {
    f[ip] = 0x45;
    f[ip + 2] = ipLen >> 8;
    f[ip + 3] = ipLen & 0xff;
    f[ip + 6] = 0x40;
    f[ip + 8] = 64;
    f[ip + 9] = proto;
    f.set(s.bytes.subarray(0, 4), ip + 12);
    f.set(d.bytes.subarray(0, 4), ip + 16);
    const c = fold(sum16(f, ip, 20));
    f[ip + 10] = c >> 8;
    f[ip + 11] = c & 0xff;
  }
  const l4 = ip + ipHdr;
  const sport = spec.sport ?? 0;
  const dport = spec.dport ?? 0;
  for (let i = 0; i < payload; i++) f[l4 + l4len + i] = (i * 7) & 0xff;
  if (l4len) {
    f[l4] = sport >> 8;
    f[l4 + 1] = sport & 0xff;
    f[l4 + 2] = dport >> 8;
    f[l4 + 3] = dport & 0xff;
    let ck: number;
    if (proto === 6) {
      f[l4 + 12] = 0x50;
      f[l4 + 13] = (spec.flags ?? 0) & 0xff;
      f[l4 + 14] = 0xff;
      f[l4 + 15] = 0xff;
      ck = l4 + 16;
    } else {
      f[l4 + 4] = (8 + payload) >> 8;
      f[l4 + 5] = (8 + payload) & 0xff;
      ck = l4 + 6;
    }
    // pseudo-header checksum (RFC 793 / RFC 768 / RFC 8200 §8.1)
    let p = 0;
    if (v6) p = sum16(f, ip + 8, 32);
    else p = sum16(f, ip + 12, 8);
    p += proto + l4len + payload;
    let c = fold(sum16(f, l4, l4len + payload, p));
    if (proto === 17 && c === 0) c = 0xffff;
    f[ck] = c >> 8;
    f[ck + 1] = c & 0xff;
  }
  const frame = spec.snap !== undefined && spec.snap < f.length ? f.slice(0, spec.snap) : f;
  const pk = new TestPacket(frame, f.length);
  const t = pk.outer;
  t.family = v6 ? 6 : 4;
  t.src.set(s.bytes);
  t.dst.set(d.bytes);
  t.proto = proto;
  t.hasPorts = l4len > 0;
  t.sport = l4len ? sport : 0;
  t.dport = l4len ? dport : 0;
  t.tcpFlags = proto === 6 ? spec.flags ?? 0 : -1;
  t.l3Offset = ip;
  t.l4Offset = l4len ? l4 : -1;
  t.ipLength = ipLen;
  pk.inner.copyFrom(t);
  return pk;
}

/** Shorthand for a TCP segment. */
export function tcp(src: string, sport: number, dst: string, dport: number, flags: number, payload = 0): TestPacket {
  return packet({ src, dst, sport, dport, flags, proto: 6, payload });
}

/** Shorthand for a UDP datagram. */
export function udp(src: string, sport: number, dst: string, dport: number, payload = 8): TestPacket {
  return packet({ src, dst, sport, dport, proto: 17, payload });
}

/** IPv4 address text for an integer (10.x.y.z style from a base). */
export function v4(n: number): string {
  return `${(n >>> 24) & 0xff}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`;
}

/** Minimal libpcap (LINKTYPE_ETHERNET, µs) file encoder, for tshark checks in tests. */
export function pcapFile(records: Array<{ bytes: Uint8Array; tsMs: number; origLen: number }>): Buffer {
  const parts: Buffer[] = [];
  const gh = Buffer.alloc(24);
  gh.writeUInt32LE(0xa1b2c3d4, 0);
  gh.writeUInt16LE(2, 4);
  gh.writeUInt16LE(4, 6);
  gh.writeUInt32LE(262144, 16);
  gh.writeUInt32LE(1, 20);
  parts.push(gh);
  for (const r of records) {
    const h = Buffer.alloc(16);
    const sec = Math.floor(r.tsMs / 1000);
    h.writeUInt32LE(((sec % 2 ** 32) + 2 ** 32) % 2 ** 32, 0); // pcap seconds are 32-bit
    h.writeUInt32LE(Math.min(999_999, Math.max(0, Math.floor((r.tsMs - sec * 1000) * 1000))), 4);
    h.writeUInt32LE(r.bytes.length, 8);
    h.writeUInt32LE(r.origLen, 12);
    parts.push(h, Buffer.from(r.bytes));
  }
  return Buffer.concat(parts);
}
