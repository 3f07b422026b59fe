/**
 * The administrator password of `atcasim start` is never shown: `--admin-password -` reads it
 * without echo (one line of stdin when stdin is not a terminal), and a password given on the
 * command line is taken out of the process list (the process title replaces the command line that
 * /proc/PID/cmdline and `ps` show). In both cases it appears nowhere in stdout or stderr, and an
 * IPMI login with it works.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../chassis/main.ts';
import { ATCASIM_BIN } from '../../support/headless.ts';
import { repoRoot } from '../../support/shared.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-pw-hidden-'));
const procs: ChildProcess[] = [];
afterAll(() => {
  for (const p of procs) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, password: string, stdin?: string): Promise<{ p: ChildProcess; port: number; out: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: dir };
  delete env.ATCASIM_ADMIN_PASSWORD;
  delete env.npm_lifecycle_event;
  const p = spawn(process.execPath, [ATCASIM_BIN, 'start', '--headless', '--ipmi-port', '0', '--rate', '200', '--db', join(dir, `${name}.db`), '--admin-password', password], { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  procs.push(p);
  let out = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  if (stdin !== undefined) p.stdin!.end(stdin);
  for (const end = Date.now() + 90_000; !/"event":"ready"/.test(out); ) {
    if (Date.now() > end || p.exitCode !== null) throw new Error(`no ready line:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const port = Number(/"ipmi":"127\.0\.0\.1:(\d+)"/.exec(out)![1]);
  return { p, port, out: () => out };
}

async function loginWorks(port: number, password: string): Promise<boolean> {
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return (await main(['node', 'atcasim', 'clia', '-p', String(port), '-P', password, '--timeout', '3000', 'shmstatus'], { stdout: sink, stderr: sink })) === 0;
}

describe('atcasim start: the admin password stays hidden', () => {
  it('--admin-password - reads it from stdin; it is shown nowhere', async () => {
    const s = await start('dash', '-', 'Piped-secret-91\n');
    expect(await loginWorks(s.port, 'Piped-secret-91')).toBe(true);
    expect(s.out()).not.toContain('Piped-secret-91');
  }, 120_000);

  it('a password on the command line is gone from /proc/PID/cmdline, and never printed', async () => {
    const s = await start('literal', 'Literal-secret-5');
    const cmdline = readFileSync(`/proc/${s.p.pid}/cmdline`, 'utf8');
    expect(cmdline).not.toContain('Literal-secret-5');
    expect(cmdline.replace(/\0/g, ' ').trim()).toBe('atcasim start');
    expect(await loginWorks(s.port, 'Literal-secret-5')).toBe(true);
    expect(s.out()).not.toContain('Literal-secret-5');
  }, 120_000);
});
