/**
 * Byte layouts and shelf effects of the command families (chassis, sensor/event, storage, PICMG)
 * at the logical shelf manager (20h) and the IPM controllers, in simulated time. Layouts follow
 * IPMI v2.0 §28–§35 and research/ipmi.md §B–§C; ipmitool/FreeIPMI runs are in test/e2e.
 */
import { describe, expect, it } from 'vitest';
import { decodeSdr } from '../../../../chassis/sensors/sdr.ts';
import { rig } from './rig.ts';

const CHASSIS = 0x00;
const SE = 0x04;
const STORAGE = 0x0a;
const PICMG = 0x2c;

describe('chassis (20h)', () => {
  it('Get Chassis Capabilities: exactly 6 bytes (flags, FRU, SDR, SEL, system management, bridge = 20h)', () => {
    expect(rig().call(0x20, CHASSIS, 0x00)).toEqual({ cc: 0, data: [0x00, 0x20, 0x20, 0x20, 0x20, 0x20] });
  });

  it('Chassis Control off/on acts on the shelf; status byte 1 follows; Identify answers the CC only', () => {
    const r = rig();
    expect(r.call(0x20, CHASSIS, 0x01)).toEqual({ cc: 0, data: [0x21, 0x00, 0x00] }); // on, policy "previous"
    expect(r.call(0x20, CHASSIS, 0x02, [0x00])).toEqual({ cc: 0, data: [] });
    expect(r.shelf.state('slot3')).toBe(6);
    expect(r.call(0x20, CHASSIS, 0x01).data).toEqual([0x20, 0x10, 0x00]); // off, last event: command
    r.run(3000);
    expect(r.shelf.state('slot3')).toBe(1);
    r.call(0x20, CHASSIS, 0x02, [0x01]);
    r.run(5000);
    expect(r.shelf.state('slot3')).toBe(4);
    expect(r.call(0x20, CHASSIS, 0x04)).toEqual({ cc: 0, data: [] });
    expect(r.shelf.chassis.status().identify).toBe('timed');
    expect(r.call(0x20, CHASSIS, 0x04, [0x00, 0x01])).toEqual({ cc: 0, data: [] });
    expect(r.shelf.chassis.status().identify).toBe('indefinite');
    expect(r.call(0x20, CHASSIS, 0x02, [0x07]).cc).toBe(0xcc);
    expect(r.call(0x20, CHASSIS, 0x02, []).cc).toBe(0xc7);
  });

  it('Get System Restart Cause (2 bytes) and Get POH Counter (5 bytes)', () => {
    const r = rig();
    expect(r.call(0x20, CHASSIS, 0x07)).toEqual({ cc: 0, data: [0x07, 0x00] });
    r.call(0x20, CHASSIS, 0x02, [0x03]);
    expect(r.call(0x20, CHASSIS, 0x07)).toEqual({ cc: 0, data: [0x01, 0x01] });
    r.run(3 * 60_000);
    expect(r.call(0x20, CHASSIS, 0x0f)).toEqual({ cc: 0, data: [0x01, 0x03, 0x00, 0x00, 0x00] });
  });

  it('a USER session cannot send Chassis Control (D4h); chassis commands exist only at 20h', () => {
    const r = rig();
    expect(r.call(0x20, CHASSIS, 0x02, [0x00], { privilege: 2 }).cc).toBe(0xd4);
    expect(r.shelf.chassis.status().powerOn).toBe(true);
    expect(r.call(0x86, CHASSIS, 0x01).cc).toBe(0xc1);
  });
});

