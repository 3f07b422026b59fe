/**
 * RMCP+ cryptography through node:crypto: RAKP 2/3 auth codes, SIK, K1/K2, RAKP 4 ICV, packet
 * integrity (HMAC-SHA1-96, HMAC-SHA256-128) and AES-CBC-128 confidentiality.
 *
 * Formulas (IPMI v2.0 §13.31–§13.32; checked against ../shared/ipmi/captures/lanplus_C3_session.pcap
 * with password "adminpass", research §A.4):
 *   RAKP2 auth code = H_Kuid(SIDm ‖ SIDc ‖ Rm ‖ Rc ‖ GUIDc ‖ ROLEm ‖ ULENm ‖ UNAMEm)
 *   RAKP3 auth code = H_Kuid(Rc ‖ SIDm ‖ ROLEm ‖ ULENm ‖ UNAMEm)
 *   SIK             = H_KG(Rm ‖ Rc ‖ ROLEm ‖ ULENm ‖ UNAMEm)   (KG = Kuid unless a BMC key is set)
 *   RAKP4 ICV       = H_SIK(Rm ‖ SIDc ‖ GUIDc), truncated to 12 (SHA1) / 16 (SHA256) bytes
 *   K1 = H_SIK(01h × 20), K2 = H_SIK(02h × 20) — the constants are 20 bytes for every hash
 *   (IPMI v2.0 §13.32; ipmitool lanplus_crypt.c does the same for SHA-256, and suite 17 only
 *   interoperates that way — research §A.4 assumed hash-length constants, which fail)
 * (m = remote console, c = managed system; session IDs are 4 bytes little-endian.)
 * Kuid is the password zero-padded to 20 bytes.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AuthAlg, IntegrityAlg } from './cipher-suites.ts';
import { padPassword } from './session15.ts';

/** Hash name for an RAKP authentication algorithm, or undefined for "none". */
export function authHash(authAlg: number): 'sha1' | 'sha256' | undefined {
  if (authAlg === AuthAlg.HmacSha1) return 'sha1';
  if (authAlg === AuthAlg.HmacSha256) return 'sha256';
  return undefined;
}

/** Length of the RAKP4 integrity check value for an authentication algorithm (bytes). */
export function rakp4IcvLength(authAlg: number): number {
  if (authAlg === AuthAlg.HmacSha1) return 12;
  if (authAlg === AuthAlg.HmacSha256) return 16;
  return 0;
}

/** Integrity algorithm parameters: hash and truncated AuthCode length, or undefined for "none". */
export function integrityParams(integrityAlg: number): { hash: 'sha1' | 'sha256'; length: number } | undefined {
  if (integrityAlg === IntegrityAlg.HmacSha1_96) return { hash: 'sha1', length: 12 };
  if (integrityAlg === IntegrityAlg.HmacSha256_128) return { hash: 'sha256', length: 16 };
  return undefined;
}

