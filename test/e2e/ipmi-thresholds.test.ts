/**
 * Set Sensor Thresholds (NetFn S/E 04h, cmd 26h, IPMI v2.0 §35.8) with real ipmitool against the
 * default shelf (in-process shelf + IPMI server, SQLite store in a temp dir): a set whose resulting
 * thresholds — the ones set merged with the ones kept — are out of order (lnr ≤ lc ≤ lnc ≤ unc ≤
 * uc ≤ unr in raw-reading order) is refused with completion code CCh and stores nothing, neither in
 * the running shelf nor in the database; an ordered set still works and persists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClient } from '../support/ipmi-golden.ts';
import { ADMIN_PASSWORD, startShelfHarness, type ShelfHarness } from '../support/ipmi-shelf.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-ipmi-thresholds-'));
let h: ShelfHarness;

beforeAll(async () => {
  h = await startShelfHarness({ db: join(dir, 'shelf.db') });
});
afterAll(async () => {
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ipmitool = (...rest: string[]) =>
  runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(h.port), '-U', 'admin', '-P', ADMIN_PASSWORD, '-C', '17', ...rest]);

/** Bridged to slot3's IPMC (IPMB-0 address 86h), the owner of Node3 Temp. */
const SLOT3 = ['-b', '0', '-t', '0x86'];
const temp = () => h.shelf.sensors.find('Node3 Temp')!;
const stored = () => h.store.listThresholds().filter((t) => t.fru === 'slot3' && t.sensor === temp().number);
/** Get Sensor Thresholds through ipmitool: readable mask, then LNC LC LNR UNC UC UNR (raw). */
const getRaw = async () => {
  const r = await ipmitool(...SLOT3, 'raw', '0x04', '0x27', String(temp().number));
  expect([r.exitCode, r.stderr]).toEqual([0, '']);
  return r.stdout.trim().split(/\s+/).map((x) => parseInt(x, 16));
};

describe('Set Sensor Thresholds refuses a set that leaves the thresholds out of order', () => {
  it('one command setting UNC 95, UC 85, UNR 75 (mask 38h): CCh, nothing stored, a reading of 80 is Upper Critical (not "nr")', async () => {
    expect(await getRaw()).toEqual([0x38, 0, 0, 0, 70, 80, 90]);
    const r = await ipmitool(...SLOT3, 'raw', '0x04', '0x26', String(temp().number), '0x38', '0', '0', '0', '95', '85', '75');
    expect([r.exitCode, r.stderr]).toEqual([1, 'Unable to send RAW command (channel=0x0 netfn=0x4 lun=0x0 cmd=0x26 rsp=0xcc): Invalid data field in request\n']);
    expect(await getRaw()).toEqual([0x38, 0, 0, 0, 70, 80, 90]);
    expect(stored()).toEqual([]);
    h.shelf.sensors.setValue('slot3', 'Node3 Temp', 80);
    const list = await ipmitool('sensor', 'get', 'Node3 Temp');
    expect(list.stdout).toMatch(/Status +: Upper Critical/);
    h.shelf.sensors.setValue('slot3', 'Node3 Temp', 48);
  });

  it('a single threshold set past a kept one is refused too (UNC 85 above the kept UC 80)', async () => {
    const r = await ipmitool(...SLOT3, 'raw', '0x04', '0x26', String(temp().number), '0x08', '0', '0', '0', '85', '0', '0');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/rsp=0xcc\): Invalid data field in request/);
    expect(await getRaw()).toEqual([0x38, 0, 0, 0, 70, 80, 90]);
    expect(stored()).toEqual([]);
  });

  it("ipmitool sensor thresh … upper 95 85 75 sends one command per threshold: UNC 95 and UNR 75 are refused, UC 85 fits (70 ≤ 85 ≤ 90) and is kept", async () => {
    const r = await ipmitool('sensor', 'thresh', 'Node3 Temp', 'upper', '95', '85', '75');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('Error setting threshold: Invalid data field in request\n'.repeat(2));
    expect(await getRaw()).toEqual([0x38, 0, 0, 0, 70, 85, 90]);
    expect(stored().map((t) => t.values)).toEqual([{ lnc: null, lc: null, lnr: null, unc: 70, uc: 85, unr: 90 }]);
  });

  it('an ordered set is stored and persisted (upper 75 85 95)', async () => {
    const r = await ipmitool('sensor', 'thresh', 'Node3 Temp', 'upper', '75', '85', '95');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(await getRaw()).toEqual([0x38, 0, 0, 0, 75, 85, 95]);
    expect(stored().map((t) => t.values)).toEqual([{ lnc: null, lc: null, lnr: null, unc: 75, uc: 85, unr: 95 }]);
  });
});
