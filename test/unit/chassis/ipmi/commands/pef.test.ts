/**
 * PEF and LAN alerting (IPMI v2.0 §17, §23, §30; chassis/ipmi/commands/pef.ts, chassis/ipmi/pef/,
 * commands/transport.ts): parameter layouts, refusals with the spec's completion codes (nothing
 * changed), and a threshold crossing that a filter turns into a PET for the configured destination.
 */
import { describe, expect, it } from 'vitest';
import { decodePet, PET_EPOCH_OFFSET, type PetTrap } from '../../../../../chassis/ipmi/pef/pet.ts';
import { rig } from '../shelf-manager/rig.ts';

const SE = 0x04;
const TR = 0x0c;

/** An event filter: enabled, software configurable, alert to policy 1, critical; Node3 Temp (86h, sensor 1), any threshold event. */
const FILTER = [0xc0, 0x01, 0x01, 0x10, 0x86, 0xff, 0x01, 0x01, 0x01, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00];

function configured(sent: Array<{ ip: string; community: string; trap: PetTrap }>) {
  const r = rig({ alerts: { sendPet: (ip, community, trap) => sent.push({ ip, community, trap }) } });
  expect(r.call(0x20, SE, 0x12, [0x06, 0x01, ...FILTER]).cc).toBe(0);
  expect(r.call(0x20, SE, 0x12, [0x09, 0x01, 0x18, 0x11, 0x00]).cc).toBe(0); // policy 1 enabled, always send, channel 1 destination 1
  expect(r.call(0x20, TR, 0x01, [0x01, 19, 0x01, 0x00, 0x00, 192, 0, 2, 10, 0, 0, 0, 0, 0, 0]).cc).toBe(0);
  expect(r.call(0x20, SE, 0x12, [0x02, 0x01]).cc).toBe(0); // alerts allowed
  expect(r.call(0x20, SE, 0x12, [0x01, 0x01]).cc).toBe(0); // PEF on
  return r;
}

