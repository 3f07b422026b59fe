/**
 * The RMCP+ cipher suites atcasim implements (IPMI v2.0 Table 22-20 numbering, algorithm numbers of
 * Table 22-19): the table the shelf YAML's `ipmi.cipher_suites` and `--ipmi-cipher-suites` are
 * validated against. It lives with the configuration so that parsing a shelf needs nothing of the
 * IPMI layer; chassis/ipmi/cipher-suites.ts builds the protocol records from it.
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
