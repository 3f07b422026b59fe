/**
 * The TUI's colours and words under tmux, read with `capture-pane -e` (the SGR attributes of
 * every cell): with TERM=xterm (8 colours) at 80×24 and TERM=xterm-256color at 200×50, no
 * character is drawn in colour 0 (black) on the default background — "gray" text is bright black
 * (colour 8) where the terminal has it and the terminal's white where it has 8 colours only. And
 * a planned deactivation (`x`: the handle opened) shows the board's HA cell as `off`, not `fail`,
 * and logs it as off, not failed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ATCASIM_BIN, TEST_ADMIN } from '../support/headless.ts';
import { sgrCells } from '../support/sgr.ts';
import { TmuxSession } from '../support/tmux.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-tui-colours-'));
const sessions: TmuxSession[] = [];
afterAll(() => {
  for (const t of sessions) t.kill();
  rmSync(dir, { recursive: true, force: true });
});

function start(name: string, width: number, height: number, term: string): TmuxSession {
  // tmux sets TERM in its panes (default-terminal, "screen"): name the terminal type on the command
  const t = TmuxSession.start(
    ['env', `TERM=${term}`, process.execPath, ATCASIM_BIN, 'start', '--db', join(dir, `${name}.db`), '--ipmi-port', '0', '--session-capacity', '4096', '--rate', '5000', '--admin-password', TEST_ADMIN.password, '--log-file', join(dir, `${name}.log`)],
    { width, height },
  );
  sessions.push(t);
  return t;
}

/** The HA row's cell of a logical slot (columns of the `slot` row). */
function haCell(screen: string, slot: number): string | undefined {
  const lines = screen.split('\n');
  const slotLine = lines.find((l) => l.startsWith('slot  '));
  const haLine = lines.find((l) => l.startsWith('HA    '));
  if (!slotLine || !haLine) return undefined;
  const starts = [...slotLine.slice(6).matchAll(/\S+/g)].map((m) => 6 + m.index!);
  const i = slotLine.slice(6).trim().split(/\s+/).indexOf(String(slot));
  return i < 0 ? undefined : haLine.slice(starts[i], starts[i + 1]).trim();
}

const ready = (s: string) => /^total /m.test(s) && /^HA {4}.*act/m.test(s);

function blackOnDefault(screen: string) {
  return sgrCells(screen).filter((c) => c.fg === 0 && c.bg === 'default' && !c.inverse);
}

describe('TUI colours under tmux', () => {
  it('TERM=screen (tmux\'s default, 8 colours), 80×24: gray is white there too', async () => {
    const t = start('screen', 80, 24, 'screen');
    await t.waitFor(ready, 90_000, 'the front view with HA roles');
    const screen = t.captureEscapes();
    expect(blackOnDefault(screen)).toEqual([]);
    expect(new Set(sgrCells(screen).filter((c) => c.row === 1 && /\d/.test(c.ch)).map((c) => c.fg))).toEqual(new Set([7]));
  }, 180_000);

  it('TERM=xterm (8 colours), 80×24: nothing black on the default background; gray is white; a planned deactivation reads off', async () => {
    const t = start('xterm', 80, 24, 'xterm');
    await t.waitFor(ready, 90_000, 'the front view with HA roles');
    const screen = t.captureEscapes();
    expect(blackOnDefault(screen)).toEqual([]);
    // the physical-position numbers (row 1, "pos") are de-emphasised: drawn in colour 7, not 0
    const pos = sgrCells(screen).filter((c) => c.row === 1 && /\d/.test(c.ch));
    expect(pos.length).toBeGreaterThan(10);
    expect(new Set(pos.map((c) => c.fg))).toEqual(new Set([7]));

    // slot3 is selected; x opens its handle: a planned deactivation
    t.sendKeys('x');
    const off = await t.waitFor((s) => (haCell(s, 3) === 'off' ? s : undefined), 30_000, 'slot3 shown off');
    expect(off).not.toMatch(/^HA .*fail/m);
    expect(blackOnDefault(t.captureEscapes())).toEqual([]);
    const log = readFileSync(join(dir, 'xterm.log'), 'utf8');
    expect(log).toMatch(/lb1\/slot3: slot3 off \(planned, out of service\)/);
    expect(log).not.toMatch(/: slot3 failed"/);
  }, 180_000);

  it('TERM=xterm-256color, 200×50: nothing black on the default background; gray is bright black (colour 8)', async () => {
    const t = start('x256', 200, 50, 'xterm-256color');
    await t.waitFor(ready, 90_000, 'the front view with HA roles');
    const screen = t.captureEscapes();
    expect(blackOnDefault(screen)).toEqual([]);
    const pos = sgrCells(screen).filter((c) => c.row === 1 && /\d/.test(c.ch));
    expect(new Set(pos.map((c) => c.fg))).toEqual(new Set([8]));
  }, 180_000);
});
