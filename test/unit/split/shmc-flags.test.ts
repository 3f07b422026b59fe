/** The shmc flags the shelf re-runs after a reset (chassis/split/shmc-flags.ts). */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../board/common/errors.ts';
import { parseShmcArgv, shmcArgv } from '../../../chassis/split/shmc-flags.ts';

const good = ['--node', 'a', '--shelf', '127.0.0.1:4000', '--peer-listen', '127.0.0.1:4001', '--peer', '127.0.0.1:4002', '--ipmi-port', '6230', '--maint-port', '4003', '--db', '/tmp/x/shmc-a.db', '--admin-password', 'pw'];

describe('shmc flags', () => {
  it('parses and writes back the same argv', () => {
    const f = parseShmcArgv(good);
    expect(f).toMatchObject({ node: 'a', shelf: { host: '127.0.0.1', port: 4000 }, peer: { port: 4002 }, ipmiPort: 6230, maintPort: 4003, db: '/tmp/x/shmc-a.db' });
    expect(shmcArgv(f)).toEqual(good);
    expect(parseShmcArgv(shmcArgv({ ...f, logFile: '/tmp/l', logLevel: 'debug' }))).toMatchObject({ logFile: '/tmp/l', logLevel: 'debug' });
  });

  it('refuses anything that is not exactly an shmc flag set', () => {
    const cases: Array<[string[], RegExp]> = [
      [[...good, '--exec', 'rm'], /unknown flag --exec/],
      [good.slice(0, -2), /--admin-password is required/],
      [[...good, '--node', 'b'], /given twice/],
      [good.map((v) => (v === 'a' ? 'c' : v)), /--node must be a or b/],
      [good.map((v) => (v === '127.0.0.1:4000' ? '10.0.0.1:4000' : v)), /not a loopback address/],
      [good.map((v) => (v === '6230' ? '70000' : v)), /--ipmi-port/],
      [good.map((v) => (v === '/tmp/x/shmc-a.db' ? '--evil' : v)), /not a usable file path/],
      [['shmc', ...good], /unexpected argument "shmc"/],
      [[...good, '--log-level'], /needs a value/],
    ];
    for (const [argv, re] of cases) {
      let err: unknown;
      try {
        parseShmcArgv(argv);
      } catch (e) {
        err = e;
      }
      expect(err, argv.join(' ')).toBeInstanceOf(CommandError);
      expect((err as Error).message).toMatch(re);
    }
  });
});
