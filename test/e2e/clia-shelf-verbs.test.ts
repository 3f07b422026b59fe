/**
 * The Pigeon Point verbs of `atcasim clia` beyond the first set — showunhealthy, alarm,
 * getthreshold/setthreshold, shelf (info, power, cooling), user, getlanconfig/setlanconfig,
 * version — against a running emulator (`atcasim start --headless`), text, --json and exit status,
 * with ipmitool (`sensor get`, `user list`, `lan print`, `mc info`, a login as the new user) as the
 * oracle for what the shelf really holds after each change.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../chassis/main.ts';
import type { HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { ADMIN_PASSWORD, startReferenceEmulator } from '../support/ipmi-shelf.ts';

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

async function cliaAs(user: string, password: string, ...args: string[]): Promise<Out> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) }),
    stderr: new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) }),
  };
  const code = await main(['node', 'atcasim', 'clia', '-p', String(emu.ipmi.port), '-U', user, '-P', password, '--timeout', '3000', ...args], io);
  return { code, stdout, stderr };
}
const clia = (...args: string[]) => cliaAs('admin', ADMIN_PASSWORD, ...args);

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const r = await clia(...args, '--json');
  expect([r.code, r.stderr], `clia ${args.join(' ')}`).toEqual([0, '']);
  return JSON.parse(r.stdout) as T;
}

const ipmitool = (args: string[], user = 'admin', password = ADMIN_PASSWORD) =>
  runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu.ipmi.port), '-U', user, '-P', password, '-C', '17', ...args]);

async function until(what: string, cond: () => Promise<boolean>, ms = 15000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const stateOf = async (fru: string) => (await json<Array<{ state: string }>>('fru', fru))[0]!.state;

describe('health', () => {
  it('showunhealthy: none at first; a faulted board with its reason; none again after repair', async () => {
    expect(await clia('showunhealthy')).toEqual({ code: 0, stdout: 'There are no unhealthy components in the shelf\n', stderr: '' });
    expect(await json('showunhealthy')).toEqual([]);
    expect((await clia('inject', 'fault', 'slot6')).code).toBe(0);
    const t = await clia('showunhealthy');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^Unhealthy components in the shelf:\n8c: FRU # 0 {2}slot6 {2}"Node6"/);
    // the fault deactivates the board on its own (M6, cause unexpected deactivation, then M1)
    expect(t.stdout).toMatch(/^ {4}Unhealthy: payload fault(; last change: unexpected deactivation)?$/m);
    const j = await json<Array<{ name: string; reasons: string[] }>>('showunhealthy');
    expect(j.map((x) => [x.name, x.reasons[0]])).toEqual([['slot6', 'payload fault']]);
    expect((await clia('repair', 'slot6')).code).toBe(0);
    await until('slot6 back in M4', async () => (await stateOf('slot6')) === 'M4');
    expect((await clia('showunhealthy')).stdout).toBe('There are no unhealthy components in the shelf\n');
  }, 60_000);

  it('alarm: a sensor past its thresholds raises major, then critical; the operator sets and clears outputs', async () => {
    expect((await clia('inject', 'sensor', 'slot3', 'Node3', 'Temp', '85')).code).toBe(0);
    let t = await clia('alarm');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^TELCO alarms: Minor: off, Major: on, Critical: off$/m);
    expect(t.stdout).toMatch(/^ {4}major {4}slot3: "Node3 Temp" cr$/m);
    await clia('inject', 'sensor', 'slot3', 'Node3', 'Temp', '95');
    const j = await json<{ outputs: string[]; alarms: Array<{ severity: string; source: string; alarm: string }> }>('alarm');
    expect(j.outputs).toContain('critical');
    expect(j.alarms).toContainEqual({ severity: 'critical', source: 'slot3', alarm: '"Node3 Temp" nr' });
    await clia('inject', 'sensor', 'slot3', 'Node3', 'Temp', '48');
    expect((await json<{ alarms: Array<{ source: string }> }>('alarm')).alarms.filter((a) => a.source === 'slot3')).toEqual([]);
    t = await clia('alarm', 'minor');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^alarm minor: command executed successfully\nTELCO alarms: Minor: on, /);
    expect(t.stdout).toMatch(/^Set by the operator: minor$/m);
    await clia('alarm', 'critical');
    expect((await json<{ operator: string[] }>('alarm')).operator).toEqual(['minor', 'critical']);
    await clia('alarm', 'clear', 'minor');
    expect((await json<{ operator: string[] }>('alarm')).operator).toEqual(['critical']);
    await clia('alarm', 'clear');
    expect((await json<{ operator: string[] }>('alarm')).operator).toEqual([]);
    const bad = await clia('alarm', 'loud');
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/"loud" is not minor, major, critical or clear/)]);
  }, 60_000);

  it('version: the shelf manager\'s firmware, as ipmitool mc info reports it', async () => {
    const t = await clia('version');
    expect(t.code).toBe(0);
    const fw = /^Firmware Revision\s*: (\S+)$/m.exec((await ipmitool(['mc', 'info'])).stdout)![1];
    expect(t.stdout).toMatch(new RegExp(`^Shelf manager shmc-a: firmware ${fw!.replace('.', '\\.')}, IPMI 2\\.0, PICMG 2\\.2$`, 'm'));
    expect(await json('version')).toMatchObject({ client: '0.1.0', shelf_manager: 'shmc-a', firmware: fw });
  });
});

describe('thresholds', () => {
  it('getthreshold lists what ipmitool sensor get shows; setthreshold changes it there', async () => {
    const t = await clia('getthreshold', 'slot3', 'Node3', 'Temp');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^86: LUN: 0, Sensor # 1 \("Node3 Temp"\)\n {4}Type: Threshold \(0x01\)\n {4}Upper Non-Recoverable Threshold, Raw Data: 0x5a, Processed Data: 90 degrees C\n/);
    expect(t.stdout).toMatch(/^ {4}Lower Critical Threshold: not readable$/m);
    const s = await clia('setthreshold', 'slot3', 'Node3', 'Temp', 'uc', '77');
    expect([s.code, s.stdout]).toEqual([0, 'slot3 "Node3 Temp": Upper Critical Threshold set to 77 degrees C (raw 0x4d)\n']);
    expect((await ipmitool(['sensor', 'get', 'Node3 Temp'])).stdout).toMatch(/^ Upper Critical\s+: 77\.000$/m);
    expect((await json<{ thresholds: Record<string, { value: number } | null> }>('getthreshold', 'slot3', 'Node3', 'Temp')).thresholds).toMatchObject({ uc: { value: 77 }, unc: { value: 70 }, lc: null });
    expect((await clia('setthreshold', 'slot3', 'Node3', 'Temp', 'uc', '-r', '80')).code).toBe(0);
    expect((await ipmitool(['sensor', 'get', 'Node3 Temp'])).stdout).toMatch(/^ Upper Critical\s+: 80\.000$/m);
  }, 60_000);

  it.each([
    [['setthreshold', 'slot3', 'Node3', 'Temp', 'lc', '5'], 1, /slot3 "Node3 Temp" has no Lower Critical threshold/],
    [['setthreshold', 'slot3', 'Node3', 'Temp', 'uc', '900'], 2, /900 is outside the range of slot3 "Node3 Temp": 0 to 255 degrees C/],
    [['setthreshold', 'slot3', 'Node3', 'Temp', 'hot', '50'], 2, /"hot" is not one of unr, uc, unc, lnr, lc, lnc/],
    [['getthreshold', 'slot3', 'Nope'], 1, /slot3 has no sensor "Nope"/],
    [['getthreshold', 'slot3', 'Node3', 'HotSwap'], 1, /is a discrete sensor: it has no thresholds/],
  ])('clia %j → exit %i', async (args, code, message) => {
    const r = await clia(...args);
    expect([r.code, r.stderr]).toEqual([code, expect.stringMatching(message)]);
  });
});

describe('the shelf', () => {
  it('shelf info: address, shelf managers, FRUs by kind and state', async () => {
    const t = await clia('shelf');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^Shelf Address: "atcasim-default"$/m);
    expect(t.stdout).toMatch(/^Shelf managers: shmc-a \(active\), shmc-b \(standby\.hot\)$/m);
    expect(t.stdout).toMatch(/^FRUs: 13 \(2 ShMC, 2 hub, 4 processor boards, 3 fan trays, 2 PEMs\)$/m);
    expect(await json('shelf', 'info')).toMatchObject({ shelf_address: 'atcasim-default', frus: { shmc: 2, hub: 2, processor: 4, fan: 3, pem: 2 } });
  });

  it('shelf power: the budget, and the draw falls by a board\'s watts when it is deactivated', async () => {
    type P = { budget_w: number; used_w: number; pems_supplying: number; frus: Array<{ fru: string; watts: number }> };
    const before = await json<P>('shelf', 'power');
    expect(before.pems_supplying).toBe(2);
    expect(before.used_w).toBe(before.frus.reduce((n, f) => n + f.watts, 0));
    const t = await clia('shelf', 'power');
    expect(t.stdout).toMatch(new RegExp(`^Power budget: ${before.budget_w} W from 2 PEMs; drawn: ${before.used_w} W; available: ${before.budget_w - before.used_w} W$`, 'm'));
    const slot5 = before.frus.find((f) => f.fru === 'slot5')!.watts;
    expect(slot5).toBeGreaterThan(0);
    expect((await clia('deactivate', 'slot5')).code).toBe(0);
    await until('slot5 in M1', async () => (await stateOf('slot5')) === 'M1');
    expect((await json<P>('shelf', 'power')).used_w).toBe(before.used_w - slot5);
    expect((await clia('activate', 'slot5')).code).toBe(0);
    await until('slot5 in M4', async () => (await stateOf('slot5')) === 'M4');
  }, 60_000);

  it('shelf cooling: Normal, Minor Alert past a non-critical threshold, Major Alert past a critical one', async () => {
    expect((await clia('shelf', 'cooling')).stdout).toMatch(/^Cooling state: Normal\n {4}fan1: level \d+ \(0\.\.15\)/);
    await clia('inject', 'sensor', 'slot4', 'Node4', 'Temp', '72');
    expect((await clia('shelf', 'cooling_state')).stdout).toMatch(/^Cooling state: Minor Alert$/m);
    await clia('inject', 'sensor', 'slot4', 'Node4', 'Temp', '82');
    const j = await json<{ cooling_state: string; temperatures: Array<{ name: string; state: string }> }>('shelf', 'cooling');
    expect(j.cooling_state).toBe('Major Alert');
    expect(j.temperatures.find((x) => x.name === 'Node4 Temp')!.state).toBe('Major Alert');
    await clia('inject', 'sensor', 'slot4', 'Node4', 'Temp', '46');
    expect((await json<{ cooling_state: string }>('shelf', 'cooling')).cooling_state).toBe('Normal');
    expect((await clia('shelf', 'fuel')).code).toBe(2);
  }, 60_000);
});

describe('users and the LAN channel', () => {
  it('user add / list / priv / disable / delete, seen by ipmitool and by a login as that user', async () => {
    const add = await clia('user', 'add', '6', 'night-op', 'user', 'Night-shift-42');
    expect([add.code, add.stdout]).toEqual([0, 'user add 6: user "night-op" added with privilege USER, enabled\n']);
    expect((await clia('user')).stdout).toMatch(/^6 {3}night-op {9}yes {6}yes {7}USER$/m);
    expect((await ipmitool(['user', 'list', '1'])).stdout).toMatch(/^6\s+night-op\s+true\s+false\s+true\s+USER$/m);
    // the new account logs in, reads, and is refused an operator's change (exit 1)
    expect((await cliaAs('night-op', 'Night-shift-42', 'shmstatus')).code).toBe(0);
    expect((await cliaAs('night-op', 'Night-shift-42', 'alarm', 'minor')).code).toBe(1);
    expect((await clia('user', 'priv', '6', 'operator')).code).toBe(0);
    expect((await ipmitool(['user', 'list', '1'])).stdout).toMatch(/^6\s+night-op\s+.*OPERATOR$/m);
    expect((await cliaAs('night-op', 'Night-shift-42', 'alarm', 'clear')).code).toBe(0);
    expect((await clia('user', 'passwd', '6', 'Day-shift-43')).code).toBe(0);
    expect((await ipmitool(['-L', 'OPERATOR', 'mc', 'info'], 'night-op', 'Day-shift-43')).exitCode).toBe(0);
    expect((await clia('user', 'disable', '6')).code).toBe(0);
    expect((await cliaAs('night-op', 'Day-shift-43', 'shmstatus')).code).toBe(2); // login refused
    expect((await clia('user', 'delete', '6')).code).toBe(0);
    expect((await json<Array<{ id: number }>>('user')).map((u) => u.id)).not.toContain(6);
  }, 90_000);

  it.each([
    [['user', 'add', '7', 'weak', 'user', 'weak'], 1],
    [['user', 'add', '99', 'x', 'user', 'Long-enough-1'], 2],
    [['user', 'priv', '7', 'king'], 2],
    [['user', 'fly', '7'], 2],
  ])('clia %j → exit %i', async (args, code) => {
    expect((await clia(...args)).code).toBe(code);
  });

  it('getlanconfig shows what ipmitool lan print shows; setlanconfig changes it there', async () => {
    const g = await clia('getlanconfig');
    expect(g.code).toBe(0);
    expect(g.stdout).toMatch(/^IP Address: 127\.0\.0\.1$/m);
    expect(g.stdout).toMatch(/^RMCP\+ Cipher Suites: 3,17$/m);
    expect((await clia('getlanconfig', '1', 'subnet_mask')).stdout).toBe('Subnet Mask: 0.0.0.0\n');
    expect((await clia('setlanconfig', 'subnet_mask', '255.255.255.0')).stdout).toBe('Subnet Mask set: 255.255.255.0\n');
    expect((await clia('setlanconfig', '1', 'dft_gw_ip', '127.0.0.254')).code).toBe(0);
    expect((await clia('setlanconfig', 'vlan_id', '42')).code).toBe(0);
    const lan = (await ipmitool(['lan', 'print', '1'])).stdout;
    expect(lan).toMatch(/^Subnet Mask\s+: 255\.255\.255\.0$/m);
    expect(lan).toMatch(/^Default Gateway IP\s+: 127\.0\.0\.254$/m);
    expect(lan).toMatch(/^802\.1q VLAN ID\s+: 42$/m);
    expect(await json('getlanconfig', 'vlan_id')).toEqual({ vlan_id: '42' });
    await clia('setlanconfig', 'vlan_id', 'off');
    expect((await ipmitool(['lan', 'print', '1'])).stdout).toMatch(/^802\.1q VLAN ID\s+: Disabled$/m);
  }, 60_000);

  it.each([
    [['setlanconfig', 'subnet_mask', '255.255.0'], 2, /"255\.255\.0" is not an IPv4 address/],
    [['setlanconfig', 'cipher_suites', '3'], 2, /cipher_suites is read-only/],
    [['setlanconfig', '2', 'ip', '10.0.0.1'], 1, /channel 2 is not a LAN channel/],
    [['getlanconfig', 'speed'], 2, /unknown parameter "speed"/],
  ])('clia %j → exit %i', async (args, code, message) => {
    const r = await clia(...args);
    expect([r.code, r.stderr]).toEqual([code, expect.stringMatching(message)]);
  });
});
