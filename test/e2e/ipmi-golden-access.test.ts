/**
 * Access rules of the shelf's IPMI face with real ipmitool (and clia) on `atcasim start
 * --headless`, the users created over IPMI as an administrator would (oper/operpass OPERATOR,
 * viewer/viewpass USER):
 * - a USER account cannot power the shelf off: Chassis Control answers D4h, the power stays on;
 *   an OPERATOR cannot cold-reset a FRU (FRU Control needs ADMINISTRATOR);
 * - unknown commands answer C1h at every privilege (no HPM.2 "compcode = d4" noise), malformed
 *   requests C7h, a foreign group extension or OEM IANA C1h;
 * - the watchdog over LAN addresses the active ShMC's watchdog: Get works; while the HA machine owns
 *   the timer, Set and Reset are refused with D5h (in-process shelf with a watchdog port whose
 *   ownership the test switches, as the HA part will).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { main } from '../../chassis/main.ts';
import type { WatchdogPort, WatchdogSettings, WatchdogState } from '../../chassis/ipmi/watchdog-port.ts';
import type { HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { ADMIN_PASSWORD, addReferenceUsersWithIpmitool, startReferenceEmulator, startShelfHarness, type ShelfHarness } from '../support/ipmi-shelf.ts';

const as = (port: number, user: string, pw: string, level: string, ...rest: string[]) =>
  runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(port), '-U', user, '-P', pw, '-C', '17', '-L', level, ...rest]);

describe('privileges and bad requests (headless emulator)', () => {
  let emu: HeadlessEmulator;
  let port: number;
  const admin = (...rest: string[]) => as(port, 'admin', ADMIN_PASSWORD, 'ADMINISTRATOR', ...rest);
  const viewer = (...rest: string[]) => as(port, 'viewer', 'viewpass', 'USER', ...rest);
  const oper = (...rest: string[]) => as(port, 'oper', 'operpass', 'OPERATOR', ...rest);

  beforeAll(async () => {
    emu = await startReferenceEmulator();
    port = emu.ipmi.port;
    await addReferenceUsersWithIpmitool(port);
  });
  afterAll(async () => {
    if (emu) {
      expect(await emu.stop()).toBe(0);
      emu.cleanup();
    }
  });

  it('a USER-privilege user cannot power off: D4h, and the shelf stays powered', async () => {
    const r = await viewer('chassis', 'power', 'off');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Insufficient privilege level/);
    const raw = await viewer('raw', '0x00', '0x02', '0x00');
    expect(raw.stderr).toMatch(/rsp=0xd4\): Insufficient privilege level/);
    const s = await viewer('chassis', 'power', 'status');
    expect([s.exitCode, s.stdout, s.stderr]).toEqual([0, 'Chassis Power is on\n', '']);
  });

  it('a USER account can read (no HPM.2 "compcode = d4" on stderr), an OPERATOR cannot cold-reset a FRU', async () => {
    for (const cmd of [['mc', 'info'], ['sdr', 'list'], ['sel', 'info'], ['picmg', 'policy', 'get', '0']]) {
      const r = await viewer(...cmd);
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
    }
    const f = await oper('picmg', 'frucontrol', '0', '0');
    expect(f.exitCode).toBe(1);
    expect(f.stderr).toBe('frucontrol failed with CC code 0xd4\n');
    const id = await oper('chassis', 'identify', '1');
    expect([id.exitCode, id.stderr]).toEqual([0, '']);
  });

  it.each([
    ['an unknown command, as USER', ['raw', '0x06', '0xfe'], 'viewer', 0xc1],
    ['HPM.2 Get HPM.x Capabilities, as USER', ['raw', '0x2c', '0x3e', '0x00', '0x02'], 'viewer', 0xc1],
    ['an unknown NetFn', ['raw', '0x3e', '0x01'], 'admin', 0xc1],
    ['Get Chassis Status with a data byte', ['raw', '0x00', '0x01', '0x00'], 'admin', 0xc7],
    ['an empty PICMG request', ['raw', '0x2c', '0x00'], 'admin', 0xc7],
    ['a VITA (03h) group extension', ['raw', '0x2c', '0x00', '0x03'], 'admin', 0xc1],
    ['Set FRU Activation with state 7', ['raw', '0x2c', '0x0c', '0x00', '0x00', '0x07'], 'admin', 0xcc],
    ['Get LED Color Capabilities of LED 9', ['raw', '0x2c', '0x06', '0x00', '0x00', '0x09'], 'admin', 0xcc],
    ['an OEM command with another IANA', ['raw', '0x2e', '0x01', '0x57', '0x01', '0x00'], 'admin', 0xc1],
    ['atcasim OEM switchover as USER', ['raw', '0x2e', '0x02', '0xf0', '0xff', '0x0f'], 'viewer', 0xd4],
    ['Get Sensor Reading of a sensor 20h does not have', ['raw', '0x04', '0x2d', '0x09'], 'admin', 0xcb],
    ['a bridged request to an address with no controller', ['-t', '0x9e', '-b', '0', 'raw', '0x06', '0x01'], 'admin', 0x83],
  ])('%s → %s', async (_what, cmd, who, cc) => {
    const r = who === 'viewer' ? await viewer(...cmd) : await admin(...cmd);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`rsp=0x${cc.toString(16)}\\)`));
  });

  it('clia runs at the highest privilege the account has: USER reads, is refused a switchover (exit 1)', async () => {
    let out = '';
    let err = '';
    const io = { stdout: new Writable({ write: (c, _e, cb) => ((out += String(c)), cb()) }), stderr: new Writable({ write: (c, _e, cb) => ((err += String(c)), cb()) }) };
    const clia = (...a: string[]) => main(['node', 'atcasim', 'clia', '-p', String(port), '-U', 'viewer', '-P', 'viewpass', ...a], io);
    expect(await clia('shmstatus', '--json')).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ role: 'active' });
    out = '';
    expect(await clia('switchover')).toBe(1);
    expect(err).toMatch(/insufficient privilege level/);
  });
});

/** A watchdog port whose HA ownership the test switches. */
class TestWatchdog implements WatchdogPort {
  ownedByHa = false;
  private s: WatchdogSettings | undefined;
  running = false;
  set(s: WatchdogSettings): 'ok' {
    this.s = s;
    this.running = false;
    return 'ok';
  }
  reset(): 'ok' | 'uninitialized' {
    if (!this.s) return 'uninitialized';
    this.running = true;
    return 'ok';
  }
  get(): WatchdogState {
    const s = this.s;
    return {
      use: s?.use ?? 0,
      dontLog: s?.dontLog ?? false,
      running: this.running,
      pretimeoutInterrupt: 0,
      timeoutAction: s?.timeoutAction ?? 0,
      pretimeoutSec: 0,
      expirationFlags: 0,
      countdown: s?.countdown ?? 0,
      present: s?.countdown ?? 0,
    };
  }
}

