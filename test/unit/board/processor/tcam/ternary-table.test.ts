// The TCAM-like ternary table (board/processor/tcam/ternary-table.ts).
import { describe, expect, it } from 'vitest';
import { TernaryTable, TernaryTableFullError } from '../../../../../board/processor/tcam/ternary-table.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';

describe('TernaryTable', () => {
  it('first match by priority wins, ties go to the earlier entry', () => {
    const t = new TernaryTable(2, 8);
    const any = t.add([0, 0], [0, 0], 0, 100);
    const net = t.add([0x0a000000, 0], [0xff000000, 0], 10, 200);
    const host = t.add([0x0a000001, 0], [0xffffffff, 0], 5, 300); // lower priority than the /8
    const port = t.add([0, 80], [0, 0xffff], 10, 400); // same priority as the /8, added later
    const r = (k: number[]) => t.resultOf(t.lookup(k));
    expect(r([0x0a000001, 0])).toBe(200);
    expect(r([0x0b000001, 0])).toBe(100);
    expect(r([0x0a000001, 80])).toBe(200); // tie at 10: /8 was added first
    expect(r([0x0b000001, 80])).toBe(400);
    t.remove(net);
    expect(r([0x0a000001, 0])).toBe(300);
    expect(r([0x0a000001, 80])).toBe(400);
    t.remove(any);
    expect(t.lookup([0x0b000001, 1])).toBe(-1);
    expect([host, port].every((id) => id >= 0)).toBe(true);
    expect(t.maskCount).toBe(2);
  });

  it('probes one hash table per distinct mask and agrees with a linear scan', () => {
    const rnd = new SeededRandom(3);
    const t = new TernaryTable(3, 2000);
    const entries: Array<{ v: number[]; m: number[]; p: number; id: number }> = [];
    const masks = [[0xffffff00, 0, 0], [0xffff0000, 0xffff, 0], [0, 0, 0xff], [0xffffffff, 0xffffffff, 0xffffffff]];
    for (let i = 0; i < 1500; i++) {
      const m = masks[rnd.int(masks.length)]!;
      const v = [rnd.int(4) << 24 | rnd.int(4) << 8, rnd.int(3), rnd.int(5)].map((x) => x >>> 0);
      const p = rnd.int(20);
      entries.push({ v, m, p, id: t.add(v, m, p, i) });
    }
    expect(t.maskCount).toBe(4);
    for (let q = 0; q < 3000; q++) {
      const k = [(rnd.int(4) << 24 | rnd.int(4) << 8 | rnd.int(2)) >>> 0, rnd.int(3), rnd.int(5)];
      let best = -1;
      let bp = -Infinity;
      for (const e of entries) {
        if (e.v.every((x, w) => ((k[w]! & e.m[w]!) >>> 0) === ((x & e.m[w]!) >>> 0)) && e.p > bp) {
          best = e.id;
          bp = e.p;
        }
      }
      expect(t.lookup(k)).toBe(best);
    }
  });

  it('has a fixed capacity with a clear table_full error', () => {
    const t = new TernaryTable(1, 2);
    t.add([1], [0xffffffff], 1, 1);
    const id = t.add([2], [0xffffffff], 1, 2);
    expect(() => t.add([3], [0xffffffff], 1, 3)).toThrow(TernaryTableFullError);
    try {
      t.add([3], [0xffffffff], 1, 3);
    } catch (e) {
      expect((e as TernaryTableFullError).code).toBe('table_full');
      expect((e as Error).message).toBe('ternary table full: capacity 2 entries');
    }
    t.remove(id);
    expect(t.add([3], [0xffffffff], 1, 3)).toBeGreaterThanOrEqual(0);
    expect(() => t.add([1, 2], [0, 0], 1, 1)).toThrow(RangeError);
  });
});
