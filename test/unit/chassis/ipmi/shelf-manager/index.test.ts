/** The IPM controllers of the shelf IPMI face (chassis/ipmi/shelf-manager/index.ts) for FRUs that are not installed. */
import { describe, expect, it } from 'vitest';
import { rig } from './rig.ts';

describe('IPM controllers of FRUs that are not installed', () => {
  it('an extracted board has no controller on IPMB-0 (Send Message: NAK on write); inserted again, it answers', () => {
    const r = rig();
    r.shelf.hotSwap.extract('slot3');
    expect(r.ipmi.server.controllerAt(0x86)).toBeUndefined();
    r.shelf.hotSwap.insert('slot3');
    expect(r.ipmi.server.controllerAt(0x86)).toBeDefined();
    expect(r.call(0x86, 0x06, 0x01).data.slice(0, 3)).toEqual([0x00, 0x81, 0x01]); // device ID 0, provides device SDRs, fw 1.05
  });
});
