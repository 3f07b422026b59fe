import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../board/common/random.ts';
import { FlowTuple } from '../../../../board/packet/flow-tuple.ts';
import { FLOW_KEY_BYTES, writeFlowKey } from '../../../../board/switch/field-select.ts';
import { FlowSet } from '../../../../board/switch/flow-set.ts';
import { SyntheticFlows } from '../../../../board/switch/synthetic-flows.ts';

describe('FlowSet', () => {
  it('counts distinct flows exactly through growth, and remembers the last port', () => {
    const set = new FlowSet(16);
    const gen = new SyntheticFlows(new SeededRandom(3));
    const t = new FlowTuple();
    const key = new Uint8Array(FLOW_KEY_BYTES);
    const seen = new Set<string>();
    for (let i = 0; i < 200_000; i++) {
      gen.next(t);
      if (i % 4 === 0) [t.sport, t.dport] = [t.dport, t.sport]; // some reversed duplicates are possible too
      const n = writeFlowKey(t, key);
      const id = Buffer.from(key.subarray(0, n)).toString('hex');
      const prev = set.record(key, n, 1 + (i % 3));
      expect(prev === -1).toBe(!seen.has(id));
      seen.add(id);
    }
    expect(set.size).toBe(seen.size);
    // every flow is found again, with the port it was last recorded on
    const again = new SyntheticFlows(new SeededRandom(3));
    for (let i = 0; i < 1000; i++) {
      again.next(t);
      if (i % 4 === 0) [t.sport, t.dport] = [t.dport, t.sport];
      expect(set.record(key, writeFlowKey(t, key), 9)).not.toBe(-1);
    }
    set.clear();
    expect(set.size).toBe(0);
  });

  it('stops recording at maxEntries and says so', () => {
    const set = new FlowSet(16, 10);
    const key = new Uint8Array(4);
    for (let i = 0; i < 20; i++) {
      key[3] = i;
      set.record(key, 4, 1);
    }
    expect(set.size).toBe(10);
    expect(set.saturated).toBe(true);
  });
});
