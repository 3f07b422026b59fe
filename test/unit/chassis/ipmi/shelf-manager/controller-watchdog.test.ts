/** The IPMI watchdog of the ShMCs' and boards' controllers without the HA layer (chassis/ipmi/shelf-manager/controller-watchdog.ts), in simulated time. */
import { describe, expect, it } from 'vitest';
import { rig } from './rig.ts';

const APP = 0x06;
/** Set Watchdog Timer: SMS/OS use, `action`, no pre-timeout, clear no flags, 10 s (100 × 100 ms). */
const set = (action: number) => [0x04, action, 0x00, 0x00, 100, 0x00];

describe('controller watchdog (no HA)', () => {
  it('every board and ShMC controller answers the watchdog commands; fans and PEMs do not', () => {
    const r = rig();
    for (const a of [0x10, 0x12, 0x82, 0x84, 0x86, 0x88, 0x8a, 0x8c]) expect(r.call(a, APP, 0x25).cc, a.toString(16)).toBe(0);
    for (const a of [0x52, 0x58]) expect(r.call(a, APP, 0x25).cc).toBe(0xc1);
    expect(r.call(0x86, APP, 0x22).cc).toBe(0x80); // Reset before any Set
  });

  it('Set, Get counting down, Reset restarts it; the boards have their own timers', () => {
    const r = rig();
    expect(r.call(0x86, APP, 0x24, set(0x00)).cc).toBe(0);
    expect(r.call(0x86, APP, 0x22).cc).toBe(0);
    r.run(3000);
    const g = r.call(0x86, APP, 0x25).data;
    expect(g[0]! & 0x47).toBe(0x44); // running, SMS/OS
    expect(g[4]! | (g[5]! << 8)).toBe(100);
    expect(g[6]! | (g[7]! << 8)).toBe(70); // 7.0 s left
    expect(r.call(0x88, APP, 0x25).data[0]! & 0x40).toBe(0); // slot4's is not running
    expect(r.call(0x86, APP, 0x22).cc).toBe(0);
    expect((r.call(0x86, APP, 0x25).data[6]! | (r.call(0x86, APP, 0x25).data[7]! << 8))).toBe(100);
  });

  it('expiry with hard reset: a Watchdog 2 record from the board IPMC and a cold reset of its payload', () => {
    const r = rig();
    const controls: string[] = [];
    r.shelf.on('fru.control', (e) => controls.push(`${e.fru} ${e.option}`));
    const before = r.shelf.sel.records().length;
    expect(r.call(0x86, APP, 0x24, set(0x01)).cc).toBe(0);
    expect(r.call(0x86, APP, 0x22).cc).toBe(0);
    r.run(10_500);
    expect(controls).toEqual(['slot3 cold-reset']);
    const rec = r.shelf.sel.records().slice(before).find((x) => x.sensorType === 0x23)!;
    expect(rec).toMatchObject({ generatorId: 0x86, sensorNumber: 0xfe, eventDirType: 0x6f });
    expect(rec.eventData![0]! & 0x0f).toBe(1); // hard reset
    expect(r.call(0x86, APP, 0x25).data[3]! & 0x10).toBe(0x10); // SMS/OS expiration flag
  });

  it('expiry with no action: logged, the payload left alone; a hub logs nothing (no watchdog sensor)', () => {
    const r = rig();
    const controls: string[] = [];
    r.shelf.on('fru.control', (e) => controls.push(e.fru));
    const before = r.shelf.sel.records().length;
    expect(r.call(0x88, APP, 0x24, set(0x00)).cc).toBe(0);
    expect(r.call(0x88, APP, 0x22).cc).toBe(0);
    expect(r.call(0x82, APP, 0x24, set(0x01)).cc).toBe(0);
    expect(r.call(0x82, APP, 0x22).cc).toBe(0);
    r.run(10_500);
    expect(controls).toEqual(['slot1']);
    const recs = r.shelf.sel.records().slice(before).filter((x) => x.sensorType === 0x23);
    expect(recs.map((x) => [x.generatorId, x.eventData![0]! & 0x0f])).toEqual([[0x88, 0]]);
  });
});
