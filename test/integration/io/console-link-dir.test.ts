// Ownership of a console links folder (chassis/io/serial-console.ts claimLinkDir/releaseLinkDir):
// one running emulator owns it through an owner file; a claim whose process has ended (or whose pid
// now belongs to another process) is stale and taken over; a live one is never taken.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimLinkDir, consoleLinkDirs, LINK_OWNER_FILE, releaseLinkDir } from '../../../chassis/io/serial-console.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'atcasim-linkdir-'));
  dirs.push(d);
  return d;
}
/** A running process that is not this one (a sleeping child), and its /proc start time. */
function otherProcess(): { pid: number; start: number } {
  const c = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(c);
  const stat = readFileSync(`/proc/${c.pid}/stat`, 'utf8');
  return { pid: c.pid!, start: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]) };
}

describe('console links folder ownership', () => {
  it('a free folder is created and claimed; release removes the owner file and the empty folder', () => {
    const dir = join(tmp(), 'consoles');
    const c = claimLinkDir(dir, '/x/a.db');
    expect(c.ok).toBe(true);
    const owner = JSON.parse(readFileSync(join(dir, LINK_OWNER_FILE), 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, db: '/x/a.db' });
    expect(readdirSync(dir)).toEqual([LINK_OWNER_FILE]); // no temporary file left
    releaseLinkDir(dir, (c as { token: string }).token);
    expect(existsSync(dir)).toBe(false);
  });

  it('a folder a running process owns is not taken (this process included)', () => {
    const dir = tmp();
    const other = otherProcess();
    writeFileSync(join(dir, LINK_OWNER_FILE), JSON.stringify({ pid: other.pid, start: other.start, db: '/y/b.db', token: 'abc' }));
    const c = claimLinkDir(dir);
    expect(c).toMatchObject({ ok: false, owner: { pid: other.pid, db: '/y/b.db' } });
    expect(JSON.parse(readFileSync(join(dir, LINK_OWNER_FILE), 'utf8')).token).toBe('abc');

    const dir2 = join(tmp(), 'x');
    const mine = claimLinkDir(dir2);
    expect(mine.ok).toBe(true);
    expect(claimLinkDir(dir2)).toMatchObject({ ok: false, owner: { pid: process.pid } });
  });

  it('a claim of an ended process, of a reused pid, or an unreadable one is stale and taken over', () => {
    const dir = tmp();
    // pid far above pid_max: no such process
    writeFileSync(join(dir, LINK_OWNER_FILE), JSON.stringify({ pid: 999_999_999, token: 'dead' }));
    const a = claimLinkDir(dir);
    expect(a).toMatchObject({ ok: true, replaced: { pid: 999_999_999 } });
    releaseLinkDir(dir, (a as { token: string }).token);

    const dir2 = tmp();
    const other = otherProcess();
    writeFileSync(join(dir2, LINK_OWNER_FILE), JSON.stringify({ pid: other.pid, start: other.start - 1, token: 'reused' }));
    expect(claimLinkDir(dir2)).toMatchObject({ ok: true, replaced: { pid: other.pid } });

    const dir3 = tmp();
    writeFileSync(join(dir3, LINK_OWNER_FILE), 'garbage');
    expect(claimLinkDir(dir3).ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dir3, LINK_OWNER_FILE), 'utf8')).pid).toBe(process.pid);
  });

  it('release leaves another claim and a non-empty folder alone', () => {
    const dir = tmp();
    const c = claimLinkDir(dir);
    writeFileSync(join(dir, LINK_OWNER_FILE), JSON.stringify({ pid: process.pid, token: 'someone-else' }));
    releaseLinkDir(dir, (c as { token: string }).token);
    expect(JSON.parse(readFileSync(join(dir, LINK_OWNER_FILE), 'utf8')).token).toBe('someone-else');
    const nested = join(dir, 'sub');
    mkdirSync(nested);
    const n = claimLinkDir(nested);
    releaseLinkDir(nested, (n as { token: string }).token, true);
    expect(existsSync(nested)).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  it('the per-database fallback folder sits inside the stable one, named after the database', () => {
    const a = consoleLinkDirs('/var/lib/x/a.db', { XDG_RUNTIME_DIR: '/run/user/1000' });
    const b = consoleLinkDirs('/var/lib/x/b.db', { XDG_RUNTIME_DIR: '/run/user/1000' });
    expect(a.linkDir).toBe('/run/user/1000/atcasim');
    expect(a.fallbackLinkDir).toMatch(/^\/run\/user\/1000\/atcasim\/a-[0-9a-f]{8}$/);
    expect(b.fallbackLinkDir).toMatch(/^\/run\/user\/1000\/atcasim\/b-[0-9a-f]{8}$/);
    expect(consoleLinkDirs('/var/lib/x/a.db', {}).fallbackLinkDir).toMatch(/^\/var\/lib\/x\/consoles\/a-[0-9a-f]{8}$/);
    expect(consoleLinkDirs('/var/lib/y/a.db', {}).fallbackLinkDir.slice(-8)).not.toBe(consoleLinkDirs('/var/lib/x/a.db', {}).fallbackLinkDir.slice(-8));
  });
});
