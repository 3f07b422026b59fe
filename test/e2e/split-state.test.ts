/**
 * The active ShMC's own database is the source of the management state (docs/split.md "Where the
 * management state lives": each ShMC has its own SQLite database, mirrored active → standby: SEL,
 * users, …), with real processes and ipmitool:
 *
 * 1. `start --split` on fresh files: the first active is seeded by the shelf; both ShMC databases
 *    then hold the state; two SEL records are written over IPMI.
 * 2. `start` (no --split) on the same shelf database: a SEL record and a user name are written into
 *    the shelf's database only — behind the ShMCs' back.
 * 3. `start --split` again: the first active loads the shelf from its own database — the record and
 *    the user name written behind its back are gone, the records of run 1 are there. Then `kill -9`
 *    of the active: the new active loads the shelf from its database, and the SEL ipmitool reads
 *    holds exactly what the standby had committed (same IDs, same text), plus only records logged
 *    after the kill.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { maintRequest } from '../../chassis/io/shmc-maint.ts';
import { processAlive } from '../../chassis/io/shmc-process.ts';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator, type LogLine } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';

type Node = 'shmc-a' | 'shmc-b';
type Status = {
  pid: number;
  role: string;
  sel: { ids: number[] };
  state: { held: boolean; users: number[] };
  activations: Array<{ source: 'stateload' | 'statewant'; sel?: number }>;
  shelf_address_bound: boolean;
};

const dir = mkdtempSync(join(tmpdir(), 'atcasim-split-state-'));
const db = join(dir, 'shelf.db');
const pids = new Set<number>();
let emu: HeadlessEmulator | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  await emu?.kill();
  for (const p of pids) {
    try {
      process.kill(p, 'SIGCONT');
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function maintPorts(e: HeadlessEmulator): Record<Node, number> {
  return (e.ready as unknown as { maint: Record<Node, number> }).maint;
}

async function status(e: HeadlessEmulator, n: Node): Promise<Status | undefined> {
  try {
    const s = (await maintRequest('127.0.0.1', maintPorts(e)[n], { op: 'status' }, 1000)) as Status;
    pids.add(s.pid);
    return s;
  } catch {
    return undefined;
  }
}

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const t0 = performance.now();
  let last: T | undefined;
  while (performance.now() - t0 < timeoutMs) {
    last = await fn();
    if (last !== undefined) return last;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

/** Both up, one active and one hot standby, both databases holding the state. */
async function pairReady(e: HeadlessEmulator): Promise<{ act: Node; stby: Node; a: Status; s: Status }> {
  return waitFor(async () => {
    const [a, b] = [await status(e, 'shmc-a'), await status(e, 'shmc-b')];
    if (!a || !b) return undefined;
    const act = a.role === 'active' ? 'shmc-a' : b.role === 'active' ? 'shmc-b' : undefined;
    if (!act) return undefined;
    const [sa, sb] = act === 'shmc-a' ? [a, b] : [b, a];
    if (sb.role !== 'standby.hot' || !sa.state.held || !sb.state.held || !sa.shelf_address_bound) return undefined;
    return { act, stby: act === 'shmc-a' ? 'shmc-b' : 'shmc-a', a: sa, s: sb };
  }, 60_000, 'one active, one standby.hot, both holding the state');
}

async function ipmitool(e: HeadlessEmulator, ...rest: string[]): Promise<string> {
  const r = await runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(e.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '-C', '17', '-N', '1', '-R', '2', ...rest], { timeoutMs: 20_000 });
  expect([r.exitCode, r.stderr], `ipmitool ${rest.join(' ')}`).toEqual([0, '']);
  return r.stdout;
}

/** `ipmitool sel list` as ID → the rest of its line. */
async function selMap(e: HeadlessEmulator): Promise<Map<number, string>> {
  const out = await ipmitool(e, 'sel', 'list');
  const m = new Map<number, string>();
  for (const l of out.split('\n')) {
    const x = /^\s*([0-9a-f]+) \|(.*)$/i.exec(l);
    if (x) m.set(parseInt(x[1]!, 16), x[2]!.trim());
  }
  return m;
}

const loads = (e: HeadlessEmulator): LogLine[] => e.lines.filter((l) => l.category === 'stateload' && typeof l.kept === 'number');

