/**
 * Every SEL record the shelf writes can be named: real ipmitool 1.8.19 `sel elist` (it looks up the
 * SDR by generator address, sensor number and sensor type), FreeIPMI `ipmi-sel` and `atcasim clia
 * sel` print a sensor name, never `#0xNN`, after the records that used to have no SDR record:
 * a ShMC switchover by `ipmitool picmg deactivate 0` (HA role records of both ShMCs, hot-swap
 * records the deactivated ShMC writes from its own address 10h/12h), a processor board hang that
 * its IPMI watchdog resets (Watchdog 2 record, role changes of the boards), and a fault and its
 * repair (Module/Board health records); and a board deactivated and activated, whose records all
 * carry its IPMC's generator ID, one HA role record per state change of each share. The ShMCs'
 * own sensors at 10h/12h answer Get Sensor Reading through bridging (`sdr elist` prints their
 * readings).
 */
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShelfApi } from '../../chassis/clia/shelf-api.ts';
import { main } from '../../chassis/main.ts';
import type { HeadlessEmulator } from '../support/headless.ts';
import { ADMIN_PASSWORD, connectClia, startReferenceEmulator } from '../support/ipmi-shelf.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

let emu: HeadlessEmulator;
let api: ShelfApi & { close(): Promise<void> };
let deactivated = '';

const ipmitool = async (...args: string[]) =>
  (await run('ipmitool', ['-I', 'lanplus', '-C', '17', '-H', '127.0.0.1', '-p', String(emu.ipmi.port), '-U', 'admin', '-P', ADMIN_PASSWORD, ...args], { timeout: 60_000 })).stdout;
const state = async (fru: string) => (await api.frus()).find((f) => f.name === fru)!.state;

beforeAll(async () => {
  emu = await startReferenceEmulator({ stdinCommands: true });
  api = await connectClia(emu.ipmi.port);
  // the ShMC pair settled: a planned deactivation of the active one needs a hot standby
  await until('the peer ShMC standby.hot', async () => (await api.shmStatus()).peerRole === 'standby.hot');
  await sleep(500);
  deactivated = (await api.shmStatus()).self;
  await ipmitool('picmg', 'deactivate', '0');
  await until(`${deactivated} in M1`, async () => (await state(deactivated)) === 1);
  // a processor board hangs: its watchdog resets it, the buddy takes its share over
  await emu.send('hang slot3');
  await until('the Watchdog 2 record of slot3', async () => (await api.sel()).some((r) => r.sensorType === 0x23 && (r.generatorId! & 0xff) === 0x86));
  // a fault and its repair
  await emu.send('fault fan3 payload');
  await until('fan3 in M1', async () => (await state('fan3')) === 1);
  await emu.send('repair fan3');
}, 120_000);

afterAll(async () => {
  await api?.close().catch(() => {});
  if (emu) {
    expect(await emu.stop()).toBe(0);
    emu.cleanup();
  }
});

