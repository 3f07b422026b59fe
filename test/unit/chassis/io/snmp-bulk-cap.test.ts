/**
 * The GetBulk cap (chassis/io/snmp-bulk-cap.ts): which requests are clamped and to what, and that
 * the hook on an agent's getBulkRequest clamps before the original handler runs and reports only
 * the requests it changed.
 */
import { describe, expect, it } from 'vitest';
import { BULK_LIMITS, capGetBulk, installBulkCap, type BulkCapped, type BulkPduFields } from '../../../../chassis/io/snmp-bulk-cap.ts';

const vbs = (n: number) => Array.from({ length: n }, (_, i) => ({ oid: `1.3.6.1.2.1.1.${i + 1}` }));
const pdu = (nonRepeaters: number, maxRepetitions: number, n: number): BulkPduFields => ({ nonRepeaters, maxRepetitions, varbinds: vbs(n) });

describe('capGetBulk', () => {
  it('leaves a request within bounds alone', () => {
    const p = pdu(1, 20, 2);
    expect(capGetBulk(p)).toBeNull();
    expect(p).toEqual(pdu(1, 20, 2));
    expect(capGetBulk(pdu(0, BULK_LIMITS.maxRepetitions, BULK_LIMITS.maxVarbinds))).toBeNull();
  });

  it('clamps max-repetitions (snmpbulkget -Cr1000000, raw 0x7fffffff) and reports the value that arrived', () => {
    for (const big of [1_000_000, 0x7fffffff, BULK_LIMITS.maxRepetitions + 1]) {
      const p = pdu(0, big, 1);
      expect(capGetBulk(p)).toEqual({ maxRepetitions: big, nonRepeaters: 0, varbinds: 1 });
      expect(p.maxRepetitions).toBe(BULK_LIMITS.maxRepetitions);
      expect(p.varbinds).toHaveLength(1);
    }
  });

  it('drops trailing varbinds past the limit and keeps non-repeaters within the kept list', () => {
    const p = pdu(1000, 10, 500);
    expect(capGetBulk(p)).toEqual({ maxRepetitions: 10, nonRepeaters: 1000, varbinds: 500 });
    expect(p.varbinds).toEqual(vbs(BULK_LIMITS.maxVarbinds));
    expect(p.nonRepeaters).toBe(BULK_LIMITS.maxVarbinds);
  });

  it('negative values count as 0 (RFC 3416 §4.2.3); custom limits apply', () => {
    const p = pdu(-5, -1, 3);
    expect(capGetBulk(p)).not.toBeNull();
    expect([p.nonRepeaters, p.maxRepetitions]).toEqual([0, 0]);
    const q = pdu(2, 9, 5);
    expect(capGetBulk(q, { maxRepetitions: 4, maxVarbinds: 3 })).toEqual({ maxRepetitions: 9, nonRepeaters: 2, varbinds: 5 });
    expect([q.nonRepeaters, q.maxRepetitions, q.varbinds.length]).toEqual([2, 4, 3]);
  });
});

describe('installBulkCap', () => {
  it('clamps before the original handler (called with the agent as this) and reports only changed requests', () => {
    const seen: Array<{ self: unknown; max: number }> = [];
    const agent = {
      getBulkRequest(this: unknown, _s: unknown, m: { pdu: BulkPduFields }) {
        seen.push({ self: this, max: m.pdu.maxRepetitions });
      },
    };
    const caps: BulkCapped[] = [];
    installBulkCap(agent, (w) => caps.push(w));
    agent.getBulkRequest(null, { pdu: pdu(0, 0x7fffffff, 1) });
    agent.getBulkRequest(null, { pdu: pdu(0, 10, 1) });
    expect(seen).toEqual([{ self: agent, max: BULK_LIMITS.maxRepetitions }, { self: agent, max: 10 }]);
    expect(caps).toEqual([{ maxRepetitions: 0x7fffffff, nonRepeaters: 0, varbinds: 1 }]);
  });

  it('refuses an agent without a getBulkRequest method', () => {
    expect(() => installBulkCap({}, () => {})).toThrow(/no getBulkRequest method/);
  });
});
