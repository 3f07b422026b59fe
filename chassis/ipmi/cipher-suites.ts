/**
 * RMCP+ cipher suites on the wire: resolving a configured list into the suites a LAN server offers,
 * and the records of Get Channel Cipher Suites (IPMI v2.0 §22.15, Table 22-19). The table of suites
 * itself (IDs and algorithm numbers, IPMI v2.0 Table 22-20) and the rule a configured ID must meet
 * are in chassis/config/cipher-suite-table.ts, below the configuration, and re-exported here.
 */
import { CIPHER_SUITES, cipherSuiteIdProblem, type CipherSuite } from '../config/cipher-suite-table.ts';

export {
  AuthAlg,
  CIPHER_SUITES,
  CONFIGURABLE_CIPHER_SUITES,
  ConfAlg,
  DEFAULT_CIPHER_SUITES,
  IntegrityAlg,
  cipherSuiteIdProblem,
  type CipherSuite,
} from '../config/cipher-suite-table.ts';

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
