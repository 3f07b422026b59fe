/**
 * `atcasim start --snmp-port` refusals (exit 2, one precise line on stderr, no database left
 * behind for a bad YAML): a broken `snmp` section (file:line:column at the key), an agent that
 * nobody could read (no communities, no users), a DES user on a Node that cannot run DES (the
 * user's file:line:column), a port in use; and `atcasim config check` names the same YAML error.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { desAvailable } from '../../../chassis/io/snmp-agent.ts';
import { readDefaultShelfYaml } from '../../../chassis/io/data-dir.ts';
import { runAtcasim } from '../../support/headless.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-snmp-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = readDefaultShelfYaml();
const line = (n: number) => base.split('\n').length - 1 + n;

function shelf(name: string, section: string): string {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, `${base}${section}`);
  return f;
}

const start = (cfg: string, db: string, ...more: string[]) => runAtcasim(['start', '--headless', '--config', cfg, '--db', join(dir, db), '--ipmi-port', '0', '--admin-password', 'atcasim-test-pw', '--session-capacity', '4096', ...more]);

describe('atcasim start --snmp-port refusals', () => {
  it('a broken snmp section: exit 2 with file:line:column, no database created; config check says the same', async () => {
    const f = shelf('short-key', 'snmp:\n  users:\n    - { name: ops, auth: sha, auth_key: short }\n');
    const r = await start(f, 'a.db', '--snmp-port', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`atcasim start: ${f}:${line(3)}:41: snmp.users[0].auth_key: a USM passphrase has at least 8 characters (RFC 3414 §11.2), got 5\n`);
    expect(existsSync(join(dir, 'a.db'))).toBe(false);
    const c = await runAtcasim(['config', 'check', f]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(`${f}:${line(3)}:41: snmp.users[0].auth_key`);
  });

  it('no communities and no users: refused, nobody could read the agent', async () => {
    const f = shelf('nobody', 'snmp:\n  location: lab\n');
    const r = await start(f, 'b.db', '--snmp-port', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("atcasim start: --snmp-port: the shelf YAML's snmp section lists no communities and no users, so nobody could read the agent (add snmp.communities or snmp.users; docs/snmp.md)\n");
  });

  it.skipIf(desAvailable())('a DES user where Node cannot run DES: refused at the user\'s position', async () => {
    const f = shelf('des', 'snmp:\n  users:\n    - { name: legacy, auth: md5, auth_key: legacy-auth-1, priv: des, priv_key: legacy-priv-1 }\n');
    const r = await start(f, 'c.db', '--snmp-port', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^atcasim start: ${f.replace(/[.]/g, '\\.')}:${line(3)}:7: snmp\\.users: user "legacy" uses DES, which this Node runtime cannot run`));
  });

  it('the SNMP port in use: exit 2, "cannot serve SNMP"', async () => {
    const s = createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
    const f = shelf('ok', 'snmp:\n  communities: [atcasim-ro]\n');
    const r = await start(f, 'd.db', '--snmp-port', String(s.address().port));
    s.close();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^atcasim start: cannot serve SNMP: bind EADDRINUSE 127\.0\.0\.1:\d+\n$/);
  });
});
