// The persistence (sticky client) table (board/processor/tcam/persistence.ts).
import { describe, expect, it } from 'vitest';
import { PersistenceTable } from '../../../../../board/processor/tcam/persistence.ts';
import { parseAddress } from '../../../../../board/processor/ip-address.ts';

describe('PersistenceTable', () => {
  const a = (s: string) => parseAddress(s).bytes;

  it('pins clients per service until the timeout', () => {
    const p = new PersistenceTable(4, 2);
    p.put(0, 4, a('10.0.0.1'), 7, 0, 1000);
    p.put(1, 4, a('10.0.0.1'), 8, 0, 5000);
    p.put(0, 6, a('2001:db8::1'), 9, 0, 1000);
    expect(p.lookup(0, 4, a('10.0.0.1'), 999)).toBe(7);
    expect(p.lookup(1, 4, a('10.0.0.1'), 999)).toBe(8);
    expect(p.lookup(0, 6, a('2001:db8::1'), 10)).toBe(9);
    expect(p.lookup(0, 4, a('10.0.0.2'), 10)).toBe(-1);
    expect(p.lookup(0, 4, a('10.0.0.1'), 1000)).toBe(-1); // expired
    expect(p.size).toBe(2);
    expect(p.sweep(1000)).toBe(5000); // each service's list is in expiry order
    expect(p.size).toBe(1);
    expect(p.sweep(5000)).toBe(Infinity);
  });

  it('evicts the least recently used template when full', () => {
    const p = new PersistenceTable(2, 3);
    p.put(0, 4, a('10.0.0.1'), 1, 0, 1e9);
    p.put(2, 4, a('10.0.0.2'), 2, 1, 1e9);
    p.put(0, 4, a('10.0.0.1'), 1, 2, 1e9); // refresh: .2 is now the LRU
    p.put(0, 4, a('10.0.0.3'), 3, 3, 1e9);
    expect(p.evicted).toBe(1);
    expect(p.lookup(2, 4, a('10.0.0.2'), 4)).toBe(-1);
    expect(p.lookup(0, 4, a('10.0.0.1'), 4)).toBe(1);
    expect(p.delete(0, 4, a('10.0.0.3'))).toBe(true);
    expect(p.size).toBe(1);
  });
});
