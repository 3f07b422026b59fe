// sh, source hash (board/processor/scheduler/source-hash.ts).
import { describe, expect, it } from 'vitest';
import type { PoolView } from '../../../../../board/processor/scheduler/scheduler.ts';
import { SourceHashScheduler } from '../../../../../board/processor/scheduler/source-hash.ts';

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

describe('sh flags', () => {
  it('sh-port: one address, many ports spread over the buckets; without it one bucket', () => {
    const p = pool(['A', 'B', 'C', 'D'], [1, 1, 1, 1]);
    const ported = new SourceHashScheduler(true, true);
    const plain = new SourceHashScheduler(true, false);
    ported.rebuild(p);
    plain.rebuild(p);
    const src = 0xcb007107;
    const a = new Set<number>();
    const b = new Set<number>();
    for (let port = 1024; port < 1124; port++) {
      a.add(ported.pick(p, 0, src, port));
      b.add(plain.pick(p, 0, src, port));
    }
    expect(a.size).toBe(4);
    expect(b.size).toBe(1);
  });
  it('without sh-fallback a drained bucket gives no server', () => {
    const p = pool(['A', 'B'], [1, 1]);
    const s = new SourceHashScheduler(false);
    s.rebuild(p);
    const first = s.pick(p, 0, 0x0a000001);
    p.weight[first] = 0;
    expect(s.pick(p, 0, 0x0a000001)).toBe(-1);
  });
});
