// SQLite persistence: schema and pragmas, refusal of foreign/corrupt files (never a silent reset),
// and durability of acknowledged writes across SIGKILL.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimClock } from '../../../board/common/sim-clock.ts';
import { SeededRandom } from '../../../board/common/random.ts';
import { nullLogger } from '../../../board/common/logger.ts';
import { APPLICATION_ID, SCHEMA_VERSION } from '../../../chassis/persistence/migrations.ts';
import { StoreError } from '../../../chassis/persistence/store.ts';
import { SqliteStore, removeDatabaseFiles } from '../../../chassis/io/sqlite-store.ts';
import { defaultDbPath, loadDefaultShelf } from '../../../chassis/io/data-dir.ts';
import { Shelf } from '../../../chassis/model/shelf.ts';
import { repoRoot } from '../../support/shared.ts';
import { seededCryptoRandom } from '../../../chassis/platform.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `t${n++}.db`);

function openError(file: string): StoreError {
  try {
    SqliteStore.open(file).close();
  } catch (e) {
    if (e instanceof StoreError) return e;
    throw e;
  }
  throw new Error('opened');
}

describe('SqliteStore schema', () => {
  it('a new file gets WAL, synchronous=FULL, application_id ATCA and the current user_version', () => {
    const f = fresh();
    const s = SqliteStore.open(f);
    expect(s.info).toMatchObject({ created: true, schemaVersion: SCHEMA_VERSION, applicationId: APPLICATION_ID, journalMode: 'wal' });
    expect(s.db.pragma('synchronous', { simple: true })).toBe(2);
    s.close();
    const again = SqliteStore.open(f);
    expect(again.info.created).toBe(false);
    expect(again.integrityCheck()).toEqual(['ok']);
    again.close();
  });

  it('the default path follows XDG_DATA_HOME, else ~/.local/share', () => {
    expect(defaultDbPath({ XDG_DATA_HOME: '/x/data' }, '/home/u')).toBe('/x/data/atcasim/atcasim.db');
    expect(defaultDbPath({}, '/home/u')).toBe('/home/u/.local/share/atcasim/atcasim.db');
    expect(defaultDbPath({ XDG_DATA_HOME: 'relative' }, '/home/u')).toBe('/home/u/.local/share/atcasim/atcasim.db');
  });

  it('a new database and its WAL are readable by their owner only (it holds the IPMI passwords)', () => {
    const f = fresh();
    const s = SqliteStore.open(f);
    s.db.exec('CREATE TABLE IF NOT EXISTS perm_probe(x); INSERT INTO perm_probe VALUES (1)');
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(statSync(`${f}-wal`).mode & 0o777).toBe(0o600);
    s.close();
  });

  it('creates missing parent folders', () => {
    const f = join(dir, 'a', 'b', 'c.db');
    SqliteStore.open(f).close();
    expect(existsSync(f)).toBe(true);
  });
});

