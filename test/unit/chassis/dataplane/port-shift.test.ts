/** The capture loop's client-port rule (chassis/dataplane/port-shift.ts); traffic.test.ts checks
 * it on real captures (both directions alike, checksums kept valid, buffer restored). */
import { describe, expect, it } from 'vitest';
import { PortShift, shiftPort } from '../../../../chassis/dataplane/port-shift.ts';

describe('shiftPort', () => {
  it('is a bijection of 1024..65535 and of 0..1023 for every loop, and never a fixed point', () => {
    for (const L of [1, 2, 7, 100]) {
      const hi = new Set<number>();
      for (let p = 1024; p <= 65535; p++) {
        const q = shiftPort(p, L);
        expect(q >= 1024 && q <= 65535).toBe(true);
        hi.add(q);
      }
      expect(hi.size).toBe(64512);
      const lo = new Set<number>();
      for (let p = 0; p < 1024; p++) lo.add(shiftPort(p, L));
      expect(lo.size).toBe(1024);
      expect(Math.max(...lo)).toBe(1023);
    }
    expect(shiftPort(50000, 0)).toBe(50000);
    // a port takes a new value on each of many loops
    const seen = new Set<number>();
    for (let L = 0; L < 1024; L++) seen.add(shiftPort(80, L));
    expect(seen.size).toBe(1024);
  });
});

describe('PortShift', () => {
  it('shifts like shiftPort without divisions, for every port of several loops', () => {
    const ps = new PortShift();
    for (const L of [0, 1, 2, 15, 1023, 5000]) {
      ps.setLoop(L);
      for (let p = 0; p <= 65535; p++) if (ps.shift(p) !== shiftPort(p, L)) expect([L, p, ps.shift(p)]).toEqual([L, p, shiftPort(p, L)]);
    }
  });
});
