/**
 * The TUI end to end, as a person sees it: `atcasim start` (the bin `npm start` runs) inside a
 * real terminal (tmux, 80×24), a temporary database, a small session table, traffic from the
 * bundled capture. The screen is read with `capture-pane` and parsed by its row labels and the
 * columns of the `slot` row; every wait polls the screen with a timeout.
 *
 * Checks: the 14 slots in physical order with board types and M4 states, traffic on every
 * processor board; `x` on slot3 shows M5 → M6 → M1, its own rate falls to 0 while the shelf
 * total stays non-zero and the other boards carry on, the SEL records appear in the event pane;
 * `i` brings it back to M4; `s` on it hands its share back from its HA buddy (traffic returns);
 * `?` shows the help; the screen re-lays out on resize; `q` exits 0 with the database intact and
 * slot3 stored in M4.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../chassis/io/sqlite-store.ts';
import { ATCASIM_BIN, TEST_ADMIN } from '../support/headless.ts';
import { TmuxSession } from '../support/tmux.ts';

interface SlotCell {
  pos: number;
  slot: number;
  board: string;
  state: string;
  pps: number;
  sess: string;
}

/** '0' → 0, '950' → 950, '4.9k' → 4900, '1.2M' → 1.2e6; NaN when not a number. */
function parseCompact(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([kMG]?)$/.exec(s.trim());
  if (!m) return NaN;
  return Number(m[1]) * ({ '': 1, k: 1e3, M: 1e6, G: 1e9 } as Record<string, number>)[m[2]!]!;
}

/** Parses the front view: one cell per column of the `slot` row. undefined until it is drawn. */
function parseFront(screen: string): SlotCell[] | undefined {
  const lines = screen.split('\n');
  const row = (label: string) => lines.find((l) => l.startsWith(label.padEnd(6)));
  const slotLine = row('slot');
  if (!slotLine) return undefined;
  const starts: number[] = [];
  for (const m of slotLine.slice(6).matchAll(/\S+/g)) starts.push(6 + m.index!);
  const cells = (label: string) => {
    const l = row(label) ?? '';
    return starts.map((s, i) => l.slice(s, i + 1 < starts.length ? starts[i + 1] : undefined).trim());
  };
  const pos = cells('pos');
  const board = cells('board');
  const state = cells('state');
  const pps = cells('pkt/s');
  const sess = cells('sess');
  return cells('slot').map((s, i) => ({ pos: Number(pos[i]), slot: Number(s), board: board[i]!, state: state[i]!, pps: parseCompact(pps[i]!), sess: sess[i]! }));
}

/** The HA row's text for a logical slot (e.g. 'act', 'hot', 'rdy'). */
function haCell(screen: string, slot: number): string | undefined {
  const lines = screen.split('\n');
  const slotLine = lines.find((l) => l.startsWith('slot  '));
  const haLine = lines.find((l) => l.startsWith('HA    '));
  if (!slotLine || !haLine) return undefined;
  const starts: number[] = [];
  for (const m of slotLine.slice(6).matchAll(/\S+/g)) starts.push(6 + m.index!);
  const i = slotLine.slice(6).split(/\s+/).filter((x) => x).indexOf(String(slot));
  if (i < 0) return undefined;
  return haLine.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim().split('/')[0];
}

function total(screen: string): number {
  const m = /total (\S+) pkt\/s/.exec(screen);
  return m ? parseCompact(m[1]!) : NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'atcasim-tui-'));
const db = join(dir, 'tui.db');
let tmux: TmuxSession | undefined;

