/**
 * The split shelf run by hand (docs/split.md "Running it"): `atcasim shelf --listen 127.0.0.1:0` and
 * two `atcasim shmc` processes started by the user, as three separate commands. One ShMC turns active
 * and answers ipmitool on the shelf address; `clia shmstatus --maint` reports each one's role; a shmc
 * with flags the shelf would never re-run is refused with exit 2; a ShMC the user killed is started
 * again by the shelf (its watchdog expired) with the flags it registered — its password, which the user
 * gave on the command line (a) or in ATCASIM_ADMIN_PASSWORD (b), now in its environment and not on its
 * command line; SIGTERM of the shelf ends the ShMCs (they lose their bus).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../chassis/cli/split-setup.ts';
import { maintRequest } from '../../chassis/io/shmc-maint.ts';
import { ATCASIM_BIN, runAtcasim, TEST_ADMIN } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { repoRoot } from '../support/shared.ts';
import { processAlive } from '../../chassis/io/shmc-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-split-standalone-'));
const procs: ChildProcess[] = [];
const pids = new Set<number>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function run(args: string[], env: Record<string, string> = {}): { proc: ChildProcess; out: () => string } {
  const base = { ...process.env };
  delete base.ATCASIM_ADMIN_PASSWORD;
  const proc = spawn(process.execPath, [ATCASIM_BIN, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...base, ...env } });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  procs.push(proc);
  if (proc.pid) pids.add(proc.pid);
  return { proc, out: () => out };
}


async function waitUntil<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    const v = await fn();
    if (v !== undefined) return v;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

type Status = { role: string; pid: number; shelf_address_bound: boolean };
const status = async (port: number): Promise<Status | undefined> => {
  try {
    return (await maintRequest('127.0.0.1', port, { op: 'status' }, 1000)) as Status;
  } catch {
    return undefined;
  }
};

afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL');
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await sleep(200);
  rmSync(dir, { recursive: true, force: true });
});

describe('atcasim shelf + two atcasim shmc started by hand', () => {
  it('registers both, one serves the shelf address; bad flags refused; a killed ShMC is restarted; SIGTERM ends all', async () => {
    const ipmiPort = await freePort('udp');
    const shelf = run(['shelf', '--listen', '127.0.0.1:0', '--db', join(dir, 'shelf.db'), '--ipmi-port', String(ipmiPort), '--admin-password', TEST_ADMIN.password, '--rate', '2000', '--session-capacity', '4096', '--stats-interval', '1s']);
    const ready = await waitUntil(() => shelf.out().split('\n').map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return undefined; } }).find((l) => l?.event === 'ready'), 90_000, 'shelf ready');
    expect(ready.split).toBe(true);
    const bus = String(ready.bus);
    expect(bus).toMatch(/^127\.0\.0\.1:\d+$/);

    // flags the shelf would never re-run: refused by the verb itself (exit 2), nothing registers
    const bad = await runAtcasim(['shmc', '--node', 'c', '--shelf', bus, '--peer-listen', '127.0.0.1:1', '--peer', '127.0.0.1:2', '--ipmi-port', '1', '--maint-port', '3', '--db', join(dir, 'x.db'), '--admin-password', 'pw']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--node must be a or b/);

    const peer = { a: await freePort('udp'), b: await freePort('udp') };
    const maint = { a: await freePort('tcp'), b: await freePort('tcp') };
    // a: the password on its command line (the `--admin-password` flag); b: in ATCASIM_ADMIN_PASSWORD
    const shmcPw = { a: TEST_ADMIN.password, b: 'env-only-pw-b' };
    for (const n of ['a', 'b'] as const) {
      const common = ['shmc', '--node', n, '--shelf', bus, '--peer-listen', `127.0.0.1:${peer[n]}`, '--peer', `127.0.0.1:${peer[n === 'a' ? 'b' : 'a']}`, '--ipmi-port', String(ipmiPort), '--maint-port', String(maint[n]), '--db', join(dir, `shmc-${n}.db`)];
      if (n === 'a') run([...common, '--admin-password', shmcPw.a]);
      else run(common, { ATCASIM_ADMIN_PASSWORD: shmcPw.b });
    }
    const roles = await waitUntil(async () => {
      const [a, b] = [await status(maint.a), await status(maint.b)];
      const r = [a?.role, b?.role].sort().join(',');
      return r === 'active,standby.hot' ? { a: a!, b: b! } : undefined;
    }, 60_000, 'one active, one standby.hot');
    const act = roles.a.role === 'active' ? 'a' : 'b';
    expect(roles[act].shelf_address_bound).toBe(true);

    const mc = await runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(ipmiPort), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '-C', '17', 'mc', 'info'], { timeoutMs: 20_000 });
    expect(mc.exitCode, mc.stderr).toBe(0);
    const viaMaint = await runAtcasim(['clia', 'shmstatus', '--maint', `127.0.0.1:${maint[act === 'a' ? 'b' : 'a']}`]);
    expect(viaMaint.code).toBe(0);
    expect(viaMaint.stdout).toMatch(/standby\.hot, epoch \d+; peer active/);

    // each ShMC's maintenance switch takes its own password (from its flag or from its environment)
    for (const n of ['a', 'b'] as const) {
      expect(await maintRequest('127.0.0.1', maint[n], { op: 'block-heartbeats', on: false, password: shmcPw[n === 'a' ? 'b' : 'a'] })).toMatchObject({ error: { code: 'denied' } });
      expect(await maintRequest('127.0.0.1', maint[n], { op: 'block-heartbeats', on: false, password: shmcPw[n] })).toMatchObject({ ok: true });
    }

    // kill -9 the standby, then the other (once the first is back): the shelf's watchdog for each
    // expires and the shelf starts it again — the password in its environment, not on its argv.
    const stby = act === 'a' ? 'b' : 'a';
    for (const n of [stby, act] as const) {
      const oldPid = (await status(maint[n]))!.pid;
      process.kill(oldPid, 'SIGKILL');
      const back = await waitUntil(async () => {
        const s = await status(maint[n]);
        return s && s.pid !== oldPid && s.role === 'standby.hot' ? s : undefined;
      }, 60_000, `restarted shmc-${n}`);
      pids.add(back.pid);
      const argv = readFileSync(`/proc/${back.pid}/cmdline`, 'utf8').split('\0');
      expect(argv).toContain('shmc');
      expect(argv.join(' ')).not.toContain(shmcPw[n]);
      expect(argv.some((a) => a.startsWith('--admin-password'))).toBe(false);
      expect(readFileSync(`/proc/${back.pid}/environ`, 'utf8').split('\0')).toContain(`ATCASIM_ADMIN_PASSWORD=${shmcPw[n]}`);
      expect(await maintRequest('127.0.0.1', maint[n], { op: 'block-heartbeats', on: false, password: shmcPw[n] })).toMatchObject({ ok: true });
      const other = n === 'a' ? 'b' : 'a';
      expect((await status(maint[other]))?.role).toBe('active');
    }

    // SIGTERM of the shelf: the ShMCs lose their bus and exit
    const now = [(await status(maint.a))!.pid, (await status(maint.b))!.pid];
    shelf.proc.kill('SIGTERM');
    await waitUntil(() => (now.some(processAlive) || (shelf.proc.pid !== undefined && processAlive(shelf.proc.pid)) ? undefined : true), 20_000, 'every process gone');
  }, 240_000);
});
