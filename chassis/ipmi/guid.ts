/**
 * Controller GUIDs: RFC 4122 version 1 (time-based) GUIDs sent in IPMI byte order (IPMI v2.0
 * §20.8: the 16 bytes least-significant first, i.e. the RFC 4122 big-endian byte string reversed).
 *
 * ipmitool `mc guid` guesses the encoding; ipmi_sim's verbatim bytes made it print "SMBIOS
 * (WARNING: IPMI Specification violation!)" (research §S.2). A v1 GUID whose clock_seq_low has a
 * zero high nibble decodes as version 1 only in IPMI order (SMBIOS order reads the variant bits as
 * the version, RFC order reads clock_seq_low), so ipmitool prints "GUID Encoding : IPMI".
 */

/** 100 ns intervals between the Gregorian reform (1582-10-15) and the Unix epoch. */
const GREGORIAN_OFFSET = 122192928000000000n;

/** Fields of a version 1 GUID. */
export interface GuidV1Fields {
  /** Creation time, ms since the Unix epoch (UTC). */
  timeMs: number;
  /** 14-bit clock sequence; bits 7:4 are cleared (see the module note). */
  clockSeq: number;
  /** 48-bit node ID (6 bytes). */
  node: Uint8Array;
}

/** The RFC 4122 (big-endian) byte string of a v1 GUID. */
export function guidV1Rfc(f: GuidV1Fields): Uint8Array {
  if (f.node.length !== 6) throw new RangeError('GUID node must be 6 bytes');
  const t = BigInt(Math.floor(f.timeMs)) * 10000n + GREGORIAN_OFFSET;
  const timeLow = Number(t & 0xffffffffn);
  const timeMid = Number((t >> 32n) & 0xffffn);
  const timeHi = Number((t >> 48n) & 0x0fffn) | 0x1000;
  const cs = f.clockSeq & 0x3f0f;
  const out = new Uint8Array(16);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, timeLow);
  dv.setUint16(4, timeMid);
  dv.setUint16(6, timeHi);
  out[8] = 0x80 | ((cs >> 8) & 0x3f);
  out[9] = cs & 0xff;
  out.set(f.node, 10);
  return out;
}

/** A v1 GUID in IPMI byte order (16 bytes), as Get System GUID and RAKP 2 carry it. */
export function ipmiGuidV1(f: GuidV1Fields): Uint8Array {
  return guidV1Rfc(f).reverse();
}

/**
 * A fresh v1 GUID in IPMI byte order with a random clock sequence and a random node ID (multicast
 * bit set, RFC 4122 §4.5). @param randomBytes entropy source @param timeMs creation time (ms, UTC)
 */
export function randomIpmiGuid(randomBytes: (n: number) => Uint8Array, timeMs: number): Uint8Array {
  const r = randomBytes(8);
  const node = r.slice(2, 8);
  node[0] = node[0]! | 0x01;
  return ipmiGuidV1({ timeMs, clockSeq: (r[0]! << 8) | r[1]!, node });
}

/** The usual text form (RFC 4122 order) of a GUID given in IPMI byte order. */
export function formatIpmiGuid(ipmi: Uint8Array): string {
  const h = Buffer.from(ipmi).reverse().toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