/** HMAC over the concatenation of `parts`. */
export function hmac(hash: 'sha1' | 'sha256', key: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  const h = createHmac(hash, key);
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/**
 * MD5 digest (RFC 1321) of the concatenation of `parts`: 16 bytes. Used by the HPM.1 upgrade
 * images (the image's MD5 signature, PICMG HPM.1 §4), not for security.
 */
export function md5(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** Kuid: the password zero-padded to 20 bytes. */
export function kuid(password: Uint8Array): Uint8Array {
  return padPassword(password, 20);
}

/** u32 little-endian bytes. */
export function u32le(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v >>> 0, true);
  return b;
}

/** The inputs both sides of a RAKP exchange know. */
export interface RakpParams {
  authAlg: number;
  /** Remote console session ID (SIDm). */
  consoleSid: number;
  /** Managed system (BMC) session ID (SIDc). */
  bmcSid: number;
  /** Remote console random number Rm (16 bytes). */
  consoleRandom: Uint8Array;
  /** Managed system random number Rc (16 bytes). */
  bmcRandom: Uint8Array;
  /** Managed system GUID as sent in RAKP2 (16 bytes). */
  bmcGuid: Uint8Array;
  /** The role byte exactly as sent in RAKP1 (including bit 4, name-only lookup). */
  role: number;
  /** User name bytes as sent in RAKP1 (0..16). */
  userName: Uint8Array;
}

function nameTail(p: RakpParams): Uint8Array {
  const out = new Uint8Array(2 + p.userName.length);
  out[0] = p.role;
  out[1] = p.userName.length;
  out.set(p.userName, 2);
  return out;
}

/** RAKP2 key-exchange auth code (full hash length), empty for auth "none". */
export function rakp2AuthCode(p: RakpParams, password: Uint8Array): Uint8Array {
  const h = authHash(p.authAlg);
  if (!h) return new Uint8Array(0);
  return hmac(h, kuid(password), u32le(p.consoleSid), u32le(p.bmcSid), p.consoleRandom, p.bmcRandom, p.bmcGuid, nameTail(p));
}

/** RAKP3 key-exchange auth code the console must send, empty for auth "none". */
export function rakp3AuthCode(p: RakpParams, password: Uint8Array): Uint8Array {
  const h = authHash(p.authAlg);
  if (!h) return new Uint8Array(0);
  return hmac(h, kuid(password), p.bmcRandom, u32le(p.consoleSid), nameTail(p));
}

/** Session integrity key; `kg` is the BMC key (two-key login) or undefined to use Kuid. Empty for auth "none". */
export function sessionIntegrityKey(p: RakpParams, password: Uint8Array, kg?: Uint8Array): Uint8Array {
  const h = authHash(p.authAlg);
  if (!h) return new Uint8Array(0);
  const key = kg && kg.some((b) => b !== 0) ? padPassword(kg, 20) : kuid(password);
  return hmac(h, key, p.consoleRandom, p.bmcRandom, nameTail(p));
}

/** RAKP4 integrity check value (truncated), empty for auth "none". */
export function rakp4Icv(p: RakpParams, sik: Uint8Array): Uint8Array {
  const h = authHash(p.authAlg);
  if (!h) return new Uint8Array(0);
  return hmac(h, sik, p.consoleRandom, u32le(p.bmcSid), p.bmcGuid).subarray(0, rakp4IcvLength(p.authAlg));
}

/** K_n = H_SIK(n repeated 20 times): n = 1 gives K1 (integrity), 2 gives K2 (confidentiality). */
export function deriveKey(authAlg: number, sik: Uint8Array, n: 1 | 2): Uint8Array {
  const h = authHash(authAlg);
  if (!h) return new Uint8Array(0);
  return hmac(h, sik, new Uint8Array(20).fill(n));
}

/** Packet AuthCode: HMAC_K1 over the covered bytes, truncated per the integrity algorithm. */
export function integrityCode(integrityAlg: number, k1: Uint8Array, covered: Uint8Array): Uint8Array {
  const p = integrityParams(integrityAlg);
  if (!p) return new Uint8Array(0);
  return hmac(p.hash, k1, covered).subarray(0, p.length);
}

/** Constant-time equality of two byte strings (false when the lengths differ). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * AES-CBC-128 payload encryption (IPMI v2.0 §13.29): IV(16) ‖ E(msg ‖ 01 02 … n ‖ n), padded so
 * that msg + pad + 1 is a multiple of 16. @param key K2 (first 16 bytes used) @param iv 16 random bytes
 */
export function aesEncrypt(key: Uint8Array, iv: Uint8Array, plain: Uint8Array): Uint8Array {
  const padLen = (16 - ((plain.length + 1) % 16)) % 16;
  const buf = new Uint8Array(plain.length + padLen + 1);
  buf.set(plain, 0);
  for (let i = 0; i < padLen; i++) buf[plain.length + i] = i + 1;
  buf[buf.length - 1] = padLen;
  const c = createCipheriv('aes-128-cbc', key.subarray(0, 16), iv);
  c.setAutoPadding(false);
  const body = Buffer.concat([c.update(buf), c.final()]);
  const out = new Uint8Array(16 + body.length);
  out.set(iv.subarray(0, 16), 0);
  out.set(body, 16);
  return out;
}

/**
 * Decrypts an AES-CBC-128 payload (IV first) and strips the confidentiality trailer.
 * @returns the plaintext message, or undefined when the length or the pad bytes are invalid
 */
export function aesDecrypt(key: Uint8Array, payload: Uint8Array): Uint8Array | undefined {
  if (payload.length < 32 || payload.length % 16 !== 0) return undefined;
  const d = createDecipheriv('aes-128-cbc', key.subarray(0, 16), payload.subarray(0, 16));
  d.setAutoPadding(false);
  const plain = new Uint8Array(Buffer.concat([d.update(payload.subarray(16)), d.final()]));
  const padLen = plain[plain.length - 1]!;
  if (padLen > 15 || padLen + 1 > plain.length) return undefined;
  const start = plain.length - 1 - padLen;
  for (let i = 0; i < padLen; i++) if (plain[start + i] !== i + 1) return undefined;
  return plain.subarray(0, start);
}
