import { describe, expect, it } from 'vitest';
import { IpmiError } from '../../../../../chassis/ipmi/codes.ts';
import { encodeComponentImage, fillerBody } from '../../../../../chassis/ipmi/hpm/component-image.ts';
import type { FirmwareVersion } from '../../../../../chassis/ipmi/hpm/image.ts';
import { HpmUpgradeTarget, type HpmComponent, type RunResult } from '../../../../../chassis/ipmi/hpm/upgrade-target.ts';
import { shelfCapabilities } from '../../../../../chassis/ipmi/hpm/shelf-hpm.ts';

const v = (major: number, minor: number): FirmwareVersion => ({ major, minor, aux: [0, 0, 0, 0] });

/** A component whose runs finish when the test says (`later`) or at once. */
function component(id: number, opts: { later?: boolean; refuse?: number; rollback?: boolean } = {}) {
  let version = v(1, 0);
  const pending: Array<(r: RunResult) => void> = [];
  const ran: FirmwareVersion[] = [];
  const c: HpmComponent = {
    id, description: `c${id}`, rollback: opts.rollback ?? true, payloadColdReset: id === 1,
    current: () => version,
    check: (x) => {
      if (opts.refuse !== undefined && x.major !== 1) throw new IpmiError(opts.refuse, 'refused');
    },
    run: (x, done) => {
      ran.push(x);
      const finish = (r: RunResult) => {
        if (r.ok) version = x;
        done(r);
      };
      if (opts.later) pending.push(finish);
      else finish({ ok: true });
    },
  };
  return { c, pending, ran, get version() { return version; } };
}

function upload(t: HpmUpgradeTarget, id: number, ver: FirmwareVersion, mutate?: (b: Uint8Array) => Uint8Array): void {
  let b = encodeComponentImage({ component: id, version: ver, body: fillerBody('x', 'y', 50) });
  if (mutate) b = mutate(b);
  t.initiate(1 << id, 2);
  for (let i = 0, n = 0; i < b.length; i += 20, n++) t.block(n & 0xff, b.subarray(i, i + 20));
  t.finish(id, b.length);
}

function cc(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    if (e instanceof IpmiError) return e.cc;
    throw e;
  }
  return 0;
}

