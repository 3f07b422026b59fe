/**
 * The HPM.1 commands (chassis/ipmi/hpm/commands.ts) on the shelf's controllers as createShelfIpmi
 * registers them (shelf-hpm.ts): byte layouts, the IPMC component changing Get Device ID, and the
 * payload component going through the HA layer's port. ipmitool's `hpm` runs are in test/e2e/hpm.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../../board/common/errors.ts';
import { encodeComponentImage, fillerBody } from '../../../../../chassis/ipmi/hpm/component-image.ts';
import type { PayloadFirmwarePort, PayloadVersion } from '../../../../../chassis/ipmi/hpm/shelf-hpm.ts';
import { rig, type Rig } from '../shelf-manager/rig.ts';

const PICMG = 0x2c;

function uploadBytes(r: Rig, addr: number, component: number, major: number, minor: number): { cc: number; data: number[] } {
  const img = encodeComponentImage({ component, version: { major, minor, aux: [0, 0, 0, 0] }, body: fillerBody('t', `${major}.${minor}`, 40) });
  expect(r.call(addr, PICMG, 0x31, [0x00, 1 << component, 0x02]).cc).toBe(0);
  for (let i = 0, n = 0; i < img.length; i += 24, n++) expect(r.call(addr, PICMG, 0x32, [0x00, n, ...img.subarray(i, i + 24)]).cc).toBe(0);
  const len = img.length;
  return r.call(addr, PICMG, 0x33, [0x00, component, len & 0xff, (len >> 8) & 0xff, 0, 0]);
}

class FakePort implements PayloadFirmwarePort {
  versions = new Map<string, PayloadVersion>([['slot3', { major: 1, minor: 0 }]]);
  pending: Array<() => void> = [];
  version(fru: string) {
    return this.versions.get(fru);
  }
  check(fru: string, v: PayloadVersion) {
    if (v.major !== this.versions.get(fru)!.major) throw new CommandError('incompatible_version', 'buddy refuses');
  }
  install(fru: string, v: PayloadVersion, done: (e?: CommandError) => void) {
    this.pending.push(() => {
      this.versions.set(fru, v);
      done();
    });
  }
}

describe('HPM.1 commands on the shelf', () => {
  it('Get Target Upgrade Capabilities: a board has IPMC, payload and boot; a fan tray no payload', () => {
    const r = rig();
    expect(r.call(0x86, PICMG, 0x2e, [0x00], { privilege: 2 })).toEqual({ cc: 0, data: [0x00, 0x00, 0x1d, 24, 2, 24, 4, 0x07] });
    expect(r.call(0x52, PICMG, 0x2e, [0x00])).toEqual({ cc: 0, data: [0x00, 0x00, 0x15, 24, 2, 24, 4, 0x05] });
    expect(r.call(0x20, PICMG, 0x2e, [0x00]).data[7]).toBe(0x07);
    expect(r.call(0x86, PICMG, 0x2e, []).cc).toBe(0xc7);
    expect(r.call(0x86, PICMG, 0x2e, [0x03]).cc).toBe(0xc1);
  });

  it('Get Component Properties: general, current version, description, rollback and deferred versions', () => {
    const r = rig();
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x00]).data).toEqual([0x00, 0x35]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x02, 0x00]).data).toEqual([0x00, 0x14]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x00, 0x01]).data).toEqual([0x00, 0x01, 0x05, 0, 0, 0, 0]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x02]).data).toEqual([0x00, ...Buffer.from('Payload\0\0\0\0\0', 'latin1')]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x03]).data).toEqual([0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x02, 0x03]).cc).toBe(0x83);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x03, 0x00]).cc).toBe(0x82);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x05]).cc).toBe(0x83);
  });

  it('activating an IPMC image changes Get Device ID at the board and, for a ShMC, at 20h', () => {
    const r = rig();
    expect(uploadBytes(r, 0x86, 0, 1, 6).cc).toBe(0);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x00, 0x04]).data).toEqual([0x00, 0x01, 0x06, 0, 0, 0, 0]);
    expect(r.call(0x86, PICMG, 0x35, [0x00])).toEqual({ cc: 0, data: [0x00] });
    expect(r.call(0x86, 0x06, 0x01).data.slice(2, 4)).toEqual([0x01, 0x06]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x00, 0x03]).data).toEqual([0x00, 0x01, 0x05, 0, 0, 0, 0]);
    const shmc = r.shelf.activeShmc()!;
    const addr = r.shelf.fruConfig(shmc).ipmbAddress;
    expect(uploadBytes(r, addr, 0, 2, 11).cc).toBe(0);
    expect(r.call(addr, PICMG, 0x35, [0x00]).cc).toBe(0);
    expect(r.call(0x20, 0x06, 0x01).data.slice(2, 4)).toEqual([0x02, 0x11]);
    expect(r.call(0x86, PICMG, 0x38, [0x00]).cc).toBe(0);
    expect(r.call(0x86, PICMG, 0x37, [0x00]).data).toEqual([0x00, 0x01]);
    expect(r.call(0x86, 0x06, 0x01).data.slice(2, 4)).toEqual([0x01, 0x05]);
  });

  it('a payload activation goes through the HA port: 80h, Get Upgrade Status until it serves, then current = new', () => {
    const port = new FakePort();
    const r = rig({ ha: { payloadFirmware: port } });
    expect(uploadBytes(r, 0x86, 1, 2, 0)).toEqual({ cc: 0xd5, data: [] });
    expect(r.call(0x86, PICMG, 0x34, [0x00]).data).toEqual([0x00, 0x33, 0xd5]);
    expect(uploadBytes(r, 0x86, 1, 1, 1).cc).toBe(0);
    expect(r.call(0x86, PICMG, 0x35, [0x00], { privilege: 3 }).cc).toBe(0xd4);
    expect(r.call(0x86, PICMG, 0x35, [0x00])).toEqual({ cc: 0x80, data: [0x00] });
    expect(r.call(0x86, PICMG, 0x34, [0x00]).data).toEqual([0x00, 0x35, 0x80]);
    expect(r.call(0x86, PICMG, 0x36, [0x00]).cc).toBe(0x80);
    port.pending.shift()!();
    expect(r.call(0x86, PICMG, 0x34, [0x00]).data).toEqual([0x00, 0x35, 0x00]);
    expect(r.call(0x86, PICMG, 0x36, [0x00]).data).toEqual([0x00, 0x55, 0x00]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x01]).data).toEqual([0x00, 0x01, 0x01, 0, 0, 0, 0]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x03]).data).toEqual([0x00, 0x01, 0x00, 0, 0, 0, 0]);
  });

  it('a payload activation the HA port fails ends failed (not in progress); the copy stays deferred and may be activated again', () => {
    const port = new FakePort();
    const r = rig({ ha: { payloadFirmware: port } });
    port.install = (_fru, _v, done) => port.pending.push(() => done(new CommandError('handover_abandoned', 'slot3: planned switchover abandoned')));
    expect(uploadBytes(r, 0x86, 1, 1, 1).cc).toBe(0);
    expect(r.call(0x86, PICMG, 0x35, [0x00])).toEqual({ cc: 0x80, data: [0x00] });
    expect(r.call(0x86, PICMG, 0x34, [0x00]).data).toEqual([0x00, 0x35, 0x80]);
    port.pending.shift()!();
    expect(r.call(0x86, PICMG, 0x34, [0x00]).data).toEqual([0x00, 0x35, 0xff]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x01]).data).toEqual([0x00, 0x01, 0x00, 0, 0, 0, 0]);
    // Not "an activation is in progress": the second attempt runs, and this time the port installs.
    port.install = FakePort.prototype.install.bind(port);
    expect(r.call(0x86, PICMG, 0x35, [0x00])).toEqual({ cc: 0x80, data: [0x00] });
    port.pending.shift()!();
    expect(r.call(0x86, PICMG, 0x34, [0x00]).data).toEqual([0x00, 0x35, 0x00]);
    expect(r.call(0x86, PICMG, 0x2f, [0x00, 0x01, 0x01]).data).toEqual([0x00, 0x01, 0x01, 0, 0, 0, 0]);
  });

  it('Finish answers 81h for a short upload and 82h for a corrupted one', () => {
    const r = rig();
    const img = encodeComponentImage({ component: 1, version: { major: 1, minor: 1, aux: [0, 0, 0, 0] }, body: new Uint8Array(20) });
    r.call(0x88, PICMG, 0x31, [0x00, 0x02, 0x02]);
    r.call(0x88, PICMG, 0x32, [0x00, 0x00, ...img.subarray(0, 30)]);
    expect(r.call(0x88, PICMG, 0x33, [0x00, 0x01, img.length, 0, 0, 0]).cc).toBe(0x81);
    const bad = Uint8Array.from(img);
    bad[25]! ^= 0xff;
    r.call(0x88, PICMG, 0x31, [0x00, 0x02, 0x02]);
    r.call(0x88, PICMG, 0x32, [0x00, 0x00, ...bad]);
    expect(r.call(0x88, PICMG, 0x33, [0x00, 0x01, bad.length, 0, 0, 0]).cc).toBe(0x82);
    expect(r.call(0x88, PICMG, 0x35, [0x00]).cc).toBe(0xd5);
  });
});
