/**
 * The TUI's HA status overlay (`a`) in a real terminal (tmux) at 80×24 and at 200×50: every share
 * with its owner, the alarm and the lost-by-age line fully visible (no line cut at the border);
 * any key closes it; `q` quits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ATCASIM_BIN, TEST_ADMIN } from '../support/headless.ts';
import { TmuxSession } from '../support/tmux.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-tui-ha-'));
const sessions: TmuxSession[] = [];
afterAll(() => {
  for (const t of sessions) t.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('TUI: HA status overlay', () => {
  for (const [width, height] of [
    [80, 24],
    [200, 50],
  ] as const) {
    it(`${width}×${height}: a shows every share's owner, roles and the lost split; any key closes`, async () => {
      const db = join(dir, `tui-${width}.db`);
      const t = TmuxSession.start(
        [process.execPath, ATCASIM_BIN, 'start', '--db', db, '--ipmi-port', '0', '--session-capacity', '4096', '--rate', '2000', '--admin-password', TEST_ADMIN.password, '--log-file', join(dir, `atcasim-${width}.log`)],
        { width, height },
      );
      sessions.push(t);
      await t.waitFor((s) => /^pkt\/s/m.test(s), 90_000, 'the front view');
      // wait until every share has an owner and a hot standby, as the overlay shows it
      const screen = await t.waitFor(
        (s) => {
          if (!s.includes('SHARE')) {
            t.sendKeys('a');
            return undefined;
          }
          const owners = [...s.matchAll(/│(shmc|lb\d\/slot\d) +(\S+) +(\S+) +(\S+)/g)].map((m) => [m[1], m[2]]);
          if (owners.length === 5 && owners.every(([, o]) => o !== 'NONE') && (s.match(/│[^│]*standby\.hot[^│]*│/g) ?? []).length === 5) return s;
          t.sendKeys('a'); // closes it; the next round opens it again with fresh figures
          return undefined;
        },
        60_000,
        'the HA status overlay with every share owned',
        700,
      );
      expect(screen).toMatch(/│SHARE +OWNER +MEMBER +ROLE +EPOCH +HEARTBEAT +SYNC LAG +WATCHDOG *│/);
      expect(screen).toMatch(/│lb1\/slot3 +slot3 +slot3 +active +1 /);
      expect(screen).toMatch(/│shmc +ShMC-[AB] +ShMC-A +/); // the TUI names the ShMCs as the front panel does
      expect(screen).toMatch(/│Alarms: none *│/);
      expect(screen).toMatch(/│Sessions lost since start: 0 young \(< 3\.1 s old\), 0 established *│/);
      expect(screen).toMatch(/│Left service since start: 0 planned, 0 unplanned *│/);
      t.sendKeys('x'); // any key closes (and does not act on the shelf)
      const closed = await t.waitFor((s) => (!s.includes('HEARTBEAT') ? s : undefined), 10_000, 'the overlay to close');
      expect(closed).not.toMatch(/handle opened/);
      // the main screen: ShMC names, lost split, role, watchdog and hot hit shown whole (no ellipsis on them)
      expect(closed).toMatch(/mgmt\s+ShMC-A M4/);
      expect(closed).toMatch(/ lost \d+(?: young \/ |y\/)\d+(?: est|e) /);
      expect(closed).toMatch(/HA lb1\/slot3 active epoch \d+/);
      expect(closed).toMatch(/lb1\/slot3: (?:hb \d+ ms, wd|heartbeat \d+ ms ago, watchdog) \d+\.\d s/);
      expect(closed).toMatch(/hot hit \d+\.\d%/);
      expect(closed).toMatch(/shelf lost \d+(?: young \/ |y\/)\d+(?: est|e)/);
      // the detail pane's columns only (the event pane beside it may clip its own text)
      const detailCols = closed.split('\n').map((l, i, all) => (i >= all.length - 2 ? l : l.slice(0, Math.floor(width * 0.6)))).join('\n');
      expect(detailCols, closed).not.toMatch(/(?:epoch|watchdog|wd|hot hit|lost|ShMC)[^\n│]*…/);
      t.sendKeys('q');
    }, 180_000);
  }
});
