/** Get ACPI Power State (IPMI v2.0 §20.7; chassis/ipmi/commands/acpi.ts) at the shelf manager and the IPMCs, in simulated time. */
import { describe, expect, it } from 'vitest';
import { rig } from '../shelf-manager/rig.ts';

const APP = 0x06;

describe('Get ACPI Power State', () => {
  it('the shelf at 20h: S0/D0 while the chassis is on, S5/G2 and D3 after Chassis Control off', () => {
    const r = rig();
    expect(r.call(0x20, APP, 0x07)).toEqual({ cc: 0, data: [0x00, 0x00] });
    expect(r.call(0x20, 0x00, 0x02, [0x00]).cc).toBe(0); // power down
    expect(r.call(0x20, APP, 0x07)).toEqual({ cc: 0, data: [0x05, 0x03] });
    expect(r.call(0x20, APP, 0x07, [0x00]).cc).toBe(0xc7);
  });

  it("a board's IPMC follows its FRU: S0/D0 in M4, S5/D3 once deactivated; Set ACPI Power State is not implemented", () => {
    const r = rig();
    for (const a of [0x10, 0x82, 0x86, 0x52, 0x58]) expect(r.call(a, APP, 0x07).data).toEqual([0x00, 0x00]);
    r.shelf.hotSwap.deactivate('slot4');
    r.run(5000);
    expect(r.shelf.state('slot4')).toBe(1);
    expect(r.call(0x88, APP, 0x07).data).toEqual([0x05, 0x03]);
    expect(r.call(0x86, APP, 0x07).data).toEqual([0x00, 0x00]);
    expect(r.call(0x86, APP, 0x06, [0x80, 0x80]).cc).toBe(0xc1);
  });
});
