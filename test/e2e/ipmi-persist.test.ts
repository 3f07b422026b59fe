/**
 * Management changes made with real ipmitool persist in the emulator's SQLite database (docs/shelf.md
 * "The database"): a password set with `user set password`, SEL records added with `ipmitool event`,
 * and FRU writes (`fru edit`, Write FRU Data) survive a clean restart, and also a SIGKILL sent right
 * after ipmitool reported success — the database then passes `PRAGMA integrity_check` and the restarted
 * emulator has every acknowledged change. The emulator is `atcasim start --headless --db FILE` (a
 * separate process holding the store).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../chassis/io/sqlite-store.ts';
import type { HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { ADMIN_PASSWORD, startReferenceEmulator } from '../support/ipmi-shelf.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-ipmi-persist-'));
const db = join(dir, 'shelf.db');
let emu: HeadlessEmulator | undefined;

afterAll(async () => {
  await emu?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const ipmitool = (pw: string, ...rest: string[]) =>
  runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu!.ipmi.port), '-U', 'admin', '-P', pw, '-C', '17', ...rest]);

async function ok(pw: string, ...rest: string[]): Promise<string> {
  const r = await ipmitool(pw, ...rest);
  expect([r.exitCode, r.stderr], `ipmitool ${rest.join(' ')}`).toEqual([0, '']);
  return r.stdout;
}

async function start(): Promise<void> {
  // --admin-password is given every time: provisioning only acts on a database without an administrator
  emu = await startReferenceEmulator({ dir, db });
}

describe('management changes survive restarts', () => {
  it('clean restart: password, SEL event and FRU write are still there', async () => {
    await start();
    expect(await ok(ADMIN_PASSWORD, 'user', 'set', 'password', '2', 'persist-pw-1')).toBe('Set User Password command successful (user 2)\n');
    expect(await ok('persist-pw-1', 'event', '1')).toMatch(/Sending SAMPLE event: Temperature - Upper Critical - Going High/);
    expect(await ok('persist-pw-1', 'fru', 'edit', '0', 'field', 'p', '4', 'SHMX001')).toMatch(/Updating Field 'SHM0001' with 'SHMX001'/);
    expect(await emu!.stop()).toBe(0);

    await start();
    const old = await ipmitool(ADMIN_PASSWORD, 'mc', 'info');
    expect([old.exitCode, old.stderr]).toEqual([1, 'Error: Unable to establish IPMI v2 / RMCP+ session\n']);
    expect(await ok('persist-pw-1', 'sel', 'list')).toMatch(/\| Temperature #0x30 \| Upper Critical going high \| Asserted$/m);
    expect(await ok('persist-pw-1', 'fru', 'print', '0')).toMatch(/^ Product Serial {8}: SHMX001$/m);
  });

  it('SIGKILL right after ipmitool reported success: integrity_check ok, every acknowledged change kept', async () => {
    expect(await ok('persist-pw-1', 'user', 'set', 'password', '2', 'persist-pw-2')).toMatch(/successful/);
    expect(await ok('persist-pw-2', 'event', '2')).toMatch(/Voltage Threshold - Lower Critical - Going Low/);
    expect(await ok('persist-pw-2', 'fru', 'edit', '0', 'field', 'p', '4', 'SHMK001')).toMatch(/with 'SHMK001'/);
    await emu!.kill();
    expect((await emu!.exited).signal).toBe('SIGKILL');

    const store = SqliteStore.open(db, { mustExist: true });
    try {
      expect(store.integrityCheck()).toEqual(['ok']);
    } finally {
      store.close();
    }

    await start();
    expect((await ipmitool('persist-pw-1', 'mc', 'info')).exitCode).toBe(1);
    const sel = await ok('persist-pw-2', 'sel', 'list');
    expect(sel).toMatch(/\| Temperature #0x30 \| Upper Critical going high \| Asserted$/m);
    expect(sel).toMatch(/\| Voltage #0x60 \| Lower Critical going low +\| Asserted$/m);
    expect(await ok('persist-pw-2', 'fru', 'print', '0')).toMatch(/^ Product Serial {8}: SHMK001$/m);
    expect(await emu!.stop()).toBe(0);
    emu = undefined;
  });
});
