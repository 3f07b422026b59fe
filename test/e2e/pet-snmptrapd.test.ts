/**
 * PEF alerts as real Platform Event Traps: the shelf's IPMI face in process with its PET sender
 * (chassis/io/pet-sender.ts, net-snmp SNMPv1) pointed at a real `snmptrapd` (Debian snmptrapd) on
 * a free port; PEF configured the way an operator would — `ipmitool lan alert set` for the
 * destination, Set PEF Configuration Parameters sent raw for the filter and the alert policy —
 * then a threshold crossing injected with `atcasim clia inject`. snmptrapd prints an SNMPv1 trap
 * with the PET enterprise OID and the specific trap of that sensor and event, and the variable
 * binding decodes to that sensor, generator and SEL record. `ipmitool pef status`, `pef policy
 * list`, `lan alert print` and FreeIPMI `ipmi-pef-config --checkout` read the configuration back
 * without errors; ipmitool refuses a destination 255.255.255.255 (the shelf answers CCh).
 * Needs ipmitool, freeipmi-tools and snmptrapd (a visible SKIP without snmptrapd).
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../board/common/logger.ts';
import { PetSender } from '../../chassis/io/pet-sender.ts';
import { decodePet } from '../../chassis/ipmi/pef/pet.ts';
import { main } from '../../chassis/main.ts';
import { ADMIN_PASSWORD, startShelfHarness, type ShelfHarness } from '../support/ipmi-shelf.ts';

const run = promisify(execFile);
const SKIP = spawnSync('sh', ['-c', 'command -v snmptrapd']).status !== 0;
if (SKIP) console.log('SKIP test/e2e/pet-snmptrapd.test.ts: snmptrapd (Debian snmptrapd) is not installed');

let h: ShelfHarness | undefined;
let sender: PetSender | undefined;
let trapd: ChildProcess | undefined;
let out = '';
let dir = '';

function freeUdpPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.bind(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

const ipmitool = async (...args: string[]) => {
  try {
    const r = await run('ipmitool', ['-I', 'lanplus', '-C', '17', '-H', '127.0.0.1', '-p', String(h!.port), '-U', 'admin', '-P', ADMIN_PASSWORD, ...args], { timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? 1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
};
const hex = (bytes: number[]) => bytes.map((b) => `0x${b.toString(16).padStart(2, '0')}`);

async function waitOut(re: RegExp, ms = 15_000): Promise<RegExpExecArray> {
  const end = Date.now() + ms;
  for (;;) {
    const m = re.exec(out);
    if (m) return m;
    if (Date.now() > end) throw new Error(`snmptrapd printed no ${re}; got:\n${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'atcasim-pet-'));
  const port = await freeUdpPort();
  writeFileSync(join(dir, 'snmptrapd.conf'), 'disableAuthorization yes\n');
  trapd = spawn(
    'snmptrapd',
    ['-f', '-Lo', '-C', '-c', join(dir, 'snmptrapd.conf'), '-On', '-m', '', '-p', join(dir, 'pid'), '-F', 'PET enterprise=%N generic=%w specific=%q community=%P\n%v\n', `udp:127.0.0.1:${port}`],
    { env: { ...process.env, SNMP_PERSISTENT_DIR: dir, MIBS: '', MIBDIRS: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  trapd.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  trapd.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  await waitOut(/NET-SNMP version/, 10_000);
  sender = new PetSender({ trapPort: port, log: captureLogger() });
  h = await startShelfHarness({ ipmi: { alerts: sender } });
  // destination 1: a PET trap to 127.0.0.1
  expect((await ipmitool('lan', 'alert', 'set', '1', '1', 'ipaddr', '127.0.0.1')).code).toBe(0);
  expect((await ipmitool('lan', 'alert', 'set', '1', '1', 'type', 'pet')).code).toBe(0);
  // filter 1: Node3 Temp (86h, sensor 1), threshold events, alert with policy 1, severity critical
  const filter = [0x01, 0xc0, 0x01, 0x01, 0x10, 0x86, 0xff, 0x01, 0x01, 0x01, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  expect((await ipmitool('raw', '0x04', '0x12', '0x06', ...hex(filter))).code).toBe(0);
  expect((await ipmitool('raw', '0x04', '0x12', '0x09', ...hex([0x01, 0x18, 0x11, 0x00]))).code).toBe(0);
  expect((await ipmitool('raw', '0x04', '0x12', '0x02', '0x01')).code).toBe(0);
  expect((await ipmitool('raw', '0x04', '0x12', '0x01', '0x01')).code).toBe(0);
}, 60_000);

afterAll(async () => {
  sender?.close();
  await h?.stop();
  trapd?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('PEF alerts as PETs to a real snmptrapd', () => {
  it('clia inject of a threshold crossing: an SNMPv1 PET naming that sensor and event', async () => {
    let stdout = '';
    const io = { stdout: new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) }), stderr: new Writable({ write: (_c, _e, cb) => cb() }) };
    expect(await main(['node', 'atcasim', 'clia', '-p', String(h!.port), '-P', ADMIN_PASSWORD, 'inject', 'sensor', 'slot3', 'Node3', 'Temp', '75'], io)).toBe(0);
    expect(stdout).toMatch(/Node3 Temp/);
    // snmptrapd prints the specific trap as ".N", the community inside its security text, and the hex string over several lines
    const m = await waitOut(/PET enterprise=(\S+) generic=(\d+) specific=\.?(\d+) community=.*community (\S+)\n([\s\S]*?C1 ?\n)/);
    expect(m[1]).toBe('.1.3.6.1.4.1.3183.1.1');
    expect(m[2]).toBe('6');
    expect(m[4]).toBe('public');
    const rec = h!.shelf.sel.records().filter((r) => r.generatorId === 0x86 && r.sensorNumber === 1).at(-1)!;
    expect(rec.eventData![0] & 0x0f).toBe(0x07); // upper non-critical going high
    expect(Number(m[3])).toBe((0x01 << 16) | (0x01 << 8) | 0x07); // temperature, threshold, UNC going high
    const vb = /\.1\.3\.6\.1\.4\.1\.3183\.1\.1\.1 = Hex-STRING: ([0-9A-F \n]+)/.exec(m[5]!);
    expect(vb, m[5]).not.toBeNull();
    const bytes = Uint8Array.from(vb![1]!.trim().split(/\s+/).map((x) => parseInt(x, 16)));
    expect(decodePet(bytes)).toMatchObject({ severity: 0x10, sensorDevice: 0x86, sensorNumber: 1, entityId: 0xa0, eventData: rec.eventData, unixTime: rec.timestamp });
  }, 60_000);

  it('ipmitool pef status, pef policy list, lan alert print and ipmi-pef-config --checkout read it back', async () => {
    const status = await ipmitool('pef', 'status');
    expect([status.code, status.stderr]).toEqual([0, '']);
    const policy = await ipmitool('pef', 'policy', 'list');
    expect(policy.code).toBe(0);
    expect(policy.stdout).toMatch(/^ *1 \| 1 \| enabled/m);
    const alert = await ipmitool('lan', 'alert', 'print', '1', '1');
    expect(alert.code).toBe(0);
    expect(alert.stdout).toMatch(/Destination Type\s+: PET Trap/);
    expect(alert.stdout).toMatch(/Alert IP Address\s+: 127\.0\.0\.1/);
    const fi = await run('ipmi-pef-config', ['-h', `127.0.0.1:${h!.port}`, '-u', 'admin', '-p', ADMIN_PASSWORD, '-D', 'LAN_2_0', '-l', 'ADMIN', '--checkout'], { timeout: 60_000, env: { ...process.env, HOME: dir } });
    expect(fi.stderr).toBe('');
    expect(fi.stdout).toMatch(/Enable_PEF\s+Yes/);
    expect(fi.stdout).toMatch(/Alert_IP_Address\s+127\.0\.0\.1/);
  }, 60_000);

  it('a senseless destination is refused and changes nothing', async () => {
    // ipmitool's `lan alert set` does not report the refusal (it exits 0): the address stays, and the raw command shows CCh
    await ipmitool('lan', 'alert', 'set', '1', '1', 'ipaddr', '255.255.255.255');
    expect((await ipmitool('lan', 'alert', 'print', '1', '1')).stdout).toMatch(/Alert IP Address\s+: 127\.0\.0\.1/);
    const dest = await ipmitool('raw', '0x0c', '0x01', '0x01', '19', '0x01', '0x00', '0x00', '255', '255', '255', '255', '0', '0', '0', '0', '0', '0');
    expect(dest.stderr).toMatch(/rsp=0xcc/);
    const raw = await ipmitool('raw', '0x04', '0x12', '0x06', '0x11', ...hex(new Array(20).fill(0)));
    expect(raw.code).not.toBe(0);
    expect(raw.stderr).toMatch(/rsp=0xc9/);
  }, 60_000);
});
