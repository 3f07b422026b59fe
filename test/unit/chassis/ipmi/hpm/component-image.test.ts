import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ComponentImageError, encodeComponentImage, fillerBody, parseComponentImage } from '../../../../../chassis/ipmi/hpm/component-image.ts';

const V = { major: 1, minor: 1, aux: [0, 0, 0, 0] };

function faultOf(bytes: Uint8Array, component: number): string {
  try {
    parseComponentImage(bytes, component);
  } catch (e) {
    if (e instanceof ComponentImageError) return e.fault;
    throw e;
  }
  return 'none';
}

describe('atcasim component images', () => {
  it('lays out magic, component, version, body length, body and the MD5 of all that', () => {
    const b = encodeComponentImage({ component: 1, version: V, body: Uint8Array.of(0xde, 0xad) });
    const head = [0x41, 0x54, 0x43, 0x41, 0x46, 0x57, 0x00, 0x01, 0x01, 0x01, 0x01, 0, 0, 0, 0, 0x02, 0, 0, 0, 0xde, 0xad];
    expect([...b.subarray(0, 21)]).toEqual(head);
    expect(Buffer.from(b.subarray(21)).equals(createHash('md5').update(Uint8Array.from(head)).digest())).toBe(true);
    expect(parseComponentImage(b, 1)).toEqual({ component: 1, version: V, body: Uint8Array.of(0xde, 0xad) });
  });

  it('calls a truncated or overlong upload a length fault (HPM.1 81h)', () => {
    const b = encodeComponentImage({ component: 1, version: V, body: fillerBody('payload', '1.01', 100) });
    expect(faultOf(b.subarray(0, b.length - 10), 1)).toBe('length');
    expect(faultOf(Uint8Array.from([...b, 0]), 1)).toBe('length');
    expect(faultOf(b.subarray(0, 10), 1)).toBe('length');
  });

  it('calls a flipped byte, a foreign file or another component\'s image a checksum fault (82h)', () => {
    const b = encodeComponentImage({ component: 1, version: V, body: fillerBody('payload', '1.01', 100) });
    const flipped = Uint8Array.from(b);
    flipped[50]! ^= 0x20;
    expect(faultOf(flipped, 1)).toBe('checksum');
    const foreign = Uint8Array.from(b);
    foreign[0] = 0x00;
    expect(faultOf(foreign, 1)).toBe('checksum');
    expect(faultOf(b, 0)).toBe('checksum');
  });

  it('fills the body with a line naming component and version', () => {
    expect(Buffer.from(fillerBody('payload', '1.01', 30)).toString('latin1')).toBe('atcasim payload firmware 1.01\n');
  });
});
