/**
 * The shelf under OpenHPI 3.8: `openhpid` with its ATCA `ipmidirect` plugin over RMCP (IPMI 1.5,
 * MD5) against `atcasim start --headless`, read with the OpenHPI clients, compared with what
 * ipmitool reads from the same shelf:
 *
 * - a resource for every FRU of the default shelf (ShMCs, hubs, processor boards, fan trays,
 *   PEMs) at its site's entity path, tagged with the FRU's device ID string, hot-swap state Active;
 * - its threshold sensors (`hpisensor`) read what `ipmitool sdr elist` reads;
 * - its inventory (`hpiinv`) holds the fields `ipmitool fru print` prints;
 * - slot4 deactivated and activated over IPMI: `hpievents` shows ACTIVE → EXTRACTION_PENDING →
 *   INACTIVE → INSERTION_PENDING → ACTIVE for it;
 * - a cold reset through HPI (`hpi_shell reset`) reaches slot5: its console prints the restart;
 * - the processor boards' and ShMCs' watchdogs are HPI watchdogs (`hpi_shell wdtget`).
 *
 * Known and left as is: the plugin also makes a resource of every MC device locator record in the
 * shelf manager's SDR repository, under the shelf manager's entity path (docs/ipmi.md), so
 * resources beyond the FRUs' appear at {SHELF_MANAGER,0}; they are not compared here.
 * Needs the Debian packages openhpid, openhpi-clients, openhpi-plugin-ipmidirect and ipmitool
 * (a visible SKIP otherwise).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShelfConfig } from '../../chassis/config/shelf-config.ts';
import type { FruConfig } from '../../chassis/config/types.ts';
import { readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { openHpiInstalled, parseLsres, parseTreeRpts, startOpenHpi, type OpenHpi } from '../support/openhpi.ts';

const SKIP = !openHpiInstalled();
if (SKIP) console.log('SKIP test/e2e/openhpi.test.ts: OpenHPI is not installed (Debian openhpid, openhpi-clients, openhpi-plugin-ipmidirect)');

const FRUS: FruConfig[] = parseShelfConfig(readDefaultShelfYaml(), 'default-shelf.yaml').frus;

/** The entity path ipmidirect gives a FRU's resource: its site, then the FRU entity (instance 0). */
function entityPath(f: FruConfig): string {
  const site = { shmc: 'SHELF_MANAGER_SLOT', hub: 'PHYSICAL_SLOT', processor: 'PHYSICAL_SLOT', fan: 'FAN_TRAY_SLOT', pem: 'POWER_SLOT' }[f.kind];
  const entity = { shmc: 'SHELF_MANAGER', hub: 'PICMG_FRONT_BLADE', processor: 'PICMG_FRONT_BLADE', fan: 'COOLING_UNIT', pem: 'POWER_SUPPLY' }[f.kind];
  return `{SYSTEM_CHASSIS,1}{${site},${f.siteNumber}}{${entity},0}`;
}

let emu: HeadlessEmulator | undefined;
let hpi: OpenHpi | undefined;
let dir = '';
/** FRU name → HPI resource ID. */
const rid = new Map<string, number>();

