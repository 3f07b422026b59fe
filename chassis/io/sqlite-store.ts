/**
 * better-sqlite3 implementation of the Store port (chassis/persistence/store.ts).
 *
 * Durability: WAL journal with `synchronous = FULL`: every transaction is fsynced to the WAL before
 * the call returns, so an acknowledged write survives `kill -9` and power loss. Writes happen per
 * command (a hot-swap step, a SEL record, a password change), never per packet.
 *
 * Opening refuses, with a StoreError that says what to do, rather than silently resetting:
 * a file that is not SQLite (`not_a_database`), an SQLite file of another application
 * (`foreign_database`: PRAGMA application_id is not 'ATCA', or it has tables but no id), a schema
 * newer than this build (`newer_schema`), a file failing `PRAGMA integrity_check` (`corrupt`), or a
 * schema missing tables (`schema_mismatch`). A new or empty file gets the schema by the ordered
 * migrations of chassis/persistence/migrations.ts, keyed to PRAGMA user_version.
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { APPLICATION_ID, EXPECTED_TABLES, MIGRATIONS, SCHEMA_VERSION } from '../persistence/migrations.ts';
import {
  StoreError,
  checkUser,
  emptySelMeta,
  type FruStateRecord,
  type HaRoleRecord,
  type IpmiUserRecord,
  type SelMeta,
  type Store,
  type StoredConfig,
  type StoredFruData,
  type StoredSel,
  type StoredThresholds,
} from '../persistence/store.ts';
import { ensureParentDir } from './data-dir.ts';

type DB = Database.Database;

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
const HINT = 'use another --db FILE, or `atcasim db reset --yes` to start over (after `atcasim db backup` if in doubt)';

/** Facts about an open database (for `atcasim db info`). */
export interface SqliteInfo {
  file: string;
  schemaVersion: number;
  applicationId: number;
  journalMode: string;
  /** True when this open created the schema. */
  created: boolean;
}

/** Options of SqliteStore.open. */
export interface SqliteOpenOptions {
  /** Refuse to create a new database (default false: create when missing or empty). */
  mustExist?: boolean;
  /** Open read-only (no migrations; a new file is refused). */
  readonly?: boolean;
}

function sqliteCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** The first 16 bytes of `file` (undefined when it does not exist).
 * @throws StoreError('io') for a directory or a file that cannot be read (EACCES, …) */
