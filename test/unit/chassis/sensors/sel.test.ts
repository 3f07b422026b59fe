// SEL: the 16-byte IPMI v2.0 system event record (§32.1, Table 32-1) byte for byte, the SEL
// repository commands (§31), and overflow without wrap.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  SelRepository,
  decodeSelRecord,
  encodeSelRecord,
  generatorIdForIpmb,
  SEL_LAST,
  type SelEventInput,
  type SelRecord,
} from '../../../../chassis/sensors/sel.ts';
import { describeSelRecord } from '../../../../chassis/sensors/sel-text.ts';
import { DecodeError } from '../../../../board/common/errors.ts';
import { shared } from '../../../support/shared.ts';

const hex = (s: string) => Uint8Array.from(s.replace(/#[^\n]*/g, '').trim().split(/\s+/).map((x) => parseInt(x, 16)));

// Annotated fixture: an upper-critical temperature event from the ShMC (IPMB 20h).
const UC_EVENT: SelRecord = {
  recordId: 0x0102,
  recordType: 0x02,
  timestamp: 0x65a4f2c0, // 2024-01-15T08:52:48Z
  generatorId: 0x0020,
  evmRev: 0x04,
  sensorType: 0x01,
  sensorNumber: 0x01,
  eventDirType: 0x01,
  eventData: [0x59, 0x52, 0x50],
};
const UC_EVENT_BYTES = hex(`
  02 01        # [0..1]  record ID 0102h, little-endian
  02           # [2]     record type 02h: system event record
  c0 f2 a4 65  # [3..6]  timestamp 65A4F2C0h, little-endian (seconds since 1970)
  20 00        # [7..8]  generator ID: b7:1 slave address 20h (8-bit form 20h), b0 0 = IPMB; LUN 0, channel 0
  04           # [9]     EvM revision 04h (IPMI 1.5/2.0)
  01           # [10]    sensor type 01h: temperature
  01           # [11]    sensor number 1
  01           # [12]    b7 0 = assertion, b6:0 event/reading type 01h (threshold)
  59           # [13]    event data 1: b7:6 01b reading in byte 2, b5:4 01b threshold in byte 3, offset 9 = UC going high
  52           # [14]    event data 2: trigger reading 82
  50           # [15]    event data 3: trigger threshold 80
`);

// A hot-swap deassertion-free event from a board IPMC at 86h on LUN 1, channel 2 (generator word 2186h).
const HOTSWAP: SelRecord = {
  recordId: 0xfffe,
  recordType: 0x02,
  timestamp: 0xffffffff,
  generatorId: generatorIdForIpmb(0x86, 1, 2),
  evmRev: 0x04,
  sensorType: 0xf0,
  sensorNumber: 0x02,
  eventDirType: 0x6f,
  eventData: [0xa5, 0x24, 0x00],
};
const HOTSWAP_BYTES = hex(`
  fe ff        # record ID FFFEh (highest usable)
  02           # system event record
  ff ff ff ff  # timestamp FFFFFFFFh = unspecified
  86 21        # generator: slave 86h; byte 2: b7:4 channel 2, b1:0 LUN 1
  04           # EvM rev
  f0           # sensor type F0h: PICMG FRU Hot Swap
  02           # sensor number 2
  6f           # assertion, sensor-specific reading type 6Fh
  a5           # A0h | new state M5
  24           # cause 2 (handle) << 4 | previous state M4
  00           # FRU device ID 0
`);

describe('SEL record codec (IPMI v2.0 §32.1)', () => {
  it('encodes the annotated upper-critical event byte for byte', () => {
    expect(Buffer.from(encodeSelRecord(UC_EVENT)).toString('hex')).toBe(Buffer.from(UC_EVENT_BYTES).toString('hex'));
    expect(decodeSelRecord(UC_EVENT_BYTES)).toEqual(UC_EVENT);
  });

  it('encodes the annotated hot-swap event byte for byte', () => {
    expect(HOTSWAP.generatorId).toBe(0x2186);
    expect(Buffer.from(encodeSelRecord(HOTSWAP)).toString('hex')).toBe(Buffer.from(HOTSWAP_BYTES).toString('hex'));
    expect(decodeSelRecord(HOTSWAP_BYTES)).toEqual(HOTSWAP);
  });

  it('bytes 2..15 equal the records seeded in the reference atca.emu (type + 13 bytes per sel_add)', () => {
    const emu = readFileSync(shared('ipmi', 'sim', 'atca.emu'), 'utf8');
    const seeds = emu
      .split('\n')
      .filter((l) => l.startsWith('sel_add '))
      .map((l) => l.trim().split(/\s+/).slice(2).map((x) => parseInt(x, 16)));
    expect(seeds.length).toBe(2);
    const ours = [
      { ...UC_EVENT, timestamp: 0, recordId: 1 },
      { recordId: 2, recordType: 2, timestamp: 0, generatorId: 0x86, evmRev: 4, sensorType: 0xf0, sensorNumber: 2, eventDirType: 0x6f, eventData: [0xa4, 0x03, 0x00] as [number, number, number] },
    ];
    ours.forEach((r, i) => expect([...encodeSelRecord(r).subarray(2)]).toEqual(seeds[i]));
  });

  it('round-trips at a non-zero offset and leaves the rest of the buffer alone', () => {
    const buf = new Uint8Array(40).fill(0xee);
    encodeSelRecord(UC_EVENT, buf, 7);
    expect(buf[6]).toBe(0xee);
    expect(buf[23]).toBe(0xee);
    expect(decodeSelRecord(buf, 7)).toEqual(UC_EVENT);
  });

  it('keeps OEM records (types C0h–FFh) as 13 raw bytes; timestamped ones expose their time', () => {
    const raw = Uint8Array.from([0x10, 0x20, 0x30, 0x40, 0x5a, 0x31, 0x00, 1, 2, 3, 4, 5, 6]);
    const r = decodeSelRecord(encodeSelRecord({ recordId: 9, recordType: 0xc1, raw }));
    expect(r.raw).toEqual(raw);
    expect(r.timestamp).toBe(0x40302010);
    const n = decodeSelRecord(encodeSelRecord({ recordId: 9, recordType: 0xe0, raw }));
    expect(n.timestamp).toBeUndefined();
  });

  it('refuses short input with a DecodeError and out-of-range fields with a RangeError', () => {
    expect(() => decodeSelRecord(UC_EVENT_BYTES.subarray(0, 15))).toThrow(DecodeError);
    expect(() => decodeSelRecord(UC_EVENT_BYTES, 1)).toThrow(/need 16 bytes, have 15/);
    expect(() => encodeSelRecord({ ...UC_EVENT, sensorNumber: 256 })).toThrow(RangeError);
    expect(() => encodeSelRecord({ ...UC_EVENT, eventData: [1, 2] as unknown as [number, number, number] })).toThrow(RangeError);
  });

  it('renders like ipmitool sel elist for the reference temperature event', () => {
    const golden = readFileSync(shared('ipmi', 'golden', 'ipmitool-lanplus-C3', '94_sel_elist_after_hotswap.txt'), 'utf8');
    const line = golden.split('\n').find((l) => l.includes('Upper Critical going high'))!;
    const fields = line.split('|').map((s) => s.trim());
    const ours = describeSelRecord(UC_EVENT, (a, n) => (a === 0x20 && n === 1 ? 'ShMC Temp' : undefined)).split('|').map((s) => s.trim());
    // "Temperature ShMC Temp | Upper Critical going high | Asserted"
    expect(ours.slice(0, 3)).toEqual(fields.slice(3, 6));
    const hs = describeSelRecord({ ...HOTSWAP, generatorId: 0x86 }, (a, n) => (a === 0x86 && n === 2 ? 'Node3 HotSwap' : undefined));
    expect(hs).toBe('FRU Hot Swap Node3 HotSwap | Transition to M5 | Asserted');
  });
});

const ev = (n: number): SelEventInput => ({ generatorId: 0x20, sensorType: 0x01, sensorNumber: n & 0xff, eventDirType: 0x01, eventData: [0x57, n & 0xff, 0x46] });

describe('SEL repository (IPMI v2.0 §31)', () => {
  it('assigns record IDs 1, 2, 3 … in log order and serves first/last/next', () => {
    const sel = new SelRepository(10);
    for (let i = 0; i < 3; i++) expect(sel.addEvent(ev(i), 1000 + i)).toMatchObject({ logged: true, record: { recordId: i + 1, timestamp: 1000 + i } });
    expect(sel.get(0)!.record.recordId).toBe(1);
    expect(sel.get(0)!.next).toBe(2);
    expect(sel.get(SEL_LAST)!.record.recordId).toBe(3);
    expect(sel.get(3)!.next).toBe(0xffff);
    expect(sel.get(4)).toBeUndefined();
    expect(sel.info()).toMatchObject({ version: 0x51, entries: 3, freeBytes: 7 * 16, lastAddTime: 1002, overflow: false });
  });

  it('when full, new records are not logged and the overflow flag is set — no wrap', () => {
    const sel = new SelRepository(4);
    for (let i = 0; i < 4; i++) expect(sel.addEvent(ev(i), i).logged).toBe(true);
    const before = sel.list().map((r) => encodeSelRecord(r));
    const r = sel.addEvent(ev(99), 50);
    expect(r).toEqual({ logged: false, reason: 'full' });
    expect(sel.overflow).toBe(true);
    expect(sel.info()).toMatchObject({ entries: 4, freeBytes: 0, overflow: true, lastAddTime: 3 });
    // the oldest record is still record 1: nothing was overwritten
    expect(sel.list().map((x) => encodeSelRecord(x))).toEqual(before);
    expect(sel.get(0)!.record.recordId).toBe(1);
    expect(sel.addRecord({ ...UC_EVENT }, 60).logged).toBe(false);
    // Clear SEL clears the flag and restarts IDs
    sel.clear(70);
    expect(sel.info()).toMatchObject({ entries: 0, overflow: false, lastEraseTime: 70 });
    expect(sel.addEvent(ev(1), 80)).toMatchObject({ logged: true, record: { recordId: 1 } });
  });

  it('the default capacity is 4096 records', () => {
    const sel = new SelRepository();
    for (let i = 0; i < 4096; i++) sel.addEvent(ev(i), i);
    expect(sel.size).toBe(4096);
    expect(sel.overflow).toBe(false);
    expect(sel.addEvent(ev(1), 1).logged).toBe(false);
    expect(sel.overflow).toBe(true);
  });

  it('Add SEL Entry replaces the record ID and stamps the SEL time', () => {
    const sel = new SelRepository(8);
    const r = sel.addRecord({ ...UC_EVENT, recordId: 0x4444, timestamp: 5 }, 1234);
    expect(r.logged && r.record.recordId).toBe(1);
    expect(r.logged && r.record.timestamp).toBe(1234);
    expect(r.logged && [...r.bytes.subarray(0, 7)]).toEqual([1, 0, 2, 0xd2, 0x04, 0, 0]);
  });

  it('delete needs the current reservation; clear and delete cancel it', () => {
    const sel = new SelRepository(8);
    sel.addEvent(ev(1), 1);
    sel.addEvent(ev(2), 2);
    expect(sel.delete(1, 0)).toEqual({ ok: false, reason: 'reservation_invalid' });
    const res = sel.reserve();
    expect(res).not.toBe(0);
    expect(sel.delete(7, res)).toEqual({ ok: false, reason: 'not_found' });
    expect(sel.delete(1, res)).toEqual({ ok: true, recordId: 1 });
    expect(sel.delete(2, res)).toEqual({ ok: false, reason: 'reservation_invalid' });
    const res2 = sel.reserve();
    expect(res2).not.toBe(res);
    expect(sel.get(0)!.record.recordId).toBe(2);
    sel.clear(3);
    expect(sel.reservationValid(res2)).toBe(false);
  });

  it('restores from its persisted state', () => {
    const a = new SelRepository(8);
    a.addEvent(ev(1), 10);
    a.addEvent(ev(2), 11);
    const b = new SelRepository(8, a.state());
    expect(b.list()).toEqual(a.list());
    expect(b.addEvent(ev(3), 12)).toMatchObject({ logged: true, record: { recordId: 3 } });
    expect(b.info().lastAddTime).toBe(12);
  });
});
