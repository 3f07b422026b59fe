/**
 * The logical shelf manager (20h) following the active ShMC: switchover through the built-in
 * fallback (the Shelf's ShMC roles) and through the runtime's HA hooks, deactivation and cold reset
 * of FRU 0 at 20h, the fallback's role upkeep and failover, shelf-manager status, controllers of
 * FRUs in M0, and the OEM commands (IANA, layouts, refusals with the shelf's reason).
 */
import { describe, expect, it, vi } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { OemCmd, OEM_IANA_BYTES, decodeFruInfo, decodeOemError, decodeShmStatus, oemWriter, putStr } from '../../../../chassis/ipmi/shelf-manager/oem-protocol.ts';
import { rig } from './rig.ts';

const PICMG = 0x2c;
const OEM = 0x2e;
const site = (r: ReturnType<typeof rig>) => r.call(0x20, PICMG, 0x01, [0x00]).data[5];

function oemData(build: (w: ReturnType<typeof oemWriter>) => void = () => {}): number[] {
  const w = oemWriter();
  build(w);
  return [...w.toBuffer()];
}

describe('switchover (built-in fallback: the Shelf\'s ShMC roles)', () => {
  it('OEM switchover: the peer becomes active with the next epoch, 20h answers as the peer', () => {
    const r = rig();
    expect(site(r)).toBe(1);
    const res = r.call(0x20, OEM, OemCmd.switchover, oemData());
    expect(res.cc).toBe(0);
    expect(r.shelf.roles.of('shmc-b')).toEqual([{ key: 'shmc-b', role: 'active', epoch: 1 }]);
    expect(r.shelf.roles.of('shmc-a')).toEqual([{ key: 'shmc-a', role: 'standby.hot', epoch: 1 }]);
    expect(r.shelf.activeShmc()).toBe('shmc-b');
    expect(site(r)).toBe(2);
    const st = decodeShmStatus(Uint8Array.from(r.call(0x20, OEM, OemCmd.shmStatus, oemData()).data));
    expect(st).toMatchObject({ role: 'active', peerRole: 'standby.hot', epoch: 1, self: 'shmc-b', peer: 'shmc-a', site: 2, peerSite: 1, flags: 0x07 });
    r.call(0x20, OEM, OemCmd.switchover, oemData());
    expect(r.shelf.roles.of('shmc-a')[0]).toMatchObject({ role: 'active', epoch: 2 });
  });

  it('Set FRU Activation (deactivate) of FRU 0 at 20h: switchover, then the old ShMC goes M6 → M1 (role failed); its handle brings it back as standby.hot', () => {
    const r = rig();
    expect(r.call(0x20, PICMG, 0x0c, [0x00, 0x00, 0x00]).data).toEqual([0x00]);
    expect(r.shelf.activeShmc()).toBe('shmc-b');
    expect(r.shelf.state('shmc-a')).toBe(6);
    expect(r.shelf.roles.of('shmc-a')[0]!.role).toBe('failed');
    r.run(1500);
    expect(r.shelf.state('shmc-a')).toBe(1);
    // nobody to switch over to now
    const refused = r.call(0x20, OEM, OemCmd.switchover, oemData());
    expect(refused.cc).toBe(0xd5);
    expect(decodeOemError(Uint8Array.from(refused.data))).toMatchObject({ code: 'no_standby' });
    expect(r.call(0x20, PICMG, 0x0c, [0x00, 0x00, 0x00]).cc).toBe(0xd5);
    expect(r.shelf.state('shmc-b')).toBe(4);
    r.shelf.hotSwap.closeHandle('shmc-a');
    r.run(3000);
    expect(r.shelf.state('shmc-a')).toBe(4);
    expect(r.shelf.roles.of('shmc-a')[0]!.role).toBe('standby.hot');
  });

  it('FRU Control cold reset of FRU 0 at 20h: switchover, the old ShMC stays in M4 as standby.hot; warm reset is no switchover', () => {
    const r = rig();
    expect(r.call(0x20, PICMG, 0x04, [0x00, 0x00, 0x01]).data).toEqual([0x00]);
    expect(r.shelf.activeShmc()).toBe('shmc-a');
    expect(r.call(0x20, PICMG, 0x04, [0x00, 0x00, 0x00]).data).toEqual([0x00]);
    expect(r.shelf.activeShmc()).toBe('shmc-b');
    expect(r.shelf.state('shmc-a')).toBe(4);
    expect(r.shelf.roles.of('shmc-a')[0]!.role).toBe('standby.hot');
  });

  it('the standby ShMC is deactivated like any FRU (FRU ID = its hardware address at 20h): no switchover', () => {
    const r = rig();
    expect(r.call(0x20, PICMG, 0x0c, [0x00, 0x09, 0x00]).data).toEqual([0x00]);
    expect(r.shelf.activeShmc()).toBe('shmc-a');
    expect(r.shelf.state('shmc-b')).toBe(6);
  });

  it('after a built-in switchover, the active ShMC leaving M4 makes the healthy peer active (failover)', () => {
    const r = rig();
    r.call(0x20, OEM, OemCmd.switchover, oemData());
    expect(r.shelf.activeShmc()).toBe('shmc-b');
    const ext = r.call(0x20, OEM, OemCmd.insertExtract, oemData((w) => (w.u8(0), putStr(w, 'shmc-b'))));
    expect(ext.cc).toBe(0);
    expect(r.shelf.activeShmc()).toBe('shmc-a');
    expect(site(r)).toBe(1);
    expect(r.shelf.roles.of('shmc-b')[0]!.role).toBe('failed');
    // an extracted IPMC no longer answers on IPMB-0 (the ShMC at 12h)
    expect(r.ipmi.server.controllerAt(0x12)).toBeUndefined();
    expect(decodeShmStatus(Uint8Array.from(r.call(0x20, OEM, OemCmd.shmStatus, oemData()).data)).peerRole).toBe('absent');
  });

  it('status before any role is set: the first ShMC in M4 is active, the peer standby.hot / failed by its M-state', () => {
    const r = rig();
    expect(r.ipmi.services.shmStatus()).toEqual({ self: 'shmc-a', role: 'active', peer: 'shmc-b', peerRole: 'standby.hot', epoch: 0 });
    r.shelf.hotSwap.openHandle('shmc-b');
    expect(r.ipmi.services.shmStatus().peerRole).toBe('failed');
  });
});

