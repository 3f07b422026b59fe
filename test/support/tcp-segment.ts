/**
 * TCP test segments with options, sequence and acknowledgement numbers (frames.ts builds option-less
 * ones): Ethernet II + IPv4/IPv6 + TCP, every checksum computed the naive way (frames.ts), and a
 * reader of the TCP fields for assertions.
 */
import { addr, MAC_A, MAC_B, naiveChecksum } from './frames.ts';

export interface SegmentSpec {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  seq: number;
  ack?: number;
  /** Flags byte (SYN 0x02, ACK 0x10, PSH|ACK 0x18…). */
  flags: number;
  /** Option bytes (padded to a multiple of 4 with EOL by the builder). */
  options?: number[];
  payload?: number[];
  /** Bytes of Ethernet trailer after the datagram. */
  trailer?: number;
}

/** A Linux-like SYN's 20 option bytes: MSS 1460, SACK permitted, timestamps, NOP, window scale 7. */
export const LINUX_SYN_OPTIONS = [2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7];

function w16(a: number[], v: number): void {
  a.push((v >> 8) & 0xff, v & 0xff);
}

function w32(a: number[], v: number): void {
  a.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
}

/** The frame of `s` in a buffer with `spare` bytes of room after it. @returns [buffer, length] */
export function segment(s: SegmentSpec, spare = 0): [Uint8Array, number] {
  const v6 = s.src.includes(':');
  const sa = [...addr(s.src).subarray(0, v6 ? 16 : 4)];
  const da = [...addr(s.dst).subarray(0, v6 ? 16 : 4)];
  const opts = [...(s.options ?? [])];
  while (opts.length % 4 !== 0) opts.push(0);
  const l4: number[] = [];
  w16(l4, s.sport);
  w16(l4, s.dport);
  w32(l4, s.seq >>> 0);
  w32(l4, (s.ack ?? 0) >>> 0);
  l4.push(((20 + opts.length) / 4) << 4, s.flags);
  w16(l4, 64240);
  l4.push(0, 0, 0, 0, ...opts, ...(s.payload ?? []));
  const pseudo = v6
    ? [...sa, ...da, 0, 0, (l4.length >> 8) & 0xff, l4.length & 0xff, 0, 0, 0, 6]
    : [...sa, ...da, 0, 6, (l4.length >> 8) & 0xff, l4.length & 0xff];
  const ck = naiveChecksum([...pseudo, ...l4]);
  l4[16] = ck >> 8;
  l4[17] = ck & 0xff;
  const ip: number[] = [];
  if (v6) {
    ip.push(0x60, 0, 0, 0);
    w16(ip, l4.length);
    ip.push(6, 64, ...sa, ...da);
  } else {
    ip.push(0x45, 0);
    w16(ip, 20 + l4.length);
    ip.push(0xab, 0xcd, 0x40, 0, 64, 6, 0, 0, ...sa, ...da);
    const c = naiveChecksum(ip);
    ip[10] = c >> 8;
    ip[11] = c & 0xff;
  }
  const bytes = [...MAC_B, ...MAC_A, v6 ? 0x86 : 0x08, v6 ? 0xdd : 0x00, ...ip, ...l4, ...new Array<number>(s.trailer ?? 0).fill(0)];
  const buf = new Uint8Array(bytes.length + spare);
  buf.set(bytes);
  return [buf, bytes.length];
}

/** The TCP fields of an Ethernet frame's segment. */
export function tcpFields(f: Uint8Array): { seq: number; ack: number; dataOffset: number; options: number[]; payload: number[] } {
  const v6 = ((f[12]! << 8) | f[13]!) === 0x86dd;
  const l3 = 14;
  const end = v6 ? l3 + 40 + ((f[l3 + 4]! << 8) | f[l3 + 5]!) : l3 + ((f[l3 + 2]! << 8) | f[l3 + 3]!);
  const l4 = v6 ? l3 + 40 : l3 + (f[l3]! & 15) * 4;
  const r32 = (o: number) => ((f[o]! << 24) | (f[o + 1]! << 16) | (f[o + 2]! << 8) | f[o + 3]!) >>> 0;
  const hl = (f[l4 + 12]! >> 4) * 4;
  return {
    seq: r32(l4 + 4), ack: r32(l4 + 8), dataOffset: hl,
    options: [...f.subarray(l4 + 20, l4 + hl)], payload: [...f.subarray(l4 + hl, end)],
  };
}
