/**
 * The `ipmi` section of the shelf YAML → the RMCP/RMCP+ endpoint's settings: bind address and port,
 * IPMI v1.5 sessions on or off, the cipher suites offered, the session idle timeout.
 *
 * Sources: IPMI v2.0 Table 22-20 (cipher suite IDs).
 */
import { cipherSuiteIdProblem } from './cipher-suite-table.ts';
import { isIpAddress } from './ip-address.ts';
import { DEFAULT_IPMI, type IpmiSettings } from './types.ts';
import type { Value } from './yaml-reader.ts';

/**
 * Reads the `ipmi` section (absent: DEFAULT_IPMI).
 * @throws ConfigError at the offending key (a bind address that is not an IP address, a cipher
 *   suite atcasim does not offer or listed twice, an empty suite list)
 */
export function readIpmi(v: Value | undefined): IpmiSettings {
  const out: IpmiSettings = { ...DEFAULT_IPMI, cipherSuites: [...DEFAULT_IPMI.cipherSuites] };
  if (!v) return out;
  const m = v.map();
  const b = m.opt('bind');
  if (b) {
    out.bind = b.str();
    if (!isIpAddress(out.bind)) b.fail(`"${out.bind}" is not an IP address`);
  }
  out.port = m.opt('port')?.int({ min: 0, max: 65535 }) ?? out.port;
  out.ipmi15 = m.opt('ipmi15')?.bool() ?? out.ipmi15;
  const cs = m.opt('cipher_suites');
  if (cs) {
    const items = cs.list();
    out.cipherSuites = [];
    for (const x of items) {
      const n = x.int({ min: 0, max: 255 });
      // the same rule and words as --ipmi-cipher-suites (suite 0 only through the command-line option)
      const problem = cipherSuiteIdProblem(n, false);
      if (problem) x.fail(problem);
      if (out.cipherSuites.includes(n)) x.fail(`cipher suite ${n} listed twice`);
      out.cipherSuites.push(n);
    }
    if (out.cipherSuites.length === 0) cs.fail('offer at least one cipher suite');
  }
  out.idleTimeoutMs = m.opt('idle_timeout')?.duration({ min: 1000, max: 3_600_000 }) ?? out.idleTimeoutMs;
  m.done(['bind', 'port', 'ipmi15', 'cipher_suites', 'idle_timeout']);
  return out;
}
