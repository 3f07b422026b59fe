/** GUID encoding (chassis/ipmi/guid.ts). */
import { describe, expect, it } from 'vitest';
import { formatIpmiGuid, guidV1Rfc, ipmiGuidV1, randomIpmiGuid } from '../../../../chassis/ipmi/guid.ts';
import { seededBytes } from '../../../support/ipmi-test-server.ts';

describe('GUIDs', () => {
  const f = { timeMs: Date.UTC(2024, 0, 15, 12, 0, 0), clockSeq: 0x1234, node: Uint8Array.of(1, 2, 3, 4, 5, 6) };

  it('builds an RFC 4122 version 1 GUID (version nibble 1, variant 10b) and sends it reversed (IPMI order)', () => {
    const rfc = guidV1Rfc(f);
    expect(rfc[6]! >> 4).toBe(1);
    expect(rfc[8]! >> 6).toBe(0b10);
    expect(Buffer.from(rfc.subarray(10)).toString('hex')).toBe('010203040506');
    expect(ipmiGuidV1(f)).toEqual(rfc.slice().reverse());
    // 100 ns ticks since 1582-10-15, time_low first
    const t = (BigInt(f.timeMs) * 10000n + 122192928000000000n) & 0xffffffffn;
    expect(new DataView(rfc.buffer).getUint32(0)).toBe(Number(t));
  });

  it('keeps clock_seq_low below 10h so SMBIOS and RFC byte orders do not decode as a valid version', () => {
    const ipmi = ipmiGuidV1(f);
    // SMBIOS order reads bytes 6..7 little-endian as time_hi_and_version: the variant bits → version 8..11
    expect(((ipmi[7]! << 8) | ipmi[6]!) >> 12).toBeGreaterThanOrEqual(8);
    // RFC order reads them big-endian: clock_seq_low's high nibble → version 0
    expect(((ipmi[6]! << 8) | ipmi[7]!) >> 12).toBe(0);
  });

  it('formats in RFC text order and draws random node IDs with the multicast bit', () => {
    expect(formatIpmiGuid(ipmiGuidV1(f))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-010203040506$/);
    const g = randomIpmiGuid(seededBytes(2), f.timeMs);
    expect(g.length).toBe(16);
    expect(g[5]! & 1).toBe(1); // node byte 0 (reversed to position 5)
  });
});