describe('sensors and events', () => {
  it('Get Sensor Reading: threshold (reading, flags, comparison bits) and Hot Swap (state bit)', () => {
    const r = rig();
    expect(r.call(0x20, SE, 0x2d, [1])).toEqual({ cc: 0, data: [42, 0xc0, 0x00, 0x00] });
    expect(r.call(0x20, SE, 0x2d, [2])).toEqual({ cc: 0, data: [4, 0xc0, 0x10, 0x00] });
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 85);
    expect(r.call(0x86, SE, 0x2d, [1])).toEqual({ cc: 0, data: [85, 0xc0, 0x18, 0x00] }); // ≥ UNC, ≥ UC
    r.shelf.hotSwap.injectFault('slot4', 'comm');
    expect(r.call(0x88, SE, 0x2d, [1]).data[1]).toBe(0xe0); // M7: reading unavailable
    expect(r.call(0x20, SE, 0x2d, [9]).cc).toBe(0xcb);
  });

  it('Get/Set Sensor Thresholds (raw), Get Sensor Hysteresis, Get Sensor Event Enable', () => {
    const r = rig();
    expect(r.call(0x86, SE, 0x27, [1])).toEqual({ cc: 0, data: [0x38, 0, 0, 0, 70, 80, 90] });
    expect(r.call(0x86, SE, 0x27, [3])).toEqual({ cc: 0, data: [0x1b, 114, 108, 0, 126, 132, 0] }); // 12V: 0.1 V units
    expect(r.call(0x86, SE, 0x27, [2]).cc).toBe(0xcd);
    expect(r.call(0x86, SE, 0x26, [1, 0x08, 0, 0, 0, 75, 0, 0])).toEqual({ cc: 0, data: [] });
    expect(r.shelf.sensors.get('slot3', 1).thresholds!.unc).toBe(75);
    expect(r.call(0x86, SE, 0x26, [1, 0x01, 40, 0, 0, 0, 0, 0]).cc).toBe(0xcc); // LNC is not a threshold of this sensor
    expect(r.call(0x86, SE, 0x25, [1, 0xff])).toEqual({ cc: 0, data: [2, 2] });
    expect(r.call(0x20, SE, 0x29, [1])).toEqual({ cc: 0, data: [0xc0, 0x80, 0x0a, 0x80, 0x0a] }); // unc+ ucr+ unr+
    expect(r.call(0x20, SE, 0x29, [2])).toEqual({ cc: 0, data: [0xc0, 0xff, 0x00, 0x00, 0x00] });
  });

  it('Platform Event logs a SEL record with the requester as generator (LAN channel 1)', () => {
    const r = rig();
    const before = r.shelf.sel.records().length;
    expect(r.call(0x20, SE, 0x02, [0x04, 0x01, 0x30, 0x01, 0x09, 0xff, 0xff])).toEqual({ cc: 0, data: [] });
    const rec = r.shelf.sel.records().at(-1)!;
    expect(r.shelf.sel.records().length).toBe(before + 1);
    expect(rec).toMatchObject({ generatorId: 0x1081, sensorType: 0x01, sensorNumber: 0x30, eventDirType: 0x01, eventData: [0x09, 0xff, 0xff] });
    expect(r.call(0x20, SE, 0x02, [0x02, 0x01, 0x30, 0x01, 0x09, 0xff, 0xff]).cc).toBe(0xcc); // event message revision
    expect(r.call(0x86, SE, 0x02, [0x04, 0x01, 0x30, 0x01, 0x09, 0xff, 0xff]).cc).toBe(0xc1); // IPMCs are not event receivers
  });

  it('device SDR at an IPMC: info, reserve, records with its own address', () => {
    const r = rig();
    expect(r.call(0x86, SE, 0x20)).toEqual({ cc: 0, data: [7, 0x01] }); // 4 sensors + 3 event-only (watchdog, HA role, health)
    expect(r.call(0x86, SE, 0x20, [0x01]).data[0]).toBe(8);
    const resv = r.call(0x86, SE, 0x22).data;
    const first = r.call(0x86, SE, 0x21, [...resv, 0, 0, 0, 0xff]);
    expect(first.data.slice(0, 2)).toEqual([2, 0]);
    expect(decodeSdr(Uint8Array.from(first.data.slice(2))).record).toMatchObject({ type: 'mc-locator', slaveAddress: 0x86, idString: 'Node3' });
    expect(r.call(0x86, SE, 0x21, [0, 0, 2, 0, 5, 4]).cc).toBe(0xc5); // offset read needs the reservation
    expect(r.call(0x86, SE, 0x21, [...resv, 8, 0, 0, 0xff]).data.slice(0, 2)).toEqual([0xff, 0xff]);
    expect(decodeSdr(Uint8Array.from(r.call(0x86, SE, 0x21, [...resv, 7, 0, 0, 0xff]).data.slice(2))).record).toMatchObject({ type: 'event-only', ownerId: 0x86, sensorNumber: 0xfd, sensorType: 0x15, readingType: 0x0a, idString: 'Node3 HA Role' });
    expect(r.call(0x20, SE, 0x20).cc).toBe(0xc1); // the shelf manager has the repository instead
  });
});

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