describe('switchover through the HA hooks', () => {
  it('the hook gets reason, from and to; 20h follows the roles it sets', () => {
    let rr: ReturnType<typeof rig> | undefined;
    const switchover = vi.fn((q: { from: string; to: string }) => {
      rr!.shelf.roles.set(q.to, 'active', 7);
      rr!.shelf.roles.set(q.from, 'standby.ready', 7);
    });
    const r = (rr = rig({ ha: { switchover } }));
    expect(r.call(0x20, PICMG, 0x04, [0x00, 0x00, 0x00]).data).toEqual([0x00]);
    expect(switchover).toHaveBeenCalledWith({ reason: 'cold-reset', from: 'shmc-a', to: 'shmc-b' });
    expect(site(r)).toBe(2);
    // the fallback leaves roles alone when the HA layer owns them
    r.shelf.hotSwap.openHandle('shmc-a');
    r.run(3000);
    expect(r.shelf.roles.of('shmc-a')[0]!.role).toBe('standby.ready');
  });

  it('a hook that refuses (CommandError) or does nothing: D5h with the reason; nothing moves', () => {
    const r = rig({
      ha: {
        switchover: () => {
          throw new CommandError('peer_not_hot', 'shmc-b is not hot yet');
        },
      },
    });
    const res = r.call(0x20, OEM, OemCmd.switchover, oemData());
    expect(res.cc).toBe(0xd5);
    expect(decodeOemError(Uint8Array.from(res.data))).toEqual({ code: 'peer_not_hot', message: 'shmc-b is not hot yet' });
    expect(r.call(0x20, PICMG, 0x0c, [0x00, 0x00, 0x00]).cc).toBe(0xd5);
    expect(r.shelf.state('shmc-a')).toBe(4);
    const lazy = rig({ ha: { switchover: () => {} } });
    expect(decodeOemError(Uint8Array.from(lazy.call(0x20, OEM, OemCmd.switchover, oemData()).data))?.code).toBe('switchover_refused');
  });

  it('the status hook answers shmstatus; roles set by the HA layer alone also move 20h', () => {
    const r = rig({ ha: { shmStatus: () => ({ self: 'shmc-a', role: 'active', peer: 'shmc-b', peerRole: 'standby.ready', epoch: 4 }) } });
    expect(decodeShmStatus(Uint8Array.from(r.call(0x20, OEM, OemCmd.shmStatus, oemData()).data))).toMatchObject({ peerRole: 'standby.ready', epoch: 4 });
    r.shelf.roles.set('shmc-b', 'active', 5);
    r.shelf.roles.set('shmc-a', 'standby.hot', 5);
    expect(site(r)).toBe(2);
  });
});

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
