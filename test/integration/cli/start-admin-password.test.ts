/**
 * `atcasim start` on a database that already has an IPMI administrator: a password given with
 * --admin-password (or ATCASIM_ADMIN_PASSWORD) is not applied, and the start says so — on stderr
 * (headless) and as an `admin_password_ignored` log line — instead of ignoring it silently.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHeadless, type HeadlessEmulator } from '../../support/headless.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-adminpw-'));
const db = join(dir, 'admin.db');
const running: HeadlessEmulator[] = [];

afterAll(async () => {
  for (const e of running) await e.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('atcasim start: an admin password for an existing database', () => {
  it('is reported as ignored (stderr and log line), not applied silently', async () => {
    const first = await startHeadless({ dir, db, env: { XDG_RUNTIME_DIR: dir } });
    running.push(first);
    expect(first.lines.some((l) => l.event === 'admin_created')).toBe(true);
    expect(first.lines.some((l) => l.event === 'admin_password_ignored')).toBe(false);
    expect(await first.stop()).toBe(0);

    const second = await startHeadless({ dir, db, adminPassword: 'another-password-9', env: { XDG_RUNTIME_DIR: dir } });
    running.push(second);
    const line = second.lines.find((l) => l.event === 'admin_password_ignored');
    expect(line?.msg).toMatch(/^admin password from --admin-password ignored: the database already has IPMI users \(change it with `ipmitool user set password \d+ NEWPASSWORD` or start over with `atcasim db reset`\)$/);
    // stderr is another pipe than the stdout the ready line came on: give it a moment
    const want = `atcasim start: warning: ${line!.msg as string}`;
    for (const end = Date.now() + 10_000; !second.stderr().includes(want) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
    expect(second.stderr()).toContain(want);
    expect(second.stderr()).not.toContain('another-password-9');
    expect(await second.stop()).toBe(0);
  });
});
