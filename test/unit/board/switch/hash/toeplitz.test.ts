// Toeplitz (board/switch/hash/toeplitz.ts) against the shared vectors (../shared/vectors/toeplitz.json).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { shared } from '../../../../support/shared.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';
import {
  parseToeplitzKey,
  ToeplitzHasher,
} from '../../../../../board/switch/hash/index.ts';
import { FieldSelector } from '../../../../../board/switch/field-select.ts';
import { tupleFromText } from '../../../../../board/switch/place-flow.ts';

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
const hexBytes = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));

function randomBytes(r: SeededRandom, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

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
