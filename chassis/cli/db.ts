/**
 * `atcasim db`: the user's way in and out of the database.
 *
 *   atcasim db info   [--db FILE]           path, schema, shelf in force, SEL/user counts, integrity
 *   atcasim db backup FILE [--db FILE]      consistent online copy (better-sqlite3 backup API), mode
 *                                           0600 like the database (it holds the IPMI passwords); its
 *                                           folder must exist; the database itself is refused
 *   atcasim db reset  [--db FILE] --yes     delete the database (and its -wal/-shm files); the next
 *                                           start creates a fresh one from the default or --config
 *
 * `--db` defaults to $XDG_DATA_HOME/atcasim/atcasim.db, else ~/.local/share/atcasim/atcasim.db.
 * Exit: 0 ok; 2 usage error, missing/corrupt/foreign database, I/O error (message on stderr).
 * `reset` refuses to delete a file that is an SQLite database of another application, or not an
 * SQLite file at all, unless `--force` is given too.
 */
import type { Command } from 'commander';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { APPLICATION_ID } from '../persistence/migrations.ts';
import { StoreError } from '../persistence/store.ts';
import { defaultDbPath } from '../io/data-dir.ts';
import { SqliteStore, databaseInUse, removeDatabaseFiles } from '../io/sqlite-store.ts';
import type { CliContext } from './context.ts';

/** What the first 100 bytes of a file say about it (SQLite file format §1.3). */
export function sniffDatabase(file: string): 'missing' | 'directory' | 'empty' | 'atcasim' | 'sqlite-unmarked' | 'foreign-sqlite' | 'not-sqlite' {
  if (!existsSync(file)) return 'missing';
  if (statSync(file).isDirectory()) return 'directory';
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(100);
    const n = readSync(fd, b, 0, 100, 0);
    if (n === 0) return 'empty';
    if (n < 100 || b.toString('latin1', 0, 16) !== 'SQLite format 3\0') return 'not-sqlite';
    const app = b.readUInt32BE(68);
    if (app === APPLICATION_ID) return 'atcasim';
    return app === 0 ? 'sqlite-unmarked' : 'foreign-sqlite';
  } finally {
    closeSync(fd);
  }
}

/** True when both paths name the same file (same device and inode: hard links and symlinks too). */
function sameFile(a: string, b: string): boolean {
  const x = statSync(a);
  const y = statSync(b);
  return x.dev === y.dev && x.ino === y.ino;
}

function fail(ctx: CliContext, e: unknown): void {
  if (e instanceof StoreError) {
    ctx.stderr.write(`atcasim db: ${e.message}\n`);
    ctx.setExit(2);
    return;
  }
  throw e;
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command('db').description('inspect, back up or reset the atcasim database');
  const dbOpt = (c: Command) => c.option('--db <file>', `database file (default ${defaultDbPath()})`);

  dbOpt(cmd.command('info').description('show what the database holds and check its integrity')).action((o: { db?: string }) => {
    const file = resolve(o.db ?? defaultDbPath());
    let store: SqliteStore | undefined;
    try {
      store = SqliteStore.open(file, { mustExist: true, readonly: true });
      const cfg = store.getConfig();
      const integrity = store.integrityCheck();
      const lines = [
        `database: ${file}`,
        `schema: ${store.info.schemaVersion} (application_id 0x${store.info.applicationId.toString(16)}, journal ${store.info.journalMode})`,
        `shelf: ${cfg ? `${cfg.source}, stored ${new Date(cfg.storedAt).toISOString()}` : 'none stored'}`,
        `sel records: ${store.loadSel().records.length}`,
        `ipmi users: ${store.listUsers().filter((u) => u.name !== '').length}`,
        `fru states: ${store.loadFruStates().length}`,
        `integrity: ${integrity.join('; ')}`,
      ];
      ctx.stdout.write(`${lines.join('\n')}\n`);
      if (integrity.length !== 1 || integrity[0] !== 'ok') ctx.setExit(2);
    } catch (e) {
      fail(ctx, e);
    } finally {
      store?.close();
    }
  });

  dbOpt(cmd.command('backup').description('copy the database to FILE (safe while the emulator runs)'))
    .argument('<file>', 'backup file to write')
    .action(async (dest: string, o: { db?: string }) => {
      const file = resolve(o.db ?? defaultDbPath());
      const target = resolve(dest);
      const refuse = (why: string): void => {
        ctx.stderr.write(`atcasim db backup: ${dest}: ${why}\n`);
        ctx.setExit(2);
      };
      // Checked before the database is opened: nothing is created or changed for a refused backup.
      if (dest.trim() === '') return refuse('an empty file name; give the backup file to write');
      if (!existsSync(dirname(target)) || !statSync(dirname(target)).isDirectory()) return refuse('cannot create it: its folder does not exist');
      if (existsSync(target) && statSync(target).isDirectory()) return refuse('is a directory');
      // a device, FIFO or socket is never chmod-ed or overwritten (the copy is made 0600)
      if (existsSync(target) && !statSync(target).isFile()) return refuse('is not a regular file (a device, FIFO or socket); give a file path');
      if (existsSync(target) && existsSync(file) && sameFile(target, file)) return refuse(`is the database itself (${file}); give another file`);
      for (const side of ['-wal', '-shm', '-journal']) {
        const f = file + side;
        if (target === f || (existsSync(target) && existsSync(f) && sameFile(target, f))) return refuse(`is the database's own ${side.slice(1)} file (${f}); give another file`);
      }
      let store: SqliteStore | undefined;
      try {
        store = SqliteStore.open(file, { mustExist: true });
        await store.backup(target);
        ctx.stdout.write(`backed up ${file} to ${target}\n`);
      } catch (e) {
        if (e instanceof StoreError) fail(ctx, e);
        else {
          ctx.stderr.write(`atcasim db backup: ${(e as Error).message}\n`);
          ctx.setExit(2);
        }
      } finally {
        store?.close();
      }
    });

  dbOpt(cmd.command('reset').description('delete the database; the next start creates a new one'))
    .option('--yes', 'confirm: really delete it')
    .option('--force', 'also delete a file that is not an atcasim database')
    .action((o: { db?: string; yes?: boolean; force?: boolean }) => {
      const file = resolve(o.db ?? defaultDbPath());
      const kind = sniffDatabase(file);
      if (kind === 'missing') {
        ctx.stdout.write(`no database at ${file}: nothing to reset\n`);
        return;
      }
      if (kind === 'directory') {
        ctx.stderr.write(`atcasim db reset: ${file}: is a directory, not a database file (give --db a file path); nothing deleted\n`);
        ctx.setExit(2);
        return;
      }
      if ((kind === 'foreign-sqlite' || kind === 'not-sqlite') && !o.force) {
        ctx.stderr.write(`atcasim db reset: ${file} is ${kind === 'foreign-sqlite' ? 'an SQLite database of another application' : 'not an SQLite database'}; not deleting it (add --force to delete it anyway)\n`);
        ctx.setExit(2);
        return;
      }
      if (!o.yes) {
        ctx.stderr.write(`atcasim db reset: this deletes ${file} (SEL, FRU data, users, shelf state); run again with --yes to confirm (atcasim db backup FILE keeps a copy)\n`);
        ctx.setExit(2);
        return;
      }
      if (kind !== 'not-sqlite' && databaseInUse(file)) {
        ctx.stderr.write(`atcasim db reset: ${file} is in use (an emulator has it open); stop it first — nothing deleted\n`);
        ctx.setExit(1);
        return;
      }
      const removed = removeDatabaseFiles(file);
      ctx.stdout.write(`deleted ${removed.join(', ')}\n`);
    });
}
