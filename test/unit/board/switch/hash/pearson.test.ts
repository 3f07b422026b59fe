// Pearson hashing (board/switch/hash/pearson.ts).
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../../board/common/random.ts';
import {
  PEARSON_TABLE,
  pearson8,
  pearson16,
} from '../../../../../board/switch/hash/index.ts';

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