describe('SqliteStore refuses files it must not use, and leaves them untouched', () => {
  const check = (file: string, code: string, msg: RegExp) => {
    const before = readFileSync(file);
    const e = openError(file);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(msg);
    expect(e.message.startsWith(file)).toBe(true);
    expect(readFileSync(file).equals(before)).toBe(true);
  };

  it('not an SQLite file', () => {
    const f = fresh();
    writeFileSync(f, 'this is a text file, not a database\n'.repeat(10));
    check(f, 'not_a_database', /not an SQLite database.*db reset --yes/);
  });

  it('an SQLite database of another application', () => {
    const f = fresh();
    const db = new Database(f);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'x')");
    db.close();
    check(f, 'foreign_database', /another application.*customers/);
    const g = fresh();
    const db2 = new Database(g);
    db2.pragma('application_id = 1234');
    db2.close();
    expect(openError(g).code).toBe('foreign_database');
  });

  it('a newer schema', () => {
    const f = fresh();
    SqliteStore.open(f).close();
    const db = new Database(f);
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    check(f, 'newer_schema', /newer atcasim/);
  });

  it('a corrupt file (damaged pages)', () => {
    const f = fresh();
    const s = SqliteStore.open(f);
    for (let i = 1; i <= 400; i++) {
      const b = new Uint8Array(16).fill(i & 0xff);
      b[0] = i & 0xff;
      b[1] = i >> 8;
      s.appendSel(i, b, { nextRecordId: i + 1, overflow: false, lastAddTime: i, lastEraseTime: 0xffffffff });
    }
    s.close();
    expect(existsSync(`${f}-wal`)).toBe(false); // checkpointed into the main file on close
    const buf = readFileSync(f);
    expect(buf.length).toBeGreaterThan(4 * 4096);
    for (let p = 1; p < buf.length / 4096; p++) buf.fill(0x5a, p * 4096 + 8, p * 4096 + 200);
    writeFileSync(f, buf);
    check(f, 'corrupt', /corrupt|integrity_check/);
  });

  it('a missing database with mustExist', () => {
    expect(() => SqliteStore.open(fresh(), { mustExist: true })).toThrow(/no atcasim database/);
  });

  it('removeDatabaseFiles deletes the database and its WAL side files', () => {
    const f = fresh();
    const s = SqliteStore.open(f);
    s.putMeta('k', 'v');
    expect(existsSync(`${f}-wal`)).toBe(true);
    const removed = removeDatabaseFiles(f);
    s.close();
    expect(removed).toEqual(expect.arrayContaining([f, `${f}-wal`]));
    rmSync(`${f}-wal`, { force: true });
    rmSync(`${f}-shm`, { force: true });
  });

  it('backup() writes a consistent copy that opens as an atcasim database', async () => {
    const f = fresh();
    const s = SqliteStore.open(f);
    s.putConfig({ yaml: 'shelf: {}', source: 'x.yaml', storedAt: 5 });
    // the folder is not created (the CLI refuses a missing one up front)
    await expect(s.backup(join(dir, 'backups', 'copy.db'))).rejects.toMatchObject({ code: 'ENOENT' });
    const dest = join(dir, 'backup-copy.db');
    await s.backup(dest);
    s.close();
    expect(statSync(dest).mode & 0o777).toBe(0o600); // it holds the IPMI passwords, like the database
    const b = SqliteStore.open(dest);
    expect(b.getConfig()).toEqual({ yaml: 'shelf: {}', source: 'x.yaml', storedAt: 5 });
    expect(b.integrityCheck()).toEqual(['ok']);
    b.close();
    expect(statSync(dest).size).toBeGreaterThan(0);
  });
});

describe('acknowledged writes survive SIGKILL', () => {
  it('a child that acknowledged a deactivation and SEL records is killed -9; reopening finds all of them', async () => {
    const f = fresh();
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'run-ts.mjs'), join(repoRoot, 'test/integration/io/sigkill-child.ts'), f], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: number[] = [];
    let state = -1;
    let buf = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_code, sig) => res(sig)));
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`child did not acknowledge in time: ${err}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop()!;
        for (const l of lines) {
          const m = /^ack sel (\d+)$/.exec(l);
          if (m) acked.push(Number(m[1]));
          const s = /^ack state slot3 (\d)$/.exec(l);
          if (s) state = Number(s[1]);
        }
        if (acked.length >= 150) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          res();
        }
      });
    });
    expect(await exited).toBe('SIGKILL');
    expect(state).toBe(1);
    // Reopen as a restarted emulator would.
    const store = SqliteStore.open(f);
    expect(store.integrityCheck()).toEqual(['ok']);
    const shelf = Shelf.open({ config: loadDefaultShelf(), platform: { clock: new SimClock(), log: nullLogger, random: new SeededRandom(2), cryptoRandom: seededCryptoRandom(new SeededRandom(2)) }, store });
    expect(shelf.state('slot3')).toBe(1);
    const ids = new Set(shelf.sel.records().map((r) => r.recordId));
    const missing = acked.filter((id) => !ids.has(id));
    expect(missing).toEqual([]);
    // the deactivation's three transitions are in the SEL too
    const texts = shelf.sel.records().map((r) => shelf.sel.describe(r));
    for (const m of ['M5', 'M6', 'M1']) expect(texts).toContain(`FRU Hot Swap Node3 HotSwap | Transition to ${m} | Asserted`);
    shelf.close();
    store.close();
  }, 60_000);
});
