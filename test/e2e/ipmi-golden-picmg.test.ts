/**
 * Every working `ipmitool picmg` subcommand, with real ipmitool 1.8.19, against the shelf manager
 * (20h) and bridged to a board IPMC (`-t 0x86 -b 0`, slot3), on `atcasim start --headless`; and
 * the M-state round trips they drive: a bridged deactivate/activate of slot3 (M4 → M6 → M1 →
 * M2 → M3 → M4) and the same through the shelf manager's FRU-ID mapping (`picmg deactivate 0x43`
 * at 20h addresses the FRU with hardware address 43h = slot3).
 * ipmitool's own broken subcommands (portstate getall/getgranted/getdenied, clk getall) are left
 * out: they send nothing (see ipmi-golden.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShelfApi } from '../../chassis/clia/shelf-api.ts';
import type { HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { ADMIN_PASSWORD, connectClia, startReferenceEmulator } from '../support/ipmi-shelf.ts';

let emu: HeadlessEmulator;
let api: ShelfApi & { close(): Promise<void> };

beforeAll(async () => {
  emu = await startReferenceEmulator();
  api = await connectClia(emu.ipmi.port);
});
afterAll(async () => {
  await api?.close().catch(() => {});
  if (emu) {
    expect(await emu.stop()).toBe(0);
    emu.cleanup();
  }
});

const ipmitool = (...rest: string[]) => runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu.ipmi.port), '-U', 'admin', '-P', ADMIN_PASSWORD, '-C', '17', ...rest]);
const state = async (fru: string) => (await api.frus()).find((f) => f.name === fru)!.state;

async function until(what: string, cond: () => Promise<boolean>, ms = 8000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Subcommand → a pattern its output must show. Run at 20h and bridged to 86h. */
const SUBCOMMANDS: Array<[string, RegExp]> = [
  ['properties', /^PICMG Ext\. Version : 2\.2$/m],
  ['addrinfo', /^Site Type {8}: (Dedicated Shelf Manager|ATCA board)$/m],
  ['addrinfo 0', /^FRU ID {11}: 0x00$/m],
  ['frucontrol 0 1', /^frucontrol: ok$/m],
  ['frucontrol 0 2', /^frucontrol: ok$/m],
  ['frucontrol 0 3', /^frucontrol: ok$/m],
  ['activate 0', /^$/],
  ['policy get 0', /^ activation not locked\n deactivation not locked$/m],
  ['policy set 0 3 0', /^$/],
  ['portstate get 0 1', /^ {6}STATE: {16}(enabled|disabled)$/m],
  ['portstate set 0 1 0 1 0 0 1', /^$/],
  ['amcportstate get 0', /^ {3}Link Type: {12}ETHERNET$/m],
  ['amcportstate set 0 0 5 0 0 1', /^$/],
  ['led prop 0', /^General Status LED Properties: {2}0x f$/m],
  ['led cap 0 2', /^LED Color Capabilities: GREEN, $/m],
  ['led get 0 0', /^LED states:\t+ {2}1\t\[LOCAL CONTROL\]$/m],
  ['led set 0 3 255 0 4', /^$/],
  ['led get 0 3', /\[LOCAL CONTROL\|OVERRIDE\]/],
  ['led set 0 3 252 0 15', /^$/],
  ['power get 0 0', /^Actual Power Level: +\d+$/m],
  ['power get 0 1', /^ {3}Power Draw 1: +\d+$/m],
  ['power get 0 2', /^Power Multiplier: +\d+$/m],
  ['power get 0 3', /^Dynamic Power Configuration: disabled$/m],
  ['power set 0 1 1', /^$/],
  ['clk set 1 0 0x08 1 0 8000 0', /^$/],
  ['clk get 1', /^ - state: {5}enabled$/m],
  ['busres summary', /^Resource 0x04 'Synch clock group 3 \(CLK3\)' : 0x01 \[No control\] $/m],
];

describe.each([
  ['the shelf manager (20h)', [] as string[]],
  ['bridged to slot3 (-t 0x86 -b 0)', ['-t', '0x86', '-b', '0']],
])('ipmitool picmg against %s', (_where, target) => {
  it.each(SUBCOMMANDS)('picmg %s', async (sub, pattern) => {
    const r = await ipmitool(...target, 'picmg', ...sub.split(' '));
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(pattern);
  });
});

describe('M-state round trips', () => {
  it('bridged: picmg deactivate / activate on slot3 (M4 → M6 → M1 → M2 → M3 → M4), causes "shelf manager"', async () => {
    await until('slot3 in M4', async () => (await state('slot3')) === 4);
    const d = await ipmitool('-t', '0x86', '-b', '0', 'picmg', 'deactivate', '0');
    expect([d.exitCode, d.stderr]).toEqual([0, '']);
    await until('slot3 in M1', async () => (await state('slot3')) === 1);
    const s = await ipmitool('sensor', 'get', 'Node3 HotSwap');
    expect(s.stdout).toMatch(/\[Transition to M1\]/);
    const a = await ipmitool('-t', '0x86', '-b', '0', 'picmg', 'activate', '0');
    expect([a.exitCode, a.stderr]).toEqual([0, '']);
    await until('slot3 back in M4', async () => (await state('slot3')) === 4);
    const hs = (await api.sel()).filter((x) => x.sensorType === 0xf0 && (x.generatorId! & 0xff) === 0x86).slice(-5);
    // [new state, cause]: M6 by the shelf manager, M1 normal, M2 by the shelf manager, M3, M4 normal
    expect(hs.map((x) => [x.eventData![0] & 0x0f, x.eventData![1] >> 4])).toEqual([
      [6, 1],
      [1, 0],
      [2, 1],
      [3, 1],
      [4, 0],
    ]);
  });

  it('through the FRU-ID mapping of 20h: picmg deactivate 0x43 takes slot3 down, activate 0x43 brings it back', async () => {
    const d = await ipmitool('picmg', 'deactivate', '0x43');
    expect([d.exitCode, d.stderr]).toEqual([0, '']);
    await until('slot3 in M1', async () => (await state('slot3')) === 1);
    expect(await state('slot4')).toBe(4);
    const a = await ipmitool('picmg', 'activate', '0x43');
    expect([a.exitCode, a.stderr]).toEqual([0, '']);
    await until('slot3 back in M4', async () => (await state('slot3')) === 4);
  });

  it('a FRU ID that names no FRU at 20h answers D3h, as a controller without that FRU does', async () => {
    const r = await ipmitool('picmg', 'activate', '0x4e');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('Error activation/deactivation of FRU.\n');
    const p = await ipmitool('picmg', 'policy', 'get', '0x4e');
    expect(p.stderr).toBe('FRU activation policy get failed with CC code 0xd3\n');
  });
});
