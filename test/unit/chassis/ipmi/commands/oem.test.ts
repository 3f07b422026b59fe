/** atcasim's OEM commands (chassis/ipmi/commands/oem.ts, shelf-manager/oem-protocol.ts): IANA, layouts, refusals with the shelf's reason. */
import { describe, expect, it } from 'vitest';
import { OemCmd, OEM_IANA_BYTES, decodeFruInfo, decodeOemError, oemWriter, putStr } from '../../../../../chassis/ipmi/shelf-manager/oem-protocol.ts';
import { rig } from '../shelf-manager/rig.ts';

const OEM = 0x2e;

function oemData(build: (w: ReturnType<typeof oemWriter>) => void = () => {}): number[] {
  const w = oemWriter();
  build(w);
  return [...w.toBuffer()];
}

describe('OEM commands', () => {
  it('another IANA or no IANA: C1h; a truncated request: C7h with the reason', () => {
    const r = rig();
    expect(r.call(0x20, OEM, OemCmd.shmStatus, [0x57, 0x01, 0x00]).cc).toBe(0xc1);
    expect(r.call(0x20, OEM, OemCmd.shmStatus, []).cc).toBe(0xc1);
    const t = r.call(0x20, OEM, OemCmd.handle, [...OEM_IANA_BYTES, 0x00, 0x05, 0x73]);
    expect(t.cc).toBe(0xc7);
    expect(decodeOemError(Uint8Array.from(t.data))?.code).toBe('bad_request');
    expect(r.call(0x86, OEM, OemCmd.shmStatus, oemData()).cc).toBe(0xc1); // shelf manager only
  });

  it('Get FRU Info walks every FRU; refusals carry the shelf\'s code', () => {
    const r = rig();
    const names: string[] = [];
    for (let i = 0; i !== 0xff; ) {
      const f = decodeFruInfo(Uint8Array.from(r.call(0x20, OEM, OemCmd.fruInfo, oemData((w) => w.u8(i))).data));
      names.push(f.name);
      if (f.name === 'slot3') expect(f).toMatchObject({ kind: 'processor', slot: 3, physicalSlot: 6, hardwareAddress: 0x43, ipmbAddress: 0x86, state: 4, previous: 3, flags: 0x09, powerLevel: 2 });
      i = f.next;
    }
    expect(names).toEqual(r.shelf.fruNames());
    const bad = r.call(0x20, OEM, OemCmd.handle, oemData((w) => (w.u8(1), putStr(w, 'slot9'))));
    expect(bad.cc).toBe(0xd3);
    expect(decodeOemError(Uint8Array.from(bad.data))).toEqual({ code: 'empty_slot', message: 'slot9 is empty' });
  });

  it('fault injection and repair, sensor injection (milli-units, signed), handle, privileges', () => {
    const r = rig();
    const f = r.call(0x20, OEM, OemCmd.fault, oemData((w) => (w.u8(1), w.u8(0), putStr(w, '4'))));
    expect(f.data.slice(3)).toEqual([6]);
    expect(r.call(0x20, OEM, OemCmd.fault, oemData((w) => (w.u8(0), w.u8(0xff), putStr(w, 'slot4')))).cc).toBe(0);
    // -5.5 V is below what the 0 … 25.5 V sensor reads: C9h out_of_range, not clamped to 0
    const low = r.call(0x20, OEM, OemCmd.sensorValue, oemData((w) => (w.u32le(-5500 >>> 0), putStr(w, 'slot3'), putStr(w, 'Node3 12V'))));
    expect(low.cc).toBe(0xc9);
    expect(r.shelf.sensors.get('slot3', 'Node3 12V').status).toBe('ok');
    // -0.04 V (signed on the wire) is within half a count of raw 0 (0 V), below LC → status "cr" (code 2), value 0
    const s = r.call(0x20, OEM, OemCmd.sensorValue, oemData((w) => (w.u32le(-40 >>> 0), putStr(w, 'slot3'), putStr(w, 'Node3 12V'))));
    expect(s.cc).toBe(0);
    expect(s.data.slice(3)).toEqual([0, 2, 0, 0, 0, 0]);
    expect(r.shelf.sensors.get('slot3', 'Node3 12V').status).toBe('cr');
    const up = r.call(0x20, OEM, OemCmd.sensorValue, oemData((w) => (w.u32le(12_400), putStr(w, 'slot3'), putStr(w, 'Node3 12V'))));
    expect(up.data.slice(3)).toEqual([124, 0, 0x70, 0x30, 0, 0]); // raw 124, ok, 12400 mV
    expect(r.call(0x20, OEM, OemCmd.handle, oemData((w) => (w.u8(0), putStr(w, 'slot5'))), { privilege: 2 }).cc).toBe(0xd4);
    expect(r.call(0x20, OEM, OemCmd.handle, oemData((w) => (w.u8(0), putStr(w, 'slot5'))), { privilege: 3 }).data.slice(3)).toEqual([5]);
    expect(r.call(0x20, OEM, OemCmd.fault, oemData((w) => (w.u8(1), w.u8(0), putStr(w, 'slot3'))), { privilege: 3 }).cc).toBe(0xd4);
  });

  it('console path comes from the runtime\'s provider; none → CBh', () => {
    const r = rig({ consolePath: (fru) => (fru === 'slot3' ? '/dev/pts/7' : undefined) });
    const c = r.call(0x20, OEM, OemCmd.consolePath, oemData((w) => putStr(w, '3')));
    expect(Buffer.from(c.data.slice(3)).toString('latin1')).toBe('\x05slot3\x0a/dev/pts/7');
    expect(r.call(0x20, OEM, OemCmd.consolePath, oemData((w) => putStr(w, 'slot4'))).cc).toBe(0xcb);
  });
});
