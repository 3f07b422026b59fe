/**
 * Durability of `atcasim start` across `kill -9` (docs/shelf.md "The database": a change is committed
 * before it is acknowledged): a headless emulator with live traffic; slot3 deactivated over the real
 * IPMI path (`ipmitool picmg deactivate`, bridged to the board's IPMC at 86h: the shelf manager's Set
 * FRU Activation → Shelf.deactivate, M4 → M6 → M1) and slot5 through the TUI's own command (open
 * handle, Shelf.hotSwap.openHandle, M4 → M5 → M6 → M1, sent over the stdin control channel); then
 * slot6's handle is opened and the process is killed with SIGKILL the moment that command is
 * acknowledged. After the kill: `PRAGMA integrity_check` = ok, every SEL record acknowledged before the
 * kill is in the database, and a restart on the same database finds slot3 and slot5 still in M1 (out of
 * service), slot6 past M4 (its acknowledged M5 survived; the step under way continues), the other
 * boards in M4 with traffic, and the SEL intact as ipmitool lists it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator, type LogLine } from '../support/headless.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-persist-'));
const db = join(dir, 'persist.db');
const running: HeadlessEmulator[] = [];

afterAll(async () => {
  for (const e of running) await e.kill();
  rmSync(dir, { recursive: true, force: true });
});

function ipmitool(port: number, ...cmd: string[]) {
  const r = spawnSync('ipmitool', ['-I', 'lanplus', '-C', '17', '-H', '127.0.0.1', '-p', String(port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, ...cmd], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return r;
}

/** Record IDs of the SEL as stored (table `sel`, chassis/persistence/migrations.ts). */
function storedSelIds(file: string): Set<number> {
  const d = new Database(file, { readonly: true });
  try {
    return new Set((d.prepare('SELECT record_id FROM sel').all() as Array<{ record_id: number }>).map((r) => r.record_id));
  } finally {
    d.close();
  }
}

function stateOf(stats: LogLine, slot: number): { state: string; in_service: boolean; pps: number } {
  const all = [...(stats.boards as Array<{ slot: number; state: string; in_service: boolean; pps: number }>), ...(stats.hubs as Array<{ slot: number; state: string; in_service: boolean; pps: number }>)];
  return all.find((b) => b.slot === slot)!;
}

describe('atcasim start: state survives SIGKILL', () => {
  it('boards stay in M1 and every acknowledged SEL record is kept across kill -9 and a restart', async () => {
    const first = await startHeadless({ dir, db, stdinCommands: true, rate: 10_000, args: ['--hot-swap-step', '300ms'] });
    running.push(first);
    await first.waitFor((l) => l.event === 'stats' && stateOf(l, 3).pps > 0, 30_000, 'traffic on slot3');

    // slot3 over IPMI: Set FRU Activation (deactivate) bridged to the board's IPMC.
    const r = ipmitool(first.ipmi.port, '-t', '0x86', '-b', '0', 'picmg', 'deactivate', '0');
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    // slot5 through the TUI's command (open the handle).
    expect(await first.send('open-handle slot5')).toMatchObject({ ok: true, fru: 'slot5', state: 'M5' });
    for (const fru of ['slot3', 'slot5']) {
      await first.waitFor((l) => l.event === 'hotswap' && l.fru === fru && l.to === 'M1', 20_000, `${fru} in M1`);
    }
    await first.waitFor((l) => l.event === 'stats' && stateOf(l, 3).pps === 0 && stateOf(l, 5).pps === 0 && (l.pps as number) > 0, 20_000, 'slot3 and slot5 idle, traffic elsewhere');

    // slot6: acknowledged, then killed at once.
    const ack = await first.send('x slot6');
    expect(ack).toMatchObject({ ok: true, state: 'M5' });
    first.proc.kill('SIGKILL');
    const exit = await first.exited;
    expect(exit.signal).toBe('SIGKILL');

    // Every SEL record the emulator announced (logged after its commit) is in the database.
    const announced = first.lines.filter((l) => l.event === 'sel').map((l) => l.record_id as number);
    expect(announced.length).toBeGreaterThanOrEqual(2 + 3 + 1); // slot3 M6, M1; slot5 M5, M6, M1; slot6 M5
    const d = new Database(db, { readonly: true });
    try {
      expect(d.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      d.close();
    }
    const stored = storedSelIds(db);
    for (const id of announced) expect(stored.has(id), `SEL record ${id}`).toBe(true);
    // the 13 power-up records of the first start (logged before the event log subscribed) are there too
    for (let id = 1; id <= 13; id++) expect(stored.has(id), `SEL record ${id}`).toBe(true);

    // Restart on the same database: states resumed, SEL intact.
    const second = await startHeadless({ dir, db, rate: 10_000 });
    running.push(second);
    expect(second.lines.some((l) => l.event === 'admin_password')).toBe(false);
    const stats = await second.waitFor((l) => l.event === 'stats' && stateOf(l, 4).pps > 0, 30_000, 'traffic after the restart');
    expect(stateOf(stats, 3)).toMatchObject({ state: 'M1', in_service: false, pps: 0 });
    expect(stateOf(stats, 5)).toMatchObject({ state: 'M1', in_service: false, pps: 0 });
    expect(['M5', 'M6', 'M1']).toContain(stateOf(stats, 6).state);
    expect(stateOf(stats, 6).in_service).toBe(false);
    for (const s of [1, 2, 4]) expect(stateOf(stats, s)).toMatchObject({ state: 'M4', in_service: true });
    await second.waitFor((l) => l.event === 'hotswap' && l.fru === 'slot6' && l.to === 'M1', 20_000, 'slot6 to finish its deactivation');

    const list = ipmitool(second.ipmi.port, 'sel', 'elist');
    expect(list.status, list.stderr).toBe(0);
    const listed = new Set(list.stdout.split('\n').map((l) => /^\s*([0-9a-f]+) \|/i.exec(l)).filter((m) => m !== null).map((m) => parseInt(m![1]!, 16)));
    for (const id of stored) expect(listed.has(id), `ipmitool lists SEL record ${id}`).toBe(true);
    expect(list.stdout).toMatch(/Node3 HotSwap \| Transition to M1/);
    expect(list.stdout).toMatch(/Node5 HotSwap \| Transition to M1/);

    expect(await second.stop()).toBe(0);
    const d2 = new Database(db, { readonly: true });
    try {
      expect(d2.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      d2.close();
    }
  });
});
