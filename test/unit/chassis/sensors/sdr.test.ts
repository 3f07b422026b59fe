// SDR records (IPMI v2.0 §43): atcasim's builder against the records of the reference shelf
// (../shared/ipmi/sim/atca.emu, which ipmitool prints as the transcripts show), decode/encode
// round trips, and the repository's Get SDR with reservations and partial reads (§33).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HotSwapSensorConfig, ThresholdSensorConfig } from '../../../../chassis/config/types.ts';
import { eventOnlySensorRecord, fullSensorRecord, hotSwapSensorRecord, mcLocatorRecord } from '../../../../chassis/model/sdr-build.ts';
import { SdrRepository, decodeSdr, encodeSdr, type SdrRecord } from '../../../../chassis/sensors/sdr.ts';
import { rawToValue } from '../../../../chassis/sensors/linearization.ts';
import { DecodeError } from '../../../../board/common/errors.ts';
import { shared } from '../../../support/shared.ts';

/** The reference shelf's SDRs: `main_sdr_add <mc> <bytes…>` lines (record ID 0000h, assigned by the sim). */
function referenceSdrs(): Map<string, Uint8Array> {
  const emu = readFileSync(shared('ipmi', 'sim', 'atca.emu'), 'utf8');
  const out = new Map<string, Uint8Array>();
  for (const l of emu.split('\n').filter((x) => x.startsWith('main_sdr_add'))) {
    const b = Uint8Array.from(l.trim().split(/\s+/).slice(2).map((x) => parseInt(x, 16)));
    out.set(decodeSdr(b).record.idString, b);
  }
  return out;
}

const temp = (name: string, nominal: number): ThresholdSensorConfig => ({
  kind: 'threshold',
  name,
  number: 1,
  type: 'temperature',
  sensorType: 0x01,
  unitCode: 1,
  unit: 'degrees C',
  linearization: { m: 1, b: 0, bExp: 0, rExp: 0 },
  thresholds: { unc: 70, uc: 80, unr: 90 },
  hysteresis: { positive: 2, negative: 2 },
  nominal,
});
const hs = (name: string): HotSwapSensorConfig => ({ kind: 'hotswap', name, number: 2, sensorType: 0xf0 });

describe('SDR builder vs the reference shelf records', () => {
  const ref = referenceSdrs();

  it('full sensor records (01h) are byte-identical for ShMC/Hub1/Node3 Temp', () => {
    for (const [name, owner, entity] of [
      ['ShMC Temp', 0x20, 0xf0],
      ['Hub1 Temp', 0x82, 0xa0],
      ['Node3 Temp', 0x86, 0xa0],
    ] as const) {
      // The reference records carry nominal reading 28h (40 °C).
      const ours = encodeSdr(fullSensorRecord(temp(name, 40), owner, entity, 0x60));
      expect(Buffer.from(ours).toString('hex'), name).toBe(Buffer.from(ref.get(name)!).toString('hex'));
    }
  });

  it('compact sensor records (02h) of the Hot Swap sensors are byte-identical', () => {
    for (const [name, owner, entity] of [
      ['ShMC HotSwap', 0x20, 0xf0],
      ['Hub1 HotSwap', 0x82, 0xa0],
      ['Node3 HotSwap', 0x86, 0xa0],
    ] as const) {
      const ours = encodeSdr(hotSwapSensorRecord(hs(name), owner, entity, 0x60));
      expect(Buffer.from(ours).toString('hex'), name).toBe(Buffer.from(ref.get(name)!).toString('hex'));
    }
  });

  it('MC device locators (12h) match except the capability byte, which states what atcasim models', () => {
    for (const [name, addr, entity, shm] of [
      ['ShMC', 0x20, 0xf0, true],
      ['Hub1', 0x82, 0xa0, false],
      ['Node3', 0x86, 0xa0, false],
    ] as const) {
      const ours = encodeSdr(mcLocatorRecord(addr, name, entity, 0x60, shm));
      const theirs = ref.get(name)!;
      expect(ours.length).toBe(theirs.length);
      const diff = [...ours].map((b, i) => (b === theirs[i] ? -1 : i)).filter((i) => i >= 0);
      expect(diff).toEqual([8]); // byte 9 (0-based 8): device capabilities
      // ipmitool's fru print needs "FRU inventory device" (b3); the logical shelf manager also holds SEL and SDR.
      expect(ours[8]! & 0x08).toBe(0x08);
      expect(ours[8]! & 0x06).toBe(shm ? 0x06 : 0x00);
    }
  });

  it('the linearisation gives the readings the transcripts print (48 raw → 48 °C)', () => {
    const r = decodeSdr(ref.get('Node3 Temp')!).record;
    expect(r.type).toBe('full');
    if (r.type === 'full') {
      expect(rawToValue(0x30, r.linearization)).toBe(48);
      expect(r.thresholds).toMatchObject({ unc: 70, uc: 80, unr: 90 });
    }
  });
});

