/**
 * Shelf-manager redundancy as the IPMI side sees it (chassis/ipmi/shelf-manager/shm-roles.ts): the
 * logical shelf manager (20h) follows the active ShMC; switchover through the built-in fallback (the
 * Shelf's ShMC roles) and through the runtime's HA hooks, deactivation and cold reset of FRU 0 at
 * 20h, the fallback's role upkeep and failover, shelf-manager status.
 */
import { describe, expect, it, vi } from 'vitest';
import { CommandError } from '../../../../../board/common/errors.ts';
import { OemCmd, decodeOemError, decodeShmStatus, oemWriter, putStr } from '../../../../../chassis/ipmi/shelf-manager/oem-protocol.ts';
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
