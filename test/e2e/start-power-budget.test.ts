/**
 * The power budget at the first start, end to end: `atcasim start --headless` with a shelf YAML
 * whose PEMs supply 2 × 150 W (the default shelf draws 1330 W) powers up only what fits (PICMG 3.0
 * §3.9, as for a later activation). Real ipmitool sees the refused board in M2 at power level 0 and
 * its activation refused; the log says why.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/shared.ts';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-budget-'));
let emu: HeadlessEmulator | undefined;

afterAll(async () => {
  await emu?.kill();
  rmSync(dir, { recursive: true, force: true });
});

function ipmitool(port: number, ...cmd: string[]) {
  return spawnSync('ipmitool', ['-I', 'lanplus', '-C', '17', '-H', '127.0.0.1', '-p', String(port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, ...cmd], { encoding: 'utf8', timeout: 30_000 });
}

describe('atcasim start with PEMs too small for the shelf', () => {
  it('activates only what 2 × 150 W cover; slot3 waits in M2 (ipmitool sees it), the log says why', async () => {
    const yaml = readFileSync(join(repoRoot, 'chassis', 'config', 'default-shelf.yaml'), 'utf8').replace(/capacity_w: 1500/g, 'capacity_w: 150');
    const config = join(dir, 'tiny-pems.yaml');
    writeFileSync(config, yaml);
    emu = await startHeadless({ dir, db: join(dir, 'budget.db'), args: ['--config', config] });

    const why = emu.lines.find((l) => l.msg === 'not enough power budget at power-up; FRU waits in M2' && l.fru === 'slot3');
    expect(why).toMatchObject({ neededW: 120, availableW: 10 });
    const stats = await emu.waitFor((l) => l.event === 'stats', 30_000, 'a stats line');
    expect(stats.boards).toEqual([3, 4, 5, 6].map((slot) => expect.objectContaining({ slot, state: 'M2', in_service: false })));
    expect(stats.hubs).toEqual([1, 2].map((slot) => expect.objectContaining({ slot, state: 'M4', in_service: true })));

    const port = emu.ipmi.port;
    const hs = ipmitool(port, 'sensor', 'get', 'Node3 HotSwap');
    expect(hs.status, hs.stderr).toBe(0);
    expect(hs.stdout).toMatch(/\[Transition to M2\]/);
    const pw = ipmitool(port, '-t', '0x86', '-b', '0', 'picmg', 'power', 'get', '0', '0');
    expect(pw.status, pw.stderr).toBe(0);
    expect(pw.stdout).toMatch(/^Actual Power Level:\s+0$/m);
    const act = ipmitool(port, '-t', '0x86', '-b', '0', 'picmg', 'activate', '0');
    expect(act.status).not.toBe(0); // D5h: not enough power budget
    const hub = ipmitool(port, 'sensor', 'get', 'Hub1 HotSwap');
    expect(hub.stdout).toMatch(/\[Transition to M4\]/);

    expect(await emu.stop('SIGTERM')).toBe(0);
  });
});
