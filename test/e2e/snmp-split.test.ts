/**
 * SNMP in split mode (docs/snmp.md, docs/split.md): `atcasim start --split --headless --snmp-port
 * 0`. The active ShMC's process serves the agent (its maintenance status says so and it holds the
 * port), with the rows the shelf sends over the bus; after `kill -9` of that process the new active
 * serves the same address — a v2c walk of ENTITY-SENSOR-MIB and a v3 read answer again — and a
 * deactivation is then notified from the new active to snmptrapd.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../chassis/cli/split-setup.ts';
import { maintRequest } from '../../chassis/io/shmc-maint.ts';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { haveSnmpTools, parseVars, snmp, snmpShelfYaml, SNMP_TEST_COMMUNITY as COMMUNITY, startTrapd, trapdConf, type TrapReceiver } from '../support/snmp.ts';

const OPS = ['-v3', '-l', 'authPriv', '-u', 'ops', '-a', 'SHA', '-A', 'ops-auth-pass-1', '-x', 'AES', '-X', 'ops-priv-pass-1'];
const NODES = ['shmc-a', 'shmc-b'] as const;
const SKIP = !(await haveSnmpTools());
if (SKIP) console.log('SKIP test/e2e/snmp-split.test.ts: the Net-SNMP tools (Debian snmp, snmptrapd) are not installed');

const dir = mkdtempSync(join(tmpdir(), 'atcasim-snmp-split-'));
let emu: HeadlessEmulator | undefined;
let trapd: TrapReceiver | undefined;
let agent = '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Status = { node: string; pid: number; role: string; snmp: string | null };
async function status(node: (typeof NODES)[number]): Promise<Status | undefined> {
  const maint = (emu!.ready.maint as Record<string, number>)[node]!;
  try {
    return (await maintRequest('127.0.0.1', maint, { op: 'status' }, 1000)) as Status;
  } catch {
    return undefined;
  }
}

async function active(): Promise<Status> {
  for (let i = 0; i < 100; i++) {
    const s = (await Promise.all(NODES.map(status))).filter((x): x is Status => x?.role === 'active');
    if (s.length === 1 && s[0]!.snmp) return s[0]!;
    await sleep(100);
  }
  throw new Error('no active ShMC serving SNMP');
}

/** The pid holding UDP `port` (ss -ulpn). */
function holder(port: number): number | undefined {
  const out = execFileSync('ss', ['-H', '-ulpn', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(out);
  return m ? Number(m[1]) : undefined;
}

beforeAll(async () => {
  if (SKIP) return;
  const trapPort = await freePort('udp');
  const yaml = snmpShelfYaml(trapPort);
  trapd = await startTrapd(trapPort, trapdConf(yaml));
  const file = join(dir, 'shelf.yaml');
  writeFileSync(file, yaml);
  emu = await startHeadless({ dir, args: ['--split', '--config', file, '--snmp-port', '0', '--hot-swap-step', '200ms'], readyTimeoutMs: 90_000 });
  agent = String(emu.ready.snmp);
}, 120_000);

afterAll(async () => {
  await emu?.stop();
  await trapd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const walkValues = async () => {
  const r = await snmp('snmpwalk', ['-v2c', '-c', COMMUNITY, agent, '1.3.6.1.2.1.99.1.1.1.4']);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseVars(r.stdout);
};

describe.skipIf(SKIP)('SNMP in split mode', () => {
  it('the active ShMC process serves it on the ready line\'s address; the standby does not', async () => {
    expect(agent).toMatch(/^127\.0\.0\.1:\d+$/);
    const a = await active();
    expect(a.snmp).toBe(agent);
    expect(holder(Number(agent.split(':')[1]))).toBe(a.pid);
    // The standby's maintenance port may miss one 1 s deadline on a loaded machine: ask again.
    let other: Status | undefined;
    for (let i = 0; i < 10 && other === undefined; i++) other = await status(a.node === 'shmc-a' ? 'shmc-b' : 'shmc-a');
    expect(other?.snmp).toBeNull();
    const v = await walkValues();
    expect(v.get('1.3.6.1.2.1.99.1.1.1.4.103003')?.value).toBe('117'); // Node3 12V 11.7 V, precision 1
    expect(v.size).toBe(38);
  });

  it('kill -9 of the active: the new active serves the same address (v2c walk, v3 read) within the failover bound', async () => {
    const before = await active();
    process.kill(before.pid, 'SIGKILL');
    const t0 = performance.now();
    let ms = -1;
    while (performance.now() - t0 < 10_000) {
      const r = await snmp('snmpget', ['-v2c', '-c', COMMUNITY, '-r', '0', '-t', '0.2', agent, '1.3.6.1.2.1.1.5.0']);
      if (r.code === 0) {
        ms = performance.now() - t0;
        break;
      }
    }
    expect(ms, 'SNMP answered again').toBeGreaterThanOrEqual(0);
    const after = await active();
    expect(after.node).not.toBe(before.node);
    expect(holder(Number(agent.split(':')[1]))).toBe(after.pid);
    expect((await walkValues()).get('1.3.6.1.2.1.99.1.1.1.4.103003')?.value).toBe('117');
    const v3 = await snmp('snmpget', [...OPS, agent, '1.3.6.1.2.1.1.5.0']);
    expect([v3.code, parseVars(v3.stdout).get('1.3.6.1.2.1.1.5.0')?.value]).toEqual([0, 'atcasim-default']);
    console.log(`snmp split: the new active (${after.node}) answered ${Math.round(ms)} ms after kill -9 of ${before.node}`);
  });

  it('a deactivation after the failover reaches snmptrapd from the new active', async () => {
    const r = await runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu!.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '-C', '17', '-b', '0', '-t', '0x8c', 'picmg', 'deactivate', '0']);
    expect(r.exitCode, r.stderr).toBe(0);
    await trapd!.waitFor(/SNMP v3, user ops.*\n[^\n]*47\.1\.1\.1\.1\.7\.106000 = STRING: "slot6"\|[^\n]*32473\.1\.1\.1\.1\.106000 = INTEGER: 1\|/, 20_000);
    await trapd!.waitFor(/community traps-community\n[^\n]*"slot6"\|[^\n]*32473\.1\.1\.1\.1\.106000 = INTEGER: 1\|/, 5_000);
  });
});
