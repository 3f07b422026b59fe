// Which shelf is in force: new database → --config or the default; later starts → the stored one
// unless --config replaces it (logged). And the IPMI UserStore adapter over the Store.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { captureLogger } from '../../../../board/common/logger.ts';
import { resolveShelfConfig } from '../../../../chassis/persistence/config-selection.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { PersistentUserStore } from '../../../../chassis/persistence/user-store.ts';
import { SqliteStore } from '../../../../chassis/io/sqlite-store.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { provisionAdministrator, canLogIn } from '../../../../chassis/ipmi/users.ts';

const small = (name: string) => `shelf: { name: ${name} }
shelf_managers: { units: { shmc-a: {}, shmc-b: {} } }
boards: { slot1: { type: hub }, slot3: { type: processor }, slot4: { type: processor } }
`;
const defaultShelf = { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME };

describe('resolveShelfConfig', () => {
  it('a new database takes the default shelf and stores it', () => {
    const store = new MemoryStore();
    const r = resolveShelfConfig(store, { defaultShelf, nowMs: 1, log: captureLogger() });
    expect(r).toMatchObject({ origin: 'default', replaced: false, source: DEFAULT_SHELF_NAME });
    expect(r.config.name).toBe('atcasim-default');
    expect(store.getConfig()).toEqual({ yaml: defaultShelf.yaml, source: DEFAULT_SHELF_NAME, storedAt: 1 });
  });

  it('a new database with --config takes that file', () => {
    const store = new MemoryStore();
    const r = resolveShelfConfig(store, { given: { yaml: small('lab'), source: 'lab.yaml' }, defaultShelf, nowMs: 2, log: captureLogger() });
    expect(r).toMatchObject({ origin: 'given', replaced: false });
    expect(store.getConfig()!.source).toBe('lab.yaml');
  });

  it('later starts use the stored shelf; --config replaces it, logged', () => {
    const store = new MemoryStore();
    resolveShelfConfig(store, { given: { yaml: small('lab'), source: 'lab.yaml' }, defaultShelf, nowMs: 2, log: captureLogger() });
    const later = resolveShelfConfig(store, { defaultShelf, nowMs: 3, log: captureLogger() });
    expect(later).toMatchObject({ origin: 'stored', source: 'lab.yaml' });
    expect(later.config.name).toBe('lab');
    const log = captureLogger();
    const again = resolveShelfConfig(store, { given: { yaml: small('lab'), source: 'lab.yaml' }, defaultShelf, nowMs: 4, log });
    expect(again.replaced).toBe(false);
    expect(store.getConfig()!.storedAt).toBe(2); // unchanged file: not rewritten
    const replaced = resolveShelfConfig(store, { given: { yaml: small('lab2'), source: 'lab2.yaml' }, defaultShelf, nowMs: 5, log });
    expect(replaced).toMatchObject({ origin: 'given', replaced: true });
    expect(store.getConfig()).toMatchObject({ source: 'lab2.yaml', storedAt: 5 });
    expect(log.records.some((r) => r.level === 'info' && /replaced by lab2\.yaml/.test(r.msg ?? ''))).toBe(true);
  });

  it('an invalid --config changes nothing; an invalid stored shelf says how to replace it', () => {
    const store = new MemoryStore();
    resolveShelfConfig(store, { defaultShelf, nowMs: 1, log: captureLogger() });
    expect(() => resolveShelfConfig(store, { given: { yaml: 'shelf: [', source: 'bad.yaml' }, defaultShelf, nowMs: 2, log: captureLogger() })).toThrow(ConfigError);
    expect(store.getConfig()!.source).toBe(DEFAULT_SHELF_NAME);
    store.putConfig({ yaml: 'shelf: { name: x }\n', source: 'old.yaml', storedAt: 3 });
    expect(() => resolveShelfConfig(store, { defaultShelf, nowMs: 4, log: captureLogger() })).toThrow(
      /^old\.yaml \(stored in the database\):1:1: missing required key "shelf_managers" — start with --config FILE/,
    );
  });
});

describe('PersistentUserStore (the IPMI layer\'s UserStore over the Store)', () => {
  it('provisions an administrator, lists 15 slots, and keeps changes across a reopen', () => {
    const file = `/tmp/atcasim-users-${process.pid}-${Date.now()}.db`;
    let store = SqliteStore.open(file);
    try {
      const users = new PersistentUserStore(store);
      expect(users.list().length).toBe(15);
      expect(users.get(1)!.name).toBe('');
      const res = provisionAdministrator(users, { adminUser: 'admin', adminPassword: 'correct-horse', randomBytes: (n) => new Uint8Array(n) });
      expect(res.created).toBe(true);
      expect(canLogIn(users.findByName('admin'))).toBe(true);
      users.update(3, { name: 'oper', password: new TextEncoder().encode('operpass1'), privilege: 3, enabled: true, ipmiMessaging: true });
      expect(() => users.update(4, { name: 'oper' })).toThrow(/already user 3/);
      expect(() => users.update(16, { name: 'x' })).toThrow(/not 1..15/);
      store.close();
      store = SqliteStore.open(file);
      const again = new PersistentUserStore(store);
      expect(new TextDecoder().decode(again.findByName('admin')!.password)).toBe('correct-horse');
      expect(again.get(3)).toMatchObject({ name: 'oper', privilege: 3, enabled: true, ipmiMessaging: true });
      // trailing NULs of an IPMI 20-byte password field are stripped
      again.update(3, { password: Uint8Array.from([...new TextEncoder().encode('newpass12'), 0, 0, 0]) });
      expect(again.get(3)!.password.length).toBe(9);
    } finally {
      store.close();
      for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
    }
  });
});
