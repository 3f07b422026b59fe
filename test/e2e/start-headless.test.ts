/**
 * `atcasim start --headless` as scripts and CI use it: the ready line and its addresses (with
 * `--ipmi-port 0`, the bound port, which real ipmitool then reaches), the periodic stats lines,
 * clean shutdown on SIGTERM / SIGHUP / SIGINT (exit 0, database closed: WAL checkpointed and
 * removed), start-up errors with exit 2 (bad --config with file:line:column, a corrupt or
 * foreign database, a missing --replay file, an IPMI port in use), the administrator password
 * generated and shown once on a first start, and the stdin control channel's answers.
 */
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { shared } from '../support/shared.ts';
import { runAtcasim, startHeadless, TEST_ADMIN, type HeadlessEmulator, type LogLine } from '../support/headless.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-start-'));
const running: HeadlessEmulator[] = [];

afterAll(async () => {
  for (const e of running) await e.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function start(opts: Parameters<typeof startHeadless>[0] = {}): Promise<HeadlessEmulator> {
  const e = await startHeadless({ dir, db: join(dir, `${Math.random().toString(36).slice(2)}.db`), ...opts });
  running.push(e);
  return e;
}

function ipmitool(port: number, password: string, ...cmd: string[]) {
  return spawnSync('ipmitool', ['-I', 'lanplus', '-C', '17', '-H', '127.0.0.1', '-p', String(port), '-U', 'admin', '-P', password, ...cmd], { encoding: 'utf8', timeout: 30_000 });
}

/** The database was closed cleanly: its WAL was checkpointed and removed by the last close. */
function expectClosed(db: string): void {
  expect(existsSync(db)).toBe(true);
  const wal = `${db}-wal`;
  expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  const d = new Database(db, { readonly: true });
  try {
    expect(d.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    d.close();
  }
}

describe('atcasim start --headless', () => {
  it('logs one ready line with the bound IPMI port, then stats lines; ipmitool reaches it; SIGTERM exits 0 with the database closed', async () => {
    const e = await start({ statsInterval: '500ms', rate: 10_000 });
    const ready = e.ready;
    expect(ready).toMatchObject({ event: 'ready', consoles: {}, db: e.db, pid: e.pid });
    expect(ready.ipmi).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(e.ipmi.port).toBeGreaterThan(0);
    expect(e.ipmi.port).not.toBe(6230);
    expect(e.lines.filter((l) => l.event === 'ready')).toHaveLength(1);
    // every stdout line is one JSON object
    expect(e.lines.every((l) => typeof l.level === 'number' && typeof l.time === 'string')).toBe(true);

    const r = ipmitool(e.ipmi.port, TEST_ADMIN.password, 'mc', 'info');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^IPMI Version\s+: 2\.0$/m);

    const stats = await e.waitFor((l) => l.event === 'stats' && (l.pps as number) > 0 && (l.boards as unknown[]).length === 4, 30_000, 'a stats line with traffic');
    expect(stats).toMatchObject({ sessions: { capacity: 4 * 4096 }, sel: { capacity: 4096, overflow: false }, shmc: 'shmc-a' });
    const boards = stats.boards as Array<{ slot: number; state: string; in_service: boolean; pps: number; sessions: number }>;
    expect(boards.map((b) => b.slot)).toEqual([3, 4, 5, 6]);
    for (const b of boards) expect(b).toMatchObject({ state: 'M4', in_service: true });
    expect((stats.hubs as Array<{ slot: number }>).map((h) => h.slot)).toEqual([1, 2]);
    const before = e.lines.filter((l) => l.event === 'stats').length;
    await e.waitFor((l) => l.event === 'stats' && e.lines.filter((x) => x.event === 'stats').length >= before + 2, 10_000, 'two more stats lines');

    expect(await e.stop('SIGTERM')).toBe(0);
    expect(e.lines.find((l) => l.event === 'shutdown')).toMatchObject({ reason: 'SIGTERM' });
    expectClosed(e.db);
  });

  it.each(['SIGHUP', 'SIGINT'] as const)('%s: clean shutdown, exit 0, database closed', async (sig) => {
    const e = await start();
    await e.waitFor((l) => l.event === 'stats', 20_000, 'a stats line');
    expect(await e.stop(sig)).toBe(0);
    expect(e.lines.find((l) => l.event === 'shutdown')).toMatchObject({ reason: sig });
    expectClosed(e.db);
  });

  it('first start without a password: a random one is printed once (stderr and log) and works; the next start prints none', async () => {
    const db = join(dir, 'admin.db');
    const e = await start({ db, adminPassword: null });
    const logged = e.lines.find((l) => l.event === 'admin_password') as LogLine & { password: string; user: string };
    expect(logged).toBeDefined();
    expect(logged.user).toBe('admin');
    expect(logged.password).toMatch(/^[A-Za-z2-9]{16}$/);
    // stderr and stdout are separate pipes: give the stderr chunk a moment to arrive
    for (let i = 0; i < 50 && !e.stderr().includes(logged.password); i++) await new Promise((r) => setTimeout(r, 100));
    expect(e.stderr()).toContain(logged.password);
    expect(e.stderr().split(logged.password)).toHaveLength(2); // printed once
    expect(ipmitool(e.ipmi.port, logged.password, 'mc', 'info').status).toBe(0);
    expect(ipmitool(e.ipmi.port, 'not-the-password', 'mc', 'info').status).not.toBe(0);
    expect(await e.stop()).toBe(0);

    const again = await start({ db, adminPassword: null });
    expect(again.lines.some((l) => l.event === 'admin_password')).toBe(false);
    expect(again.stderr()).not.toContain(logged.password);
    expect(ipmitool(again.ipmi.port, logged.password, 'mc', 'info').status).toBe(0);
    expect(await again.stop()).toBe(0);
  });

  it('ATCASIM_ADMIN_PASSWORD provisions the administrator of a new database', async () => {
    const e = await start({ adminPassword: null, env: { ATCASIM_ADMIN_PASSWORD: 'from-the-env-1' } });
    expect(e.lines.some((l) => l.event === 'admin_password')).toBe(false);
    expect(ipmitool(e.ipmi.port, 'from-the-env-1', 'mc', 'info').status).toBe(0);
    expect(await e.stop()).toBe(0);
  });

  it('--replay loops the user\'s capture (a real one from ../shared/pcap)', async () => {
    const file = shared('pcap', 'pcapplusplus__VlanPackets.pcap');
    expect(existsSync(file), file).toBe(true);
    const e = await start({ args: ['--replay', file], rate: 2000 });
    const stats = await e.waitFor((l) => l.event === 'stats' && (l.packets as number) > 0, 30_000, 'packets from the replayed capture');
    expect(stats.loops).not.toBeNull();
    expect(e.lines.find((l) => l.category === 'startup' && typeof l.traffic === 'string')?.traffic).toBe(file);
    expect(await e.stop()).toBe(0);
  });

  it('the stdin control channel answers after each command, refusals included', async () => {
    const e = await start({ stdinCommands: true, args: ['--hot-swap-step', '200ms'] });
    expect(await e.send('x slot4')).toMatchObject({ ok: true, fru: 'slot4', state: 'M5' });
    await e.waitFor((l) => l.event === 'hotswap' && l.fru === 'slot4' && l.to === 'M1', 15_000, 'slot4 in M1');
    expect(await e.send('fault slot9')).toMatchObject({ ok: false, code: 'empty_slot' });
    expect(await e.send('frobnicate slot3')).toMatchObject({ ok: false, code: 'usage' });
    expect(await e.send('w slot1')).toMatchObject({ ok: false, code: 'not_ha_node', message: expect.stringMatching(/runs no HA software to hang/) }); // a hub is in no redundant pair
    expect(await e.send('w slot5')).toMatchObject({ ok: true }); // HA: slot5 stops feeding its watchdog
    expect(await e.send('heal slot5')).toMatchObject({ ok: true });
    expect(await e.send('i slot4')).toMatchObject({ ok: true, state: 'M2' });
    await e.waitFor((l) => l.event === 'hotswap' && l.fru === 'slot4' && l.to === 'M4', 15_000, 'slot4 in M4');
    expect(await e.stop()).toBe(0);
  });
});

describe('atcasim start: start-up errors exit 2 with a clear message', () => {
  const common = ['start', '--headless', '--ipmi-port', '0', '--session-capacity', '1024', '--admin-password', TEST_ADMIN.password];

  it('bad --config: file:line:column, nothing started', async () => {
    const cfg = join(dir, 'bad-shelf.yaml');
    writeFileSync(cfg, 'shelf:\n  name: broken\n  slots: many\n');
    const r = await runAtcasim([...common, '--db', join(dir, 'badcfg.db'), '--config', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${cfg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: `));
    expect(r.stdout).not.toContain('"event":"ready"');
    expect(existsSync(join(dir, 'badcfg.db'))).toBe(false); // refused before a database is created
  });

  it('a database another emulator has open: refused, the running one undisturbed', async () => {
    const db = join(dir, 'shared-db.db');
    const first = await start({ db });
    const r = await runAtcasim([...common, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shared-db\.db is in use by another running emulator/);
    expect(r.stdout).not.toContain('"event":"ready"');
    expect(await first.stop()).toBe(0);
  });

  it('--db naming a directory: one-line message, exit 2, no stack', async () => {
    const r = await runAtcasim([...common, '--db', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`atcasim start: --db ${dir}: is a directory, not a database file (give --db a file path)\n`);
  });

  it('a missing --config file', async () => {
    const r = await runAtcasim([...common, '--db', join(dir, 'nocfg.db'), '--config', join(dir, 'nope.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nope\.yaml:1:1: no such file$/m);
  });

  it('a corrupt database file: clear error, file left alone', async () => {
    const db = join(dir, 'corrupt.db');
    writeFileSync(db, Buffer.alloc(8192, 0x5a));
    const r = await runAtcasim([...common, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not an SQLite database/);
    expect(r.stderr).toMatch(/atcasim db reset/);
    expect(statSync(db).size).toBe(8192);
  });

  it('an SQLite database of another application', async () => {
    const db = join(dir, 'foreign.db');
    const d = new Database(db);
    d.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)');
    d.close();
    const r = await runAtcasim([...common, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/another application/);
  });

  it('a missing --replay capture', async () => {
    const r = await runAtcasim([...common, '--db', join(dir, 'noreplay.db'), '--replay', join(dir, 'missing.pcap')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--replay .*missing\.pcap: no such capture file/);
  });

  it('a --replay file that is not a capture, or holds no packet', async () => {
    const bad = join(dir, 'notes.pcap');
    writeFileSync(bad, 'these are not packets\n');
    const r = await runAtcasim([...common, '--db', join(dir, 'badreplay.db'), '--replay', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--replay .*notes\.pcap: .*not a capture file/);
    const empty = join(dir, 'empty.pcap');
    const hdr = Buffer.alloc(24);
    hdr.writeUInt32LE(0xa1b2c3d4, 0);
    hdr.writeUInt16LE(2, 4);
    hdr.writeUInt16LE(4, 6);
    hdr.writeUInt32LE(65535, 16);
    hdr.writeUInt32LE(1, 20);
    writeFileSync(empty, hdr);
    const e = await runAtcasim([...common, '--db', join(dir, 'emptyreplay.db'), '--replay', empty]);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/holds no packet/);
    const real = await runAtcasim([...common, '--db', join(dir, 'emptyreal.db'), '--replay', shared('pcap', 'tcpdump__empty.pcapng')]);
    expect(real.code).toBe(2);
    expect(real.stderr).toMatch(/tcpdump__empty\.pcapng: the capture holds no packet/);
  });

  it('an IPMI port already in use', async () => {
    const sock = createSocket('udp4');
    await new Promise<void>((res) => sock.bind(0, '127.0.0.1', () => res()));
    const port = sock.address().port;
    try {
      const args = common.map((a) => (a === '0' ? String(port) : a));
      const r = await runAtcasim([...args, '--db', join(dir, 'inuse.db')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/cannot serve IPMI: .*EADDRINUSE/);
    } finally {
      sock.close();
    }
  });

  it('usage errors: --stdin-commands without --headless, a bad --rate', async () => {
    const a = await runAtcasim(['start', '--stdin-commands', '--db', join(dir, 'u.db')]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--stdin-commands needs --headless/);
    const b = await runAtcasim(['start', '--headless', '--rate', 'fast', '--db', join(dir, 'u.db')]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--rate must be a packet rate/);
  });
});
