/** The shmc flags the shelf re-runs after a reset, and the argv sanitiser (chassis/split/shmc-flags.ts). */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { ADMIN_PASSWORD_ENV, parseShmcArgv, shmcArgv, stripAdminPassword } from '../../../../chassis/split/shmc-flags.ts';

const flags = ['--node', 'a', '--shelf', '127.0.0.1:4000', '--peer-listen', '127.0.0.1:4001', '--peer', '127.0.0.1:4002', '--ipmi-port', '6230', '--maint-port', '4003', '--db', '/tmp/x/shmc-a.db'];
const good = [...flags, '--admin-password', 'pw'];

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CommandError);
    return e as Error;
  }
  throw new Error('expected a CommandError');
}

describe('shmc flags', () => {
  it('parses, and writes back the same argv without the password', () => {
    const f = parseShmcArgv(good);
    expect(f).toMatchObject({ node: 'a', shelf: { host: '127.0.0.1', port: 4000 }, peer: { port: 4002 }, ipmiPort: 6230, maintPort: 4003, db: '/tmp/x/shmc-a.db', adminPassword: 'pw' });
    expect(shmcArgv(f)).toEqual(flags);
    expect(shmcArgv(f).join(' ')).not.toContain('pw');
    expect(parseShmcArgv(shmcArgv({ ...f, logFile: '/tmp/l', logLevel: 'debug' }), { requirePassword: false })).toMatchObject({ logFile: '/tmp/l', logLevel: 'debug' });
  });

  it('takes the password from ATCASIM_ADMIN_PASSWORD when the flag is absent; the flag wins over it', () => {
    expect(ADMIN_PASSWORD_ENV).toBe('ATCASIM_ADMIN_PASSWORD');
    expect(parseShmcArgv(flags, { env: { ATCASIM_ADMIN_PASSWORD: 'from-env' } }).adminPassword).toBe('from-env');
    expect(parseShmcArgv(good, { env: { ATCASIM_ADMIN_PASSWORD: 'from-env' } }).adminPassword).toBe('pw');
    // an empty variable counts as unset
    expect(errorOf(() => parseShmcArgv(flags, { env: { ATCASIM_ADMIN_PASSWORD: '' } })).message).toMatch(/--admin-password is required \(or set ATCASIM_ADMIN_PASSWORD\)/);
    expect(errorOf(() => parseShmcArgv(flags, { env: { ATCASIM_ADMIN_PASSWORD: 'x'.repeat(21) } })).message).toMatch(/ATCASIM_ADMIN_PASSWORD must be 1\.\.20 characters/);
    // the shelf's check of registered flags: no password needed, none reported
    expect(parseShmcArgv(flags, { requirePassword: false }).adminPassword).toBeUndefined();
  });

  it('refuses anything that is not exactly an shmc flag set', () => {
    const cases: Array<[string[], RegExp]> = [
      [[...good, '--exec', 'rm'], /unknown flag --exec/],
      [flags, /--admin-password is required/],
      [[...good, '--node', 'b'], /given twice/],
      [good.map((v) => (v === 'a' ? 'c' : v)), /--node must be a or b/],
      [good.map((v) => (v === '127.0.0.1:4000' ? '10.0.0.1:4000' : v)), /not a loopback address/],
      [good.map((v) => (v === '6230' ? '70000' : v)), /--ipmi-port/],
      [good.map((v) => (v === '/tmp/x/shmc-a.db' ? '--evil' : v)), /not a usable file path/],
      [['shmc', ...good], /unexpected argument "shmc"/],
      [[...good, '--log-level'], /needs a value/],
      [good.map((v) => (v === 'pw' ? 'x'.repeat(21) : v)), /--admin-password must be 1\.\.20/],
    ];
    for (const [argv, re] of cases) expect(errorOf(() => parseShmcArgv(argv)).message, argv.join(' ')).toMatch(re);
  });
});

describe('stripAdminPassword (the argv sanitiser)', () => {
  it('removes the flag and its value wherever it stands, and returns the password', () => {
    expect(stripAdminPassword(good)).toEqual({ argv: flags, password: 'pw' });
    expect(stripAdminPassword(['--admin-password', 's3cret', ...flags])).toEqual({ argv: flags, password: 's3cret' });
    const mid = [...flags.slice(0, 4), '--admin-password', 'mid-pw', ...flags.slice(4)];
    expect(stripAdminPassword(mid)).toEqual({ argv: flags, password: 'mid-pw' });
  });

  it('removes the --admin-password=VALUE form, repeats, and a dangling flag; the first password is returned', () => {
    expect(stripAdminPassword([...flags, '--admin-password=eq-pw'])).toEqual({ argv: flags, password: 'eq-pw' });
    const r = stripAdminPassword(['--admin-password', 'one', ...flags, '--admin-password=two', '--admin-password', 'three', '--admin-password']);
    expect(r).toEqual({ argv: flags, password: 'one' });
    expect(JSON.stringify(r.argv)).not.toMatch(/one|two|three|admin-password/);
  });

  it('a value that looks like a flag is still taken as the password (never left on the argv)', () => {
    expect(stripAdminPassword(['--admin-password', '--node', ...flags.slice(1)])).toEqual({ argv: flags.slice(1), password: '--node' });
  });

  it('leaves an argv without a password as it is (a copy), password undefined', () => {
    const r = stripAdminPassword(flags);
    expect(r).toEqual({ argv: flags });
    expect(r.argv).not.toBe(flags);
    expect(r.password).toBeUndefined();
  });
});
