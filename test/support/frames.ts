/**
 * Test frames for the live-mode modules, built from the RFCs with a checksum routine of their own
 * (a plain word sum written here, not the code under test): Ethernet II + IPv4/IPv6 + TCP/UDP/
 * ICMP echo, every checksum correct.
 */
import { parseAddress } from '../../board/processor/ip-address.ts';

/** RFC 1071 checksum, the naive way: sum 16-bit words, fold, complement. */
export function naiveChecksum(bytes: number[]): number {
  let s = 0;
  for (let i = 0; i < bytes.length; i += 2) s += (bytes[i]! << 8) + (bytes[i + 1] ?? 0);
  while (s > 0xffff) s = (s & 0xffff) + (s >> 16);
  return ~s & 0xffff;
}

/** 16-byte address bytes of text (IPv4 in 0..3). */
export function addr(text: string): Uint8Array {
  return parseAddress(text).bytes;
}

export const MAC_A = [0x02, 0, 0, 0, 0, 0xaa];
export const MAC_B = [0x02, 0, 0, 0, 0, 0xbb];

export interface FrameSpec {
  src: string;
  dst: string;
  proto: 6 | 17 | 1 | 58;
  sport?: number;
  dport?: number;
  /** TCP flags byte (default SYN 0x02). */
  flags?: number;
  payload?: number[];
  /** IPv4 DF (default true). */
  df?: boolean;
  /** Send UDP/IPv4 with checksum 0. */
  noUdpChecksum?: boolean;
  ttl?: number;
}

function w16(a: number[], v: number): void {
  a.push((v >> 8) & 0xff, v & 0xff);
}

/** A complete Ethernet frame for `s` (MAC_A → MAC_B). */
export function frame(s: FrameSpec): Uint8Array {
  const v6 = s.src.includes(':');
  const sa = [...addr(s.src).subarray(0, v6 ? 16 : 4)];
  const da = [...addr(s.dst).subarray(0, v6 ? 16 : 4)];
  const payload = s.payload ?? [0x68, 0x65, 0x6c, 0x6c, 0x6f];
  const l4: number[] = [];
  if (s.proto === 6) {
    w16(l4, s.sport ?? 40000);
    w16(l4, s.dport ?? 80);
    l4.push(0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0x50, s.flags ?? 0x02);
    w16(l4, 64240);
    l4.push(0, 0, 0, 0);
    l4.push(...payload);
  } else if (s.proto === 17) {
    w16(l4, s.sport ?? 40000);
    w16(l4, s.dport ?? 53);
    w16(l4, 8 + payload.length);
    l4.push(0, 0, ...payload);
  } else {
    l4.push(s.proto === 1 ? 8 : 128, 0, 0, 0, 0x12, 0x34, 0, 1, ...payload);
  }
  const ckAt = s.proto === 6 ? 16 : s.proto === 17 ? 6 : 2;
  const pseudo = v6
    ? [...sa, ...da, 0, 0, (l4.length >> 8) & 0xff, l4.length & 0xff, 0, 0, 0, s.proto]
    : [...sa, ...da, 0, s.proto, (l4.length >> 8) & 0xff, l4.length & 0xff];
  let ck = naiveChecksum(s.proto === 1 ? l4 : [...pseudo, ...l4]);
  if (s.proto === 17 && ck === 0) ck = 0xffff;
  if (s.proto === 17 && s.noUdpChecksum === true && !v6) ck = 0;
  l4[ckAt] = ck >> 8;
  l4[ckAt + 1] = ck & 0xff;
  const ip: number[] = [];
  if (v6) {
    ip.push(0x60, 0, 0, 0);
    w16(ip, l4.length);
    ip.push(s.proto, s.ttl ?? 64, ...sa, ...da);
  } else {
    ip.push(0x45, 0);
    w16(ip, 20 + l4.length);
    ip.push(0xab, 0xcd, s.df === false ? 0 : 0x40, 0, s.ttl ?? 64, s.proto, 0, 0, ...sa, ...da);
    const c = naiveChecksum(ip);
    ip[10] = c >> 8;
    ip[11] = c & 0xff;
  }
  return Uint8Array.from([...MAC_B, ...MAC_A, v6 ? 0x86 : 0x08, v6 ? 0xdd : 0x00, ...ip, ...l4]);
}

/** Hex text of bytes (for assertion messages). */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

/**
 * Checks every checksum of an Ethernet frame the naive way (sum over the covered bytes with the
 * checksum in place must fold to 0xffff): IPv4 header, TCP/UDP (pseudo-header), ICMP, ICMPv6; for
 * an ICMP error also the quoted IPv4 header. Returns the problems found (empty = all good).
 */
export function checksumProblems(f: Uint8Array): string[] {
  const out: string[] = [];
  const b = [...f];
  const type = (b[12]! << 8) | b[13]!;
  const sum = (a: number[]) => {
    let s = 0;
    for (let i = 0; i < a.length; i += 2) s += (a[i]! << 8) + (a[i + 1] ?? 0);
    while (s > 0xffff) s = (s & 0xffff) + (s >> 16);
    return s;
  };
  if (type === 0x0800) {
    const hl = (b[14]! & 15) * 4;
    const tl = (b[16]! << 8) | b[17]!;
    if (sum(b.slice(14, 14 + hl)) !== 0xffff) out.push('ipv4 header');
    const proto = b[23]!;
    const l4 = b.slice(14 + hl, 14 + tl);
    const pseudo = [...b.slice(26, 34), 0, proto, (l4.length >> 8) & 0xff, l4.length & 0xff];
    if (proto === 6 && sum([...pseudo, ...l4]) !== 0xffff) out.push('tcp');
    if (proto === 17 && !(l4[6] === 0 && l4[7] === 0) && sum([...pseudo, ...l4]) !== 0xffff) out.push('udp');
    if (proto === 1) {
      if (sum(l4) !== 0xffff) out.push('icmp');
      if ([3, 4, 11, 12].includes(l4[0]!) && l4.length >= 28) {
        const q = l4.slice(8);
        const qhl = (q[0]! & 15) * 4;
        if (sum(q.slice(0, qhl)) !== 0xffff) out.push('quoted ipv4 header');
      }
    }
  } else if (type === 0x86dd) {
    const pl = (b[18]! << 8) | b[19]!;
    const next = b[20]!;
    const l4 = b.slice(54, 54 + pl);
    const pseudo = [...b.slice(22, 54), 0, 0, (pl >> 8) & 0xff, pl & 0xff, 0, 0, 0, next];
    if ((next === 6 || next === 17 || next === 58) && sum([...pseudo, ...l4]) !== 0xffff) out.push(next === 58 ? 'icmpv6' : next === 6 ? 'tcp' : 'udp');
  }
  return out;
}
