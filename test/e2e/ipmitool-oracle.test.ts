// Real ipmitool as the judge of atcasim's encodings: OpenIPMI's ipmi_sim is loaded with the SDR
// records, SEL records and FRU image that atcasim's own shelf produces (all sensors re-homed to one
// controller at 20h, so every reading is local), and `ipmitool sdr list`, `sel elist` and
// `fru print 0` must print the shelf's names, units, linearised readings, hot-swap and threshold
// events, and inventory strings; `sdr elist event` lists the event-only sensor records and `sel elist`
// names the HA role, health and watchdog records through them. ipmi_sim only stores and serves the bytes; the decoding is
// ipmitool's. (The IPMI LAN server itself is tested elsewhere, against atcasim.)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerRecords } from '../../chassis/model/sdr-build.ts';
import { eventSensor } from '../../chassis/sensors/event-sensors.ts';
import { encodeFruInventory } from '../../chassis/sensors/fru.ts';
import { encodeSdr } from '../../chassis/sensors/sdr.ts';
import { encodeSelRecord } from '../../chassis/sensors/sel.ts';
import { rig, type Rig } from '../support/shelf-fixture.ts';

function which(cmd: string): string | undefined {
  for (const d of (process.env.PATH ?? '').split(':')) if (existsSync(join(d, cmd))) return join(d, cmd);
  return undefined;
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((res) => s.bind(0, '127.0.0.1', () => res()));
  const port = s.address().port;
  await new Promise<void>((res) => s.close(() => res()));
  return port;
}

const hex = (b: Uint8Array) => [...b].map((x) => `0x${x.toString(16).padStart(2, '0')}`).join(' ');

/** ipmi_sim emulator commands holding the shelf's records, with sensors renumbered under 20h. */
function emulatorScript(r: Rig): { script: string; names: string[]; eventOnly: string[]; selIds: number[] } {
  const lines = ['atca_enable', 'mc_setbmc 0x20', 'atca_set_site 0x10 3 1', 'mc_add 0x20 0x00 no-device-sdrs 0x01 0x02 0x10 0xbf 0x00315a 0x0001', 'sel_enable 0x20 1000 0x0a'];
  const renumber = new Map<string, number>();
  const names: string[] = [];
  const eventOnly: string[] = [];
  const eventOnlyKeys = new Set<string>();
  const selIds: number[] = [];
  let n = 1;
  for (const fru of r.shelf.fruNames()) {
    if (fru === 'shmc-b') continue; // its sensors are the same as the active ShMC's, listed once under 20h
    const cfg = r.shelf.fruConfig(fru);
    for (const rec of controllerRecords(cfg, 0x20, cfg.label, true)) {
      if (rec.type === 'mc-locator') {
        if (fru === 'shmc-a') lines.push(`main_sdr_add 0x20 ${hex(encodeSdr(rec))}`);
        continue;
      }
      const num = n++;
      const owner = fru === 'shmc-a' ? 0x20 : cfg.ipmbAddress;
      renumber.set(`${owner}/${rec.sensorNumber}`, num);
      lines.push(`main_sdr_add 0x20 ${hex(encodeSdr({ ...rec, sensorNumber: num }))}`);
      if (rec.type === 'event-only') {
        eventOnlyKeys.add(`${owner}/${rec.sensorNumber}`);
        eventOnly.push(rec.idString); // no reading: nothing for ipmi_sim to simulate
        continue;
      }
      names.push(rec.idString);
      const v = r.shelf.sensors.get(fru, rec.sensorNumber);
      if (rec.type === 'full') {
        lines.push(`sensor_add 0x20 0 ${num} ${rec.sensorType} 0x01`);
        lines.push(`sensor_set_event_support 0x20 0 ${num} enable scanning per-state 000101010000000 000101010000000 000101010000000 000101010000000`);
        lines.push(`sensor_set_value 0x20 0 ${num} ${v.raw} 0`);
      } else {
        lines.push(`sensor_add 0x20 0 ${num} 0xf0 0x6f`);
        lines.push(`sensor_set_event_support 0x20 0 ${num} enable scanning per-state 000000011111111 000000000000000 000000011111111 000000000000000`);
        lines.push(`sensor_set_bit_clr_rest 0x20 0 ${num} ${v.raw} 1 0`);
      }
    }
  }
  const fru = encodeFruInventory(r.shelf.fruConfig('shmc-a').inventory);
  lines.push(`mc_add_fru_data 0x20 0 ${fru.length} data ${hex(fru)}`);
  for (const rec of r.shelf.sel.records()) {
    const key = `${rec.generatorId! & 0xff}/${rec.sensorNumber}`;
    const num = renumber.get(key);
    if (num === undefined) continue; // shmc-b's own records (IPMB 12h)
    // compared text by text below (ipmitool spells the event-only sensors' types its own way:
    // "Module / Board", "Watchdog2"); those are checked by name in their own test
    if (!eventOnlyKeys.has(key)) selIds.push(rec.recordId);
    lines.push(`sel_add 0x20 ${hex(encodeSelRecord({ ...rec, generatorId: 0x20, sensorNumber: num }).subarray(2))}`);
  }
  lines.push('mc_enable 0x20');
  return { script: `${lines.join('\n')}\n`, names, eventOnly, selIds };
}

