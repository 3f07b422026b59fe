/** Storage commands (IPMI v2.0 §31, §33, §34; chassis/ipmi/commands/storage.ts): SEL, SDR and FRU data, in simulated time. */
import { describe, expect, it } from 'vitest';
import { decodeSdr } from '../../../../../chassis/sensors/sdr.ts';
import { rig } from '../shelf-manager/rig.ts';

const STORAGE = 0x0a;

describe('storage', () => {
  it('SEL: info, reserve, get first/next/last, add, delete with reservation, clear (erasure completed)', () => {
    const r = rig();
    const info = r.call(0x20, STORAGE, 0x40).data;
    expect(info.slice(0, 3)).toEqual([0x51, 13, 0]);
    expect(info[13]).toBe(0x0a);
    const e = r.call(0x20, STORAGE, 0x43, [0, 0, 0, 0, 0, 0xff]);
    expect(e.data.slice(0, 4)).toEqual([2, 0, 1, 0]);
    expect(e.data).toHaveLength(18);
    expect(r.call(0x20, STORAGE, 0x43, [0, 0, 0xff, 0xff, 0, 0xff]).data.slice(0, 2)).toEqual([0xff, 0xff]);
    expect(r.call(0x20, STORAGE, 0x43, [0, 0, 0, 0, 10, 4]).data).toHaveLength(2 + 4);
    const add = r.call(0x20, STORAGE, 0x44, [0, 0, 0x02, 0, 0, 0, 0, 0x20, 0, 0x04, 0x01, 0x01, 0x01, 0x57, 0x50, 0x46]);
    expect(add).toEqual({ cc: 0, data: [14, 0] });
    const resv = r.call(0x20, STORAGE, 0x42).data;
    expect(r.call(0x20, STORAGE, 0x46, [0, 0, 14, 0]).cc).toBe(0xc5);
    expect(r.call(0x20, STORAGE, 0x46, [...resv, 14, 0])).toEqual({ cc: 0, data: [14, 0] });
    expect(r.call(0x20, STORAGE, 0x47, [...resv, 0x43, 0x4c, 0x52, 0xaa]).cc).toBe(0xc5); // delete cancelled it
    const resv2 = r.call(0x20, STORAGE, 0x42).data;
    expect(r.call(0x20, STORAGE, 0x47, [...resv2, 0x43, 0x4c, 0x52, 0xaa])).toEqual({ cc: 0, data: [0x01] });
    expect(r.call(0x20, STORAGE, 0x40).data.slice(1, 3)).toEqual([0, 0]);
    expect(r.call(0x20, STORAGE, 0x47, [...resv2, 0x43, 0x4c, 0x51, 0xaa]).cc).toBe(0xcc);
  });

  it('SEL time: get and set (Unix seconds)', () => {
    const r = rig();
    expect(r.call(0x20, STORAGE, 0x49, [0x00, 0x10, 0x20, 0x60])).toEqual({ cc: 0, data: [] });
    expect(r.call(0x20, STORAGE, 0x48).data).toEqual([0x00, 0x10, 0x20, 0x60]);
    r.run(2000);
    expect(r.call(0x20, STORAGE, 0x48).data).toEqual([0x02, 0x10, 0x20, 0x60]);
  });

  it('SDR repository: info, reserve, header then body with offsets; reservation checked', () => {
    const r = rig();
    const info = r.call(0x20, STORAGE, 0x20).data;
    // 14 MC locators (the active ShMC as 20h, both ShMCs at 10h/12h, 11 other controllers) + 40 sensors
    // + 28 event-only sensors (health everywhere; watchdog and HA role on the ShMCs and processor boards)
    expect(info.slice(0, 3)).toEqual([0x51, 82, 0]);
    const resv = r.call(0x20, STORAGE, 0x22).data;
    const head = r.call(0x20, STORAGE, 0x23, [...resv, 0, 0, 0, 5]);
    expect(head.data).toEqual([2, 0, 1, 0, 0x51, 0x12, head.data[6]!]);
    const body = r.call(0x20, STORAGE, 0x23, [...resv, 1, 0, 5, head.data[6]!]);
    expect(decodeSdr(Uint8Array.from([...head.data.slice(2), ...body.data.slice(2)])).record).toMatchObject({ type: 'mc-locator', slaveAddress: 0x20, idString: 'ShMC' });
    expect(r.call(0x20, STORAGE, 0x23, [0x77, 0x77, 1, 0, 5, 4]).cc).toBe(0xc5);
    expect(r.call(0x20, STORAGE, 0x23, [...resv, 99, 0, 0, 5]).cc).toBe(0xcb);
  });

  it('FRU inventory: info, read, write (persisted before the answer), FRU IDs per controller', () => {
    const r = rig();
    expect(r.call(0x86, STORAGE, 0x10, [0])).toEqual({ cc: 0, data: [0x00, 0x04, 0x00] }); // 1024 bytes, by bytes
    expect(r.call(0x86, STORAGE, 0x11, [0, 0, 0, 8]).data).toEqual([8, 0x01, 0x00, 0x01, 0x05, 0x0d, 0x00, 0x00, 0xec]);
    expect(r.call(0x86, STORAGE, 0x11, [0, 0xf0, 0x03, 0x40]).data[0]).toBe(0x10); // 16 bytes left at 3F0h
    expect(r.call(0x86, STORAGE, 0x12, [0, 0x00, 0x03, 1, 2, 3])).toEqual({ cc: 0, data: [3] });
    expect([...r.store.getFruData('slot3')!.bytes.subarray(0x300, 0x303)]).toEqual([1, 2, 3]);
    expect(r.call(0x86, STORAGE, 0x12, [0, 0xfe, 0x03, 1, 2, 3]).cc).toBe(0xc9);
    expect(r.call(0x86, STORAGE, 0x10, [1]).cc).toBe(0xd3);
    expect(r.call(0x20, STORAGE, 0x11, [0x43, 0, 0, 8]).data).toEqual(r.call(0x86, STORAGE, 0x11, [0, 0, 0, 8]).data); // FRU 43h at 20h = slot3
  });
});
