/**
 * The Store port: what the shelf persists, as a synchronous interface (better-sqlite3 is
 * synchronous; a write returns only after its transaction has committed, so a command that calls
 * the store acknowledges only durable state). Two implementations share one contract suite
 * (test/contract/store.contract.ts): MemoryStore below, and SqliteStore (chassis/io/sqlite-store.ts).
 *
 * Holds: the shelf configuration in force (YAML text), the SEL (16-byte records + flags), FRU
 * inventory bytes, sensor thresholds changed at run time, IPMI users, per-FRU hot-swap / LED /
 * policy / power state, HA roles and epochs (display and audit only: a restarted node
 * re-arbitrates from `booting`), and small counters (POH, restart cause).
 *
 * IPMI user passwords are stored recoverable (not hashed): RMCP+ RAKP (IPMI v2.0 §13.31) uses the
 * password itself as the HMAC key, so a BMC must be able to read it back — as every BMC does.
 * Protect the database file like a key file.
 */

/** Why a database could not be opened. */
export type StoreErrorCode = 'not_a_database' | 'foreign_database' | 'newer_schema' | 'corrupt' | 'schema_mismatch' | 'io';

/** A database that cannot be used. The message says what is wrong and what the user can do. */
export class StoreError extends Error {
  readonly kind = 'store' as const;
  constructor(
    readonly code: StoreErrorCode,
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'StoreError';
  }
}

/** The shelf configuration in force. */
export interface StoredConfig {
  yaml: string;
  /** Where it came from (a path, or `default-shelf.yaml`). */
  source: string;
  /** Unix ms when it was stored. */
  storedAt: number;
}

/** SEL counters kept beside the records. */
export interface SelMeta {
  nextRecordId: number;
  overflow: boolean;
  lastAddTime: number;
  lastEraseTime: number;
}

/** The SEL as stored: 16-byte records in log order, plus counters. */
export interface StoredSel extends SelMeta {
  records: Uint8Array[];
}

/** FRU inventory bytes plus the fingerprint of the configuration they were derived from. */
export interface StoredFruData {
  bytes: Uint8Array;
  /** Fingerprint of the image the configuration produced when these bytes were first stored; a new
   * configuration with a different image replaces IPMI-written bytes (docs/shelf.md). */
  baseline: string;
}

/** Run-time thresholds of one sensor (engineering units; null = threshold removed). */
export interface StoredThresholds {
  fru: string;
  sensor: number;
  values: Record<string, number | null>;
  /** Fingerprint of the configured thresholds these override. */
  baseline: string;
}

/**
 * IPMI user (IPMI v2.0 §22.26–22.30), field for field the `IpmiUser` of chassis/ipmi/users.ts, so
 * chassis/persistence/user-store.ts adapts it to the IPMI layer's `UserStore` without conversion.
 */
export interface IpmiUserRecord {
  /** User ID 1..15 (1 = the anonymous/null user). */
  id: number;
  /** ≤ 16 bytes of UTF-8 ('' = empty slot). */
  name: string;
  /** ≤ 20 bytes (IPMI 2.0 passwords); recoverable by design, see the module comment. */
  password: Uint8Array;
  /** Channel privilege limit: 1 callback, 2 user, 3 operator, 4 administrator, 0Fh no access. */
  privilege: 1 | 2 | 3 | 4 | 0x0f;
  enabled: boolean;
  /** IPMI messaging allowed (Set User Access b4). */
  ipmiMessaging: boolean;
  /** Link authentication (Set User Access b5). */
  linkAuth: boolean;
  /** Call-in restricted (Set User Access b6). */
  callinRestricted: boolean;
}

/** An LED override as stored (PICMG Set FRU LED State). */
export interface LedOverrideRecord {
  led: number;
  /** 'off' | 'on' | 'blink' | 'lamp-test'. */
  mode: string;
  onMs: number;
  offMs: number;
  color: number;
  /** For a lamp test: SEL-clock seconds when it ends. */
  until?: number;
}

/** Hot-swap and control state of one FRU. */
export interface FruStateRecord {
  fru: string;
  state: number;
  previous: number;
  lastCause: string;
  handleClosed: boolean;
  activationLocked: boolean;
  deactivationLocked: boolean;
  activationPending: boolean;
  faults: string[];
  ledOverrides: LedOverrideRecord[];
  powerLevel: number;
  desiredLevel: number;
  /** Ports whose state was set explicitly (Set Port State): "intf/channel" → enabled. */
  portOverrides: Record<string, boolean>;
  fanLevel?: number;
  fanLocal?: boolean;
  /** Deactivated by a chassis power-off (reactivated by power-on). */
  chassisOff: boolean;
}

