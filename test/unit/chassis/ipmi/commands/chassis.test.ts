/** Chassis commands (IPMI v2.0 §28; chassis/ipmi/commands/chassis.ts) at the logical shelf manager (20h), in simulated time. */
import { describe, expect, it } from 'vitest';
import { rig } from '../shelf-manager/rig.ts';

const CHASSIS = 0x00;

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
