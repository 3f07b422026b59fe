import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { shared } from '../../support/shared.ts';
import { SeededRandom } from '../../../board/common/random.ts';
import {
  createHash,
  crc16ccitt,
  crc32,
  HASH_ALGORITHMS,
  parseToeplitzKey,
  PEARSON_TABLE,
  pearson8,
  pearson16,
  ToeplitzHasher,
} from '../../../board/switch/hash/index.ts';
import { FieldSelector } from '../../../board/switch/field-select.ts';
import { tupleFromText } from '../../../board/switch/place-flow.ts';

interface Vector {
  family: string;
  src_ip: string;
  dst_ip: string;
  src_port: number;
  dst_port: number;
  l3: { input_hex: string; expected_hash_hex: string };
  l3l4: { input_hex: string; expected_hash_hex: string };
}
interface SymVector {
  family: string;
  src_ip: string;
  dst_ip: string;
  src_port: number;
  dst_port: number;
  l3l4_forward_hash_hex: string;
  l3l4_reverse_hash_hex: string;
  l3_forward_hash_hex: string;
  l3_reverse_hash_hex: string;
}
const suite = JSON.parse(readFileSync(shared('vectors', 'toeplitz.json'), 'utf8')) as {
  key_hex: string;
  vectors: Vector[];
  derived_symmetric_key_vectors: { key_hex: string; vectors: SymVector[] };
};

const hex8 = (n: number) => n.toString(16).padStart(8, '0');
const ascii = (s: string) => new TextEncoder().encode(s);
const hexBytes = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));

function randomBytes(r: SeededRandom, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

describe('Pearson', () => {
  it('uses a permutation of 0..255', () => {
    expect(PEARSON_TABLE.length).toBe(256);
    expect([...PEARSON_TABLE].sort((a, b) => a - b)).toEqual([...Array(256).keys()]);
  });

  it('8-bit: h = T[h xor c] from h = 0 (values read off the table by hand)', () => {
    expect(pearson8(new Uint8Array(0))).toBe(0);
    // T[0] = 1 (first entry of the table)
    expect(pearson8(Uint8Array.of(0x00))).toBe(1);
    // T[5] = 178 (sixth entry of row 0)
    expect(pearson8(Uint8Array.of(0x05))).toBe(178);
    // T[T[5] xor 0] = T[178] = 2 (row 176..191: 118, 73, 2, …)
    expect(pearson8(Uint8Array.of(0x05, 0x00))).toBe(2);
    // T[T[0] xor 1] = T[0] = 1: xoring the state back to 0 returns to the first entry
    expect(pearson8(Uint8Array.of(0x00, 0x01))).toBe(1);
  });

  it('16-bit: first pass is the high byte, second pass increments the first byte (values by hand)', () => {
    // [0x00]: hi = T[0] = 1, lo = T[1] = 87 = 0x57
    expect(pearson16(Uint8Array.of(0x00))).toBe(0x0157);
    // [0xff]: hi = T[255] = 209 = 0xd1, lo = T[0xff + 1 mod 256] = T[0] = 1 (the increment wraps)
    expect(pearson16(Uint8Array.of(0xff))).toBe(0xd101);
    // [0x05, 0x00]: hi = T[T[5]] = T[178] = 2; lo = T[T[6]] = T[102] = 158 = 0x9e
    // (T[6] = 102 in row 0; row 96..111 reads 132, 56, 148, 75, 128, 133, 158, …)
    expect(pearson16(Uint8Array.of(0x05, 0x00))).toBe(0x029e);
    expect(pearson16(new Uint8Array(0))).toBe(0);
  });

  it('16-bit equals two 8-bit passes on random inputs, and leaves the input untouched', () => {
    const r = new SeededRandom(7);
    for (let i = 0; i < 500; i++) {
      const b = randomBytes(r, 1 + r.int(40));
      const copy = b.slice();
      const h = pearson16(b);
      expect(b).toEqual(copy);
      const bumped = b.slice();
      bumped[0] = (bumped[0]! + 1) & 0xff;
      expect(h >>> 8).toBe(pearson8(b));
      expect(h & 0xff).toBe(pearson8(bumped));
    }
  });
});

describe('CRC', () => {
  it('CRC-32 check value for "123456789" is 0xCBF43926', () => {
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926);
  });

  it('CRC-32 equals node:zlib crc32 on the same bytes', () => {
    expect(typeof zlib.crc32).toBe('function');
    const r = new SeededRandom(11);
    for (let n = 0; n <= 80; n++) {
      const b = randomBytes(r, n);
      expect(crc32(b)).toBe(zlib.crc32(b));
    }
    // and on a prefix (the len argument)
    const b = randomBytes(r, 50);
    expect(crc32(b, 13)).toBe(zlib.crc32(b.subarray(0, 13)));
  });

  it('CRC-16/CCITT-FALSE check value for "123456789" is 0x29B1', () => {
    expect(crc16ccitt(ascii('123456789'))).toBe(0x29b1);
    expect(crc16ccitt(new Uint8Array(0))).toBe(0xffff);
  });

  it('CRC-16/CCITT-FALSE table version equals a bit-at-a-time version of the definition', () => {
    const bitwise = (d: Uint8Array) => {
      let c = 0xffff;
      for (const byte of d) {
        c ^= byte << 8;
        for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
      }
      return c;
    };
    const r = new SeededRandom(12);
    for (let n = 0; n <= 60; n++) {
      const b = randomBytes(r, n);
      expect(crc16ccitt(b)).toBe(bitwise(b));
    }
  });
});