describe('SDR codec', () => {
  it('decode(encode(x)) = x for every record type, including signed M/B and exponents', () => {
    const recs: SdrRecord[] = [
      { ...fullSensorRecord({ ...temp('V', 12), type: 'voltage', sensorType: 2, unitCode: 4, linearization: { m: -3, b: -100, bExp: -2, rExp: -3 } }, 0x8a, 0xa0, 0x61), recordId: 7 },
      { ...hotSwapSensorRecord(hs('X HotSwap'), 0x52, 0x1e, 0x60), recordId: 8 },
      {
        type: 'fru-locator', recordId: 9, accessAddress: 0x20, fruDeviceId: 0xfe, logical: true, accessLun: 0, privateBus: 0, channel: 0,
        deviceType: 0x10, deviceTypeModifier: 0, entityId: 0xf2, entityInstance: 0x60, oem: 0, idString: 'Shelf FRU Info',
      },
      { ...mcLocatorRecord(0x84, 'Hub2', 0xa0, 0x60, false), recordId: 10 },
      { ...eventOnlySensorRecord({ key: 'ha-role', number: 0xfd, sensorType: 0x28, readingType: 0x0a, suffix: 'HA Role' }, 0x12, 'ShMC-B', 0xf0, 0x60), recordId: 11 },
    ];
    for (const r of recs) {
      const bytes = encodeSdr(r);
      expect(bytes[4]).toBe(bytes.length - 5);
      const back = decodeSdr(bytes);
      expect(back.end).toBe(bytes.length);
      expect(back.record).toEqual(r);
      // at a non-zero offset
      const buf = new Uint8Array(bytes.length + 3);
      buf.set(bytes, 3);
      expect(decodeSdr(buf, 3).record).toEqual(r);
    }
  });

  it('refuses over-long ID strings and out-of-range fields; decoding rejects bad input', () => {
    expect(() => encodeSdr(hotSwapSensorRecord(hs('A name of 17 char'), 0x20, 0xf0, 0x60))).toThrow(/longer than 16/);
    expect(() => encodeSdr({ ...fullSensorRecord(temp('T', 40), 0x20, 0xf0, 0x60), linearization: { m: 600, b: 0, bExp: 0, rExp: 0 } })).toThrow(RangeError);
    const ok = encodeSdr(hotSwapSensorRecord(hs('HS'), 0x20, 0xf0, 0x60));
    expect(() => decodeSdr(ok.subarray(0, ok.length - 1))).toThrow(DecodeError);
    const badVer = Uint8Array.from(ok);
    badVer[2] = 0x20;
    expect(() => decodeSdr(badVer)).toThrow(/version/);
    const badType = Uint8Array.from(ok);
    badType[3] = 0x08;
    expect(() => decodeSdr(badType)).toThrow(/record type/);
  });
});

describe('SDR repository (Get SDR with offsets)', () => {
  const repo = new SdrRepository();
  const recs = [mcLocatorRecord(0x86, 'Node3', 0xa0, 0x60, false), fullSensorRecord(temp('Node3 Temp', 48), 0x86, 0xa0, 0x60), hotSwapSensorRecord(hs('Node3 HotSwap'), 0x86, 0xa0, 0x60)];
  repo.replace(recs, 1000);

  it('reads a record as ipmitool does: header at offset 0, then the body in chunks under a reservation', () => {
    const h = repo.get(0, 0, 5, 0);
    expect(h.ok && h.next).toBe(2);
    const full = repo.bytes(2)!;
    const res = repo.reserve();
    const parts: number[] = [];
    for (let off = 0; off < full.length; off += 16) {
      const r = repo.get(2, off, 16, res);
      expect(r.ok).toBe(true);
      if (r.ok) parts.push(...r.data);
    }
    expect(parts).toEqual([...full]);
    expect(decodeSdr(Uint8Array.from(parts)).record).toMatchObject({ type: 'full', recordId: 2, idString: 'Node3 Temp' });
    const last = repo.get(3, 0, 0xff, res);
    expect(last.ok && last.next).toBe(0xffff);
  });

  it('refuses a partial read without the current reservation, a missing record and an offset past the end', () => {
    expect(repo.get(2, 5, 10, 0)).toEqual({ ok: false, reason: 'reservation_invalid' });
    const res = repo.reserve();
    expect(repo.get(2, 5, 10, res - 1 || 0xffff)).toEqual({ ok: false, reason: 'reservation_invalid' });
    expect(repo.get(9, 0, 5, 0)).toEqual({ ok: false, reason: 'not_found' });
    expect(repo.get(1, 200, 5, res)).toEqual({ ok: false, reason: 'offset_out_of_range' });
  });

  it('reports repository info; a rebuild cancels the reservation', () => {
    expect(repo.info()).toMatchObject({ version: 0x51, recordCount: 3, freeBytes: 0xfffe, lastAddTime: 1000, operationSupport: 0x02 });
    const res = repo.reserve();
    repo.replace(recs.slice(0, 2), 1001);
    expect(repo.get(1, 5, 5, res)).toEqual({ ok: false, reason: 'reservation_invalid' });
    expect(repo.size).toBe(2);
  });
});

describe('event-only sensor record (03h, IPMI v2.0 Table 43-3)', () => {
  it('byte layout: key, entity, type, reading type, sharing, OEM, ID string', () => {
    const b = encodeSdr({ ...eventOnlySensorRecord({ key: 'watchdog', number: 0xfe, sensorType: 0x23, readingType: 0x6f, suffix: 'Watchdog' }, 0x86, 'Node3', 0xa0, 0x60), recordId: 0x0102 });
    const id = [...Buffer.from('Node3 Watchdog', 'latin1')];
    expect([...b]).toEqual([0x02, 0x01, 0x51, 0x03, 12 + id.length, 0x86, 0x00, 0xfe, 0xa0, 0x60, 0x23, 0x6f, 0x01, 0x00, 0x00, 0x00, 0xc0 | id.length, ...id]);
    expect(() => decodeSdr(Uint8Array.from([1, 0, 0x51, 0x03, 11, ...new Array<number>(11).fill(0)]))).toThrow(/event-only sensor record body 11 < 12/);
  });
});
