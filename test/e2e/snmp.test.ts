/**
 * The shelf's SNMP agent (docs/snmp.md) with the real Net-SNMP tools (Debian `snmp`, `snmptrapd`)
 * against `atcasim start --headless --snmp-port 0`, numeric OIDs (Debian ships no ENTITY MIB files):
 *
 * - an SNMPv2c walk of ENTITY-MIB's entPhysicalTable lists the shelf, every slot and bay, every FRU
 *   (names, classes, containment, serials and models from the FRU inventory) and every sensor;
 * - an SNMPv3 (SHA + AES) walk of ENTITY-SENSOR-MIB has, for every sensor `ipmitool sdr elist`
 *   prints in the same test, the same reading (value / 10^precision; the hot-swap sensor = M-state);
 * - SNMPv3 with a wrong key, a wrong privacy key or an unknown user is refused; v2c with an unknown
 *   community gets nothing; a Set is refused (read-only);
 * - a deactivation (`ipmitool picmg deactivate` to slot5's IPMC) arrives at snmptrapd as SNMPv2c
 *   and SNMPv3 notifications (M4→M6→M1), and the hot-swap table says M1 afterwards.
 * - `snmpbulkget -Cr1000000` (v2c and v3 authPriv), which hangs an unclamped net-snmp agent, is
 *   answered within snmpbulkget's own 3 s timeout with at most 64 varbinds, and the shelf still
 *   answers IPMI (`ipmitool mc info`) and SNMP afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../chassis/cli/split-setup.ts';
import { parseShelfConfig } from '../../chassis/config/shelf-config.ts';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { elist, haveSnmpTools, parseVars, snmp, snmpShelfYaml, SNMP_TEST_COMMUNITY as COMMUNITY, startTrapd, tableRows, trapdConf, type TrapReceiver } from '../support/snmp.ts';

const OPS = ['-v3', '-l', 'authPriv', '-u', 'ops', '-a', 'SHA', '-A', 'ops-auth-pass-1', '-x', 'AES', '-X', 'ops-priv-pass-1'];
const VIEWER = ['-v3', '-l', 'authNoPriv', '-u', 'viewer', '-a', 'MD5', '-A', 'viewer-auth-1'];
const ENT = '1.3.6.1.2.1.47.1.1.1.1';
const SENSOR = '1.3.6.1.2.1.99.1.1.1';
const FRU = '1.3.6.1.4.1.32473.1.1.1';

const tools = await haveSnmpTools();
const SKIP = !tools;
if (SKIP) console.log('SKIP test/e2e/snmp.test.ts: the Net-SNMP tools (Debian snmp, snmptrapd) are not installed');

let emu: HeadlessEmulator | undefined;
let trapd: TrapReceiver | undefined;
let agent = '';
let yaml = '';
const dir = mkdtempSync(join(tmpdir(), 'atcasim-snmp-'));

beforeAll(async () => {
  if (SKIP) return;
  const trapPort = await freePort('udp');
  yaml = snmpShelfYaml(trapPort);
  trapd = await startTrapd(trapPort, trapdConf(yaml));
  const file = join(dir, 'shelf.yaml');
  writeFileSync(file, yaml);
  emu = await startHeadless({ dir, args: ['--config', file, '--snmp-port', '0', '--hot-swap-step', '200ms'] });
  agent = String(emu.ready.snmp);
}, 120_000);

afterAll(async () => {
  await emu?.stop();
  await trapd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ipmitool = (...rest: string[]) => runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu!.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '-C', '17', ...rest]);

describe.skipIf(SKIP)('SNMP agent (snmpwalk, snmpget, snmptrapd)', () => {
  it('the ready line names the agent; the system group answers', async () => {
    expect(agent).toMatch(/^127\.0\.0\.1:\d+$/);
    const r = await snmp('snmpget', ['-v2c', '-c', COMMUNITY, agent, '1.3.6.1.2.1.1.5.0', '1.3.6.1.2.1.1.6.0', '1.3.6.1.2.1.1.2.0']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const v = parseVars(r.stdout);
    expect(v.get('1.3.6.1.2.1.1.5.0')!.value).toBe('atcasim-default');
    expect(v.get('1.3.6.1.2.1.1.6.0')!.value).toBe('test bench');
    expect(v.get('1.3.6.1.2.1.1.2.0')!.value).toBe('.1.3.6.1.4.1.32473.2.1');
  });

  it('ENTITY-MIB (v2c walk): the shelf, every slot and bay, every FRU with its inventory, every sensor, each contained in its parent', async () => {
    const r = await snmp('snmpwalk', ['-v2c', '-c', COMMUNITY, agent, '1.3.6.1.2.1.47.1.1.1']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const rows = tableRows(parseVars(r.stdout), ENT);
    const cfg = parseShelfConfig(yaml, 'shelf.yaml');
    const byName = new Map([...rows].map(([i, c]) => [c.get(7)!.value, { i, c }]));
    expect(rows.get(1)!.get(5)!.value).toBe('3'); // chassis
    for (const f of cfg.frus) {
      const row = byName.get(f.name);
      expect(row, f.name).toBeDefined();
      const { c } = row!;
      expect(c.get(5)!.value, `${f.name} class`).toBe(String({ shmc: 9, hub: 9, processor: 9, fan: 7, pem: 6 }[f.kind]));
      expect(c.get(16)!.value).toBe('1');
      expect(c.get(11)!.value).toBe(f.inventory.product?.serial ?? f.inventory.board?.serial ?? '');
      expect(c.get(13)!.value).toBe(f.inventory.product?.partNumber ?? '');
      const container = rows.get(Number(c.get(4)!.value))!;
      expect(container.get(5)!.value, `${f.name} sits in a container`).toBe('5');
      expect(container.get(4)!.value).toBe('1');
      for (const s of f.sensors) {
        const sr = [...rows.values()].find((x) => x.get(7)!.value === s.name && Number(x.get(4)!.value) === row!.i);
        expect(sr, `${f.name} ${s.name}`).toBeDefined();
        expect(sr!.get(5)!.value).toBe('8');
      }
    }
    expect([...rows.values()].filter((c) => c.get(5)!.value === '5' && c.get(7)!.value.startsWith('Slot '))).toHaveLength(14);
    expect([...rows.values()].filter((c) => c.get(5)!.value === '8')).toHaveLength(cfg.frus.reduce((n, f) => n + f.sensors.length, 0));
  });

  it('ENTITY-SENSOR-MIB (v3 SHA/AES walk): every sensor ipmitool sdr elist prints, with the same reading', async () => {
    const [walk, ent, sdr] = await Promise.all([
      snmp('snmpwalk', [...OPS, agent, '1.3.6.1.2.1.99.1.1.1']),
      snmp('snmpwalk', [...OPS, agent, `${ENT}.7`]),
      ipmitool('sdr', 'elist'),
    ]);
    expect([walk.code, walk.stderr, ent.code, sdr.exitCode]).toEqual([0, '', 0, 0]);
    const names = new Map([...parseVars(ent.stdout)].map(([oid, v]) => [Number(oid.split('.').at(-1)), v.value]));
    const sensors = [...tableRows(parseVars(walk.stdout), SENSOR)].map(([i, c]) => ({ name: names.get(i)!, value: Number(c.get(4)!.value) / 10 ** Number(c.get(3)!.value), type: Number(c.get(1)!.value), status: c.get(5)!.value }));
    const ipmi = elist(sdr.stdout);
    expect(ipmi.length).toBeGreaterThanOrEqual(38);
    for (const s of ipmi) {
      const match = sensors.filter((x) => x.name === s.name);
      expect(match.length, s.name).toBeGreaterThan(0);
      // ipmitool prints 2 decimals (0 for whole numbers): equal within its rounding
      for (const m of match) expect(Math.abs(m.value - s.reading), `${s.name}: SNMP ${m.value}, IPMI ${s.reading}`).toBeLessThanOrEqual(0.005);
    }
    expect(new Set(sensors.map((s) => s.name))).toEqual(new Set(ipmi.map((s) => s.name)));
    expect(sensors.find((s) => s.name === 'Node3 12V')).toMatchObject({ value: 11.7, type: 4, status: '1' });
    expect(sensors.find((s) => s.name === 'Hub2 3.3V')!.value).toBeCloseTo(3.22, 2);
    expect(sensors.find((s) => s.name === 'Node3 HotSwap')).toMatchObject({ value: 4, type: 13 });
  });

  it('SNMPv3 authNoPriv (MD5) reads; a wrong key, a wrong privacy key, an unknown user are refused; an unknown community gets nothing; Set is refused', async () => {
    const ok = await snmp('snmpget', [...VIEWER, agent, '1.3.6.1.2.1.1.5.0']);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const quick = ['-r', '0', '-t', '1'];
    const wrongKey = await snmp('snmpget', [...VIEWER.slice(0, -1), 'wrong-auth-key', ...quick, agent, '1.3.6.1.2.1.1.5.0']);
    expect(wrongKey.code).not.toBe(0);
    expect(wrongKey.stdout + wrongKey.stderr).toMatch(/Timeout|Authentication failure/);
    const wrongPriv = await snmp('snmpget', [...OPS.slice(0, -1), 'wrong-priv-key', ...quick, agent, '1.3.6.1.2.1.1.5.0']);
    expect(wrongPriv.code).not.toBe(0);
    expect(wrongPriv.stdout).not.toMatch(/atcasim-default/);
    const unknown = await snmp('snmpget', ['-v3', '-l', 'authNoPriv', '-u', 'nobody', '-a', 'SHA', '-A', 'nobody-pass-1', ...quick, agent, '1.3.6.1.2.1.1.5.0']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/Unknown user name/);
    const noAuth = await snmp('snmpget', ['-v3', '-l', 'noAuthNoPriv', '-u', 'ops', ...quick, agent, '1.3.6.1.2.1.1.5.0']);
    expect(noAuth.code).not.toBe(0);
    const community = await snmp('snmpget', ['-v2c', '-c', 'public', ...quick, agent, '1.3.6.1.2.1.1.5.0']);
    expect(community.code).not.toBe(0);
    expect(community.stdout + community.stderr).toMatch(/Timeout/);
    const set = await snmp('snmpset', ['-v2c', '-c', COMMUNITY, ...quick, agent, '1.3.6.1.2.1.1.5.0', 's', 'renamed']);
    expect(set.code).not.toBe(0);
    expect(set.stdout + set.stderr).toMatch(/notWritable|noAccess|not writable/i);
  });

  it('a deactivation arrives at snmptrapd (v2c and v3): M4→M6→M1 of slot5; the hot-swap table says M1', async () => {
    const r = await ipmitool('-b', '0', '-t', '0x8a', 'picmg', 'deactivate', '0');
    expect(r.exitCode, r.stderr).toBe(0);
    const step = (state: number, prev: number) =>
      new RegExp(`\\.1\\.3\\.6\\.1\\.6\\.3\\.1\\.1\\.4\\.1\\.0 = OID: \\.1\\.3\\.6\\.1\\.4\\.1\\.32473\\.0\\.1\\|\\.1\\.3\\.6\\.1\\.2\\.1\\.47\\.1\\.1\\.1\\.1\\.7\\.105000 = STRING: "slot5"\\|\\.1\\.3\\.6\\.1\\.4\\.1\\.32473\\.1\\.1\\.1\\.1\\.105000 = INTEGER: ${state}\\|\\.1\\.3\\.6\\.1\\.4\\.1\\.32473\\.1\\.1\\.1\\.3\\.105000 = INTEGER: ${prev}\\|`);
    await trapd!.waitFor(step(1, 6), 20_000);
    const out = trapd!.output();
    // Set FRU Activation (deactivate) takes M4 straight to M6 (PICMG 3.0 §3.2.4.2.2), then M1
    for (const [state, prev] of [[6, 4], [1, 6]] as const) {
      const blocks = out.split('TRAP ').filter((b) => step(state, prev).test(b));
      expect(blocks.some((b) => /^TRAP2, SNMP v2c, community traps-community\n/.test(b)), `v2c M${prev}→M${state}`).toBe(true);
      expect(blocks.some((b) => /^TRAP2, SNMP v3, user ops,/.test(b)), `v3 M${prev}→M${state}\n${out.slice(-2000)}`).toBe(true);
    }
    const g = await snmp('snmpget', ['-v2c', '-c', COMMUNITY, agent, `${FRU}.1.105000`, `${FRU}.2.105000`, `${FRU}.3.105000`]);
    expect([...parseVars(g.stdout).values()].map((v) => v.value)).toEqual(['1', 'M1', '6']);
  });

  it('snmpbulkget -Cr1000000 (v2c, v3 authPriv) is answered with at most 64 varbinds; IPMI and SNMP still answer', async () => {
    const quick = ['-r', '0', '-t', '3'];
    for (const auth of [['-v2c', '-c', COMMUNITY], OPS]) {
      const r = await snmp('snmpbulkget', [...auth, ...quick, '-Cn0', '-Cr1000000', agent, '1.3.6.1.2.1.1'], 30_000);
      expect([r.code, r.stderr], auth[0]).toEqual([0, '']);
      const lines = r.stdout.trim().split('\n');
      expect(lines.length, auth[0]).toBeLessThanOrEqual(64);
      expect(lines[0]).toMatch(/^\.1\.3\.6\.1\.2\.1\.1\.1\.0 = STRING: "atcasim shelf manager/);
    }
    const mc = await ipmitool('mc', 'info');
    expect([mc.exitCode, mc.stdout]).toEqual([0, expect.stringMatching(/Device ID/)]);
    const g = await snmp('snmpget', ['-v2c', '-c', COMMUNITY, ...quick, agent, '1.3.6.1.2.1.1.5.0']);
    expect([g.code, parseVars(g.stdout).get('1.3.6.1.2.1.1.5.0')?.value]).toEqual([0, 'atcasim-default']);
  });
});