/** HA role of a node (for a processor share, `key` is the share, e.g. `lb1/slot3`). */
export interface HaRoleRecord {
  key: string;
  node: string;
  role: string;
  epoch: number;
  /** SEL-clock seconds. */
  at: number;
}

/**
 * The port. Every method is synchronous and durable on return (SQLite: committed). Calls inside
 * `transaction(fn)` commit together when `fn` returns (and roll back if it throws); nested
 * `transaction` calls join the outer one.
 */
export interface Store {
  readonly kind: 'memory' | 'sqlite';
  /** Runs `fn` as one transaction. @returns fn's result; rethrows after rolling back. */
  transaction<T>(fn: () => T): T;

  getConfig(): StoredConfig | undefined;
  putConfig(c: StoredConfig): void;

  loadSel(): StoredSel;
  /** Appends one 16-byte record (its ID is bytes 0–1) and the new counters. */
  appendSel(recordId: number, bytes: Uint8Array, meta: SelMeta): void;
  deleteSel(recordId: number, meta: SelMeta): void;
  /** Removes every record and stores the counters. */
  clearSel(meta: SelMeta): void;
  putSelMeta(meta: SelMeta): void;

  getFruData(fru: string): StoredFruData | undefined;
  putFruData(fru: string, data: StoredFruData): void;

  listThresholds(): StoredThresholds[];
  putThresholds(t: StoredThresholds): void;
  deleteThresholds(fru: string, sensor: number): void;

  listUsers(): IpmiUserRecord[];
  getUser(id: number): IpmiUserRecord | undefined;
  /** Creates or replaces user `u.id`. @throws RangeError on an invalid record. */
  setUser(u: IpmiUserRecord): void;
  deleteUser(id: number): void;

  loadFruStates(): FruStateRecord[];
  putFruState(s: FruStateRecord): void;
  deleteFruState(fru: string): void;

  /** Sets the current role of `r.key` and appends it to the role history. */
  putRole(r: HaRoleRecord): void;
  loadRoles(): HaRoleRecord[];
  /** The last `limit` role changes, oldest first. */
  roleHistory(limit: number): HaRoleRecord[];

  getMeta(key: string): string | undefined;
  putMeta(key: string, value: string): void;

  close(): void;
}

/** Validates an IPMI user record. @throws RangeError with the reason. */
export function checkUser(u: IpmiUserRecord): void {
  if (!Number.isInteger(u.id) || u.id < 1 || u.id > 15) throw new RangeError(`user id ${u.id} out of range 1..15`);
  if (Buffer.byteLength(u.name, 'utf8') > 16 || u.name.includes('\0')) throw new RangeError('user name must be at most 16 bytes (UTF-8), without NUL');
  if (!(u.password instanceof Uint8Array) || u.password.length > 20) throw new RangeError('password must be at most 20 bytes');
  if (![1, 2, 3, 4, 0x0f].includes(u.privilege)) throw new RangeError(`privilege ${u.privilege} is not 1..4 or 0Fh`);
}

const EMPTY_SEL_META: SelMeta = { nextRecordId: 1, overflow: false, lastAddTime: 0xffffffff, lastEraseTime: 0xffffffff };

/** A fresh SEL meta record. */
export function emptySelMeta(): SelMeta {
  return { ...EMPTY_SEL_META };
}

interface MemoryState {
  config?: StoredConfig;
  sel: Array<{ id: number; bytes: Uint8Array }>;
  selMeta: SelMeta;
  fruData: Map<string, StoredFruData>;
  thresholds: Map<string, StoredThresholds>;
  users: Map<number, IpmiUserRecord>;
  fruStates: Map<string, FruStateRecord>;
  roles: Map<string, HaRoleRecord>;
  roleLog: HaRoleRecord[];
  meta: Map<string, string>;
}

function cloneState(s: MemoryState): MemoryState {
  return structuredClone(s);
}

