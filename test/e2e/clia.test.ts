/**
 * `atcasim clia` against a running emulator (`atcasim start --headless`), over the emulator's own
 * IPMI LAN interface (RMCP+ suite 17): every verb's text output, its --json output and its exit
 * status (0 ok, 1 refused by the shelf, 2 usage or connection error). Most runs call the CLI's
 * main() in this process (a real UDP session to the emulator process); a few spawn
 * `bin/atcasim.mjs clia` to check the process exit status and the ATCASIM_ADMIN_PASSWORD default.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../chassis/main.ts';
import { ATCASIM_BIN, type HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { ADMIN_PASSWORD, startReferenceEmulator } from '../support/ipmi-shelf.ts';
import { repoRoot } from '../support/shared.ts';

let emu: HeadlessEmulator;
beforeAll(async () => {
  emu = await startReferenceEmulator();
});
afterAll(async () => {
  if (emu) {
    expect(await emu.stop()).toBe(0);
    emu.cleanup();
  }
});

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function clia(...args: string[]): Promise<Out> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) }),
    stderr: new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) }),
  };
  const code = await main(['node', 'atcasim', 'clia', '-p', String(emu.ipmi.port), '-P', ADMIN_PASSWORD, ...args], io);
  return { code, stdout, stderr };
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const r = await clia(...args, '--json');
  expect([r.code, r.stderr], `clia ${args.join(' ')}`).toEqual([0, '']);
  return JSON.parse(r.stdout) as T;
}

type Fru = { name: string; state: string; faults: string[]; handle_closed: boolean };
const stateOf = async (fru: string) => (await json<Fru[]>('fru', fru))[0]!.state;

async function until(what: string, cond: () => Promise<boolean>, ms = 8000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('reading the shelf', () => {
  it('shmstatus: the shelf manager that answered, its full role name and its peer\'s', async () => {
    const t = await clia('shmstatus');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^Host: Active$/m);
    expect(t.stdout).toMatch(/^Role: active$/m);
    expect(t.stdout).toMatch(/^Peer role: standby\.hot$/m);
    const j = await json('shmstatus');
    expect(j).toMatchObject({ shelf_manager: 'shmc-a', role: 'active', peer: 'shmc-b', peer_role: 'standby.hot', ready_for_operation: true });
    const v = await clia('shmstatus', '-v');
    expect(v.stdout).toMatch(/^Backup Healthy: Yes$/m);
  });

  it('fru and board: hot-swap states, slot names and Pigeon Point forms', async () => {
    const t = await clia('fru');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^86: FRU # 0 {2}slot3 {2}"Node3" {2}slot3 \(physical slot 6\)$/m);
    expect(t.stdout).toMatch(/^20\/10: FRU # 0 {2}shmc-a .*\(active shelf manager\)$/m);
    expect(t.stdout).toMatch(/Hot Swap State: M4 \(Active\), Previous: M3 \(Activation In Progress\), Last State Change Cause: Normal State Change \(0x0\)/);
    const all = await json<Fru[]>('fru');
    expect(all.map((f) => f.name)).toEqual(['shmc-a', 'shmc-b', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6', 'fan1', 'fan2', 'fan3', 'pem1', 'pem2']);
    for (const ref of ['slot3', '3', 'board 3', '0x86']) expect((await json<Fru[]>('fru', ...ref.split(' ')))[0]).toMatchObject({ name: 'slot3', state: 'M4' });
    expect((await json<Fru[]>('fru', 'shm', '2'))[0]!.name).toBe('shmc-b');
    const b = await clia('board', '3');
    expect(b.stdout).toMatch(/^Physical Slot # 6 \(logical slot 3\): slot3 "Node3"\n {4}86: Entity: \(0xa0, 0x60\) Maximum FRU device ID: 0x00\n {4}PICMG Version 2\.2, firmware 1\.05$/m);
    expect(b.stdout).toMatch(/^ {4}Device ID String: "Node3"$/m);
    const boards = await json<Array<{ name: string; picmg_version: string }>>('board');
    expect(boards.map((x) => x.name)).toEqual(['slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6']);
    expect(boards.every((x) => x.picmg_version === '2.2')).toBe(true);
  });

  it('sensordata: readings from each sensor\'s controller (bridged), by FRU and name', async () => {
    const t = await clia('sensordata', 'slot3', 'Node3', 'Temp');
    expect(t.code).toBe(0);
    expect(t.stdout).toBe('86: LUN: 0, Sensor # 1 ("Node3 Temp")\n    Type: Threshold (0x01)\n    Raw data: 48 (0x30)\n    Processed data: 48 degrees C\n    Status: 0xc0\n');
    const all = await json<Array<{ name: string; value?: number; state?: string; owner: number }>>('sensordata');
    expect(all.find((s) => s.name === 'PEM2 Feed')).toMatchObject({ value: 48, owner: 0x5a });
    expect(all.find((s) => s.name === 'ShMC HotSwap')).toMatchObject({ state: 'M4', owner: 0x20 });
    // 36 configured sensors + the ShMCs' two again at their own addresses 10h/12h (event-only records have no reading)
    expect(all.find((s) => s.name === 'ShMC HotSwap' && s.owner === 0x12)).toMatchObject({ state: 'M4' });
    expect(all.length).toBe(40);
  });

  it('ipmc, getfanlevel, setfanlevel', async () => {
    const i = await clia('ipmc', 'slot3');
    expect(i.stdout).toMatch(/^86: slot3 "Node3"\n {4}Device ID: 0x00, Revision 1, Firmware 1\.05, IPMI 2\.0$/m);
    expect((await json<unknown[]>('ipmc')).length).toBe(13);
    const f = await clia('getfanlevel', 'fan1');
    expect(f.stdout).toBe('52: fan1: Current Level: 8 (range 0..15, normal 8), local control enabled\n');
    expect((await clia('setfanlevel', 'fan1', '12')).code).toBe(0);
    expect((await json<Array<{ level: number; local_control: boolean }>>('getfanlevel', 'fan1'))[0]).toMatchObject({ level: 12 });
    expect((await json<Array<{ name: string; value: number }>>('sensordata', 'fan1', 'Fan1', 'Speed'))[0]!.value).toBe(9000);
    expect((await clia('setfanlevel', 'fan1', '40')).code).toBe(1);
  });

  it('console: every ShMC and board lists its PTY; one named FRU gives its path; a fan tray has none', async () => {
    const c = await clia('console');
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/^slot3: \/dev\/pts\/\d+$/m);
    const list = await json<Array<{ fru: string; path: string | null; link: string | null }>>('console');
    expect(list.map((x) => x.fru)).toEqual(expect.arrayContaining(['shmc-a', 'shmc-b', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6']));
    expect(list.every((x) => typeof x.path === 'string' && x.path.startsWith('/dev/pts/'))).toBe(true);
    const one = await clia('console', 'slot3');
    expect(one.code).toBe(0);
    // the PTY, then the stable link to it: $XDG_RUNTIME_DIR/atcasim/slot3, else beside the database
    const slot3 = list.find((x) => x.fru === 'slot3')! as { path: string; link: string };
    const linkDir = process.env.XDG_RUNTIME_DIR?.startsWith('/') ? join(process.env.XDG_RUNTIME_DIR, 'atcasim') : join(dirname(emu.db), 'consoles');
    expect(dirname(slot3.link).startsWith(linkDir)).toBe(true);
    expect(realpathSync(slot3.link)).toBe(realpathSync(slot3.path));
    expect(one.stdout).toBe(`slot3: ${slot3.path}\n    link: ${slot3.link}\n`);
    const fan = await clia('console', 'fan1');
    expect(fan.code).toBe(1);
    expect(fan.stderr).toMatch(/fan1 has no serial console/);
  });
});

describe('changing the shelf', () => {
  it('inject sensor, then the reading and the SEL show it; sel COUNT and sel clear', async () => {
    const r = await clia('inject', 'sensor', 'slot3', 'Node3', 'Temp', '85');
    expect([r.code, r.stdout]).toEqual([0, 'slot3 "Node3 Temp": 85 (raw 85), status cr\n']);
    expect((await json<Array<{ value: number }>>('sensordata', 'slot3', 'Node3', 'Temp'))[0]!.value).toBe(85);
    const sel = await clia('sel', '2');
    expect(sel.stdout.trim().split('\n')).toHaveLength(2);
    expect(sel.stdout).toMatch(/Temperature Node3 Temp \| Upper Critical going high \| Asserted \| Reading 85 > Threshold 80 \(raw\)$/m);
    await clia('inject', 'sensor', 'slot3', 'Node3', 'Temp', '48');
    expect((await clia('sel', 'clear')).stdout).toBe('SEL cleared\n');
    expect((await clia('sel')).stdout).toBe('SEL has no entries\n');
    expect(await json('sel')).toEqual([]);
  });

  it('deactivate / activate a board by slot name: M4 → M6 → M1, then back to M4', async () => {
    const d = await json<{ fru: string; state: string }>('deactivate', 'slot3');
    expect(d).toMatchObject({ fru: 'slot3', state: 'M6' });
    await until('slot3 in M1', async () => (await stateOf('slot3')) === 'M1');
    const t = await clia('activate', 'board', '3');
    expect(t.stdout).toMatch(/^activate slot3: command executed successfully; now M2 \(Activation Request\)$/m);
    await until('slot3 in M4', async () => (await stateOf('slot3')) === 'M4');
  });

  it('inject fault / repair, handle open / close', async () => {
    const f = await json<{ state: string }>('inject', 'fault', 'slot4');
    expect(f.state).toBe('M6');
    await until('slot4 in M1', async () => (await stateOf('slot4')) === 'M1');
    expect((await json<Fru[]>('fru', 'slot4'))[0]!.faults).toEqual(['payload']);
    expect((await clia('inject', 'fault', 'slot4')).code).toBe(1); // already faulted
    expect((await clia('repair', 'slot4')).code).toBe(0);
    await until('slot4 back in M4', async () => (await stateOf('slot4')) === 'M4');
    expect((await json<{ state: string }>('handle', 'open', 'slot5')).state).toBe('M5');
    await until('slot5 in M1', async () => (await stateOf('slot5')) === 'M1');
    expect((await json<{ state: string }>('handle', 'close', 'slot5')).state).toBe('M2');
    await until('slot5 in M4', async () => (await stateOf('slot5')) === 'M4');
  });

  it('switchover: the other ShMC answers the shelf address; deactivating the active ShMC switches back', async () => {
    const s = await json<{ from: string; to: string }>('switchover');
    expect(s).toEqual({ from: 'shmc-a', to: 'shmc-b' });
    // with HA the old active is standby.ready until its resync completes, then standby.hot (ha.md S02)
    expect(await json('shmstatus')).toMatchObject({ shelf_manager: 'shmc-b', role: 'active', peer: 'shmc-a', peer_role: expect.stringMatching(/^standby\.(ready|hot)$/) });
    await until('shmc-a hot', async () => (await json<{ peer_role: string }>('shmstatus')).peer_role === 'standby.hot');
    const a = await runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu.ipmi.port), '-U', 'admin', '-P', ADMIN_PASSWORD, '-C', '17', 'picmg', 'addrinfo']);
    expect(a.stdout).toMatch(/^Site ID {10}: 0x02$/m);
    // deactivating FRU 0 of the shelf manager (the active ShMC) is a switchover, then M4 → M6 → M1
    expect((await clia('deactivate', 'shmc-b')).code).toBe(0);
    expect(await json('shmstatus')).toMatchObject({ shelf_manager: 'shmc-a', role: 'active', peer: 'shmc-b', peer_role: 'failed' });
    await until('shmc-b in M1', async () => (await stateOf('shmc-b')) === 'M1');
    // with its peer down there is nobody to switch over to
    const refused = await clia('switchover');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/shmc-b cannot take over/);
    expect((await clia('handle', 'close', 'shmc-b')).code).toBe(0);
    await until('shmc-b in M4', async () => (await stateOf('shmc-b')) === 'M4');
    // with HA, shmc-b boots and re-arbitrates (booting → standby.ready → standby.hot) before it is hot
    await until('shmc-b hot', async () => (await json<{ peer_role: string }>('shmstatus')).peer_role === 'standby.hot');
    expect(await json('shmstatus')).toMatchObject({ shelf_manager: 'shmc-a', peer_role: 'standby.hot' });
  });
});

describe('errors and exit status', () => {
  it.each([
    [['deactivate', 'slot9'], 1, /slot9 is not a FRU of this shelf/],
    [['fru', 'nosuch'], 1, /"nosuch" is not a FRU of this shelf/],
    [['inject', 'sensor', 'slot3', 'Nope', '5'], 1, /slot3 has no sensor "Nope"/],
    [['bogus'], 2, /unknown verb "bogus"/],
    [['sel', 'x'], 2, /COUNT must be a positive integer/],
    [['frucontrol', 'slot3', 'explode'], 2, /option must be one of cold, warm, graceful, diag/],
    [['handle', 'sideways', 'slot3'], 2, /handle open\|close FRU/],
  ])('clia %j → exit %i', async (args, code, message) => {
    const r = await clia(...args);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('--json on a refusal: an error object on stdout, the message on stderr', async () => {
    const r = await clia('deactivate', 'slot9', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'empty_slot', message: 'slot9 is not a FRU of this shelf' } });
  });

  it('connection errors exit 2: wrong password, nobody listening', async () => {
    const bad = await main(['node', 'atcasim', 'clia', '-p', String(emu.ipmi.port), '-P', 'wrong-password', 'shmstatus'], { stdout: new Writable({ write: (_c, _e, cb) => cb() }), stderr: new Writable({ write: (_c, _e, cb) => cb() }) });
    expect(bad).toBe(2);
    let err = '';
    const none = await main(['node', 'atcasim', 'clia', '-p', '9', '-P', ADMIN_PASSWORD, '--timeout', '200', 'shmstatus'], {
      stdout: new Writable({ write: (_c, _e, cb) => cb() }),
      stderr: new Writable({ write: (c, _e, cb) => ((err += String(c)), cb()) }),
    });
    expect(none).toBe(2);
    expect(err).toMatch(/127\.0\.0\.1:9: no answer from the shelf manager/);
  });

  it('as a process: exit status, and the password from ATCASIM_ADMIN_PASSWORD', async () => {
    const run = (args: string[], env: Record<string, string>) =>
      new Promise<Out>((resolve) => {
        const p = spawn(process.execPath, [ATCASIM_BIN, 'clia', '-p', String(emu.ipmi.port), ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
    const okRun = await run(['shmstatus', '--json'], { ATCASIM_ADMIN_PASSWORD: ADMIN_PASSWORD });
    expect([okRun.code, JSON.parse(okRun.stdout).role]).toEqual([0, 'active']);
    expect((await run(['deactivate', 'slot9'], { ATCASIM_ADMIN_PASSWORD: ADMIN_PASSWORD })).code).toBe(1);
    const noPw = await run(['shmstatus'], { ATCASIM_ADMIN_PASSWORD: '' });
    expect(noPw.code).toBe(2);
    expect(noPw.stderr).toMatch(/no password/);
  }, 60_000);
});
