// `atcasim db info | backup | reset`: the user's way in and out of the database.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../chassis/main.ts';
import { SqliteStore } from '../../../chassis/io/sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-cli-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write: (c, _e, cb) => (f(String(c)), cb()) });
  const code = await main(['node', 'atcasim', ...args], { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)) });
  return { code, out, err };
}

function makeDb(name: string): string {
  const f = join(dir, name);
  const s = SqliteStore.open(f);
  s.putConfig({ yaml: 'shelf: {}', source: 'lab.yaml', storedAt: Date.UTC(2024, 0, 2) });
  s.appendSel(1, new Uint8Array(16).fill(1).map((b, i) => (i === 0 ? 1 : i === 1 ? 0 : i === 2 ? 2 : b)), { nextRecordId: 2, overflow: false, lastAddTime: 1, lastEraseTime: 0xffffffff });
  s.setUser({ id: 2, name: 'admin', password: new TextEncoder().encode('password1'), privilege: 4, enabled: true, ipmiMessaging: true, linkAuth: false, callinRestricted: false });
  s.close();
  return f;
}

describe('atcasim db', () => {
  it('info shows the shelf, counts and integrity', async () => {
    const f = makeDb('info.db');
    const r = await run('db', 'info', '--db', f);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`database: ${f}`);
    expect(r.out).toContain('schema: 1 (application_id 0x41544341');
    expect(r.out).toContain('shelf: lab.yaml, stored 2024-01-02T00:00:00.000Z');
    expect(r.out).toContain('sel records: 1');
    expect(r.out).toContain('ipmi users: 1');
    expect(r.out).toContain('integrity: ok');
  });

  it('info on a missing or foreign file exits 2 with the reason', async () => {
    expect(await run('db', 'info', '--db', join(dir, 'nope.db'))).toMatchObject({ code: 2, err: expect.stringMatching(/no atcasim database/) });
    const g = join(dir, 'other.db');
    const db = new Database(g);
    db.exec('CREATE TABLE t (x)');
    db.close();
    expect(await run('db', 'info', '--db', g)).toMatchObject({ code: 2, err: expect.stringMatching(/another application/) });
  });

  it('backup writes a copy that opens with the same contents', async () => {
    const f = makeDb('live.db');
    const dest = join(dir, 'copy.db');
    const r = await run('db', 'backup', dest, '--db', f);
    expect(r).toMatchObject({ code: 0, out: `backed up ${f} to ${dest}\n` });
    const s = SqliteStore.open(dest);
    expect(s.getConfig()!.source).toBe('lab.yaml');
    expect(s.loadSel().records.length).toBe(1);
    s.close();
  });

  it('the backup is readable by its owner only (mode 0600, like the database: it holds the IPMI passwords)', async () => {
    const f = makeDb('secret.db');
    expect(statSync(f).mode & 0o777).toBe(0o600);
    const dest = join(dir, 'secret-copy.db');
    expect((await run('db', 'backup', dest, '--db', f)).code).toBe(0);
    expect(statSync(dest).mode & 0o777).toBe(0o600);
    // an existing world-readable file that is overwritten becomes 0600 too
    const old = join(dir, 'old-copy.db');
    writeFileSync(old, '');
    chmodSync(old, 0o644);
    expect((await run('db', 'backup', old, '--db', f)).code).toBe(0);
    expect(statSync(old).mode & 0o777).toBe(0o600);
  });

  it('backup refuses a destination whose folder does not exist (creates nothing) and the database itself', async () => {
    const f = makeDb('self.db');
    const missing = join(dir, 'no-such-folder', 'copy.db');
    const r = await run('db', 'backup', missing, '--db', f);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`atcasim db backup: ${missing}: cannot create it: its folder does not exist\n`);
    expect(existsSync(join(dir, 'no-such-folder'))).toBe(false);
    const before = readFileSync(f);
    const self = await run('db', 'backup', f, '--db', f);
    expect(self.code).toBe(2);
    expect(self.err).toMatch(/is the database itself/);
    const link = join(dir, 'self-link.db');
    symlinkSync(f, link);
    expect((await run('db', 'backup', link, '--db', f)).err).toMatch(/is the database itself/);
    expect(readFileSync(f).equals(before)).toBe(true);
    expect((await run('db', 'backup', dir, '--db', f)).err).toMatch(/is a directory/);
  });

  it('backup refuses, changing nothing, a FIFO or device, the database\'s own WAL file and an empty name', async () => {
    const f = makeDb('special.db');
    const fifo = join(dir, 'a-fifo');
    execFileSync('mkfifo', ['-m', '0644', fifo]);
    const r = await run('db', 'backup', fifo, '--db', f);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`atcasim db backup: ${fifo}: is not a regular file (a device, FIFO or socket); give a file path\n`);
    expect(statSync(fifo).mode & 0o777).toBe(0o644); // not chmod-ed
    const nullMode = statSync('/dev/null').mode;
    expect((await run('db', 'backup', '/dev/null', '--db', f)).err).toMatch(/is not a regular file/);
    expect(statSync('/dev/null').mode).toBe(nullMode);
    const wal = `${f}-wal`;
    const w = await run('db', 'backup', wal, '--db', f);
    expect(w.code).toBe(2);
    expect(w.err).toMatch(/is the database's own wal file/);
    expect((await run('db', 'backup', '', '--db', f)).err).toMatch(/an empty file name/);
  });

  it('--db naming a directory: one-line message, exit 2 (info, backup, reset)', async () => {
    for (const args of [['db', 'info', '--db', dir], ['db', 'backup', join(dir, 'x.db'), '--db', dir], ['db', 'reset', '--db', dir, '--yes']]) {
      const r = await run(...args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/is a directory, not a database file/);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(dir)).toBe(true);
  });

  it('reset needs --yes, deletes the database and its side files, and refuses foreign files without --force', async () => {
    const f = makeDb('reset.db');
    const no = await run('db', 'reset', '--db', f);
    expect(no.code).toBe(2);
    expect(no.err).toMatch(/--yes/);
    expect(existsSync(f)).toBe(true);
    const yes = await run('db', 'reset', '--db', f, '--yes');
    expect(yes.code).toBe(0);
    expect(existsSync(f)).toBe(false);
    expect(await run('db', 'reset', '--db', f, '--yes')).toMatchObject({ code: 0, out: expect.stringMatching(/nothing to reset/) });
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my precious notes\n');
    const refuse = await run('db', 'reset', '--db', notes, '--yes');
    expect(refuse.code).toBe(2);
    expect(refuse.err).toMatch(/not an SQLite database; not deleting/);
    expect(readFileSync(notes, 'utf8')).toBe('my precious notes\n');
    expect((await run('db', 'reset', '--db', notes, '--yes', '--force')).code).toBe(0);
    expect(existsSync(notes)).toBe(false);
  });

  it('reset refuses a database an emulator has open (exit 1, nothing deleted), and deletes it once closed', async () => {
    const f = makeDb('busy.db');
    const open = SqliteStore.open(f);
    try {
      const r = await run('db', 'reset', '--db', f, '--yes');
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/is in use/);
      expect(existsSync(f)).toBe(true);
    } finally {
      open.close();
    }
    expect((await run('db', 'reset', '--db', f, '--yes')).code).toBe(0);
    expect(existsSync(f)).toBe(false);
  });

  it('a corrupt database can still be reset (it is ours by its header)', async () => {
    const f = makeDb('corrupt.db');
    const b = readFileSync(f);
    for (let p = 1; p < b.length / 4096; p++) b.fill(0x33, p * 4096, p * 4096 + 100); // page headers of every page but the first
    writeFileSync(f, b);
    expect((await run('db', 'info', '--db', f)).code).toBe(2);
    expect((await run('db', 'reset', '--db', f, '--yes')).code).toBe(0);
    expect(existsSync(f)).toBe(false);
  });
});
