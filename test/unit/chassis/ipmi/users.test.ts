/** UserStore (in-memory), password policy and first-start administrator provisioning. */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import {
  InMemoryUserStore,
  assertHasAdministrator,
  canLogIn,
  hasAdministrator,
  passwordProblem,
  provisionAdministrator,
  randomPassword,
  utf8,
} from '../../../../chassis/ipmi/users.ts';
import { seededBytes, testUserStore } from '../../../support/ipmi-test-server.ts';

describe('InMemoryUserStore', () => {
  it('has 15 slots, empty and unable to log in by default', () => {
    const s = new InMemoryUserStore();
    expect(s.list()).toHaveLength(15);
    expect(s.get(0)).toBeUndefined();
    expect(s.get(16)).toBeUndefined();
    expect(canLogIn(s.get(1))).toBe(false);
    expect(hasAdministrator(s)).toBe(false);
    expect(() => assertHasAdministrator(s)).toThrow(CommandError);
  });

  it('finds by exact name, keeps names unique, strips trailing NULs from passwords, returns copies', () => {
    const s = testUserStore();
    expect(s.findByName('admin')!.id).toBe(2);
    expect(s.findByName('Admin')).toBeUndefined();
    expect(s.findByName('')).toBeUndefined();
    expect(() => s.update(5, { name: 'oper' })).toThrow(expect.objectContaining({ code: 'user_name_taken' }));
    s.update(5, { name: 'x', password: Uint8Array.of(0x61, 0x62, 0, 0) });
    expect(s.get(5)!.password).toEqual(Uint8Array.of(0x61, 0x62));
    const copy = s.get(5)!;
    copy.password[0] = 0;
    copy.name = 'changed';
    expect(s.get(5)!.name).toBe('x');
    expect(s.get(5)!.password[0]).toBe(0x61);
  });

  it('validates IDs and field sizes', () => {
    const s = new InMemoryUserStore();
    expect(() => s.update(0, { name: 'a' })).toThrow(expect.objectContaining({ code: 'user_id_invalid' }));
    expect(() => s.update(2, { name: 'a'.repeat(17) })).toThrow(expect.objectContaining({ code: 'user_field_invalid' }));
    expect(() => s.update(2, { password: new Uint8Array(21) })).toThrow(expect.objectContaining({ code: 'user_field_invalid' }));
    expect(() => s.update(2, { privilege: 6 as never })).toThrow(expect.objectContaining({ code: 'user_field_invalid' }));
  });
});

describe('password policy', () => {
  it('wants 8..20 bytes, no NUL, not the user name', () => {
    expect(passwordProblem('admin', utf8('adminpass'))).toBeUndefined();
    expect(passwordProblem('admin', utf8('short'))).toMatch(/shorter/);
    expect(passwordProblem('admin', utf8('x'.repeat(21)))).toMatch(/longer/);
    expect(passwordProblem('administrator', utf8('administrator'))).toMatch(/user name/);
    expect(passwordProblem('a', Uint8Array.of(0x61, 0x62, 0x63, 0x64, 0, 0x65, 0x66, 0x67, 0x68))).toMatch(/NUL/);
  });

  it('random passwords are 16 unambiguous characters and differ between draws', () => {
    const rnd = seededBytes(7);
    const a = randomPassword(rnd);
    const b = randomPassword(rnd);
    expect(a).toMatch(/^[a-km-np-zA-HJ-NP-Z2-9]{16}$/);
    expect(a).not.toBe(b);
  });
});

describe('provisionAdministrator', () => {
  it('creates "admin" in slot 2 with a generated password when nothing is given, and only once', () => {
    const s = new InMemoryUserStore();
    const r = provisionAdministrator(s, { randomBytes: seededBytes(3) });
    expect(r.created).toBe(true);
    expect(r.user!.id).toBe(2);
    expect(r.generatedPassword).toHaveLength(16);
    expect(Buffer.from(s.get(2)!.password).toString()).toBe(r.generatedPassword);
    expect(hasAdministrator(s)).toBe(true);
    expect(provisionAdministrator(s, { randomBytes: seededBytes(4), adminPassword: 'other-pass' })).toEqual({ created: false });
  });

  it('prefers --admin-password over ATCASIM_ADMIN_PASSWORD and reports no generated password', () => {
    const s = new InMemoryUserStore();
    const r = provisionAdministrator(s, { adminUser: 'root', adminPassword: 'cli-password', envPassword: 'env-password', randomBytes: seededBytes(1) });
    expect(r.generatedPassword).toBeUndefined();
    expect(Buffer.from(s.findByName('root')!.password).toString()).toBe('cli-password');
    const e = new InMemoryUserStore();
    provisionAdministrator(e, { envPassword: 'env-password', randomBytes: seededBytes(1) });
    expect(Buffer.from(e.findByName('admin')!.password).toString()).toBe('env-password');
  });

  it('refuses weak passwords and reuses an existing, non-admin slot of that name', () => {
    expect(() => provisionAdministrator(new InMemoryUserStore(), { adminPassword: 'admin', randomBytes: seededBytes(1) })).toThrow(/administrator password rejected/);
    const s = new InMemoryUserStore([{ id: 7, name: 'admin', privilege: 2, enabled: true, ipmiMessaging: true, password: utf8('oldpassword') }]);
    const r = provisionAdministrator(s, { adminPassword: 'newpassword', randomBytes: seededBytes(1) });
    expect(r.user!.id).toBe(7);
    expect(s.get(7)!.privilege).toBe(4);
  });
});
