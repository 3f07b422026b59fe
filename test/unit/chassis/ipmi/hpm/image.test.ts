import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  HpmImageError,
  encodeHpmImage,
  fromBcd,
  isUpgradableFrom,
  parseHpmImage,
  toBcd,
  zeroChecksum,
  type HpmImage,
} from '../../../../../chassis/ipmi/hpm/image.ts';

// A small image, its bytes worked out by hand below (HPM.1 r1.0 §4; the layout ipmitool's
// HpmfwupgImageHeader / HpmfwupgActionRecord / HpmfwupgFirmwareImage read).
const IMAGE: HpmImage = {
  header: {
    formatVersion: 0, deviceId: 0x00, manufacturerId: 0x00315a, productId: 0x0003, timeS: 0x01020304,
    capabilities: 0x0c, components: 0x02, selfTestTimeout: 2, rollbackTimeout: 0x18, inaccessTimeout: 4,
    earliestCompatible: { major: 1, minor: 5 }, firmware: { major: 1, minor: 10, aux: [0, 0, 0, 1] }, oemData: new Uint8Array(0),
  },
  actions: [
    { type: 'backup', components: 0x02 },
    { type: 'upload', components: 0x02, version: { major: 1, minor: 10, aux: [0, 0, 0, 1] }, description: 'p', data: Uint8Array.of(0xaa, 0xbb, 0xcc) },
  ],
};

// Header sum: "PICMGFWU" 50+49+43+4D+47+46+57+55 = 262h; + 5A 31 (manufacturer) + 03 (product)
// + 04 03 02 01 (time) + 0C + 02 + 02 + 18 + 04 + 01 05 (earliest) + 01 10 00 00 00 01 (firmware)
// = 830 = 33Eh → 3Eh, checksum 100h − 3Eh = C2h. Backup action 00 02 → FEh; upload 02 02 → FCh.
const EXPECTED_BODY = [
  0x50, 0x49, 0x43, 0x4d, 0x47, 0x46, 0x57, 0x55, 0x00, 0x00, 0x5a, 0x31, 0x00, 0x03, 0x00, 0x04, 0x03, 0x02, 0x01,
  0x0c, 0x02, 0x02, 0x18, 0x04, 0x01, 0x05, 0x01, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0xc2,
  0x00, 0x02, 0xfe,
  0x02, 0x02, 0xfc, 0x01, 0x10, 0x00, 0x00, 0x00, 0x01, 0x70, ...new Array(20).fill(0), 0x03, 0x00, 0x00, 0x00, 0xaa, 0xbb, 0xcc,
];

function md5(b: Uint8Array): Buffer {
  return createHash('md5').update(b).digest();
}

/** `bytes` with its trailing MD5 recomputed (to reach the checks behind the MD5). */
function resign(bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  out.set(md5(out.subarray(0, out.length - 16)), out.length - 16);
  return out;
}

function fault(bytes: Uint8Array): string {
  try {
    parseHpmImage(bytes);
  } catch (e) {
    if (e instanceof HpmImageError) return e.fault;
    throw e;
  }
  return 'none';
}

describe('HPM.1 image encoding', () => {
  it('writes the hand-computed header, actions and checksums, then the MD5 of everything before it', () => {
    const b = encodeHpmImage(IMAGE);
    expect(b.length).toBe(EXPECTED_BODY.length + 16);
    expect([...b.subarray(0, EXPECTED_BODY.length)]).toEqual(EXPECTED_BODY);
    expect(Buffer.from(b.subarray(EXPECTED_BODY.length)).equals(md5(Uint8Array.from(EXPECTED_BODY)))).toBe(true);
  });

  it('parses its own output back', () => {
    const img = parseHpmImage(encodeHpmImage(IMAGE));
    expect(img.header.manufacturerId).toBe(0x00315a);
    expect(img.header.timeS).toBe(0x01020304);
    expect(img.header.earliestCompatible).toEqual({ major: 1, minor: 5 });
    expect(img.header.firmware).toEqual({ major: 1, minor: 10, aux: [0, 0, 0, 1] });
    expect(img.actions[0]).toEqual({ type: 'backup', components: 2 });
    const up = img.actions[1]!;
    expect(up.type).toBe('upload');
    if (up.type === 'upload') {
      expect(up.description).toBe('p');
      expect([...up.data]).toEqual([0xaa, 0xbb, 0xcc]);
    }
  });

  it('refuses out-of-range fields with a RangeError', () => {
    expect(() => encodeHpmImage({ ...IMAGE, header: { ...IMAGE.header, firmware: { major: 128, minor: 0, aux: [0, 0, 0, 0] } } })).toThrow(RangeError);
    expect(() => encodeHpmImage({ ...IMAGE, header: { ...IMAGE.header, firmware: { major: 1, minor: 100, aux: [0, 0, 0, 0] } } })).toThrow(/0\.\.99/);
    expect(() => encodeHpmImage({ ...IMAGE, actions: [{ type: 'upload', components: 2, version: IMAGE.header.firmware, description: 'x'.repeat(21), data: new Uint8Array(0) }] })).toThrow(/at most 20/);
  });
});

