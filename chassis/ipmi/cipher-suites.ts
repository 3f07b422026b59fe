/**
 * RMCP+ cipher suites atcasim implements (IPMI v2.0 Table 22-20 numbering) and the records of
 * Get Channel Cipher Suites (IPMI v2.0 §22.15, Table 22-19).
 *
 *   id | authentication    | integrity        | confidentiality | offered
 *    0 | none              | none             | none            | never, unless insecureCipher0 (UNSAFE: no password check)
 *    1 | RAKP-HMAC-SHA1    | none             | none            | only when configured
 *    2 | RAKP-HMAC-SHA1    | HMAC-SHA1-96     | none            | only when configured
 *    3 | RAKP-HMAC-SHA1    | HMAC-SHA1-96     | AES-CBC-128     | default
 *   15 | RAKP-HMAC-SHA256  | none             | none            | only when configured
 *   16 | RAKP-HMAC-SHA256  | HMAC-SHA256-128  | none            | only when configured
 *   17 | RAKP-HMAC-SHA256  | HMAC-SHA256-128  | AES-CBC-128     | default
 *
 * MD5-based suites (6–14) and xRC4 are not implemented (research §A.5, §G).
 */

/** Authentication (RAKP) algorithm numbers. */
export const AuthAlg = { None: 0x00, HmacSha1: 0x01, HmacMd5: 0x02, HmacSha256: 0x03 } as const;
/** Integrity algorithm numbers. */
export const IntegrityAlg = { None: 0x00, HmacSha1_96: 0x01, HmacMd5_128: 0x02, Md5_128: 0x03, HmacSha256_128: 0x04 } as const;
/** Confidentiality algorithm numbers. */
export const ConfAlg = { None: 0x00, AesCbc128: 0x01, Xrc4_128: 0x02, Xrc4_40: 0x03 } as const;

/** One cipher suite: its ID and the three algorithm numbers. */
export interface CipherSuite {
  id: number;
  auth: number;
  integrity: number;
  conf: number;
}

/** Every suite atcasim can run, by ID. */
export const CIPHER_SUITES: ReadonlyMap<number, CipherSuite> = new Map(
  (
    [
      [0, AuthAlg.None, IntegrityAlg.None, ConfAlg.None],
      [1, AuthAlg.HmacSha1, IntegrityAlg.None, ConfAlg.None],
      [2, AuthAlg.HmacSha1, IntegrityAlg.HmacSha1_96, ConfAlg.None],
      [3, AuthAlg.HmacSha1, IntegrityAlg.HmacSha1_96, ConfAlg.AesCbc128],
      [15, AuthAlg.HmacSha256, IntegrityAlg.None, ConfAlg.None],
      [16, AuthAlg.HmacSha256, IntegrityAlg.HmacSha256_128, ConfAlg.None],
      [17, AuthAlg.HmacSha256, IntegrityAlg.HmacSha256_128, ConfAlg.AesCbc128],
    ] as const
  ).map(([id, auth, integrity, conf]) => [id, { id, auth, integrity, conf }]),
);

/** The suites offered when nothing is configured: 3 and 17 (what ipmitool's auto-selection prefers). */
export const DEFAULT_CIPHER_SUITES: readonly number[] = [3, 17];

/** The suite IDs a configuration (`--ipmi-cipher-suites`, the shelf YAML's `ipmi.cipher_suites`) may
 * list, ascending; suite 0 only comes through the insecure option. */
export const CONFIGURABLE_CIPHER_SUITES: readonly number[] = [...CIPHER_SUITES.keys()].filter((id) => id !== 0).sort((a, b) => a - b);

/**
 * Checks one configured suite ID, the one rule behind `--ipmi-cipher-suites` and the shelf YAML.
 * @param insecureCipher0 whether suite 0 was explicitly allowed (`--ipmi-insecure-cipher0`)
 * @returns the refusal message, or undefined when the ID may be offered
 */
export function cipherSuiteIdProblem(id: number, insecureCipher0: boolean): string | undefined {
  if (id === 0) return insecureCipher0 ? undefined : 'cipher suite 0 is offered only with --ipmi-insecure-cipher0 (it logs in without a password)';
  if (!CIPHER_SUITES.has(id)) return `cipher suite ${id} is not implemented (available: ${CONFIGURABLE_CIPHER_SUITES.join(', ')}; 0 only with --ipmi-insecure-cipher0)`;
  return undefined;
}

/**
 * Resolves a configured suite list (IDs, any order) into sorted suites.
 * @param insecureCipher0 adds suite 0 (no authentication at all)
 * @throws TypeError for an unknown ID (cipherSuiteIdProblem), a duplicate, suite 0 without
 *   `insecureCipher0`, or an empty list
 */
export function resolveCipherSuites(ids: readonly number[], insecureCipher0: boolean): CipherSuite[] {
  const seen = new Set<number>();
  for (const id of ids) {
    const problem = cipherSuiteIdProblem(id, insecureCipher0);
    if (problem) throw new TypeError(problem);
    if (seen.has(id)) throw new TypeError(`cipher suite ${id} listed twice`);
    seen.add(id);
  }
  if (insecureCipher0) seen.add(0);
  if (seen.size === 0) throw new TypeError('no cipher suite configured');
  return [...seen].sort((a, b) => a - b).map((id) => CIPHER_SUITES.get(id)!);
}

/**
 * Cipher suite records as returned by Get Channel Cipher Suites with "list algorithms by cipher
 * suite" (b7 of byte 3 set): per suite `C0h, id, 00h|auth, 40h|integrity, 80h|conf` (5 bytes).
 */
export function cipherSuiteRecords(suites: readonly CipherSuite[]): Uint8Array {
  const out = new Uint8Array(suites.length * 5);
  suites.forEach((s, i) => out.set([0xc0, s.id, 0x00 | s.auth, 0x40 | s.integrity, 0x80 | s.conf], i * 5));
  return out;
}

/** The "supported algorithms" list (b7 of byte 3 clear): each algorithm tag once, in suite order. */
export function supportedAlgorithmRecords(suites: readonly CipherSuite[]): Uint8Array {
  const tags: number[] = [];
  const add = (t: number) => {
    if (!tags.includes(t)) tags.push(t);
  };
  for (const s of suites) add(0x00 | s.auth);
  for (const s of suites) add(0x40 | s.integrity);
  for (const s of suites) add(0x80 | s.conf);
  return Uint8Array.from(tags);
}
