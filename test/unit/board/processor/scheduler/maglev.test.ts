// Maglev (board/processor/scheduler/maglev.ts).
import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../../../../board/processor/scheduler/index.ts';
import type { PoolView } from '../../../../../board/processor/scheduler/scheduler.ts';
import { MaglevScheduler, isPrime } from '../../../../../board/processor/scheduler/maglev.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';

interface TestPool extends PoolView {
  names: string[];
}

/** A pool whose RS ids equal their positions. */
function pool(names: string[], weights: number[], opts: { up?: number[]; active?: number[]; inactive?: number[] } = {}): TestPool {
  const n = names.length;
  return {
    names,
    size: n,
    ids: Int32Array.from({ length: n }, (_, i) => i),
    keys: names.map((x) => `${x}@10.0.0.${names.indexOf(x) + 1}`),
    weight: Int32Array.from(weights),
    up: Uint8Array.from(opts.up ?? names.map(() => 1)),
    active: Int32Array.from(opts.active ?? names.map(() => 0)),
    inactive: Int32Array.from(opts.inactive ?? names.map(() => 0)),
  };
}

/** A pool keyed by server identity (key independent of list position), for order-independence tests. */
function keyedPool(names: string[]): TestPool {
  const p = pool(names, names.map(() => 1));
  return { ...p, keys: names.map((x) => `${x}@${x}.example`) };
}

describe('maglev', () => {
  it('builds the same table for permuted server lists', () => {
    const names = Array.from({ length: 10 }, (_, i) => `s${i + 1}`);
    const rnd = new SeededRandom(5);
    const shuffled = [...names];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = rnd.int(i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    expect(shuffled).not.toEqual(names);
    const a = keyedPool(names);
    const b = keyedPool(shuffled);
    const ma = new MaglevScheduler();
    const mb = new MaglevScheduler();
    ma.rebuild(a);
    mb.rebuild(b);
    const ta = Array.from(ma.table, (i) => a.names[i]).join(',');
    const tb = Array.from(mb.table, (i) => b.names[i]).join(',');
    expect(ta === tb).toBe(true);
    expect(ta.split(',').every((x) => names.includes(x))).toBe(true);
    // and the same choice for random flows
    for (let k = 0; k < 1000; k++) {
      const h = rnd.u32();
      expect(a.names[ma.pick(a, h)]).toBe(b.names[mb.pick(b, h)]);
    }
  });

  it('balances entries within 1% for 8 servers at M = 65537', () => {
    const p = keyedPool(Array.from({ length: 8 }, (_, i) => `rs${i}`));
    const m = new MaglevScheduler();
    m.rebuild(p);
    const counts = new Array(8).fill(0);
    for (const i of m.table) counts[i]++;
    const mean = 65537 / 8;
    expect(Math.max(...counts) / mean).toBeLessThan(1.01);
  });

  it('removing 1 of 8 moves only about 1/8 of the table', () => {
    const p = keyedPool(Array.from({ length: 8 }, (_, i) => `rs${i}`));
    const m = new MaglevScheduler();
    m.rebuild(p);
    const before = Array.from(m.table);
    p.up[3] = 0;
    m.rebuild(p);
    const after = Array.from(m.table);
    let moved = 0;
    let movedOthers = 0;
    for (let i = 0; i < before.length; i++) {
      if (before[i] !== after[i]) {
        moved++;
        if (before[i] !== 3) movedOthers++;
      }
    }
    expect(after).not.toContain(3);
    const frac = moved / before.length;
    // ideal 1/8 = 12.5% (every entry of the removed server); collateral from the others is small
    expect(frac).toBeGreaterThanOrEqual(0.125);
    expect(frac).toBeLessThan(0.125 * 1.1);
    expect(movedOthers / before.length).toBeLessThan(0.01);
  });

  it('weights bias the table', () => {
    const p = keyedPool(['a', 'b']);
    p.weight[0] = 3;
    p.weight[1] = 1;
    const m = new MaglevScheduler(10007);
    m.rebuild(p);
    const a = Array.from(m.table).filter((i) => i === 0).length / 10007;
    expect(a).toBeGreaterThan(0.73);
    expect(a).toBeLessThan(0.77);
  });

  it('rejects a non-prime table size', () => {
    expect(isPrime(65537)).toBe(true);
    expect(() => new MaglevScheduler(65536)).toThrow(/prime/);
    expect(() => createScheduler('maglev', { maglevTableSize: 100 })).toThrow(RangeError);
  });
});