describe('ipmitool decodes the SDR, SEL and FRU bytes atcasim produces', () => {
  const ipmiSim = which('ipmi_sim');
  const dir = mkdtempSync(join(tmpdir(), 'atcasim-oracle-'));
  let sim: ChildProcess | undefined;
  let port = 0;
  let r: Rig;
  let names: string[] = [];
  let eventOnly: string[] = [];
  let selIds: number[] = [];
  const ipmitool = (...args: string[]) =>
    execFileSync('ipmitool', ['-I', 'lanplus', '-H', '127.0.0.1', '-p', String(port), '-U', 'admin', '-P', 'oracle-pass', '-C', '3', ...args], { encoding: 'utf8', timeout: 30_000 });

  beforeAll(async () => {
    if (!ipmiSim) throw new Error('ipmi_sim not found: install the Debian package "openipmi" (the project\'s tool list includes it)');
    r = rig();
    r.shelf.hotSwap.openHandle('slot3');
    r.run(2000); // slot3: M4 → M5 → M6 → M1
    r.shelf.sensors.setValue('slot4', 'Node4 Temp', 83);
    r.shelf.fans.setLevel('fan2', 3); // 6000 RPM × 3/8 = 2250 RPM: below the lower non-critical 2500
    // the records the HA layer and fault injection write: role, health, watchdog (as ha-part logs it)
    r.shelf.roles.set('slot4', 'active', 3, { share: 'lb1/slot4' });
    r.shelf.hotSwap.injectFault('slot3', 'payload'); // slot3 is in M1: the record only
    r.shelf.sel.log({ generatorId: 0x88, sensorType: 0x23, sensorNumber: eventSensor(r.shelf.fruConfig('slot4'), 'watchdog')!.number, eventDirType: 0x6f, eventData: [0xc1, 0x01, 0xff] });
    const emu = emulatorScript(r);
    names = emu.names;
    eventOnly = emu.eventOnly;
    selIds = emu.selIds;
    port = await freeUdpPort();
    mkdirSync(join(dir, 'state'));
    writeFileSync(join(dir, 'shelf.emu'), emu.script);
    writeFileSync(
      join(dir, 'lan.conf'),
      `name "atcasim-oracle"\nset_working_mc 0x20\n  startlan 1\n    addr 127.0.0.1 ${port}\n    priv_limit admin\n    allowed_auths_admin md5\n    guid a1b2c3d4e5f60718293a4b5c6d7e8f90\n  endlan\n  user 2 true "admin" "oracle-pass" admin 4 md5\n`,
    );
    sim = spawn(ipmiSim, ['-c', 'lan.conf', '-f', 'shelf.emu', '-s', 'state', '-n'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    // wait until it answers
    for (let i = 0; i < 50; i++) {
      try {
        ipmitool('mc', 'info');
        return;
      } catch {
        await new Promise((res) => setTimeout(res, 200));
      }
    }
    throw new Error(`ipmi_sim did not answer on 127.0.0.1:${port} (lan.conf:\n${readFileSync(join(dir, 'lan.conf'), 'utf8')})`);
  }, 60_000);

  afterAll(() => {
    sim?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('sdr list: every sensor with its name, its linearised reading and unit', () => {
    const rows = ipmitool('sdr', 'list').trimEnd().split('\n').map((l) => l.split('|').map((s) => s.trim()));
    expect(rows.map((x) => x[0])).toEqual(names);
    const by = new Map(rows.map((x) => [x[0], x[1]]));
    expect(by.get('ShMC Temp')).toBe('42 degrees C');
    expect(by.get('Hub1 12V')).toBe('12 Volts');
    expect(by.get('Hub1 3.3V')).toBe('3.30 Volts');
    expect(by.get('Node4 Temp')).toBe('83 degrees C');
    expect(by.get('Fan1 Speed')).toBe('6000 RPM');
    expect(by.get('Fan2 Speed')).toBe('2250 RPM');
    expect(by.get('PEM1 Feed')).toBe('48 Volts');
    expect(by.get('Node3 HotSwap')).toBe('0x02'); // M1
    expect(by.get('Node4 HotSwap')).toBe('0x10'); // M4
  });

  it('sdr get: entity, nominal reading, hysteresis and threshold masks come from the full sensor record', () => {
    const out = ipmitool('sdr', 'get', 'Node3 12V');
    expect(out).toContain('Entity ID             : 160.96 (PICMG Front Board)');
    expect(out).toContain('Sensor Type (Threshold)  : Voltage (0x02)');
    expect(out).toContain('Nominal Reading       : 12.000');
    expect(out).toContain('Positive Hysteresis   : 0.100');
    expect(out).toContain('Negative Hysteresis   : 0.100');
    expect(out).toContain('Readable Thresholds   : lcr lnc unc ucr');
    expect(out).toContain('Settable Thresholds   : lcr lnc unc ucr');
  });

  it('sel elist: hot-swap and threshold events read as atcasim describes them', () => {
    const lines = ipmitool('sel', 'elist').trimEnd().split('\n');
    const ours = r.shelf
      .sel.records()
      .filter((x) => selIds.includes(x.recordId))
      .map((x) => r.shelf.sel.describe(x).split('|').map((s) => s.trim()).slice(0, 3));
    // ipmi_sim logs its own "Transition to M4" events when the emulator script sets the Hot Swap
    // sensors; atcasim's records follow them.
    const events = lines
      .map((l) => l.split('|').slice(3).map((s) => s.trim()))
      .filter((e) => !eventOnly.some((n) => e[0]!.endsWith(` ${n}`)))
      .slice(-ours.length);
    expect(events.map((e) => e.slice(0, 3))).toEqual(ours);
    expect(events).toContainEqual(['FRU Hot Swap Node3 HotSwap', 'Transition to M5', 'Asserted']);
    expect(events).toContainEqual(['FRU Hot Swap Node3 HotSwap', 'Transition to M1', 'Asserted']);
    expect(events).toContainEqual(['Temperature Node4 Temp', 'Upper Critical going high', 'Asserted', 'Reading 83 > Threshold 80 degrees C']);
    expect(events).toContainEqual(['Fan Fan2 Speed', 'Lower Non-critical going low', 'Asserted', 'Reading 2250 < Threshold 2500 RPM']);
  });

  it('sdr elist event: one event-only record per watchdog, HA role and health sensor', () => {
    const rows = ipmitool('sdr', 'elist', 'event').trimEnd().split('\n').map((l) => l.split('|').map((s) => s.trim()));
    expect(rows.map((x) => x[0])).toEqual(eventOnly);
    expect(rows.every((x) => x[4] === 'Event-Only')).toBe(true);
    expect(eventOnly).toEqual(expect.arrayContaining(['ShMC-A Watchdog', 'ShMC-A HA Role', 'ShMC-A Health', 'Node4 HA Role', 'Fan1 Health']));
  });

  it('sel elist: HA role, health and watchdog records are named by their event-only records', () => {
    const events = ipmitool('sel', 'elist').trimEnd().split('\n').map((l) => l.split('|').slice(3).map((s) => s.trim()));
    expect(events).toContainEqual(['Module / Board Node4 HA Role', 'Transition to On Line', 'Asserted']);
    expect(events).toContainEqual(['Module / Board Node3 Health', 'Transition to Critical from less severe', 'Asserted']);
    expect(events).toContainEqual(['Watchdog2 Node4 Watchdog', 'Hard reset', 'Asserted']);
    expect(events.filter((e) => e[0]!.includes('#0x'))).toEqual([]);
  });

  it('fru print 0: the inventory strings of the shelf manager', () => {
    const out = ipmitool('fru', 'print', '0');
    for (const line of [
      'Chassis Type          : Rack Mount Chassis',
      'Chassis Part Number   : ATCA-SHELF-PN',
      'Board Mfg Date        : Mon Jan 15 12:00:00 2024 UTC',
      'Board Product         : Shelf Manager',
      'Board Serial          : SHM0001',
      'Product Asset Tag     : ASSET-SHM0001',
    ]) {
      expect(out).toContain(line);
    }
  });
});
