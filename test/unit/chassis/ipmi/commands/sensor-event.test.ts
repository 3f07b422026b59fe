/** Sensor and event commands (IPMI v2.0 §29, §35; chassis/ipmi/commands/sensor-event.ts): byte layouts and shelf effects, in simulated time. */
import { describe, expect, it } from 'vitest';
import { decodeSdr } from '../../../../../chassis/sensors/sdr.ts';
import { rig } from '../shelf-manager/rig.ts';

const SE = 0x04;

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

  it('Set/Get Event Receiver at every controller: 20h by default, FFh disables, anything else refused with CCh', () => {
    const r = rig();
    for (const a of [0x20, 0x10, 0x12, 0x82, 0x86, 0x8c, 0x52, 0x58, 0x5a]) expect(r.call(a, SE, 0x01)).toEqual({ cc: 0, data: [0x20, 0x00] });
    expect(r.call(0x86, SE, 0x00, [0x20, 0x00])).toEqual({ cc: 0, data: [] }); // what OpenHPI's ipmidirect sends
    expect(r.call(0x20, SE, 0x00, [0x20, 0x00])).toEqual({ cc: 0, data: [] }); // the shelf manager to itself
    expect(r.call(0x88, SE, 0x00, [0xff, 0x00])).toEqual({ cc: 0, data: [] });
    expect(r.call(0x88, SE, 0x01)).toEqual({ cc: 0, data: [0xff, 0x00] });
    expect(r.call(0x86, SE, 0x01).data).toEqual([0x20, 0x00]); // the others unchanged
    // refused, nothing changed: odd address, a controller that is not a receiver, no controller, LUN, reserved bits, length
    for (const bad of [[0x21, 0], [0x86, 0], [0x10, 0], [0x40, 0], [0x20, 1], [0x20, 0x04]]) {
      expect(r.call(0x8a, SE, 0x00, bad).cc).toBe(0xcc);
    }
    expect(r.call(0x8a, SE, 0x00, [0x20]).cc).toBe(0xc7);
    expect(r.call(0x8a, SE, 0x01).data).toEqual([0x20, 0x00]);
    expect(r.call(0x88, SE, 0x00, [0x20, 0x00]).cc).toBe(0);
    expect(r.call(0x88, SE, 0x01).data).toEqual([0x20, 0x00]);
  });

  it("a controller whose event messages are off (FFh) logs none of its events; the others' still are", () => {
    const r = rig();
    expect(r.call(0x86, SE, 0x00, [0xff, 0x00]).cc).toBe(0);
    const before = r.shelf.sel.records().length;
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 85);
    r.shelf.sensors.setValue('slot4', 'Node4 Temp', 85);
    const added = r.shelf.sel.records().slice(before);
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((x) => x.generatorId === 0x88)).toBe(true);
    expect(r.call(0x86, SE, 0x00, [0x20, 0x00]).cc).toBe(0);
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 40);
    expect(r.shelf.sel.records().slice(before + added.length).some((x) => x.generatorId === 0x86)).toBe(true);
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
