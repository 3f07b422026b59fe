/**
 * `atcasim status` against a running headless shelf (its control socket), before and after a board
 * crash injected over IPMI (`atcasim clia inject fault slot3`, a real RMCP+ session): the owner of
 * slot3's share moves to its buddy with a new epoch, REDUNDANCY_LOST shows with its age, the lost
 * sessions are split by age (and never more than the data plane counted removed), slot3 is out of
 * service unplanned; the text form says the same; `--watch --json` streams; no shelf → exit 2.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ShelfStatus } from '../../chassis/runtime/status-snapshot.ts';
import { ATCASIM_BIN, startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';

let emu: HeadlessEmulator | undefined;
const dir = mkdtempSync(join(tmpdir(), 'atcasim-status-e2e-'));
afterAll(async () => {
  await emu?.kill();
  emu?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function atcasim(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ATCASIM_BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function status(db: string): ShelfStatus {
  const r = atcasim(['status', '--db', db, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ShelfStatus;
}

async function until(what: string, db: string, pred: (s: ShelfStatus) => boolean, timeoutMs = 30_000): Promise<ShelfStatus> {
  const end = Date.now() + timeoutMs;
  let s = status(db);
  while (!pred(s)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(s.shares)}`);
    await new Promise((r) => setTimeout(r, 500));
    s = status(db);
  }
  return s;
}

const ownerOf = (s: ShelfStatus, share: string) => s.shares.find((x) => x.share === share)?.owner;

describe('atcasim status', () => {
  it('no shelf on that database: exit 2 with the reason', () => {
    const r = atcasim(['status', '--db', join(dir, 'none.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^atcasim status: no shelf running for .*none\.db \(no control socket .*none\.db\.ctl/);
    const ipmi = atcasim(['status', '-H', '127.0.0.1']);
    expect(ipmi.code).toBe(2);
    expect(ipmi.stderr).toBe("atcasim status: asking over IPMI (-H) is not implemented yet; run it on the shelf's machine with --db FILE\n");
  });

  it('before and after a board crash: owner, epoch, alarm, lost by age, out of service', async () => {
    emu = await startHeadless({ rate: 3000, statsInterval: '500ms' });
    const db = emu.db;
    const before = await until('every share owned, every standby hot', db, (s) => s.shares.length === 5 && s.shares.every((x) => x.owner !== null && x.members.some((m) => m.role === 'standby.hot')));
    expect(ownerOf(before, 'lb1/slot3')).toBe('slot3');
    const epoch = before.shares.find((x) => x.share === 'lb1/slot3')!.members.find((m) => m.node === 'slot3')!.epoch;
    expect(before.alarms).toEqual([]);
    expect(before.sessions_lost).toEqual({ young: 0, established: 0, established_ms: 3100 });
    expect(before.out_of_service.now).toEqual([]);
    // let sessions age past T_s + B so that established ones exist on slot3
    await new Promise((r) => setTimeout(r, 4000));

    const inject = atcasim(['clia', '-p', String(emu.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '--timeout', '3000', 'inject', 'fault', 'slot3']);
    expect(inject.code, inject.stderr).toBe(0);
    const after = await until('slot4 owning lb1/slot3', db, (s) => ownerOf(s, 'lb1/slot3') === 'slot4' && s.alarms.length > 0);
    const share = after.shares.find((x) => x.share === 'lb1/slot3')!;
    expect(share.members.find((m) => m.node === 'slot4')!.epoch).toBeGreaterThan(epoch);
    expect(share.members.find((m) => m.node === 'slot3')!.role).toBe('failed');
    const alarm = after.alarms.find((a) => a.node === 'slot4' && a.alarm === 'REDUNDANCY_LOST');
    expect(alarm, JSON.stringify(after.alarms)).toBeDefined();
    expect(alarm!.age_ms).toBeGreaterThanOrEqual(0);
    expect(alarm!.age_ms).toBeLessThan(after.uptime_s * 1000);
    expect(after.out_of_service.unplanned).toBe(1);
    expect(after.out_of_service.now.map((o) => [o.fru, o.planned])).toEqual([['slot3', false]]);
    // lost by age: young ones at 3,000 packets/s of new flows, and never more than the data plane removed
    const lost = after.sessions_lost!;
    expect(lost.young).toBeGreaterThan(0);
    const stats = await emu.waitFor((l) => l.event === 'stats' && typeof l.uptime_s === 'number' && l.uptime_s >= after.uptime_s, 10_000, 'a stats line after the status');
    const removed = (stats.sessions as { lost: number }).lost;
    expect(lost.young + lost.established).toBeLessThanOrEqual(removed);
    expect(lost.established).toBeLessThan(lost.young + lost.established);
    // the stats line has each board's HA roles
    const boards = stats.boards as Array<{ slot: number; ha: Record<string, string> }>;
    expect(boards.find((b) => b.slot === 4)!.ha).toMatchObject({ 'lb1/slot3': 'active', 'lb1/slot4': 'active' });

    const text = atcasim(['status', '--db', db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^lb1\/slot3 +slot4 +slot3 +failed/m);
    expect(text.stdout).toMatch(/REDUNDANCY_LOST +slot4 +lb1\/slot3 +for \d+\.\d s/);
    expect(text.stdout).toContain(`Sessions lost since start: ${lost.young}`);
    expect(text.stdout).toMatch(/^ {2}slot3 +UNPLANNED/m);
  }, 180_000);

  it('--watch --json streams one object per line until SIGINT (exit 0)', async () => {
    const child = spawn(process.execPath, [ATCASIM_BIN, 'status', '--db', emu!.db, '--json', '--watch', '0.3'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const deadline = Date.now() + 30_000;
    while (out.split('\n').filter((l) => l !== '').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    const lines = out.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect((JSON.parse(l) as ShelfStatus).shelf).toBe('atcasim-default');
  }, 60_000);
});
