// Runs the Store contract against every implementation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, type Store } from '../../chassis/persistence/store.ts';
import { SqliteStore } from '../../chassis/io/sqlite-store.ts';
import { storeContract } from './store.contract.ts';

storeContract('MemoryStore', () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});

storeContract("SqliteStore ':memory:'", () => {
  const store = SqliteStore.open(':memory:');
  return { store, cleanup: () => store.close() };
});

storeContract('SqliteStore temp file (WAL)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atcasim-store-'));
  const file = join(dir, 'db', 'atcasim.db');
  let current: Store = SqliteStore.open(file);
  return {
    get store() {
      return current;
    },
    reopen: () => {
      current.close();
      current = SqliteStore.open(file);
      return current;
    },
    cleanup: () => {
      current.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
