// createHash (board/switch/hash/index.ts): every algorithm by name.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { shared } from '../../../../support/shared.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';
import {
  createHash,
  HASH_ALGORITHMS,
} from '../../../../../board/switch/hash/index.ts';

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

function randomBytes(r: SeededRandom, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

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
