// Address, endpoint and prefix text (board/processor/ip-address.ts).
import { describe, expect, it } from 'vitest';
import { parseAddress, parseEndpoint, parsePrefix } from '../../../../board/processor/ip-address.ts';

describe('address text', () => {
  it('parses addresses, prefixes and endpoints', () => {
    expect(Array.from(parseAddress('192.0.2.1').bytes.subarray(0, 4))).toEqual([192, 0, 2, 1]);
    expect(Buffer.from(parseAddress('2001:db8::1').bytes).toString('hex')).toBe('20010db8000000000000000000000001');
    expect(Buffer.from(parseAddress('::ffff:1.2.3.4').bytes).toString('hex')).toBe('00000000000000000000ffff01020304');
    const p = parsePrefix('10.1.2.3/12');
    expect([p.length, ...p.bytes.subarray(0, 4)]).toEqual([12, 10, 0, 0, 0]);
    expect(parseEndpoint('127.0.0.1:8080').port).toBe(8080);
    expect(parseEndpoint('[::1]:80')).toMatchObject({ family: 6, port: 80 });
    expect(parseEndpoint('2001:db8::5').port).toBeUndefined();
    expect(() => parseAddress('1.2.3')).toThrow(/bad address/);
    expect(() => parseAddress('1::2::3')).toThrow(/bad address/);
    expect(() => parsePrefix('10.0.0.0/33')).toThrow(/prefix length/);
    expect(() => parseEndpoint('1.2.3.4:0')).toThrow(/port/);
  });
});
