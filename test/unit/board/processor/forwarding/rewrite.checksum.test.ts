/**
 * The NAT rewrite (board/processor/forwarding/rewrite.ts) and the MSS clamp of client-address.ts
 * keep every checksum right: random IPv4/IPv6 TCP/UDP datagrams (odd and even lengths, checksums
 * that are 0x0000 or 0xFFFF before or after), random address/port rewrites, applied once or
 * several times in a row, each verified by a full recomputation over the rewritten bytes.
 */
import { describe, expect, it } from 'vitest';
import { fold, onesSum, pseudoHeaderSum, setIpv4HeaderChecksum, setL4Checksum } from '../../../../../board/packet/checksum.ts';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import { rewriteDatagram } from '../../../../../board/processor/forwarding/rewrite.ts';
import { lowerMss } from '../../../../../board/processor/forwarding/client-address.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';

/** A datagram whose sum over header, pseudo-header and checksum folds to 0xFFFF verifies. */
function l4Verifies(f: Uint8Array, ip: IpLayout): boolean {
  const v6 = ip.family === 6;
  const ps = pseudoHeaderSum(v6 ? 6 : 4, f, ip.l3 + (v6 ? 8 : 12), ip.l3 + (v6 ? 24 : 16), ip.proto, ip.l4Len);
  return fold(onesSum(f, ip.l4, ip.l4Len, ps)) === 0xffff;
}

function ipVerifies(f: Uint8Array, ip: IpLayout): boolean {
  return ip.family === 6 || fold(onesSum(f, ip.l3, 20)) === 0xffff;
}

/** A random datagram at offset 14 of a frame: IPv4 or IPv6, TCP (with an MSS option) or UDP. */
function randomDatagram(r: SeededRandom, fam: 4 | 6, proto: 6 | 17): Uint8Array {
  const hl = proto === 6 ? 24 : 8;
  const payload = r.int(64);
  const ipl = fam === 4 ? 20 : 40;
  const f = new Uint8Array(14 + ipl + hl + payload);
  for (let i = 14; i < f.length; i++) f[i] = r.int(4) === 0 ? 0 : r.int(4) === 0 ? 0xff : r.int(256);
  const l3 = 14;
  const l4len = hl + payload;
  if (fam === 4) {
    f[l3] = 0x45;
    f[l3 + 2] = (ipl + l4len) >> 8;
    f[l3 + 3] = (ipl + l4len) & 0xff;
    f[l3 + 6] = 0x40; // DF, no fragment
    f[l3 + 7] = 0;
    f[l3 + 9] = proto;
    setIpv4HeaderChecksum(f, l3);
  } else {
    f[l3] = 0x60;
    f[l3 + 4] = l4len >> 8;
    f[l3 + 5] = l4len & 0xff;
    f[l3 + 6] = proto;
  }
  const l4 = l3 + ipl;
  if (proto === 6) {
    f[l4 + 12] = 0x60; // data offset 6 words
    f[l4 + 20] = 2; // MSS option
    f[l4 + 21] = 4;
  } else {
    f[l4 + 4] = l4len >> 8;
    f[l4 + 5] = l4len & 0xff;
  }
  setL4Checksum(f, fam, l3, proto, l4, l4len);
  return f;
}

function randomAddress(r: SeededRandom): Uint8Array {
  const a = new Uint8Array(16);
  for (let i = 0; i < 16; i++) a[i] = r.int(3) === 0 ? 0 : r.int(3) === 0 ? 0xff : r.int(256);
  return a;
}

describe('rewriteDatagram / lowerMss: incremental checksums equal full recomputation', () => {
  it('100,000 random datagrams (enough that results of 0x0000/0xFFFF occur) and rewrites (some applied 2–3 times, e.g. a retransmission)', () => {
    const r = new SeededRandom(20261202);
    const ip = new IpLayout();
    const failures: string[] = [];
    let zeroOrFfff = 0;
    for (let n = 0; n < 100_000 && failures.length < 5; n++) {
      const fam = r.int(2) === 0 ? 4 : 6;
      const proto = r.int(2) === 0 ? 6 : 17;
      const f = randomDatagram(r, fam, proto);
      expect(locateIp(f, 14, f.length, ip)).toBe(true);
      const times = 1 + r.int(3);
      for (let k = 0; k < times; k++) {
        const src = r.int(2) === 0 ? randomAddress(r) : null;
        const dst = r.int(2) === 0 ? randomAddress(r) : null;
        const sport = r.int(2) === 0 ? [0, 0xffff, r.int(65536)][r.int(3)]! : -1;
        const dport = r.int(2) === 0 ? [0, 0xffff, r.int(65536)][r.int(3)]! : -1;
        expect(rewriteDatagram(f, ip, src, sport, dst, dport)).toBe(true);
        if (proto === 6 && r.int(4) === 0) lowerMss(f, ip, 1 + r.int(60));
        const ckAt = ip.l4 + (proto === 6 ? 16 : 6);
        const ck = (f[ckAt]! << 8) | f[ckAt + 1]!;
        if (ck === 0 || ck === 0xffff) zeroOrFfff++;
        if (!l4Verifies(f, ip) || !ipVerifies(f, ip)) failures.push(`#${n} v${fam} proto ${proto} step ${k}: ck ${ck.toString(16)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(zeroOrFfff).toBeGreaterThan(0);
  });
});
