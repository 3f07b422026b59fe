/**
 * ECMP load spread with 1,000,000 seeded random 5-tuples (dataplane.md §3 flow model) over 8 ports:
 * max/mean of flows per port must be ≤ 1.01 (the README's ECMP target; the FM40 switch-board figure is
 * 2.3 % deviation) for every hash in the default l3l4 profile, with modulo and with the resilient
 * table. The statistical floor for F = 1M flows over N = 8 bins is about 1 + 3·√(N/F) ≈ 1.008.
 */
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../board/common/random.ts';
import { FlowTuple } from '../../../../board/packet/flow-tuple.ts';
import { EcmpGroup } from '../../../../board/switch/ecmp-group.ts';
import { FieldSelector } from '../../../../board/switch/field-select.ts';
import { createHash, HASH_ALGORITHMS } from '../../../../board/switch/hash/index.ts';
import { SyntheticFlows } from '../../../../board/switch/synthetic-flows.ts';
import { DEFAULT_ECMP } from '../../../../board/switch/switch-config.ts';

const FLOWS = 1_000_000;
const PORTS = 8;
const members = Array.from({ length: PORTS }, (_, i) => ({ port: i + 1, slot: i + 3 }));

function hashesOf(name: (typeof HASH_ALGORITHMS)[number], symmetric: boolean): Uint32Array {
  const algo = createHash(name, DEFAULT_ECMP.toeplitzKey);
  const sel = new FieldSelector({ fields: 'l3l4', symmetric, tunnel: 'outer', layout: algo.layout });
  const gen = new SyntheticFlows(new SeededRandom(2024));
  const t = new FlowTuple();
  const out = new Uint32Array(FLOWS);
  for (let i = 0; i < FLOWS; i++) out[i] = algo.hash(sel.buf, sel.selectTuple(gen.next(t)));
  return out;
}

function maxOverMean(g: EcmpGroup, hashes: Uint32Array): number {
  const load = new Float64Array(PORTS + 1);
  for (let i = 0; i < hashes.length; i++) load[g.select(hashes[i]!)]!++;
  let max = 0;
  for (let p = 1; p <= PORTS; p++) max = Math.max(max, load[p]!);
  return max / (hashes.length / PORTS);
}

describe('ECMP distribution, 1M flows over 8 ports', () => {
  for (const name of HASH_ALGORITHMS) {
    for (const symmetric of [false, true]) {
      it(`${name}${symmetric ? ' (symmetric)' : ''}: max/mean ≤ 1.01 with modulo and resilient`, () => {
        const h = hashesOf(name, symmetric);
        const modulo = maxOverMean(new EcmpGroup({ mapping: 'modulo', buckets: 4096 }, members), h);
        const resilient = maxOverMean(new EcmpGroup({ mapping: 'resilient', buckets: 4096 }, members), h);
        expect(modulo).toBeLessThanOrEqual(1.01);
        expect(resilient).toBeLessThanOrEqual(1.01);
      });
    }
  }

  it('a degenerate hash would fail the check (the measure can fail)', () => {
    const h = new Uint32Array(FLOWS);
    for (let i = 0; i < FLOWS; i++) h[i] = i % 7; // never reaches port 8
    expect(maxOverMean(new EcmpGroup({ mapping: 'modulo', buckets: 4096 }, members), h)).toBeGreaterThan(1.1);
  });
});
