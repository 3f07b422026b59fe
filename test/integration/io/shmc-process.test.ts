/**
 * The ShMC process supervisor (chassis/io/shmc-process.ts) with real `atcasim shmc` processes that
 * cannot reach a shelf: it refuses flags it would not re-run, starts a ShMC that exited before it
 * registered again (bounded), and stopAll leaves nothing behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../../board/common/logger.ts';
import { freePort } from '../../../chassis/cli/split-setup.ts';
import { ShmcSupervisor } from '../../../chassis/io/shmc-process.ts';
import { shmcArgv } from '../../../chassis/split/shmc-flags.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-shmc-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ShmcSupervisor', () => {
  it('refuses flags it would never re-run', () => {
    const sup = new ShmcSupervisor(captureLogger());
    expect(() => sup.spawn(['--node', 'a', '--exec', 'sh'])).toThrow(/unknown flag --exec|required/);
    expect(sup.pids()).toEqual([]);
  });

  it('a ShMC that exits before registering is started again, at most maxEarlyExits times; stopAll ends it', async () => {
    const log = captureLogger();
    const sup = new ShmcSupervisor(log, { registered: () => false, respawnDelayMs: 50, maxEarlyExits: 1 });
    const nobody = await freePort('tcp'); // no shelf listens there: the shmc exits 2 at once
    const argv = shmcArgv({
      node: 'a', shelf: { host: '127.0.0.1', port: nobody }, peerListen: { host: '127.0.0.1', port: await freePort('udp') },
      peer: { host: '127.0.0.1', port: await freePort('udp') }, ipmiPort: await freePort('udp'), maintPort: await freePort('tcp'),
      db: join(dir, 'shmc-a.db'), adminPassword: 'pw',
    });
    const first = sup.spawn(argv, 'pw');
    const t0 = performance.now();
    const msgs = () => log.records.map((r) => String(r.msg));
    while (!msgs().some((m) => /exited 1 times before registering: not started again/.test(m)) && performance.now() - t0 < 40_000) await new Promise((r) => setTimeout(r, 100));
    expect(msgs().filter((m) => /exited before registering on the bus: starting it again/.test(m))).toHaveLength(1);
    expect(msgs().some((m) => /not started again/.test(m))).toBe(true);
    expect(first.exitCode).toBe(2);
    await sup.stopAll();
    expect(sup.pids()).toEqual([]);
  }, 60_000);
});