/**
 * In-memory Store for tests and `--db :memory:`-like runs. Values are copied in and out, so a
 * caller mutating a returned object never changes the store. Transactions roll back on throw.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private s: MemoryState = {
    sel: [],
    selMeta: emptySelMeta(),
    fruData: new Map(),
    thresholds: new Map(),
    users: new Map(),
    fruStates: new Map(),
    roles: new Map(),
    roleLog: [],
    meta: new Map(),
  };
  private depth = 0;
  private closed = false;

  private live(): void {
    if (this.closed) throw new Error('store is closed');
  }

  transaction<T>(fn: () => T): T {
    this.live();
    if (this.depth > 0) return fn();
    const saved = cloneState(this.s);
    this.depth++;
    try {
      return fn();
    } catch (e) {
      this.s = saved;
      throw e;
    } finally {
      this.depth--;
    }
  }

  getConfig(): StoredConfig | undefined {
    this.live();
    return this.s.config && { ...this.s.config };
  }

  putConfig(c: StoredConfig): void {
    this.live();
    this.s.config = { ...c };
  }

  loadSel(): StoredSel {
    this.live();
    return { ...this.s.selMeta, records: this.s.sel.map((r) => Uint8Array.from(r.bytes)) };
  }

  appendSel(recordId: number, bytes: Uint8Array, meta: SelMeta): void {
    this.live();
    if (bytes.length !== 16) throw new RangeError('SEL records are 16 bytes');
    if (this.s.sel.some((r) => r.id === recordId)) throw new RangeError(`SEL record ${recordId} already stored`);
    this.s.sel.push({ id: recordId, bytes: Uint8Array.from(bytes) });
    this.s.selMeta = { ...meta };
  }

  deleteSel(recordId: number, meta: SelMeta): void {
    this.live();
    this.s.sel = this.s.sel.filter((r) => r.id !== recordId);
    this.s.selMeta = { ...meta };
  }

  clearSel(meta: SelMeta): void {
    this.live();
    this.s.sel = [];
    this.s.selMeta = { ...meta };
  }

  putSelMeta(meta: SelMeta): void {
    this.live();
    this.s.selMeta = { ...meta };
  }

  getFruData(fru: string): StoredFruData | undefined {
    this.live();
    const d = this.s.fruData.get(fru);
    return d && { bytes: Uint8Array.from(d.bytes), baseline: d.baseline };
  }

  putFruData(fru: string, data: StoredFruData): void {
    this.live();
    this.s.fruData.set(fru, { bytes: Uint8Array.from(data.bytes), baseline: data.baseline });
  }

  listThresholds(): StoredThresholds[] {
    this.live();
    return [...this.s.thresholds.values()].map((t) => structuredClone(t));
  }

  putThresholds(t: StoredThresholds): void {
    this.live();
    this.s.thresholds.set(`${t.fru}#${t.sensor}`, structuredClone(t));
  }

  deleteThresholds(fru: string, sensor: number): void {
    this.live();
    this.s.thresholds.delete(`${fru}#${sensor}`);
  }

  listUsers(): IpmiUserRecord[] {
    this.live();
    return [...this.s.users.values()].sort((a, b) => a.id - b.id).map(copyUser);
  }

  getUser(id: number): IpmiUserRecord | undefined {
    this.live();
    const u = this.s.users.get(id);
    return u && copyUser(u);
  }

  setUser(u: IpmiUserRecord): void {
    this.live();
    checkUser(u);
    this.s.users.set(u.id, copyUser(u));
  }

  deleteUser(id: number): void {
    this.live();
    this.s.users.delete(id);
  }

  loadFruStates(): FruStateRecord[] {
    this.live();
    return [...this.s.fruStates.values()].map((r) => structuredClone(r));
  }

  putFruState(s: FruStateRecord): void {
    this.live();
    this.s.fruStates.set(s.fru, structuredClone(s));
  }

  deleteFruState(fru: string): void {
    this.live();
    this.s.fruStates.delete(fru);
  }

  putRole(r: HaRoleRecord): void {
    this.live();
    this.s.roles.set(r.key, { ...r });
    this.s.roleLog.push({ ...r });
  }

  loadRoles(): HaRoleRecord[] {
    this.live();
    return [...this.s.roles.values()].map((r) => ({ ...r }));
  }

  roleHistory(limit: number): HaRoleRecord[] {
    this.live();
    return this.s.roleLog.slice(Math.max(0, this.s.roleLog.length - limit)).map((r) => ({ ...r }));
  }

  getMeta(key: string): string | undefined {
    this.live();
    return this.s.meta.get(key);
  }

  putMeta(key: string, value: string): void {
    this.live();
    this.s.meta.set(key, value);
  }

  close(): void {
    this.closed = true;
  }
}

function copyUser(u: IpmiUserRecord): IpmiUserRecord {
  return {
    id: u.id,
    name: u.name,
    password: Uint8Array.from(u.password),
    privilege: u.privilege,
    enabled: u.enabled,
    ipmiMessaging: u.ipmiMessaging,
    linkAuth: u.linkAuth,
    callinRestricted: u.callinRestricted,
  };
}
