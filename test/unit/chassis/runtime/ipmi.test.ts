// The administrator inputs of a start (chassis/runtime/ipmi.ts provisionAdmin): on a new database
// they create the administrator; on a database that already has one they are not applied, and the
// result says so in `ignored` (the warning `atcasim start` prints) unless they match what is stored.
import { describe, expect, it } from 'vitest';
import { InMemoryUserStore } from '../../../../chassis/ipmi/users.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { PersistentUserStore } from '../../../../chassis/persistence/user-store.ts';
import { provisionAdmin } from '../../../../chassis/runtime/ipmi.ts';

const rnd = (n: number) => new Uint8Array(n).fill(7);

function existing(password = 'first-password') {
  const users = new PersistentUserStore(new MemoryStore());
  const first = provisionAdmin(users, { password }, rnd);
  expect(first).toMatchObject({ created: true });
  expect(first.ignored).toBeUndefined();
  return users;
}

describe('provisionAdmin on a database that already has an administrator', () => {
  it('a different --admin-password is not applied, and the result says so with the way to change it', () => {
    const users = existing();
    const r = provisionAdmin(users, { password: 'second-password' }, rnd);
    expect(r.created).toBe(false);
    expect(new TextDecoder().decode(users.findByName('admin')!.password)).toBe('first-password');
    const id = users.findByName('admin')!.id;
    expect(r.ignored).toBe(
      `admin password from --admin-password ignored: the database already has IPMI users (change it with \`ipmitool user set password ${id} NEWPASSWORD\` or start over with \`atcasim db reset\`)`,
    );
  });

  it('ATCASIM_ADMIN_PASSWORD is named when it was the source', () => {
    const r = provisionAdmin(existing(), { envPassword: 'second-password' }, rnd);
    expect(r.ignored).toMatch(/^admin password from ATCASIM_ADMIN_PASSWORD ignored: the database already has IPMI users/);
  });

  it('the stored password given again, or nothing given, is not worth a warning', () => {
    const users = existing();
    expect(provisionAdmin(users, { password: 'first-password' }, rnd).ignored).toBeUndefined();
    expect(provisionAdmin(users, { envPassword: 'first-password' }, rnd).ignored).toBeUndefined();
    expect(provisionAdmin(users, {}, rnd).ignored).toBeUndefined();
    expect(provisionAdmin(users, { envPassword: '' }, rnd).ignored).toBeUndefined();
  });

  it('--admin-user naming nobody is reported too; the flag wins over the environment', () => {
    const users = new InMemoryUserStore();
    provisionAdmin(users, { password: 'first-password' }, rnd);
    const r = provisionAdmin(users, { user: 'root', password: 'first-password', envPassword: 'other-password' }, rnd);
    expect(r.ignored).toMatch(/^administrator name "root" from --admin-user and admin password from --admin-password ignored: /);
    expect(users.findByName('root')).toBeUndefined();
  });
});
