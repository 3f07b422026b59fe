// The IPMI UserStore adapter over the Store (chassis/persistence/user-store.ts), on an SQLite file
// (chassis/io/sqlite-store.ts) so that a reopen is real.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PersistentUserStore } from '../../../chassis/persistence/user-store.ts';
import { SqliteStore } from '../../../chassis/io/sqlite-store.ts';
import { provisionAdministrator, canLogIn } from '../../../chassis/ipmi/users.ts';

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