describe('watchdog over LAN (in-process shelf with a switchable watchdog port)', () => {
  let h: ShelfHarness;
  const ports = new Map<string, TestWatchdog>();
  beforeAll(async () => {
    h = await startShelfHarness({
      ipmi: {
        watchdog: (shmc) => {
          const w = new TestWatchdog();
          ports.set(shmc, w);
          return w;
        },
      },
    });
  });
  afterAll(async () => h?.stop());
  const admin = (...rest: string[]) => as(h.port, 'admin', 'adminpass', 'ADMINISTRATOR', ...rest);
  const SET = ['raw', '0x06', '0x24', '0x04', '0x01', '0x00', '0x00', '0x64', '0x00']; // SMS/OS, hard reset, 10.0 s

  it('Get works; Set and Reset reach the active ShMC\'s watchdog while the HA machine does not own it', async () => {
    const wd = ports.get(h.shelf.activeShmc()!)!;
    expect((await admin(...SET)).exitCode).toBe(0);
    expect((await admin('mc', 'watchdog', 'reset')).exitCode).toBe(0);
    expect(wd.running).toBe(true);
    const g = await admin('mc', 'watchdog', 'get');
    expect(g.exitCode).toBe(0);
    expect(g.stdout).toMatch(/^Watchdog Timer Is:\s+Started\/Running$/m);
    expect(g.stdout).toMatch(/^Initial Countdown:\s+10\.0 sec$/m);
  });

  it('while the HA machine owns the timer: Get still works, Set and Reset answer D5h and change nothing', async () => {
    const wd = ports.get(h.shelf.activeShmc()!)!;
    wd.ownedByHa = true;
    wd.running = false;
    const set = await admin(...SET.slice(0, -2), '0xc8', '0x00');
    expect(set.exitCode).toBe(1);
    expect(set.stderr).toMatch(/rsp=0xd5\): Command not supported in present state/);
    const reset = await admin('raw', '0x06', '0x22');
    expect(reset.stderr).toMatch(/rsp=0xd5\)/);
    expect(wd.running).toBe(false);
    expect(wd.get().countdown).toBe(100);
    const g = await admin('mc', 'watchdog', 'get');
    expect([g.exitCode, g.stderr]).toEqual([0, '']);
    // bridged to the ShMC at its own IPMB address: the same watchdog, the same rule
    const b = await admin('-t', '0x10', '-b', '0', 'raw', '0x06', '0x22');
    expect(b.stderr).toMatch(/rsp=0xd5\)/);
  });
});
