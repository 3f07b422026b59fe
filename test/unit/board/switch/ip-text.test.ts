import { describe, expect, it } from 'vitest';
import { isIP } from 'node:net';
import { parseIp } from '../../../../board/switch/ip-text.ts';
import { addressText } from '../../../../board/packet/flow-tuple.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('parseIp', () => {
  it('parses IPv4 and IPv6 text to network-order bytes', () => {
    expect(parseIp('192.168.37.178')).toEqual({ family: 4, bytes: Uint8Array.of(192, 168, 37, 178) });
    expect(hex(parseIp('::')!.bytes)).toBe('00'.repeat(16));
    expect(hex(parseIp('::1')!.bytes)).toBe('00'.repeat(15) + '01');
    expect(hex(parseIp('1::')!.bytes)).toBe('0001' + '00'.repeat(14));
    expect(hex(parseIp('fe80::200:f8ff:fe21:67cf')!.bytes)).toBe('fe800000000000000200f8fffe2167cf');
    expect(hex(parseIp('::ffff:192.0.2.1')!.bytes)).toBe('00000000000000000000ffffc0000201');
    expect(hex(parseIp('1:2:3:4:5:6:7:8')!.bytes)).toBe('00010002000300040005000600070008');
    expect(parseIp(' 10.0.0.1 ')!.family).toBe(4);
  });

  it('accepts and rejects the same texts as node:net isIP, and round-trips through addressText', () => {
    const texts = [
      '0.0.0.0', '255.255.255.255', '256.1.1.1', '1.2.3', '1.2.3.4.5', '1..2.3', '01.2.3.4', 'a.b.c.d', '',
      '::', '::1', '1::', 'fe80::1', '2001:db8::2:1', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7',
      ':::', '1::2::3', 'g::1', '12345::1', '::ffff:1.2.3.4', '::ffff:1.2.3', '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4',
      '::/0', '3ffe:1900:4545:3:200:f8ff:fe21:67cf',
    ];
    for (const t of texts) {
      const p = parseIp(t);
      expect(p?.family ?? 0, t).toBe(isIP(t));
      if (p) expect(parseIp(addressText(p.family, p.bytes))!.bytes).toEqual(p.bytes);
    }
    // unlike isIP, a zone index is refused: it is not part of the address bytes a switch hashes
    expect(parseIp('fe80::1%eth0')).toBeNull();
  });
});