afterAll(() => {
  tmux?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('atcasim start: the TUI under tmux', () => {
  it('shows the shelf and drives hot swap with x / i, then quits cleanly with q', async () => {
    tmux = TmuxSession.start(
      [process.execPath, ATCASIM_BIN, 'start', '--db', db, '--ipmi-port', '0', '--session-capacity', '4096', '--rate', '20000', '--admin-password', TEST_ADMIN.password, '--log-file', join(dir, 'atcasim.log')],
      { width: 80, height: 24 },
    );
    const t = tmux;

    // 1. The front view: 14 slots in physical order, board types, M4, traffic on every processor board.
    const front = await t.waitFor(
      (s) => {
        const f = parseFront(s);
        return f && f.length === 14 && f.filter((c) => c.board === 'proc').every((c) => c.pps > 0) ? f : undefined;
      },
      90_000,
      'the front view with traffic on every processor board',
    );
    expect(front.map((c) => c.pos)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(front.map((c) => c.slot)).toEqual([13, 11, 9, 7, 5, 3, 1, 2, 4, 6, 8, 10, 12, 14]);
    const bySlot = new Map(front.map((c) => [c.slot, c]));
    for (const s of [1, 2]) expect(bySlot.get(s)).toMatchObject({ board: 'hub', state: 'M4' });
    for (const s of [3, 4, 5, 6]) expect(bySlot.get(s)).toMatchObject({ board: 'proc', state: 'M4' });
    for (let s = 7; s <= 14; s++) expect(bySlot.get(s)).toMatchObject({ board: '--', state: '' });
    let screen = t.capture();
    expect(total(screen)).toBeGreaterThan(0);
    expect(screen).toMatch(/mgmt\s+ShMC-A M4(?: act)?\s+ShMC-B M4/); // with HA, the ShMCs show their roles

    // 2. slot3 is selected (the first processor board); `x` opens its handle.
    expect(screen).toMatch(/^ slot3 {2}Node3/m);
    t.sendKeys('x');
    const states: string[] = [];
    await t.waitFor(
      (s) => {
        const c = parseFront(s)?.find((x) => x.slot === 3);
        if (c && c.state !== states[states.length - 1]) states.push(c.state);
        return c?.state === 'M1';
      },
      30_000,
      'slot3 to reach M1',
      80,
    );
    expect(states.filter((x) => ['M5', 'M6', 'M1'].includes(x))).toEqual(['M5', 'M6', 'M1']);
    screen = t.capture();
    expect(screen).toMatch(/» slot3: handle opened → M5/);

    // 3. Its own rate falls to 0; the shelf total and the other boards keep going (its traffic went elsewhere).
    await t.waitFor(
      (s) => {
        const f = parseFront(s);
        const c3 = f?.find((x) => x.slot === 3);
        const others = f?.filter((x) => x.board === 'proc' && x.slot !== 3) ?? [];
        return c3?.pps === 0 && c3.sess === '0' && total(s) > 0 && others.length === 3 && others.every((x) => x.pps > 0);
      },
      30_000,
      'slot3 at 0 pkt/s while the shelf total and the other boards stay non-zero',
    );

    // 4. The SEL records of the transitions are in the event pane.
    screen = t.capture();
    for (const m of ['M5', 'M6', 'M1']) expect(screen).toMatch(new RegExp(`Node3 HotSwap \\S+ ${m}\\b`));

    // 5. `i` closes the handle: back to M4, traffic again.
    t.sendKeys('i');
    const back: string[] = [];
    await t.waitFor(
      (s) => {
        const c = parseFront(s)?.find((x) => x.slot === 3);
        if (c && c.state !== back[back.length - 1]) back.push(c.state);
        return c?.state === 'M4';
      },
      30_000,
      'slot3 back in M4',
      80,
    );
    expect(back[0]).not.toBe('M4');
    // With HA, slot3's share moved to its buddy slot4 (no preemption): slot3 rejoins as hot standby,
    // and `s` on slot3 hands its share back (a planned switchover), so its traffic returns.
    await t.waitFor((s) => haCell(s, 3) === 'hot', 30_000, 'slot3 back as hot standby');
    // slot4 (the share's owner) learns slot3's new role from slot3's next heartbeat (100 ms); a
    // switchover asked before that is refused ("peer not hot"), as on the real pair
    await new Promise((r) => setTimeout(r, 500));
    t.sendKeys('s');
    await t.waitFor((s) => /» slot3: switchover requested/.test(s), 10_000, 'the switchover of slot3\'s share');
    await t.waitFor((s) => (parseFront(s)?.find((x) => x.slot === 3)?.pps ?? 0) > 0, 30_000, 'traffic on slot3 again');

    // 6. `?` shows the keys.
    t.sendKeys('?');
    await t.waitFor((s) => s.includes('atcasim keys') && s.includes('open the handle'), 10_000, 'the help overlay');
    t.sendKeys('Escape');
    await t.waitFor((s) => !s.includes('atcasim keys'), 10_000, 'the help overlay to close');

    // 7. Resize: the same 14 columns, wider, and more of the detail pane.
    t.resize(120, 36);
    const wide = await t.waitFor(
      (s) => {
        const lines = s.split('\n');
        return lines.length >= 36 && (lines.find((l) => l.startsWith('slot  '))?.length ?? 0) > 100 ? s : undefined;
      },
      15_000,
      'the 120x36 layout',
    );
    expect(parseFront(wide)?.map((c) => c.slot)).toEqual([13, 11, 9, 7, 5, 3, 1, 2, 4, 6, 8, 10, 12, 14]);
    expect(wide).toMatch(/sensors/);
    t.resize(80, 24);
    await t.waitFor((s) => (s.split('\n').find((l) => l.startsWith('slot  '))?.length ?? 999) <= 80, 15_000, 'the 80x24 layout again');

    // 8. `q` quits: exit status 0, database closed and consistent, slot3 stored in M4.
    t.sendKeys('q');
    await t.waitFor((s) => s.includes('[exit status 0]'), 30_000, 'a clean exit');
    const store = SqliteStore.open(db, { mustExist: true, readonly: true });
    try {
      expect(store.integrityCheck()).toEqual(['ok']);
      expect(store.loadFruStates().find((r) => r.fru === 'slot3')?.state).toBe(4);
      const sel = store.loadSel().records.length;
      expect(sel).toBeGreaterThanOrEqual(13 + 3 + 3);
    } finally {
      store.close();
    }
  });

  it('the terminal going away (tmux killed: SIGHUP, writes fail EIO) ends the emulator: no orphan, database closed, no internal error', async () => {
    const db2 = join(dir, 'hup.db');
    const errLog = join(dir, 'hup.stderr');
    const t = TmuxSession.start(
      ['sh', '-c', `exec "$0" "$@" 2>${errLog}`, process.execPath, ATCASIM_BIN, 'start', '--db', db2, '--ipmi-port', '0', '--session-capacity', '4096', '--admin-password', TEST_ADMIN.password],
      { width: 80, height: 24 },
    );
    const pids = () => (spawnSync('pgrep', ['-f', db2], { encoding: 'utf8' }).stdout ?? '').split('\n').filter((x) => x && Number(x) !== process.pid);
    try {
      await t.waitFor((s) => (parseFront(s)?.length === 14 ? s : undefined), 90_000, 'the front view');
      expect(pids().length).toBeGreaterThan(0);
    } finally {
      t.kill();
    }
    const end = Date.now() + 20_000;
    while (pids().length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    expect(pids()).toEqual([]);
    expect(readFileSync(errLog, 'utf8')).not.toMatch(/internal error|Assertion failed/);
    const store = SqliteStore.open(db2, { mustExist: true, readonly: true });
    try {
      expect(store.integrityCheck()).toEqual(['ok']);
    } finally {
      store.close();
    }
  });
});
