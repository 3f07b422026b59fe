// CRC-16-CCITT and CRC-32 (board/switch/hash/crc.ts).
import { describe, expect, it } from 'vitest';
import * as zlib from 'node:zlib';
import { SeededRandom } from '../../../../../board/common/random.ts';
import {
  crc16ccitt,
  crc32,
} from '../../../../../board/switch/hash/index.ts';

const ascii = (s: string) => new TextEncoder().encode(s);

function randomBytes(r: SeededRandom, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

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