describe('HPM.1 image validation', () => {
  const good = encodeHpmImage(IMAGE);

  it('finds a flipped byte and a truncated file by the MD5 first, as ipmitool does', () => {
    const flipped = Uint8Array.from(good);
    flipped[60]! ^= 0x01;
    expect(fault(flipped)).toBe('md5');
    expect(fault(good.subarray(0, good.length - 5))).toBe('md5');
    expect(fault(good.subarray(0, 20))).toBe('truncated');
  });

  it('checks the PICMGFWU signature before the MD5: random bytes are no image at all', () => {
    const junk = Uint8Array.from({ length: 5000 }, (_, i) => (i * 131 + 7) & 0xff);
    expect(fault(junk)).toBe('signature');
    expect(fault(junk.subarray(0, 5))).toBe('signature');
  });

  it('checks the signature, format version and header checksum behind a valid MD5', () => {
    const sig = Uint8Array.from(good);
    sig[0] = 0x51;
    expect(fault(resign(sig))).toBe('signature');
    const fmt = Uint8Array.from(good);
    fmt[8] = 1;
    expect(fault(resign(fmt))).toBe('format');
    const hdr = Uint8Array.from(good);
    hdr[34] = 0xc3; // the header checksum, one off
    expect(fault(resign(hdr))).toBe('header_checksum');
  });

  it('checks every action record: type, checksum, and data that ends before the MD5', () => {
    const type = Uint8Array.from(good);
    type[35] = 0x07;
    type[37] = 0xf7; // 07 02 F7 sums to 0: only the type is wrong
    expect(fault(resign(type))).toBe('action_type');
    const ck = Uint8Array.from(good);
    ck[37] = 0xfd;
    expect(fault(resign(ck))).toBe('action_checksum');
    const long = Uint8Array.from(good);
    long[38 + 30] = 0x09; // upload length 9 > the 3 data bytes left
    long[38 + 2] = zeroChecksum(long.subarray(38, 40));
    expect(fault(resign(long))).toBe('truncated');
  });

  it('accepts an upload record whose checksum covers its 34-byte prefix (the other reading of the spec)', () => {
    const alt = Uint8Array.from(good);
    const at = 38;
    alt[at + 2] = 0;
    alt[at + 2] = zeroChecksum(alt.subarray(at, at + 34));
    expect(alt[at + 2]).not.toBe(0xfc);
    expect(fault(resign(alt))).toBe('none');
  });
});

describe('earliest compatible revision and BCD', () => {
  it('compares major, then minor', () => {
    const h = { ...IMAGE.header, earliestCompatible: { major: 1, minor: 5 } };
    expect(isUpgradableFrom(h, { major: 1, minor: 5 })).toBe(true);
    expect(isUpgradableFrom(h, { major: 1, minor: 4 })).toBe(false);
    expect(isUpgradableFrom(h, { major: 0, minor: 99 })).toBe(false);
    expect(isUpgradableFrom(h, { major: 2, minor: 0 })).toBe(true);
  });

  it('encodes minor revisions as BCD (10 → 10h) and reads them back', () => {
    expect(toBcd(10)).toBe(0x10);
    expect(toBcd(5)).toBe(0x05);
    expect(fromBcd(0x99)).toBe(99);
    expect(fromBcd(0x1a)).toBeUndefined();
    expect(() => toBcd(100)).toThrow(RangeError);
  });
});
