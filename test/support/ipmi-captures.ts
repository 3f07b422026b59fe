/**
 * Minimal reader of the classic-pcap IPMI captures in ../shared/ipmi/captures (Ethernet, IPv4,
 * UDP): returns each frame's UDP payload with its ports. Throws on anything else, so a fixture
 * that cannot be read fails the test loudly.
 */
import { readFileSync } from 'node:fs';
import { shared } from './shared.ts';

/** One UDP datagram of a capture; `frame` is 1-based like tshark's frame.number. */
export interface UdpFrame {
  frame: number;
  srcPort: number;
  dstPort: number;
  payload: Uint8Array;
}

/** Reads ../shared/ipmi/captures/<name>.pcap. @throws Error for a format it does not handle */
export function readIpmiCapture(name: string): UdpFrame[] {
  const buf = new Uint8Array(readFileSync(shared('ipmi', 'captures', `${name}.pcap`)));
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const magic = dv.getUint32(0, true);
  if (magic !== 0xa1b2c3d4) throw new Error(`${name}: not a little-endian microsecond pcap (magic ${magic.toString(16)})`);
  if (dv.getUint32(20, true) !== 1) throw new Error(`${name}: link type is not Ethernet`);
  const out: UdpFrame[] = [];
  let p = 24;
  let n = 0;
  while (p + 16 <= buf.length) {
    const incl = dv.getUint32(p + 8, true);
    const f = buf.subarray(p + 16, p + 16 + incl);
    p += 16 + incl;
    n++;
    if (f.length < 42 || f[12] !== 0x08 || f[13] !== 0x00) throw new Error(`${name} frame ${n}: not IPv4 over Ethernet`);
    const ihl = (f[14]! & 0x0f) * 4;
    if (f[14 + 9] !== 17) throw new Error(`${name} frame ${n}: not UDP`);
    const u = 14 + ihl;
    const udpLen = (f[u + 4]! << 8) | f[u + 5]!;
    out.push({ frame: n, srcPort: (f[u]! << 8) | f[u + 1]!, dstPort: (f[u + 2]! << 8) | f[u + 3]!, payload: f.slice(u + 8, u + udpLen) });
  }
  if (out.length === 0) throw new Error(`${name}: no frames`);
  return out;
}

/** Hex string → bytes (spaces allowed). */
export function hex(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
}

/** Bytes → lower-case hex. */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}