describe('SEL records name their sensors', () => {
  it('ipmitool sel elist: a name for every record, none printed as #0xNN', async () => {
    const lines = (await ipmitool('sel', 'elist')).trimEnd().split('\n');
    const recs = await api.sel(); // read after: the HA layer may have logged more meanwhile
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.length).toBeLessThanOrEqual(recs.length);
    expect(lines.filter((l) => /#0x[0-9a-f]{2}/i.test(l))).toEqual([]);
    const text = lines.join('\n');
    expect(text).toMatch(/\| Watchdog2 Node3 Watchdog \| Hard reset \| Asserted$/m);
    expect(text).toMatch(/\| Module \/ Board Node4 HA Role \| Transition to On Line \| Asserted$/m);
    expect(text).toMatch(/\| Module \/ Board Node3 HA Role \| Transition to Power Off \| Asserted$/m); // resetting
    expect(text).toMatch(/\| Management Subsys Health ShMC HA Role \| Transition to On Line \| Asserted$/m);
    const label = deactivated === 'shmc-a' ? 'ShMC-A' : 'ShMC-B';
    expect(text).toMatch(new RegExp(`\\| Management Subsys Health ${label} HA Role \\| Transition to Off Line \\| Asserted$`, 'm'));
    expect(text).toMatch(/\| Module \/ Board Fan3 Health \| Transition to Critical from less severe \| Asserted$/m);
    expect(text).toMatch(/\| Module \/ Board Fan3 Health \| Transition to OK \| Asserted$/m);
    // the deactivated ShMC's M6 → M1 step was logged by it at its own address (10h/12h)
    const own = deactivated === 'shmc-a' ? 0x10 : 0x12;
    const m1 = recs.filter((r) => r.sensorType === 0xf0 && (r.generatorId! & 0xff) === own && (r.eventData![0] & 0x0f) === 1).at(-1);
    expect(m1).toBeDefined();
    const line = lines.find((l) => parseInt(l.split('|')[0]!.trim(), 16) === m1!.recordId);
    expect(line).toMatch(/\| FRU Hot Swap ShMC HotSwap \| Transition to M1 \| Asserted$/);
  });

  it('FreeIPMI ipmi-sel: every record\'s sensor name is an ID string of the SDR', async () => {
    const ids = new Set(
      (await ipmitool('sdr', 'elist', 'all'))
        .trimEnd()
        .split('\n')
        .map((l) => l.split('|')[0]!.trim()),
    );
    const { stdout } = await run(
      'ipmi-sel',
      ['-h', `127.0.0.1:${emu.ipmi.port}`, '-u', 'admin', '-p', ADMIN_PASSWORD, '-D', 'LAN_2_0', '-W', 'opensesspriv', '--quiet-cache', '--sdr-cache-recreate'],
      { timeout: 60_000, env: { ...process.env, HOME: emu.dir } },
    );
    const rows = stdout.trimEnd().split('\n').slice(1).map((l) => l.split('|').map((s) => s.trim()));
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.length).toBeLessThanOrEqual((await api.sel()).length);
    expect(rows.filter((r) => !ids.has(r[3]!)).map((r) => r.join(' | '))).toEqual([]);
    expect(rows.map((r) => r[3])).toEqual(expect.arrayContaining(['Node3 Watchdog', 'Node4 HA Role', 'Fan3 Health', 'ShMC HotSwap']));
  });

  it('atcasim clia sel: the same names', async () => {
    let stdout = '';
    const io = { stdout: new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) }), stderr: new Writable({ write: (_c, _e, cb) => cb() }) };
    expect(await main(['node', 'atcasim', 'clia', '-p', String(emu.ipmi.port), '-P', ADMIN_PASSWORD, 'sel'], io)).toBe(0);
    expect(stdout.split('\n').filter((l) => l.includes('#0x'))).toEqual([]);
    expect(stdout).toMatch(/Watchdog 2 Node3 Watchdog \| Hard reset \| Asserted$/m);
  });

  it('the ShMCs\' own sensors at 10h/12h are read through bridging', async () => {
    const loc = await ipmitool('sdr', 'elist', 'mcloc');
    expect(loc).toMatch(/^ShMC\s+\| 00h \| ok\s+\| 240\.96 \| Dynamic MC @ 20h$/m);
    expect(loc).toMatch(/^ShMC-A\s+\| 00h \| ok\s+\| 240\.96 \| Dynamic MC @ 10h$/m);
    expect(loc).toMatch(/^ShMC-B\s+\| 00h \| ok\s+\| 240\.96 \| Dynamic MC @ 12h$/m);
    const out = await ipmitool('sdr', 'elist');
    // 20h, 10h and 12h: the same sensors, each with a reading from its own controller
    expect(out.match(/^ShMC Temp\s+\| 01h \| ok\s+\| 240\.96 \| \d+ degrees C$/gm)).toHaveLength(3);
    expect(out.match(/^ShMC HotSwap\s+\| 02h \| ok\s+\| 240\.96 \| Transition to M\d$/gm)).toHaveLength(3);
  });

  it('slot4 deactivated and activated: every record about it comes from its IPMC (88h), one per state change of each HA share', async () => {
    const before = Math.max(0, ...(await api.sel()).map((r) => r.recordId));
    await ipmitool('-t', '0x88', '-b', '0', 'picmg', 'deactivate', '0');
    await until('slot4 in M1', async () => (await state('slot4')) === 1);
    await ipmitool('-t', '0x88', '-b', '0', 'picmg', 'activate', '0');
    await until('slot4 in M4', async () => (await state('slot4')) === 4);
    await until('slot4 standby again in its shares', async () => (await api.sel()).some((r) => r.recordId > before && (r.generatorId! & 0xff) === 0x88 && r.sensorNumber === 0xfd && (r.eventData![0] & 0x0f) === 0x05), 30_000);
    await sleep(1000);
    const recs = (await api.sel()).filter((r) => r.recordId > before);
    const lines = new Map((await ipmitool('sel', 'elist')).trimEnd().split('\n').map((l) => [parseInt(l.split('|')[0]!.trim(), 16), l] as const));
    const node4 = recs.filter((r) => / Node4 /.test(lines.get(r.recordId) ?? ''));
    // M6, M1, M2, M3, M4 and the role changes of both of its shares
    expect(node4.filter((r) => r.sensorType === 0xf0).map((r) => r.eventData![0] & 0x0f)).toEqual([6, 1, 2, 3, 4]);
    expect(node4.length).toBeGreaterThan(6);
    expect(node4.filter((r) => (r.generatorId! & 0xff) !== 0x88).map((r) => lines.get(r.recordId))).toEqual([]);
    // every record is named, and no HA role record repeats the state its share already had
    expect(recs.filter((r) => /#0x[0-9a-f]{2}/i.test(lines.get(r.recordId) ?? '#0x??'))).toEqual([]);
    const last = new Map<string, number>();
    for (const r of recs.filter((x) => x.sensorNumber === 0xfd)) {
      const key = `${r.generatorId}/${r.eventData![2]}`;
      expect(last.get(key), `${lines.get(r.recordId)} (share ${r.eventData![2]})`).not.toBe(r.eventData![0] & 0x0f);
      last.set(key, r.eventData![0] & 0x0f);
    }
  }, 90_000);
});
