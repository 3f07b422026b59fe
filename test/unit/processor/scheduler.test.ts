import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../../board/processor/scheduler/index.ts';
import type { PoolView } from '../../../board/processor/scheduler/scheduler.ts';
import { MaglevScheduler, isPrime } from '../../../board/processor/scheduler/maglev.ts';
import { SourceHashScheduler } from '../../../board/processor/scheduler/source-hash.ts';
import { loadScore, weightsFromScores } from '../../../board/processor/scheduler/load-score.ts';
import { SeededRandom } from '../../../board/common/random.ts';

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

describe('wrr (IPVS interleaved weighted round robin)', () => {
  it('produces IPVS\'s sequence for weights 4:3:2', () => {
    // Derivation from ip_vs_wrr.c: di = gcd(4,3,2) = 1, mw = 4 - (1 - 1) = 4, cw starts at mw.
    // Each pass over [A,B,C] takes the servers with weight >= cw, then cw drops by di:
    //   cw=4: A        cw=3: A B        cw=2: A B C        cw=1: A B C        then cw wraps to 4.
    const expectedCycle = ['A', 'A', 'B', 'A', 'B', 'C', 'A', 'B', 'C'];
    const p = pool(['A', 'B', 'C'], [4, 3, 2]);
    const s = createScheduler('wrr');
    s.rebuild(p);
    const got = Array.from({ length: 27 }, () => p.names[s.pick(p, 0, 0)]);
    expect(got).toEqual([...expectedCycle, ...expectedCycle, ...expectedCycle]);
  });

  it('steps by the gcd: weights 4:2 behave as 2:1', () => {
    const p = pool(['A', 'B'], [4, 2]);
    const s = createScheduler('wrr');
    s.rebuild(p);
    expect(Array.from({ length: 6 }, () => p.names[s.pick(p, 0, 0)])).toEqual(['A', 'A', 'B', 'A', 'A', 'B']);
  });

  it('skips down and drained members and returns -1 when none is available', () => {
    const p = pool(['A', 'B', 'C'], [4, 0, 2], { up: [0, 1, 1] });
    const s = createScheduler('wrr');
    s.rebuild(p);
    expect(new Set(Array.from({ length: 10 }, () => p.names[s.pick(p, 0, 0)]))).toEqual(new Set(['C']));
    p.up[2] = 0;
    s.rebuild(p);
    expect(s.pick(p, 0, 0)).toBe(-1);
  });
});

describe('rr', () => {
  it('cycles in order and skips unavailable members', () => {
    const p = pool(['A', 'B', 'C'], [1, 0, 1]);
    const s = createScheduler('rr');
    s.rebuild(p);
    expect(Array.from({ length: 4 }, () => p.names[s.pick(p, 0, 0)])).toEqual(['A', 'C', 'A', 'C']);
  });
});

describe('lc / wlc', () => {
  it('lc picks the smallest active*256+inactive, first on ties', () => {
    const p = pool(['A', 'B', 'C'], [1, 1, 1], { active: [2, 1, 1], inactive: [0, 300, 10] });
    const s = createScheduler('lc');
    // overheads: A 512, B 556, C 266 → C
    expect(p.names[s.pick(p, 0, 0)]).toBe('C');
    p.inactive[2] = 300;
    expect(p.names[s.pick(p, 0, 0)]).toBe('A'); // A 512 < B 556 = C 556
  });

  it('wlc picks by Ci/Wi (overhead over weight)', () => {
    // A: 10 active, weight 1 → 2560; B: 25 active, weight 3 → 2133; C: 18 active, weight 2 → 2304
    const p = pool(['A', 'B', 'C'], [1, 3, 2], { active: [10, 25, 18] });
    const s = createScheduler('wlc');
    expect(p.names[s.pick(p, 0, 0)]).toBe('B');
    // ties by cross-multiplication keep the first: A 256/1 vs B 768/3
    const q = pool(['A', 'B'], [1, 3], { active: [1, 3] });
    expect(q.names[s.pick(q, 0, 0)]).toBe('A');
    // weight 0 never chosen even with no connections
    const r = pool(['A', 'B'], [0, 1], { active: [0, 50] });
    expect(r.names[s.pick(r, 0, 0)]).toBe('B');
  });

  it('wlc spreads new connections in proportion to weight when it counts them', () => {
    const p = pool(['A', 'B', 'C'], [1, 2, 5]);
    const s = createScheduler('wlc');
    for (let i = 0; i < 800; i++) p.active[s.pick(p, 0, 0)]!++;
    expect(Array.from(p.active)).toEqual([100, 200, 500]);
  });
});

describe('sh (source hash)', () => {
  it('fills 256 buckets by weight and falls back when the hashed server is drained', () => {
    const p = pool(['A', 'B', 'C'], [2, 1, 1]);
    const s = new SourceHashScheduler();
    s.rebuild(p);
    const counts = [0, 0, 0];
    for (const b of s.buckets) counts[b]!++;
    expect(counts).toEqual([128, 64, 64]);
    const src = 0x0a000001;
    const first = s.pick(p, 0, src);
    expect(s.pick(p, 12345, src)).toBe(first); // source only
    p.weight[first] = 0;
    const fallback = s.pick(p, 0, src);
    expect(fallback).not.toBe(first);
    expect(fallback).toBeGreaterThanOrEqual(0);
  });
});

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

describe('load score (dynamic weights)', () => {
  it('follows Score = 1/(0.7 CPU + 0.2 MEM + 0.1 Q) with a floor', () => {
    expect(loadScore(0.5, 0.5, 0.5)).toBeCloseTo(2, 12);
    expect(loadScore(1, 0, 0)).toBeCloseTo(1 / 0.7, 12);
    expect(loadScore(0, 0, 0)).toBe(100);
    expect(loadScore(2, -1, 0)).toBeCloseTo(1 / 0.7, 12); // clamped to 0..1
  });

  it('scales scores to integer weights 1..100, 0 for ineligible', () => {
    const s = [loadScore(0.2, 0.3, 0), loadScore(0.4, 0.3, 0), loadScore(0.9, 0.9, 1), loadScore(0, 0, 0)];
    const w = weightsFromScores(s, [true, true, true, false]);
    // den: 0.2 → 5.0, 0.34 → 2.94, 0.91 → 1.10
    expect(w).toEqual([100, 59, 22, 0]);
  });

  it('createScheduler rejects unknown names', () => {
    expect(() => createScheduler('nope' as never)).toThrow(/unknown scheduler/);
  });
});
