/**
 * A shelf manager's own SQLite database (`atcasim shmc --db FILE`, docs/split.md): the management state
 * it holds and mirrors (the SEL records the shelf reported, by record ID; the IPMI users and the
 * sensor thresholds, table `mgmt`), its activation
 * epoch (a fencing token that survives restarts) and whether it holds the whole management state
 * (meta `state_held`: then, once active, it is the source the shelf is loaded from). WAL with synchronous = NORMAL: a record counts as
 * committed (and is acknowledged to the active ShMC) once it is in the WAL file, which survives the
 * fault this emulates — a killed or reset ShMC process — but not a power loss of the host machine
 * (FULL would fsync every record: a catch-up of a few thousand SEL records then blocks the ShMC's
 * event loop for seconds on a busy disk).
 *
 * Refuses a file of another application (PRAGMA application_id is not 'ASHM') with a clear error.
 */
import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync } from 'node:fs';
import { ensureParentDir } from './data-dir.ts';
import type { ShmcStatePort } from '../split/shmc-node.ts';

/** application_id of a ShMC database: 'ASHM'. */
export const SHMC_APPLICATION_ID = 0x4153484d;

/** See the module header. */
export class ShmcStore implements ShmcStatePort {
  private readonly db: Database.Database;
  private readonly put: Database.Statement;
  private readonly all: Database.Statement;
  private readonly del: Database.Statement;
  private readonly clear: Database.Statement;
  private readonly putMgmt: Database.Statement;
  private readonly allMgmt: Database.Statement;
  private readonly getMeta: Database.Statement;
  private readonly setMeta: Database.Statement;

  /**
   * Opens or creates the database.
   * @throws Error('… is not a shelf-manager database') for a foreign SQLite file, and what
   *   better-sqlite3 throws for an unusable file
   */
  constructor(readonly file: string) {
    ensureParentDir(file);
    // It mirrors the IPMI users' passwords: readable by its owner only (its -wal/-shm inherit this).
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    this.db = new Database(file);
    const appId = this.db.pragma('application_id', { simple: true }) as number;
    const tables = (this.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
    if (appId !== SHMC_APPLICATION_ID && (appId !== 0 || tables > 0)) {
      this.db.close();
      throw new Error(`${file} is not a shelf-manager database (application_id ${appId}); use another --db FILE`);
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS sel (id INTEGER PRIMARY KEY, data TEXT NOT NULL); CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL); ' +
        'CREATE TABLE IF NOT EXISTS mgmt (kind TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, key));',
    );
    this.db.pragma(`application_id = ${SHMC_APPLICATION_ID}`);
    this.put = this.db.prepare('INSERT OR REPLACE INTO sel (id, data) VALUES (?, ?)');
    this.all = this.db.prepare('SELECT id, data FROM sel ORDER BY id');
    this.del = this.db.prepare('DELETE FROM sel WHERE id = ?');
    this.clear = this.db.prepare('DELETE FROM sel');
    this.putMgmt = this.db.prepare('INSERT OR REPLACE INTO mgmt (kind, key, data) VALUES (?, ?, ?)');
    this.allMgmt = this.db.prepare('SELECT kind, key, data FROM mgmt ORDER BY kind, key');
    this.getMeta = this.db.prepare('SELECT v FROM meta WHERE k = ?');
    this.setMeta = this.db.prepare('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)');
  }

  putSel(id: number, data: string): void {
    this.put.run(id, data);
  }

  allSel(): Array<{ id: number; data: string }> {
    return this.all.all() as Array<{ id: number; data: string }>;
  }

  deleteSel(id: number): void {
    this.del.run(id);
  }

  clearSel(): void {
    this.clear.run();
  }

  putState(kind: 'user' | 'thresholds', key: string, data: string): void {
    this.putMgmt.run(kind, key, data);
  }

  allState(): Array<{ kind: 'user' | 'thresholds'; key: string; data: string }> {
    return this.allMgmt.all() as Array<{ kind: 'user' | 'thresholds'; key: string; data: string }>;
  }

  epoch(): number {
    const r = this.getMeta.get('epoch') as { v: string } | undefined;
    return r ? Number(r.v) || 0 : 0;
  }

  setEpoch(epoch: number): void {
    this.setMeta.run('epoch', String(epoch));
  }

  stateHeld(): boolean {
    return (this.getMeta.get('state_held') as { v: string } | undefined)?.v === '1';
  }

  setStateHeld(held: boolean): void {
    this.setMeta.run('state_held', held ? '1' : '0');
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