describe('split shelf: the active ShMC\'s database is the source of the management state', () => {
  it('seeded once; then loaded from the ShMC — state written behind its back is gone; after kill -9 the SEL is the standby\'s', async () => {
    // 1. fresh files: seeded by the shelf
    emu = await startHeadless({ dir, db, args: ['--split'], readyTimeoutMs: 90_000 });
    const r1 = await pairReady(emu);
    expect(r1.a.activations.map((a) => a.source)).toEqual(['statewant']);
    expect(loads(emu)).toEqual([]);
    await ipmitool(emu, 'event', '1');
    await ipmitool(emu, 'event', '1');
    const run1 = await selMap(emu);
    expect(run1.size).toBeGreaterThanOrEqual(2);
    expect(await emu.stop('SIGTERM', 30_000)).toBe(0);

    // 2. the shelf alone (no ShMC processes): a record and a user name behind the ShMCs' back
    emu = await startHeadless({ dir, db, readyTimeoutMs: 90_000 });
    await ipmitool(emu, 'event', '1');
    await ipmitool(emu, 'user', 'set', 'name', '6', 'behindback');
    expect(await ipmitool(emu, 'user', 'list', '1')).toMatch(/^6\s+behindback/m);
    const run2 = await selMap(emu);
    const ghosts = [...run2.keys()].filter((id) => !run1.has(id));
    expect(ghosts.length).toBeGreaterThanOrEqual(1);
    expect(await emu.stop('SIGTERM', 30_000)).toBe(0);

    // 3. split again: the first active loads the shelf from its own database. A password given now
    // is not applied (the database has an administrator) — and the ShMCs use the one of record too.
    emu = await startHeadless({ dir, db, args: ['--split'], readyTimeoutMs: 90_000, adminPassword: 'Ignored-pw-77' });
    const r3 = await pairReady(emu);
    for (const n of ['shmc-a', 'shmc-b'] as const) {
      expect(await maintRequest('127.0.0.1', maintPorts(emu)[n], { op: 'block-heartbeats', on: false, password: 'Ignored-pw-77' }, 2000)).toMatchObject({ error: { code: 'denied' } });
      expect(await maintRequest('127.0.0.1', maintPorts(emu)[n], { op: 'block-heartbeats', on: false, password: TEST_ADMIN.password }, 2000)).toMatchObject({ ok: true });
    }
    expect(r3.a.activations.at(-1)!.source).toBe('stateload');
    await waitFor(async () => (loads(emu!).length > 0 ? true : undefined), 10_000, 'the shelf\'s stateload log line');
    const first = loads(emu)[0]!;
    expect(first, JSON.stringify(loads(emu))).toMatchObject({ node: r3.act });
    expect(first.dropped as number).toBeGreaterThanOrEqual(ghosts.length);
    const run3 = await selMap(emu);
    for (const id of ghosts) expect(run3.has(id), `record ${id}, written behind the ShMCs' back`).toBe(false);
    for (const [id, text] of run1) expect(run3.get(id), `record ${id} of run 1`).toBe(text);
    expect(await ipmitool(emu, 'user', 'list', '1')).not.toMatch(/behindback/);

    // kill -9 of the active: the SEL is what the standby had committed
    await ipmitool(emu, 'event', '1');
    await ipmitool(emu, 'event', '1');
    const { act, stby } = r3;
    // the standby holds every record ipmitool reads (hardware records reach it asynchronously)
    const before = await waitFor(async () => {
      const [m, s] = [await selMap(emu!), await status(emu!, stby)];
      return s && [...m.keys()].every((id) => s.sel.ids.includes(id)) && s.sel.ids.every((id) => m.has(id)) ? { m, s } : undefined;
    }, 20_000, 'the standby holding exactly the SEL ipmitool reads');
    const committed = before.s.sel.ids;
    const loadsBefore = loads(emu).length;
    const actPid = (await status(emu, act))!.pid;
    process.kill(actPid, 'SIGKILL');
    const took = await waitFor(async () => {
      const s = await status(emu!, stby);
      return s && s.role === 'active' && s.shelf_address_bound ? s : undefined;
    }, 10_000, 'the standby active');
    expect(took.activations.at(-1)).toMatchObject({ source: 'stateload', sel: committed.length });
    // (the shelf's log line may arrive after the maintenance port's answer)
    await waitFor(async () => (loads(emu!).length > loadsBefore ? true : undefined), 10_000, 'the shelf\'s stateload log line');
    const load = loads(emu).at(-1)!;
    expect(load, JSON.stringify({ load, committed, before: [...before.m.keys()] })).toMatchObject({ node: stby, kept: committed.length, dropped: 0, readded: 0 });
    const after = await selMap(emu);
    for (const id of committed) expect(after.get(id), `record ${id}`).toBe(before.m.get(id));
    const newest = Math.max(...committed);
    for (const id of after.keys()) if (!committed.includes(id)) expect(id, `record ${id} is not the standby's: logged after the kill`).toBeGreaterThan(newest);
    expect(await emu.stop('SIGTERM', 30_000)).toBe(0);
    const t0 = performance.now();
    while ([...pids].some(processAlive) && performance.now() - t0 < 10_000) await sleep(100);
  }, 300_000);
});
