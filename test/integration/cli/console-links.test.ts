/**
 * Two `atcasim start --headless` at once and the consoles' stable links (docs/consoles.md): the first
 * owns the stable names; the second — same XDG_RUNTIME_DIR, or (without one) databases in the same
 * folder — leaves them alone and links its consoles in a per-database folder, as its ready line
 * says; stopping the second removes only its own links; the last to stop removes the folder.
 */
import { existsSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHeadless, type HeadlessEmulator } from '../../support/headless.ts';

const CONSOLE_FRUS = ['shmc-a', 'shmc-b', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6'];
const running: HeadlessEmulator[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const e of running) await e.kill();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Each FRU's link of `emu` (its ready line) is a symlink to its own PTY, inside `dir`. */
function expectOwnLinks(emu: HeadlessEmulator, dir: string): void {
  const links = emu.ready.console_links as Record<string, string>;
  expect(Object.keys(links).sort()).toEqual([...CONSOLE_FRUS].sort());
  for (const fru of CONSOLE_FRUS) {
    expect(links[fru]).toBe(join(dir, fru));
    expect(lstatSync(links[fru]!).isSymbolicLink()).toBe(true);
    expect(readlinkSync(links[fru]!)).toBe(emu.ready.consoles[fru]);
  }
}

async function two(opts: { env: Record<string, string>; dirA: string; dbA: string; dirB: string; dbB: string }) {
  const a = await startHeadless({ dir: opts.dirA, db: opts.dbA, env: opts.env });
  running.push(a);
  const b = await startHeadless({ dir: opts.dirB, db: opts.dbB, env: opts.env });
  running.push(b);
  return { a, b };
}

describe('two emulators sharing a console links folder', () => {
  it('same XDG_RUNTIME_DIR: the second links in its own folder; stopping it leaves the first\'s links; the last stop removes the folder', async () => {
    const xdg = tmp('atcasim-xdg-');
    const stable = join(xdg, 'atcasim');
    const dirA = tmp('atcasim-a-');
    const dirB = tmp('atcasim-b-');
    const { a, b } = await two({ env: { XDG_RUNTIME_DIR: xdg }, dirA, dbA: join(dirA, 'a.db'), dirB, dbB: join(dirB, 'b.db') });
    expectOwnLinks(a, stable);
    const linksB = b.ready.console_links as Record<string, string>;
    const own = dirname(linksB.slot3!);
    expect(own).toMatch(new RegExp(`^${stable.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/b-[0-9a-f]{8}$`));
    expectOwnLinks(b, own);
    expectOwnLinks(a, stable); // untouched by the second start
    const warn = b.lines.find((l) => typeof l.msg === 'string' && l.msg.includes('belong to another running atcasim'));
    expect(warn?.msg).toContain(`pid ${a.pid}`);
    expect(warn?.msg).toContain(`this run's consoles are linked in ${own}`);

    expect(await b.stop('SIGTERM')).toBe(0);
    expect(existsSync(own)).toBe(false);
    expectOwnLinks(a, stable);

    expect(await a.stop('SIGTERM')).toBe(0);
    expect(existsSync(stable)).toBe(false);
  });

  it('no XDG_RUNTIME_DIR, two databases in one folder: the same, with "consoles" beside the databases removed at the end', async () => {
    const dir = tmp('atcasim-beside-');
    const stable = join(dir, 'consoles');
    const { a, b } = await two({ env: { XDG_RUNTIME_DIR: '' }, dirA: dir, dbA: join(dir, 'one.db'), dirB: dir, dbB: join(dir, 'two.db') });
    expectOwnLinks(a, stable);
    const own = dirname((b.ready.console_links as Record<string, string>).slot1!);
    expect(dirname(own)).toBe(stable);
    expectOwnLinks(b, own);

    // the first stops first this time: its links go, the second's stay
    expect(await a.stop('SIGTERM')).toBe(0);
    for (const fru of CONSOLE_FRUS) expect(existsSync(join(stable, fru))).toBe(false);
    expectOwnLinks(b, own);
    expect(await b.stop('SIGTERM')).toBe(0);
    expect(existsSync(stable)).toBe(false);
    expect(readdirSync(dir).filter((f) => !/\.(db|db-wal|db-shm|log)$/.test(f))).toEqual([]);
  });

  it('after kill -9 the owner file is stale: the next run takes the stable names over', async () => {
    const xdg = tmp('atcasim-xdg-');
    const stable = join(xdg, 'atcasim');
    const first = await startHeadless({ env: { XDG_RUNTIME_DIR: xdg } });
    running.push(first);
    dirs.push(first.dir);
    expectOwnLinks(first, stable);
    await first.kill();
    const next = await startHeadless({ env: { XDG_RUNTIME_DIR: xdg } });
    running.push(next);
    dirs.push(next.dir);
    expectOwnLinks(next, stable);
    expect(next.lines.some((l) => typeof l.msg === 'string' && l.msg.includes(`claimed by a run that has ended (pid ${first.pid}`))).toBe(true);
    expect(await next.stop('SIGTERM')).toBe(0);
    expect(existsSync(stable)).toBe(false);
  });
});