describe('PICMG 3.0', () => {
  it('identifier rules: empty request C7h, another group extension C1h, HPM.2 C1h even for USER', () => {
    const r = rig();
    expect(r.call(0x20, PICMG, 0x00, [0x00])).toEqual({ cc: 0, data: [0x00, 0x22, 0x46, 0x00] });
    expect(r.call(0x86, PICMG, 0x00, [0x00])).toEqual({ cc: 0, data: [0x00, 0x22, 0x00, 0x00] });
    expect(r.call(0x20, PICMG, 0x00, []).cc).toBe(0xc7);
    expect(r.call(0x20, PICMG, 0x00, [0x03]).cc).toBe(0xc1);
    expect(r.call(0x20, PICMG, 0x3e, [0x00, 0x02], { privilege: 2 }).cc).toBe(0xc1);
    expect(r.call(0x20, PICMG, 0x04, [0x00, 0x00, 0x01], { privilege: 3 }).cc).toBe(0xd4);
  });

  it('Get Address Info: own FRU, FRU-ID mapping at 20h, lookups by key', () => {
    const r = rig();
    expect(r.call(0x20, PICMG, 0x01, [0x00]).data).toEqual([0x00, 0x10, 0x20, 0xff, 0x00, 0x01, 0x03]);
    expect(r.call(0x86, PICMG, 0x01, [0x00, 0x00]).data).toEqual([0x00, 0x43, 0x86, 0xff, 0x00, 0x03, 0x00]);
    expect(r.call(0x20, PICMG, 0x01, [0x00, 0x29]).data).toEqual([0x00, 0x29, 0x52, 0xff, 0x29, 0x01, 0x04]);
    expect(r.call(0x20, PICMG, 0x01, [0x00, 0x01]).cc).toBe(0xd3);
    expect(r.call(0x20, PICMG, 0x01, [0x00, 0x00, 0x01, 0x88]).data).toEqual([0x00, 0x44, 0x88, 0xff, 0x00, 0x04, 0x00]);
    expect(r.call(0x20, PICMG, 0x01, [0x00, 0x00, 0x03, 0x02, 0x03]).data).toEqual([0x00, 0x09, 0x12, 0xff, 0x00, 0x02, 0x03]);
    expect(r.call(0x20, PICMG, 0x01, [0x00, 0x00, 0x00, 0x2c]).data).toEqual([0x00, 0x2c, 0x58, 0xff, 0x00, 0x01, 0x01]);
    expect(r.call(0x86, PICMG, 0x01, [0x00, 0x00, 0x00, 0x2c]).cc).toBe(0xcc);
  });

  it('Set FRU Activation drives M-states (bridged FRU 0 and FRU 43h at 20h); policy locks hold', () => {
    const r = rig();
    expect(r.call(0x86, PICMG, 0x0c, [0x00, 0x00, 0x00]).data).toEqual([0x00]);
    expect(r.shelf.state('slot3')).toBe(6);
    r.run(1500);
    expect(r.shelf.state('slot3')).toBe(1);
    expect(r.call(0x20, PICMG, 0x0c, [0x00, 0x43, 0x01]).data).toEqual([0x00]);
    r.run(4000);
    expect(r.shelf.state('slot3')).toBe(4);
    expect(r.call(0x86, PICMG, 0x0a, [0x00, 0x00, 0x02, 0x02]).data).toEqual([0x00]);
    expect(r.call(0x86, PICMG, 0x0b, [0x00, 0x00]).data).toEqual([0x00, 0x02]);
    expect(() => r.shelf.hotSwap.openHandle('slot3')).toThrow(/deactivation is locked/);
    expect(r.shelf.state('slot3')).toBe(4);
    expect(r.call(0x86, PICMG, 0x0c, [0x00, 0x00, 0x05]).cc).toBe(0xcc);
    expect(r.call(0x86, PICMG, 0x0a, [0x00, 0x00, 0x04, 0x00]).cc).toBe(0xcc);
  });

  it('FRU Control: capabilities bitmap, quiesce refused CCh, warm reset of a board takes it out of service for a step', () => {
    const r = rig();
    expect(r.call(0x86, PICMG, 0x1e, [0x00, 0x00]).data).toEqual([0x00, 0x0e]);
    expect(r.call(0x86, PICMG, 0x04, [0x00, 0x00, 0x04]).cc).toBe(0xcc);
    expect(r.call(0x86, PICMG, 0x04, [0x00, 0x00, 0x01]).data).toEqual([0x00]);
    expect(r.shelf.snapshot().frus.find((f) => f.name === 'slot3')!.inService).toBe(false);
    r.run(1100);
    expect(r.shelf.snapshot().frus.find((f) => f.name === 'slot3')!.inService).toBe(true);
  });

  it('LEDs: properties, colour capabilities, set (override, restore), state layout', () => {
    const r = rig();
    expect(r.call(0x86, PICMG, 0x05, [0x00, 0x00]).data).toEqual([0x00, 0x0f, 0x00]);
    expect(r.call(0x86, PICMG, 0x06, [0x00, 0x00, 0x01]).data).toEqual([0x00, 0x14, 0x02, 0x02]); // red + amber
    expect(r.call(0x86, PICMG, 0x06, [0x00, 0x00, 0x04]).cc).toBe(0xcc);
    expect(r.call(0x86, PICMG, 0x08, [0x00, 0x00, 0x02]).data).toEqual([0x00, 0x01, 0xff, 0x00, 0x03]); // green on (in service)
    expect(r.call(0x86, PICMG, 0x07, [0x00, 0x00, 0x01, 0x32, 0x0a, 0x04]).data).toEqual([0x00]); // blink amber 100/500 ms
    expect(r.call(0x86, PICMG, 0x08, [0x00, 0x00, 0x01]).data).toEqual([0x00, 0x03, 0x00, 0x00, 0x02, 0x32, 0x0a, 0x04]);
    expect(r.call(0x86, PICMG, 0x07, [0x00, 0x00, 0x01, 0xff, 0x00, 0x03]).cc).toBe(0xcc); // LED 1 cannot be green
    expect(r.call(0x86, PICMG, 0x07, [0x00, 0x00, 0xff, 0xfc, 0x00, 0x0f]).data).toEqual([0x00]); // all: local control
    expect(r.call(0x86, PICMG, 0x08, [0x00, 0x00, 0x01]).data).toEqual([0x00, 0x01, 0x00, 0x00, 0x02]);
    expect(r.call(0x86, PICMG, 0x07, [0x00, 0x00, 0x00, 0xfb, 0x14, 0x0f]).data).toEqual([0x00]); // lamp test 2 s
    expect(r.call(0x86, PICMG, 0x08, [0x00, 0x00, 0x00]).data).toEqual([0x00, 0x07, 0x00, 0x00, 0x01, 0xff, 0x00, 0x01, 0x14]);
    r.run(2100);
    expect(r.call(0x86, PICMG, 0x08, [0x00, 0x00, 0x00]).data[1]).toBe(0x01);
  });

  it('Port State: a board\'s E-keyed links, a ShMC\'s Base links to the hubs; Set overrides', () => {
    const r = rig();
    // slot3 fabric channel 2 (to hub 2): link info ch 2 | iface 1 << 6, port 0, type 02h, enabled
    expect(r.call(0x86, PICMG, 0x0f, [0x00, 0x42]).data).toEqual([0x00, 0x42, 0x21, 0x00, 0x00, 0x01]);
    expect(r.call(0x20, PICMG, 0x0f, [0x00, 0x01]).data).toEqual([0x00, 0x01, 0x11, 0x00, 0x00, 0x01]);
    expect(r.call(0x20, PICMG, 0x0f, [0x00, 0x05]).cc).toBe(0xcc);
    expect(r.call(0x86, PICMG, 0x0e, [0x00, 0x42, 0x21, 0x00, 0x00, 0x00]).data).toEqual([0x00]);
    expect(r.shelf.ports.states('slot3', 'fabric', 2)[0]!.enabled).toBe(false);
    expect(r.call(0x20, PICMG, 0x0e, [0x00, 0x02, 0x11, 0x00, 0x00, 0x00]).data).toEqual([0x00]);
    expect(r.call(0x20, PICMG, 0x0f, [0x00, 0x02]).data.at(-1)).toBe(0x00);
    expect(r.call(0x86, PICMG, 0x0e, [0x00, 0x42, 0x21, 0x00, 0x00, 0x02]).cc).toBe(0xcc);
  });

  it('power levels: compute properties, get (levels × multiplier), set within the budget', () => {
    const r = rig();
    expect(r.call(0x86, PICMG, 0x10, [0x00, 0x00]).data).toEqual([0x00, 0x01, 0x00]);
    expect(r.call(0x86, PICMG, 0x12, [0x00, 0x00, 0x00]).data).toEqual([0x00, 0x02, 0x00, 0x08, 150, 250]); // 120 W, 200 W at 0.8 W
    expect(r.call(0x86, PICMG, 0x11, [0x00, 0x00, 0x01, 0x00]).data).toEqual([0x00]);
    expect(r.shelf.power.level('slot3').level).toBe(1);
    expect(r.call(0x86, PICMG, 0x11, [0x00, 0x00, 0x03, 0x00]).cc).toBe(0xc9);
    expect(r.call(0x86, PICMG, 0x11, [0x00, 0x00, 0x15, 0x00]).cc).toBe(0xcc);
    expect(r.call(0x86, PICMG, 0x12, [0x00, 0x00, 0x04]).cc).toBe(0xcc);
  });

  it('fans: speed properties, set level (sensor follows), local control', () => {
    const r = rig();
    expect(r.call(0x52, PICMG, 0x14, [0x00, 0x00]).data).toEqual([0x00, 0, 15, 8, 0x80]);
    expect(r.call(0x52, PICMG, 0x15, [0x00, 0x00, 4, 0]).data).toEqual([0x00]);
    expect(r.call(0x52, PICMG, 0x16, [0x00, 0x00]).data).toEqual([0x00, 4, 4, 0]);
    expect(r.shelf.sensors.get('fan1', 'Fan1 Speed').value).toBe(3000);
    expect(r.call(0x52, PICMG, 0x15, [0x00, 0x00, 0xfe]).data).toEqual([0x00]);
    expect(r.call(0x52, PICMG, 0x16, [0x00, 0x00]).data).toEqual([0x00, 0xfe, 4, 1]);
    expect(r.call(0x52, PICMG, 0x15, [0x00, 0x00, 16]).cc).toBe(0xc9);
    expect(r.call(0x86, PICMG, 0x14, [0x00, 0x00]).cc).toBe(0xcc);
  });

  it('Get Device Locator Record ID: the MC locator of the controller in the shelf SDR', () => {
    const r = rig();
    expect(r.call(0x20, PICMG, 0x0d, [0x00, 0x00]).data).toEqual([0x00, 0x01, 0x00]);
    const id = r.call(0x86, PICMG, 0x0d, [0x00, 0x00]).data;
    const rec = r.shelf.sdr.records()[id[1]! - 1]!;
    expect(rec).toMatchObject({ type: 'mc-locator', slaveAddress: 0x86 });
    // a ShMC at its own address has its own locator besides the 20h one
    const own = r.call(0x10, PICMG, 0x0d, [0x00, 0x00]).data;
    expect(r.shelf.sdr.records()[own[1]! - 1]!).toMatchObject({ type: 'mc-locator', slaveAddress: 0x10, idString: 'ShMC-A' });
  });

  it('AMC port state, clocks and bused resources (the minimal model of extras.ts)', () => {
    const r = rig();
    expect(r.call(0x86, PICMG, 0x1a, [0x00, 0x00]).data).toEqual([0x00, 0x51, 0x00, 0x00, 0x01]);
    expect(r.call(0x86, PICMG, 0x1a, [0x00, 0x03]).cc).toBe(0xcc);
    expect(r.call(0x86, PICMG, 0x19, [0x00, 0x00, 0x51, 0x00, 0x00, 0x00]).data).toEqual([0x00]);
    expect(r.call(0x86, PICMG, 0x1a, [0x00, 0x00]).data.at(-1)).toBe(0x00);
    expect(r.call(0x86, PICMG, 0x2d, [0x00, 0x02]).data).toEqual([0x00, 0x00]);
    expect(r.call(0x86, PICMG, 0x2c, [0x00, 0x02, 0x00, 0x0c, 0x01, 0x02, 0x80, 0x96, 0x28, 0x01, 0x00]).data).toEqual([0x00]);
    expect(r.call(0x86, PICMG, 0x2d, [0x00, 0x02, 0x00]).data).toEqual([0x00, 0x0c, 0x00, 0x01, 0x02, 0x80, 0x96, 0x28, 0x01]);
    expect(r.call(0x86, PICMG, 0x2d, [0x00, 0x09]).cc).toBe(0xcc);
    expect(r.call(0x86, PICMG, 0x17, [0x00, 0x00, 0x02]).data).toEqual([0x00, 0x01]); // no control
    expect(r.call(0x86, PICMG, 0x17, [0x00, 0x02, 0x02]).data).toEqual([0x00, 0x00]); // force
    expect(r.call(0x86, PICMG, 0x17, [0x00, 0x00, 0x02]).data).toEqual([0x00, 0x00]); // in control
    expect(r.call(0x88, PICMG, 0x17, [0x00, 0x01, 0x02]).data).toEqual([0x00, 0x01]); // not the owner
    expect(r.call(0x86, PICMG, 0x17, [0x00, 0x00, 0x05]).cc).toBe(0xcc);
  });

  it('Get Shelf Address Info (20h): the shelf name as a type/length field', () => {
    const r = rig();
    const name = [...Buffer.from('atcasim-default', 'latin1')];
    expect(r.call(0x20, PICMG, 0x02, [0x00]).data).toEqual([0x00, 0xc0 | name.length, ...name]);
  });
});