describe('HpmUpgradeTarget', () => {
  it('upload → deferred copy → activation at once → the old version is the backup', () => {
    const ipmc = component(0);
    const t = new HpmUpgradeTarget([ipmc.c], shelfCapabilities(false));
    upload(t, 0, v(1, 6));
    expect(t.deferredVersion(0)).toEqual(v(1, 6));
    expect(t.activate()).toBe(0);
    expect(ipmc.version).toEqual(v(1, 6));
    expect(t.backup(0)).toEqual(v(1, 0));
    expect(t.deferredVersion(0)).toBeUndefined();
    expect(t.status()).toEqual([0x35, 0]);
  });

  it('a payload that finishes later: 80h, status and self-test in progress, then done', () => {
    const pl = component(1, { later: true });
    const t = new HpmUpgradeTarget([component(0).c, pl.c], shelfCapabilities(true));
    upload(t, 1, v(1, 1));
    expect(t.activate()).toBe(0x80);
    expect(t.status()).toEqual([0x35, 0x80]);
    expect(cc(() => t.selfTest())).toBe(0x80);
    expect(cc(() => t.activate())).toBe(0xd5);
    expect(cc(() => t.initiate(2, 2))).toBe(0xd5);
    expect(cc(() => t.abort())).toBe(0x81);
    pl.pending.shift()!({ ok: true });
    expect(t.status()).toEqual([0x35, 0]);
    expect(t.selfTest()).toEqual([0x55, 0x00]);
    expect(t.backup(1)).toEqual(v(1, 0));
  });

  it('a payload install that fails after it started reports its code through Get Upgrade Status and keeps no backup', () => {
    const pl = component(1, { later: true });
    const t = new HpmUpgradeTarget([pl.c], shelfCapabilities(true));
    upload(t, 1, v(1, 1));
    t.activate();
    pl.pending.shift()!({ ok: false, cc: 0xff, reason: 'timeout' });
    expect(t.status()).toEqual([0x35, 0xff]);
    expect(t.backup(1)).toBeUndefined();
    expect(pl.version).toEqual(v(1, 0));
  });

  it('manual rollback runs the backup, Query Rollback Status names the component', () => {
    const pl = component(1, { later: true });
    const t = new HpmUpgradeTarget([pl.c], shelfCapabilities(true));
    expect(cc(() => t.rollback())).toBe(0xd5);
    upload(t, 1, v(1, 1));
    t.activate();
    pl.pending.shift()!({ ok: true });
    expect(t.rollback()).toBe(0x80);
    expect(cc(() => t.rollbackStatus())).toBe(0x80);
    pl.pending.shift()!({ ok: true });
    expect(t.rollbackStatus()).toBe(0x02);
    expect(pl.version).toEqual(v(1, 0));
    expect(t.backup(1)).toBeUndefined();
  });

  it('a refusal by the component (incompatible version) at Finish leaves nothing deferred and runs nothing', () => {
    const pl = component(1, { refuse: 0xd5 });
    const t = new HpmUpgradeTarget([pl.c], shelfCapabilities(true));
    expect(cc(() => upload(t, 1, v(2, 0)))).toBe(0xd5);
    expect(t.deferredVersion(1)).toBeUndefined();
    expect(pl.ran).toEqual([]);
    expect(t.status()).toEqual([0x33, 0xd5]);
  });

  it('Finish refuses a truncated image with 81h and a corrupted one with 82h; the board keeps its version', () => {
    const pl = component(1);
    const t = new HpmUpgradeTarget([pl.c], shelfCapabilities(true));
    expect(cc(() => upload(t, 1, v(1, 1), (b) => b.subarray(0, b.length - 7)))).toBe(0x81);
    expect(cc(() => upload(t, 1, v(1, 1), (b) => {
      const x = Uint8Array.from(b);
      x[30]! ^= 1;
      return x;
    }))).toBe(0x82);
    expect(t.status()).toEqual([0x33, 0x82]);
    expect(cc(() => t.activate())).toBe(0xd5);
    expect(pl.version).toEqual(v(1, 0));
  });

  it('Finish with a length other than what was uploaded is 81h; blocks must come in order; a repeated block is ignored', () => {
    const t = new HpmUpgradeTarget([component(1).c], shelfCapabilities(true));
    const b = encodeComponentImage({ component: 1, version: v(1, 1), body: new Uint8Array(10) });
    t.initiate(2, 2);
    t.block(0, b.subarray(0, 20));
    t.block(0, b.subarray(0, 20)); // a retransmission
    expect(cc(() => t.block(5, b.subarray(20)))).toBe(0xcc);
    t.block(1, b.subarray(20));
    expect(cc(() => t.finish(1, b.length + 1))).toBe(0x81);
    expect(cc(() => t.block(2, b))).toBe(0xd5); // the upload ended
  });

  it('checks masks and actions: absent components 81h, compare CCh, backup and prepare change nothing', () => {
    const t = new HpmUpgradeTarget([component(0).c, component(2, { rollback: false }).c], shelfCapabilities(false));
    expect(t.present).toBe(0x05);
    expect(cc(() => t.initiate(0x02, 2))).toBe(0x81);
    expect(cc(() => t.initiate(0, 0))).toBe(0x81);
    expect(cc(() => t.initiate(0x05, 2))).toBe(0x81);
    expect(cc(() => t.initiate(0x01, 3))).toBe(0xcc);
    t.initiate(0x05, 0);
    t.initiate(0x05, 1);
    expect(t.backup(0)).toBeUndefined();
    expect(t.backup(2)).toBeUndefined();
    expect(cc(() => t.component(5))).toBe(0x82);
  });
});