function headerOf(file: string): Buffer | undefined {
  if (file === ':memory:' || !existsSync(file)) return undefined;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new StoreError('io', file, 'is a directory, not a database file (give --db a file path)');
    if (st.size === 0) return Buffer.alloc(0);
    const fd = openSync(file, 'r');
    try {
      const b = Buffer.alloc(16);
      const n = readSync(fd, b, 0, 16, 0);
      return b.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (e instanceof StoreError) throw e;
    throw new StoreError('io', file, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/** The SQLite Store. Create with `SqliteStore.open(file)`. */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly st: ReturnType<typeof prepare>;
  private closed = false;

  private constructor(
    readonly db: DB,
    readonly info: SqliteInfo,
  ) {
    this.st = prepare(db);
  }

  /**
   * Opens (and if needed creates and migrates) an atcasim database.
   * @param file a path, or ':memory:'
   * @throws StoreError (codes above) — never resets or overwrites an existing file
   */
  static open(file: string, opts: SqliteOpenOptions = {}): SqliteStore {
    const head = headerOf(file);
    const isNew = file === ':memory:' || head === undefined || head.length === 0;
    if (head && head.length > 0 && !(head.length === 16 && head.equals(SQLITE_HEADER))) {
      throw new StoreError('not_a_database', file, `is not an SQLite database (it does not start with the SQLite header); ${HINT}`);
    }
    if (isNew && (opts.mustExist || opts.readonly)) throw new StoreError('io', file, 'no atcasim database at this path');
    if (!opts.readonly) ensureParentDir(file);
    // A new database holds the IPMI users' passwords: readable by its owner only (SQLite gives its
    // -wal and -shm files the database file's permissions).
    if (isNew && file !== ':memory:' && head === undefined) closeSync(openSync(file, 'a', 0o600));
    let db: DB;
    try {
      db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: !!opts.mustExist || !!opts.readonly });
    } catch (e) {
      throw new StoreError('io', file, `cannot open: ${(e as Error).message}`);
    }
    try {
      const info = SqliteStore.prepareSchema(db, file, opts.readonly ?? false);
      return new SqliteStore(db, info);
    } catch (e) {
      db.close();
      if (e instanceof StoreError) throw e;
      const code = sqliteCode(e);
      if (code === 'SQLITE_NOTADB') throw new StoreError('not_a_database', file, `is not an SQLite database (${(e as Error).message}); ${HINT}`);
      if (code?.startsWith('SQLITE_CORRUPT')) throw new StoreError('corrupt', file, `is corrupt (${(e as Error).message}); ${HINT}`);
      throw new StoreError('io', file, `cannot use: ${(e as Error).message}`);
    }
  }

  private static prepareSchema(db: DB, file: string, readonly: boolean): SqliteInfo {
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
    let created = false;
    if (appId === 0 && version === 0 && tables.length === 0) {
      if (readonly) throw new StoreError('io', file, 'the database is empty');
      created = true;
    } else if (appId !== APPLICATION_ID) {
      throw new StoreError(
        'foreign_database',
        file,
        `is an SQLite database of another application (application_id ${appId}${tables.length ? `, tables ${tables.slice(0, 5).join(', ')}` : ''}), not atcasim's; ${HINT}`,
      );
    } else if (version > SCHEMA_VERSION) {
      throw new StoreError('newer_schema', file, `was written by a newer atcasim (schema ${version}, this build knows ${SCHEMA_VERSION}); upgrade atcasim or use another --db FILE`);
    }
    if (!created) {
      const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
      const res = rows.map((r) => r.integrity_check);
      if (res.length !== 1 || res[0] !== 'ok') {
        throw new StoreError('corrupt', file, `failed PRAGMA integrity_check: ${res.slice(0, 3).join('; ')}${res.length > 3 ? ' …' : ''}; ${HINT}`);
      }
    }
    if (!readonly && file !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    if (!readonly) {
      for (const m of MIGRATIONS) {
        if (m.version <= version) continue;
        db.transaction(() => {
          db.exec(m.sql);
          db.pragma(`user_version = ${m.version}`);
          if (m.version === 1) db.pragma(`application_id = ${APPLICATION_ID}`);
        })();
      }
    } else if (version < SCHEMA_VERSION) {
      throw new StoreError('newer_schema', file, `has schema ${version}; open it once read-write to migrate to ${SCHEMA_VERSION}`);
    }
    const have = new Set(
      (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name),
    );
    const missing = EXPECTED_TABLES.filter((t) => !have.has(t));
    if (missing.length) throw new StoreError('schema_mismatch', file, `lacks tables ${missing.join(', ')}; ${HINT}`);
    return {
      file,
      schemaVersion: db.pragma('user_version', { simple: true }) as number,
      applicationId: db.pragma('application_id', { simple: true }) as number,
      journalMode: String(db.pragma('journal_mode', { simple: true })),
      created,
    };
  }

  private live(): void {
    if (this.closed) throw new Error('store is closed');
  }

  transaction<T>(fn: () => T): T {
    this.live();
    return this.db.transaction(fn)();
  }

  getConfig(): StoredConfig | undefined {
    this.live();
    const r = this.st.getConfig.get() as { yaml: string; source: string; stored_at: number } | undefined;
    return r && { yaml: r.yaml, source: r.source, storedAt: r.stored_at };
  }

  putConfig(c: StoredConfig): void {
    this.live();
    this.st.putConfig.run(c.yaml, c.source, c.storedAt);
  }

  loadSel(): StoredSel {
    this.live();
    const rows = this.st.selAll.all() as Array<{ bytes: Buffer }>;
    return { ...this.selMeta(), records: rows.map((r) => Uint8Array.from(r.bytes)) };
  }

  private selMeta(): SelMeta {
    const raw = this.getMeta('sel');
    return raw ? (JSON.parse(raw) as SelMeta) : emptySelMeta();
  }

  appendSel(recordId: number, bytes: Uint8Array, meta: SelMeta): void {
    this.live();
    if (bytes.length !== 16) throw new RangeError('SEL records are 16 bytes');
    this.db.transaction(() => {
      this.st.selInsert.run(recordId, Buffer.from(bytes));
      this.putSelMeta(meta);
    })();
  }

  deleteSel(recordId: number, meta: SelMeta): void {
    this.live();
    this.db.transaction(() => {
      this.st.selDelete.run(recordId);
      this.putSelMeta(meta);
    })();
  }

  clearSel(meta: SelMeta): void {
    this.live();
    this.db.transaction(() => {
      this.st.selClear.run();
      this.putSelMeta(meta);
    })();
  }

  putSelMeta(meta: SelMeta): void {
    this.putMeta('sel', JSON.stringify(meta));
  }

  getFruData(fru: string): StoredFruData | undefined {
    this.live();
    const r = this.st.getFru.get(fru) as { bytes: Buffer; baseline: string } | undefined;
    return r && { bytes: Uint8Array.from(r.bytes), baseline: r.baseline };
  }

  putFruData(fru: string, data: StoredFruData): void {
    this.live();
    this.st.putFru.run(fru, Buffer.from(data.bytes), data.baseline);
  }

  listThresholds(): StoredThresholds[] {
    this.live();
    return (this.st.thrAll.all() as Array<{ fru: string; sensor: number; vals: string; baseline: string }>).map((r) => ({
      fru: r.fru,
      sensor: r.sensor,
      values: JSON.parse(r.vals) as Record<string, number | null>,
      baseline: r.baseline,
    }));
  }

  putThresholds(t: StoredThresholds): void {
    this.live();
    this.st.thrPut.run(t.fru, t.sensor, JSON.stringify(t.values), t.baseline);
  }

  deleteThresholds(fru: string, sensor: number): void {
    this.live();
    this.st.thrDel.run(fru, sensor);
  }

  listUsers(): IpmiUserRecord[] {
    this.live();
    return (this.st.usersAll.all() as UserRow[]).map(userFromRow);
  }

  getUser(id: number): IpmiUserRecord | undefined {
    this.live();
    const r = this.st.userGet.get(id) as UserRow | undefined;
    return r && userFromRow(r);
  }

  setUser(u: IpmiUserRecord): void {
    this.live();
    checkUser(u);
    const flags = (u.ipmiMessaging ? 1 : 0) | (u.linkAuth ? 2 : 0) | (u.callinRestricted ? 4 : 0);
    this.st.userPut.run(u.id, u.name, Buffer.from(u.password), u.privilege, u.enabled ? 1 : 0, flags);
  }

  deleteUser(id: number): void {
    this.live();
    this.st.userDel.run(id);
  }

  loadFruStates(): FruStateRecord[] {
    this.live();
    return (this.st.fsAll.all() as Array<{ state: string }>).map((r) => JSON.parse(r.state) as FruStateRecord);
  }

  putFruState(s: FruStateRecord): void {
    this.live();
    this.st.fsPut.run(s.fru, JSON.stringify(s));
  }

  deleteFruState(fru: string): void {
    this.live();
    this.st.fsDel.run(fru);
  }

  putRole(r: HaRoleRecord): void {
    this.live();
    this.db.transaction(() => {
      this.st.rolePut.run(r.key, r.node, r.role, r.epoch, r.at);
      this.st.roleLog.run(r.key, r.node, r.role, r.epoch, r.at);
    })();
  }

  loadRoles(): HaRoleRecord[] {
    this.live();
    return this.st.rolesAll.all() as HaRoleRecord[];
  }

  roleHistory(limit: number): HaRoleRecord[] {
    this.live();
    return (this.st.roleHist.all(Math.max(0, Math.floor(limit))) as HaRoleRecord[]).reverse();
  }

  getMeta(key: string): string | undefined {
    this.live();
    const r = this.st.metaGet.get(key) as { value: string } | undefined;
    return r?.value;
  }

  putMeta(key: string, value: string): void {
    this.live();
    this.st.metaPut.run(key, value);
  }

  /**
   * Online backup to `dest` with better-sqlite3's backup API (consistent while in use). The copy
   * holds the IPMI passwords in clear text (RAKP needs them), so it is made readable by its owner
   * only (mode 0600, like the database); an existing `dest` is overwritten and set to 0600.
   * @throws StoreError('io') when `dest` exists and is not a regular file (nothing is changed);
   *   node:fs errors when `dest` cannot be created (its folder is not created here)
   */
  async backup(dest: string): Promise<void> {
    this.live();
    if (existsSync(dest) && !statSync(dest).isFile()) throw new StoreError('io', dest, 'is not a regular file; a backup is written to a file only');
    closeSync(openSync(dest, 'a', 0o600));
    chmodSync(dest, 0o600);
    await this.db.backup(dest);
  }

  /** Result lines of PRAGMA integrity_check ('ok' when sound). */
  integrityCheck(): string[] {
    this.live();
    return (this.db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

interface UserRow {
  id: number;
  name: string;
  password: Buffer;
  privilege: number;
  enabled: number;
  flags: number;
}

function userFromRow(r: UserRow): IpmiUserRecord {
  return {
    id: r.id,
    name: r.name,
    password: Uint8Array.from(r.password),
    privilege: r.privilege as IpmiUserRecord['privilege'],
    enabled: r.enabled === 1,
    ipmiMessaging: (r.flags & 1) !== 0,
    linkAuth: (r.flags & 2) !== 0,
    callinRestricted: (r.flags & 4) !== 0,
  };
}

function prepare(db: DB) {
  return {
    getConfig: db.prepare('SELECT yaml, source, stored_at FROM shelf_config WHERE id = 1'),
    putConfig: db.prepare(
      'INSERT INTO shelf_config (id, yaml, source, stored_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET yaml = excluded.yaml, source = excluded.source, stored_at = excluded.stored_at',
    ),
    selAll: db.prepare('SELECT bytes FROM sel ORDER BY seq'),
    selInsert: db.prepare('INSERT INTO sel (record_id, bytes) VALUES (?, ?)'),
    selDelete: db.prepare('DELETE FROM sel WHERE record_id = ?'),
    selClear: db.prepare('DELETE FROM sel'),
    getFru: db.prepare('SELECT bytes, baseline FROM fru_data WHERE fru = ?'),
    putFru: db.prepare(
      'INSERT INTO fru_data (fru, bytes, baseline) VALUES (?, ?, ?) ON CONFLICT (fru) DO UPDATE SET bytes = excluded.bytes, baseline = excluded.baseline',
    ),
    thrAll: db.prepare('SELECT fru, sensor, vals, baseline FROM sensor_thresholds ORDER BY fru, sensor'),
    thrPut: db.prepare(
      'INSERT INTO sensor_thresholds (fru, sensor, vals, baseline) VALUES (?, ?, ?, ?) ON CONFLICT (fru, sensor) DO UPDATE SET vals = excluded.vals, baseline = excluded.baseline',
    ),
    thrDel: db.prepare('DELETE FROM sensor_thresholds WHERE fru = ? AND sensor = ?'),
    usersAll: db.prepare('SELECT id, name, password, privilege, enabled, flags FROM ipmi_users ORDER BY id'),
    userGet: db.prepare('SELECT id, name, password, privilege, enabled, flags FROM ipmi_users WHERE id = ?'),
    userPut: db.prepare(
      'INSERT INTO ipmi_users (id, name, password, privilege, enabled, flags) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, password = excluded.password, privilege = excluded.privilege, enabled = excluded.enabled, flags = excluded.flags',
    ),
    userDel: db.prepare('DELETE FROM ipmi_users WHERE id = ?'),
    fsAll: db.prepare('SELECT state FROM fru_state ORDER BY fru'),
    fsPut: db.prepare('INSERT INTO fru_state (fru, state) VALUES (?, ?) ON CONFLICT (fru) DO UPDATE SET state = excluded.state'),
    fsDel: db.prepare('DELETE FROM fru_state WHERE fru = ?'),
    rolePut: db.prepare(
      'INSERT INTO ha_roles (key, node, role, epoch, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET node = excluded.node, role = excluded.role, epoch = excluded.epoch, at = excluded.at',
    ),
    roleLog: db.prepare('INSERT INTO ha_role_history (key, node, role, epoch, at) VALUES (?, ?, ?, ?, ?)'),
    rolesAll: db.prepare('SELECT key, node, role, epoch, at FROM ha_roles ORDER BY key'),
    roleHist: db.prepare('SELECT key, node, role, epoch, at FROM ha_role_history ORDER BY seq DESC LIMIT ?'),
    metaGet: db.prepare('SELECT value FROM meta WHERE key = ?'),
    metaPut: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
  };
}

/**
 * True when another connection holds the SQLite database open (a running emulator): an exclusive
 * lock cannot be taken at once (in WAL mode every open connection holds a shared lock on the WAL
 * index). False for a database nobody uses, and for a file SQLite cannot lock at all (corrupt, not
 * a database: nobody can be using it as one); never waits.
 */
export function databaseInUse(file: string): boolean {
  let db: DB;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 0 });
  } catch {
    return false;
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (e) {
    const code = sqliteCode(e);
    return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
  } finally {
    db.close();
  }
}

/**
 * Deletes a database and its WAL/SHM side files (`atcasim db reset`).
 * @returns the paths that existed and were removed
 */
export function removeDatabaseFiles(file: string): string[] {
  const removed: string[] = [];
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    if (existsSync(f)) {
      rmSync(f, { force: true });
      removed.push(f);
    }
  }
  return removed;
}