const ipmitool = (args: string[]) =>
  runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu!.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '-C', '17', ...args]);

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'atcasim-openhpi-'));
  emu = await startHeadless({ args: ['--hot-swap-step', '500ms'] });
  hpi = await startOpenHpi({ ipmiPort: emu.ipmi.port, user: TEST_ADMIN.user, password: TEST_ADMIN.password, dir });
  // discovery runs in the daemon's plugin thread: wait until every FRU's resource is there
  const want = new Map(FRUS.map((f) => [entityPath(f), f]));
  const end = Date.now() + 120_000;
  for (;;) {
    const tree = parseTreeRpts((await hpi.client(['hpitree', '-r'])).stdout);
    for (const r of tree) {
      const f = want.get(r.path);
      if (f) rid.set(f.name, r.id);
    }
    if (rid.size === FRUS.length) break;
    if (Date.now() > end) throw new Error(`OpenHPI found ${rid.size} of ${FRUS.length} FRU resources: ${tree.map((r) => r.path).join(' ')}\n${hpi.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}, 180_000);

afterAll(async () => {
  await hpi?.stop();
  if (emu) await emu.stop();
  emu?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** ipmitool `sdr elist all`: FRU label → threshold sensor name → reading (number), by the MC locator each sensor follows. */
async function ipmitoolReadings(): Promise<Map<string, Map<string, number>>> {
  const out = (await ipmitool(['sdr', 'elist', 'all'])).stdout;
  const byAddr = new Map(FRUS.map((f) => [f.ipmbAddress, f.label]));
  const res = new Map<string, Map<string, number>>();
  let cur: Map<string, number> | undefined;
  for (const line of out.split('\n')) {
    const cols = line.split('|').map((c) => c.trim());
    if (cols.length < 5) continue;
    const mc = /Dynamic MC @ ([0-9A-F]{2})h/.exec(cols[4]!);
    if (mc) {
      const label = byAddr.get(parseInt(mc[1]!, 16));
      cur = label ? new Map() : undefined;
      if (label) res.set(label, cur!);
      continue;
    }
    const v = /^(-?\d+(?:\.\d+)?) (?:degrees C|Volts|RPM|Watts|Amps)$/.exec(cols[4]!);
    if (cur && v) cur.set(cols[0]!, Number(v[1]));
  }
  return res;
}

/** hpisensor: entity path → sensor name → reading (number). */
async function hpiReadings(): Promise<Map<string, Map<string, number>>> {
  const out = (await hpi!.client(['hpisensor'])).stdout;
  const res = new Map<string, Map<string, number>>();
  let cur: Map<string, number> | undefined;
  for (const line of out.split('\n')) {
    const ep = /^Entity Path: (\S+)/.exec(line);
    if (ep) {
      cur = new Map();
      res.set(ep[1]!, cur);
      continue;
    }
    const s = /Sensor\[\s*\d+\] (.*?)\s*= (-?\d+(?:\.\d+)?) /.exec(line);
    if (cur && s) cur.set(s[1]!, Number(s[2]));
  }
  return res;
}

/** The inventory fields both tools name, as [ipmitool label, hpiinv area, hpiinv field]. */
const INVENTORY_FIELDS: ReadonlyArray<[string, string, string]> = [
  ['Board Mfg', 'Board', 'Manufacturer'],
  ['Board Product', 'Board', 'Product Name'],
  ['Board Serial', 'Board', 'Serial Number'],
  ['Board Part Number', 'Board', 'Part Number'],
  ['Product Manufacturer', 'Product', 'Manufacturer'],
  ['Product Name', 'Product', 'Product Name'],
  ['Product Part Number', 'Product', 'Part Number'],
  ['Product Version', 'Product', 'Product Versn'],
  ['Product Serial', 'Product', 'Serial Number'],
  ['Product Asset Tag', 'Product', 'Asset Tag'],
  ['Chassis Part Number', 'Chassis', 'Part Number'],
  ['Chassis Serial', 'Chassis', 'Serial Number'],
];

describe.skipIf(SKIP)('OpenHPI (openhpid + ipmidirect over RMCP, MD5) manages the shelf', () => {
  it('a resource per FRU at its site, tagged with its device ID string, hot-swap state Active', async () => {
    expect(rid.size).toBe(FRUS.length);
    const res = parseLsres((await hpi!.shell(['lsres'])).stdout);
    const cmds = FRUS.flatMap((f) => [`hs ${rid.get(f.name)}`, 'state', 'q']);
    const states = [...(await hpi!.shell(cmds)).stdout.matchAll(/Hot Swap State: (\w+)/g)].map((m) => m[1]);
    for (const f of FRUS) {
      const r = res.find((x) => x.id === rid.get(f.name));
      expect(r?.tag, f.name).toBe(f.label);
      expect(r?.caps, f.name).toEqual(expect.arrayContaining(['S', 'INV', 'FRU', 'HS']));
    }
    expect(states).toEqual(FRUS.map(() => 'Active'));
  }, 60_000);

  it('hpisensor reads what ipmitool sdr elist reads, for every threshold sensor of every FRU', async () => {
    const [a, h] = [await ipmitoolReadings(), await hpiReadings()];
    let compared = 0;
    for (const f of FRUS) {
      const want = a.get(f.label);
      expect(want?.size, `${f.name}: ipmitool threshold sensors`).toBeGreaterThan(0);
      const got = h.get(entityPath(f));
      for (const [name, v] of want!) {
        expect(got?.get(name), `${f.name} ${name}`).toBeCloseTo(v, 2);
        compared++;
      }
    }
    expect(compared).toBe(FRUS.reduce((n, f) => n + f.sensors.filter((s) => s.kind === 'threshold').length, 0));
  }, 60_000);

  it('hpiinv holds the inventory ipmitool fru print prints', async () => {
    const fru = (await ipmitool(['fru', 'print'])).stdout;
    const byLabel = new Map<string, Map<string, string>>();
    for (const block of fru.split(/\n(?=FRU Device Description)/)) {
      const label = /^FRU Device Description : (.*?)\s*$/m.exec(block)?.[1];
      if (!label) continue;
      const m = new Map<string, string>();
      for (const l of block.matchAll(/^ (\S.*?)\s+: (.*?)\s*$/gm)) m.set(l[1]!, l[2]!);
      byLabel.set(label, m);
    }
    const inv = (await hpi!.client(['hpiinv'])).stdout;
    for (const f of FRUS) {
      const want = byLabel.get(f.label);
      expect(want, `${f.name} in fru print`).toBeDefined();
      // hpiinv prints the path leaf first and leaves the ATCA-specific entity type names blank: match the tag and the site
      const at = new RegExp(`^Resource\\[\\d+\\] Tag: ${f.label}\\s+has inventory capability\\n\\{[A-Z_]*:0\\} \\{[A-Z_]*:${f.siteNumber}\\} \\{SYSTEM_CHASSIS:1\\} \\{ROOT:0\\}`);
      const block = inv.split(/\n(?=Resource\[)/).find((b) => at.test(b));
      expect(block, `${f.name} in hpiinv`).toBeDefined();
      let compared = 0;
      for (const [ipmiLabel, area, field] of INVENTORY_FIELDS) {
        const v = want!.get(ipmiLabel);
        if (v === undefined) continue;
        const areaText = block!.split(/\n(?=AreaId)/).find((x) => x.includes(`${area} Area`)) ?? '';
        const got = new RegExp(`FieldId\\[\\d+\\] ${field.replace(/ /g, '\\s')}\\s*: TEXT : (.*?)\\s*$`, 'm').exec(areaText)?.[1];
        expect(got, `${f.name} ${ipmiLabel}`).toBe(v);
        compared++;
      }
      expect(compared, f.name).toBeGreaterThanOrEqual(8);
    }
  }, 60_000);

  it('slot4 deactivated and activated over IPMI: hpievents shows its hot-swap states in order', async () => {
    // line-buffered, or the events sit in hpievents' stdout buffer until it exits
    const ev = spawn('stdbuf', ['-oL', 'hpievents', '-t', '90'], { env: { ...process.env, OPENHPI_DAEMON_HOST: '127.0.0.1', OPENHPI_DAEMON_PORT: String(hpi!.port) } });
    let out = '';
    ev.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const waitOut = async (re: RegExp, ms: number) => {
      const end = Date.now() + ms;
      while (!re.test(out)) {
        if (Date.now() > end) throw new Error(`hpievents: timed out waiting for ${re}; got ${out.slice(-1500)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    try {
      await waitOut(/Go and get the event/, 30_000);
      expect((await ipmitool(['-t', '0x88', '-b', '0', 'picmg', 'deactivate', '0'])).exitCode).toBe(0);
      await waitOut(/HotSwapState: INACTIVE/, 30_000);
      expect((await ipmitool(['-t', '0x88', '-b', '0', 'picmg', 'activate', '0'])).exitCode).toBe(0);
      await waitOut(/HotSwapState: ACTIVE\s+PreviousHotSwapState: INSERTION_PENDING/, 30_000);
    } finally {
      ev.kill('SIGTERM');
    }
    const slot4 = FRUS.find((f) => f.name === 'slot4')!;
    const seen = out
      .split(/\n(?=\s*Event Type: )/)
      .filter((b) => /Event Type: HOTSWAP/.test(b) && b.includes(`From Resource: ${entityPath(slot4)}`))
      .map((b) => `${/PreviousHotSwapState: (\w+)/.exec(b)?.[1]}→${/\sHotSwapState: (\w+)/.exec(b)?.[1]}`);
    expect(seen).toEqual(['ACTIVE→EXTRACTION_PENDING', 'EXTRACTION_PENDING→INACTIVE', 'INACTIVE→INSERTION_PENDING', 'INSERTION_PENDING→ACTIVE']);
  }, 120_000);

  it('a cold reset through HPI reaches slot5: its console prints the restart and the banner', async () => {
    const path = emu!.ready.consoles['slot5']!;
    const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
    let got = '';
    port.on('data', (b: Buffer) => (got += b.toString('latin1')));
    try {
      const r = await hpi!.shell([`reset ${rid.get('slot5')} cold`]);
      expect(r.exitCode).toBe(0);
      const end = Date.now() + 20_000;
      while (!/restarting system[\s\S]*processor board firmware[\s\S]*\(Node5\)/.test(got)) {
        if (Date.now() > end) throw new Error(`slot5 console: no restart seen; got ${JSON.stringify(got.slice(-500))}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await new Promise((r) => port.close(() => r(undefined)));
    }
  }, 60_000);

  it('the processor boards and the ShMCs have HPI watchdogs (hpi_shell wdtget)', async () => {
    const withWd = FRUS.filter((f) => f.kind === 'processor' || f.kind === 'shmc');
    const res = parseLsres((await hpi!.shell(['lsres'])).stdout);
    for (const f of withWd) expect(res.find((r) => r.id === rid.get(f.name))?.caps, f.name).toContain('WDT');
    const out = (await hpi!.shell(withWd.map((f) => `wdtget ${rid.get(f.name)} 0`))).stdout;
    const timers = [...out.matchAll(/Watchdogtimer \((\d+)\/0\): Log=\w+\s+(Running|Stopped)[\s\S]*?InitialCount = (\d+)\s+PresentCount = (\d+)/g)];
    expect(timers.map((m) => Number(m[1]))).toEqual(withWd.map((f) => rid.get(f.name)));
    for (const m of timers) expect(Number(m[3])).toBeGreaterThan(0);
    // the same timer over IPMI: slot3's, which its HA firmware kicks, counting down between kicks
    const wd = (await ipmitool(['-t', '0x86', '-b', '0', 'mc', 'watchdog', 'get'])).stdout;
    expect(wd).toMatch(/Watchdog Timer Is:\s+Started\/Running/);
    const initial = Number(/Initial Countdown:\s+([\d.]+) sec/.exec(wd)?.[1]);
    const present = Number(/Present Countdown:\s+([\d.]+) sec/.exec(wd)?.[1]);
    expect(initial).toBeGreaterThan(0);
    expect(present).toBeGreaterThan(0);
    expect(present).toBeLessThanOrEqual(initial);
  }, 60_000);
});
