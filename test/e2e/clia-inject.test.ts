/**
 * `atcasim clia inject sensor FRU SENSOR VALUE` against the default shelf (in-process shelf and
 * IPMI server, clia's real RMCP+ session): an empty or non-numeric value, and a value the sensor's
 * SDR conversion cannot represent (8-bit raw reading through M, B, Bexp, Rexp; IPMI v2.0 §36.3),
 * are usage errors (exit 2) that name the problem and change nothing; the OEM Set Sensor Reading
 * command itself (NetFn 2Eh, cmd 05h, sent raw with ipmitool) refuses an out-of-range value with
 * C9h instead of clamping or wrapping it.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../chassis/main.ts';
import { runClient } from '../support/ipmi-golden.ts';
import { ADMIN_PASSWORD, connectClia, startShelfHarness, type ShelfHarness } from '../support/ipmi-shelf.ts';

let h: ShelfHarness;
beforeAll(async () => {
  h = await startShelfHarness();
});
afterAll(async () => {
  await h?.stop();
});

async function clia(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) }),
    stderr: new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) }),
  };
  const code = await main(['node', 'atcasim', 'clia', '-p', String(h.port), '-P', ADMIN_PASSWORD, ...args], io);
  return { code, stdout, stderr };
}

const reading = (name: string) => h.shelf.sensors.find(name)!;

describe('clia inject sensor refuses what the sensor cannot read', () => {
  it('an in-range value is injected (the ends of the range included)', async () => {
    const r = await clia('inject', 'sensor', 'slot3', 'Node3', 'Temp', '255');
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', 'slot3 "Node3 Temp": 255 (raw 255), status nr\n']);
    const v = await clia('inject', 'sensor', 'slot3', 'Node3', '12V', '0');
    expect([v.code, v.stderr]).toEqual([0, '']);
    expect(reading('Node3 12V').raw).toBe(0);
    expect((await clia('inject', 'sensor', 'slot3', 'Node3', 'Temp', '48')).code).toBe(0);
    expect((await clia('inject', 'sensor', 'slot3', 'Node3', '12V', '12')).code).toBe(0);
  });

  const cases: Array<[string, string, RegExp]> = [
    ['Node3 Temp', '', /^atcasim clia: inject sensor: the value is empty; give a reading in engineering units/],
    ['Node3 Temp', ' ', /the value is empty/],
    ['Node3 Temp', 'abc', /^atcasim clia: inject sensor: "abc" is not a number/],
    ['Node3 Temp', '0x10', /"0x10" is not a number/],
    ['Node3 Temp', 'Infinity', /"Infinity" is not a number/],
    ['Node3 Temp', '1e9', /^atcasim clia: inject sensor: 1e9 is outside the range of slot3 "Node3 Temp": 0 to 255 degrees C \(8-bit reading\)$/m],
    ['Node3 Temp', '-1e9', /-1e9 is outside the range of slot3 "Node3 Temp": 0 to 255 /],
    ['Node3 Temp', '300', /300 is outside the range of slot3 "Node3 Temp": 0 to 255 /],
    ['Node3 Temp', '-5', /-5 is outside the range of slot3 "Node3 Temp": 0 to 255 /],
    ['Node3 12V', '100', /100 is outside the range of slot3 "Node3 12V": 0 to 25\.5 Volts /],
  ];
  for (const [sensor, value, msg] of cases) {
    it(`${sensor} ${JSON.stringify(value)}: exit 2, nothing injected`, async () => {
      const before = reading(sensor).raw;
      const r = await clia('inject', 'sensor', 'slot3', ...sensor.split(' '), value);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(msg);
      expect(reading(sensor).raw).toBe(before);
    });
  }

  it('a shelf manager\'s sensor (owner 20h in the SDR) and a sensor by number are checked too', async () => {
    const a = await clia('inject', 'sensor', 'shmc-a', 'ShMC', 'Temp', '256');
    expect([a.code, a.stderr.split('\n')[0]]).toEqual([2, 'atcasim clia: inject sensor: 256 is outside the range of shmc-a "ShMC Temp": 0 to 255 degrees C (8-bit reading)']);
    const n = await clia('inject', 'sensor', 'slot3', String(reading('Node3 12V').number), '-0.1');
    expect([n.code, n.stderr.split('\n')[0]]).toEqual([2, 'atcasim clia: inject sensor: -0.1 is outside the range of slot3 "Node3 12V": 0 to 25.5 Volts (8-bit reading)']);
  });

  it('ShelfApi.sensorValue refuses a value whose thousandths do not fit 32 bits before sending anything', async () => {
    const api = await connectClia(h.port);
    try {
      await expect(api.sensorValue('slot3', 'Node3 Temp', 1e9)).rejects.toThrow(new RangeError('sensor value 1000000000 does not fit the OEM command (±2147483.647)'));
      await expect(api.sensorValue('slot3', 'Node3 Temp', Number.NaN)).rejects.toThrow(RangeError);
      // within the wire's range but not the sensor's: the shelf's C9h refusal
      await expect(api.sensorValue('slot3', 'Node3 Temp', 1e6)).rejects.toMatchObject({ cc: 0xc9, code: 'out_of_range', message: "inject sensor slot3 Node3 Temp: Node3 Temp: 1000000 is outside the sensor's range 0 to 255" });
    } finally {
      await api.close();
    }
  });

  it('a sensor clia does not find is still the shelf\'s refusal (exit 1)', async () => {
    const r = await clia('inject', 'sensor', 'slot3', 'Nope', '5');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/slot3 has no sensor "Nope"/);
  });
});

describe('OEM Set Sensor Reading (2Eh/05h) refuses out-of-range values with C9h', () => {
  /** Request bytes: IANA 0FFFF0h, value (signed 32-bit thousandths, LS first), str FRU, str sensor. */
  const request = (milli: number, fru: string, sensor: string) => {
    const v = milli >>> 0;
    const str = (s: string) => [s.length, ...Buffer.from(s, 'latin1')];
    return [0xf0, 0xff, 0x0f, v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24, ...str(fru), ...str(sensor)].map((b) => `0x${b.toString(16)}`);
  };
  const raw = (milli: number, sensor = 'Node3 Temp') =>
    runClient(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(h.port), '-U', 'admin', '-P', ADMIN_PASSWORD, '-C', '17', 'raw', '0x2e', '0x05', ...request(milli, 'slot3', sensor)]);

  for (const [what, milli, sensor] of [
    ['300 (above 255)', 300_000, 'Node3 Temp'],
    ['-5 (below 0)', -5000, 'Node3 Temp'],
    ['−2147483.648 (the most negative the wire carries)', -0x80000000, 'Node3 Temp'],
    ['2147483.647 (the most positive)', 0x7fffffff, 'Node3 Temp'],
    ['25.6 V on a 0 … 25.5 V sensor', 25_600, 'Node3 12V'],
  ] as const) {
    it(what, async () => {
      const before = reading(sensor).raw;
      const r = await raw(milli, sensor);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/rsp=0xc9\): Parameter out of range/);
      expect(reading(sensor).raw).toBe(before);
    });
  }

  it('an in-range value answers raw, status and the value it became', async () => {
    const r = await raw(85_000);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    // IANA, raw 55h (85), status 2 (cr), value 85000 thousandths
    expect(r.stdout.trim().split(/\s+/)).toEqual(['f0', 'ff', '0f', '55', '02', '08', '4c', '01', '00']);
    expect((await raw(48_000)).exitCode).toBe(0);
  });
});
