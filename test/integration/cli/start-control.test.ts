/**
 * `atcasim start --headless` serves its control socket beside the database (`<db>.ctl`, named in
 * the ready line): `ping` names the shelf, `command` runs an operator command (the effect shows
 * in the next stats line), and a clean stop removes the socket.
 */
import { existsSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { callControl } from '../../../chassis/io/control-client.ts';
import { startHeadless, type HeadlessEmulator } from '../../support/headless.ts';

let emu: HeadlessEmulator | undefined;
afterAll(async () => {
  await emu?.kill();
  emu?.cleanup();
});

describe('start: control socket', () => {
  it('is created 0600 at <db>.ctl, answers ping/command/ops, and is removed at exit', async () => {
    emu = await startHeadless({ statsInterval: '300ms' });
    const path = `${emu.db}.ctl`;
    expect(emu.ready.control).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await callControl(emu.db, 'ping')).toMatchObject({ shelf: expect.any(String) });
    expect(await callControl(emu.db, 'ops')).toEqual(expect.arrayContaining(['command', 'ops', 'ping']));
    const r = (await callControl(emu.db, 'command', { line: 'fault slot3' })) as Record<string, unknown>;
    expect(r).toMatchObject({ ok: true, fru: 'slot3' });
    const refused = (await callControl(emu.db, 'command', { line: 'fault slot99' })) as Record<string, unknown>;
    expect(refused).toMatchObject({ ok: false });
    await expect(callControl(emu.db, 'command', {})).rejects.toThrow(/args\.line must be a string/);
    expect(await emu.stop()).toBe(0);
    expect(existsSync(path)).toBe(false);
  }, 120_000);
});