describe('Toeplitz', () => {
  const h = new ToeplitzHasher(suite.key_hex);

  it('has 8 published vectors × 2 layouts = 16 values to check', () => {
    expect(suite.vectors.length).toBe(8);
  });

  for (const v of suite.vectors) {
    for (const layout of ['l3', 'l3l4'] as const) {
      it(`${v.family} ${layout} ${v.src_ip} → ${v.dst_ip}: 0x${v[layout].expected_hash_hex}`, () => {
        expect(hex8(h.hash(hexBytes(v[layout].input_hex)))).toBe(v[layout].expected_hash_hex);
        // The field selector builds exactly the published input bytes from the addresses and ports.
        const sel = new FieldSelector({ fields: layout, symmetric: false, tunnel: 'outer', layout: 'rss' });
        const t = tupleFromText({ src: v.src_ip, dst: v.dst_ip, sport: v.src_port, dport: v.dst_port, proto: 'tcp' });
        const n = sel.selectTuple(t);
        expect(Buffer.from(sel.buf.subarray(0, n)).toString('hex')).toBe(v[layout].input_hex);
        expect(hex8(h.hash(sel.buf, n))).toBe(v[layout].expected_hash_hex);
      });
    }
  }

  it('derived symmetric-key (0x6d5a) vectors: forward and reverse, with and without endpoint ordering', () => {
    const sym = suite.derived_symmetric_key_vectors;
    const hs = new ToeplitzHasher(sym.key_hex);
    expect(sym.vectors.length).toBe(8);
    for (const v of sym.vectors) {
      for (const symmetric of [false, true]) {
        for (const fields of ['l3', 'l3l4'] as const) {
          const sel = new FieldSelector({ fields, symmetric, tunnel: 'outer', layout: 'rss' });
          const fwd = tupleFromText({ src: v.src_ip, dst: v.dst_ip, sport: v.src_port, dport: v.dst_port, proto: 'udp' });
          const rev = tupleFromText({ src: v.dst_ip, dst: v.src_ip, sport: v.dst_port, dport: v.src_port, proto: 'udp' });
          const hf = hs.hash(sel.buf, sel.selectTuple(fwd));
          const hr = hs.hash(sel.buf, sel.selectTuple(rev));
          expect(hex8(hf)).toBe(v[`${fields}_forward_hash_hex`]);
          expect(hex8(hr)).toBe(v[`${fields}_reverse_hash_hex`]);
        }
      }
    }
  });

  it('table-driven hash equals a bit-serial version of the definition for random keys and inputs', () => {
    const r = new SeededRandom(13);
    for (let i = 0; i < 50; i++) {
      const key = randomBytes(r, 40);
      const input = randomBytes(r, r.int(37));
      let result = 0;
      for (let bit = 0; bit < input.length * 8; bit++) {
        if (!((input[bit >> 3]! >> (7 - (bit & 7))) & 1)) continue;
        let w = 0;
        for (let j = 0; j < 32; j++) w = (w << 1) | ((key[(bit + j) >> 3]! >> (7 - ((bit + j) & 7))) & 1);
        result ^= w;
      }
      expect(new ToeplitzHasher(key).hash(input)).toBe(result >>> 0);
    }
  });

  it('parses keys with separators and rejects bad ones with precise errors', () => {
    expect(parseToeplitzKey(`0x${suite.key_hex}`)).toEqual(hexBytes(suite.key_hex));
    expect(parseToeplitzKey(suite.key_hex.match(/../g)!.join(':'))).toEqual(hexBytes(suite.key_hex));
    expect(() => parseToeplitzKey('6d5a')).toThrow(/expected 40 bytes \(80 hex digits\), got 2/);
    expect(() => parseToeplitzKey('zz'.repeat(40))).toThrow(/not hexadecimal/);
    expect(() => parseToeplitzKey('6d5')).toThrow(/odd number/);
    expect(() => new ToeplitzHasher(new Uint8Array(39))).toThrow(RangeError);
  });
});

describe('createHash', () => {
  it('offers every algorithm, 16-bit ones zero-extended', () => {
    const r = new SeededRandom(14);
    for (const name of HASH_ALGORITHMS) {
      const a = createHash(name, suite.key_hex);
      for (let i = 0; i < 200; i++) {
        const v = a.hash(randomBytes(r, 13), 13);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThan(a.bits === 16 ? 0x10000 : 0x100000000);
      }
    }
    expect(() => createHash('toeplitz')).toThrow(/needs a 40-byte key/);
    expect(() => createHash('md5' as never)).toThrow(/unknown hash algorithm/);
  });
});