describe('PEF configuration', () => {
  it('capabilities, counts, defaults; the parameter revision alone with bit 7', () => {
    const r = rig();
    expect(r.call(0x20, SE, 0x10)).toEqual({ cc: 0, data: [0x51, 0x01, 16] });
    expect(r.call(0x20, SE, 0x13, [0x05, 0, 0]).data).toEqual([0x11, 16]);
    expect(r.call(0x20, SE, 0x13, [0x08, 0, 0]).data).toEqual([0x11, 16]);
    expect(r.call(0x20, SE, 0x13, [0x0b, 0, 0]).data).toEqual([0x11, 4]);
    expect(r.call(0x20, SE, 0x13, [0x81, 0, 0]).data).toEqual([0x11]);
    expect(r.call(0x20, SE, 0x13, [0x06, 3, 0]).data).toEqual([0x11, 3, 0x40, ...new Array(19).fill(0)]);
    expect(r.call(0x86, SE, 0x10).cc).toBe(0xc1); // the shelf manager's only
  });

  it('writes read back; refusals leave everything as it was', () => {
    const r = rig();
    expect(r.call(0x20, SE, 0x12, [0x06, 0x02, ...FILTER]).cc).toBe(0);
    expect(r.call(0x20, SE, 0x13, [0x06, 0x02, 0]).data).toEqual([0x11, 0x02, ...FILTER]);
    expect(r.call(0x20, SE, 0x13, [0x07, 0x02, 0]).data).toEqual([0x11, 0x02, 0xc0]);
    const refused: Array<[number[], number]> = [
      [[0x06, 0x00, ...FILTER], 0xc9], // filter 0
      [[0x06, 17, ...FILTER], 0xc9], // beyond the table
      [[0x06, 0x02, ...FILTER.slice(0, 19)], 0xc7],
      [[0x06, 0x02, 0x80, ...FILTER.slice(1)], 0xcc], // manufacturer pre-configured
      [[0x06, 0x02, 0xc0, 0x02, ...FILTER.slice(2)], 0xcc], // power down: not an action this PEF has
      [[0x06, 0x02, 0xc0, 0x01, 0x00, ...FILTER.slice(3)], 0xcc], // alert without a policy
      [[0x05, 0x03], 0x82], // read only
      [[0x30, 0x00], 0x80], // no such parameter
      [[0x09, 0x01, 0x18, 0x21, 0x00], 0xcc], // alert on channel 2: the LAN channel is 1
      [[0x09, 0x11, 0x18, 0x11, 0x00], 0xc9],
      [[0x01, 0x10], 0xcc], // reserved control bit
    ];
    for (const [data, cc] of refused) expect(r.call(0x20, SE, 0x12, data).cc, JSON.stringify(data)).toBe(cc);
    expect(r.call(0x20, SE, 0x13, [0x06, 0x02, 0]).data).toEqual([0x11, 0x02, ...FILTER]);
    expect(r.call(0x20, SE, 0x13, [0x09, 0x01, 0]).data).toEqual([0x11, 0x01, 0, 0, 0]);
    expect(r.call(0x20, SE, 0x13, [0x01, 0, 0]).data).toEqual([0x11, 0x00]);
  });

  it('LAN alert destinations: type and address written and read; senseless ones refused', () => {
    const r = rig();
    expect(r.call(0x20, TR, 0x02, [0x01, 17, 0, 0]).data).toEqual([0x11, 4]);
    expect(r.call(0x20, TR, 0x01, [0x01, 18, 0x02, 0x80, 5, 2]).cc).toBe(0);
    expect(r.call(0x20, TR, 0x02, [0x01, 18, 0x02, 0]).data).toEqual([0x11, 0x02, 0x80, 5, 2]);
    expect(r.call(0x20, TR, 0x01, [0x01, 19, 0x02, 0x00, 0x01, 10, 1, 2, 3, 0, 1, 2, 3, 4, 5]).cc).toBe(0);
    expect(r.call(0x20, TR, 0x02, [0x01, 19, 0x02, 0]).data).toEqual([0x11, 0x02, 0x00, 0x01, 10, 1, 2, 3, 0, 1, 2, 3, 4, 5]);
    const refused: Array<[number[], number]> = [
      [[0x01, 18, 0x05, 0x00, 3, 3], 0xc9], // destination 5 of 0..4
      [[0x01, 18, 0x01, 0x03, 3, 3], 0xcc], // reserved type
      [[0x01, 18, 0x01, 0x00, 3, 9], 0xcc], // 9 retries
      [[0x01, 19, 0x01, 0x10, 0, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0], 0xcc], // IPv6 format
      [[0x01, 19, 0x01, 0x00, 0, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0], 0xcc], // broadcast
      [[0x01, 19, 0x01, 0x00, 0, 224, 0, 0, 1, 0, 0, 0, 0, 0, 0], 0xcc], // multicast
      [[0x01, 19, 0x01, 0x00, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0], 0xcc], // 0.0.0.9
      [[0x01, 19, 0x01, 0x00, 0, 10, 0, 0], 0xc7],
      [[0x01, 1, 0x15], 0x82], // authentication type support is read only (the address, 3, is settable: clia setlanconfig)
      [[0x01, 99, 0], 0x80],
    ];
    for (const [data, cc] of refused) expect(r.call(0x20, TR, 0x01, data).cc, JSON.stringify(data)).toBe(cc);
    expect(r.call(0x20, TR, 0x02, [0x01, 19, 0x01, 0]).data).toEqual([0x11, 0x01, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.call(0x20, TR, 0x02, [0x01, 18, 0x01, 0]).data).toEqual([0x11, 0x01, 0x00, 3, 3]);
  });
});

describe('PEF alerts', () => {
  it('a threshold crossing of Node3 Temp becomes a PET to 192.0.2.10: sensor, event and the record it came from', () => {
    const sent: Array<{ ip: string; community: string; trap: PetTrap }> = [];
    const r = configured(sent);
    r.shelf.sensors.setValue('slot4', 'Node4 Temp', 85); // another sensor: no alert
    expect(sent).toEqual([]);
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 85); // ≥ UNC (70) and ≥ UC (80)
    expect(sent.length).toBe(2);
    const recs = r.shelf.sel.records().filter((x) => x.generatorId === 0x86 && x.sensorNumber === 1);
    for (const [i, s] of sent.entries()) {
      const rec = recs.at(i - sent.length)!;
      expect(s.ip).toBe('192.0.2.10');
      expect(s.community).toBe('public');
      expect(s.trap.specific).toBe((0x01 << 16) | (0x01 << 8) | (rec.eventData![0] & 0x0f)); // temperature, threshold, offset
      const d = decodePet(s.trap.data);
      expect(d).toMatchObject({ sequence: i + 1, severity: 0x10, sensorDevice: 0x86, sensorNumber: 1, entityId: 0xa0, eventData: rec.eventData });
      expect(d.unixTime).toBe(rec.timestamp);
      expect(d.unixTime).toBeGreaterThan(PET_EPOCH_OFFSET);
    }
    const last = r.call(0x20, SE, 0x15).data;
    const id = recs.at(-1)!.recordId;
    expect([last[4]! | (last[5]! << 8), last[8]! | (last[9]! << 8)]).toEqual([id, id]);
  });

  it('PEF off, alerts off in the action control, or the postpone timer running: no PET (postponed ones go when it ends)', () => {
    const sent: Array<{ ip: string; community: string; trap: PetTrap }> = [];
    const r = configured(sent);
    expect(r.call(0x20, SE, 0x12, [0x01, 0x00]).cc).toBe(0);
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 75);
    expect(sent.length).toBe(0);
    expect(r.call(0x20, SE, 0x12, [0x01, 0x01]).cc).toBe(0);
    expect(r.call(0x20, SE, 0x12, [0x02, 0x00]).cc).toBe(0);
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 40);
    expect(sent.length).toBe(0);
    expect(r.call(0x20, SE, 0x12, [0x02, 0x01]).cc).toBe(0);
    expect(r.call(0x20, SE, 0x11, [10]).data).toEqual([10]);
    r.shelf.sensors.setValue('slot3', 'Node3 Temp', 75);
    expect(sent.length).toBe(0);
    r.run(4000);
    expect(r.call(0x20, SE, 0x11, [0xff]).data).toEqual([6]);
    r.run(6500);
    expect(sent.length).toBe(1);
    expect(r.call(0x20, SE, 0x11, [0xff]).data).toEqual([0]);
  });
});
