import { describe, expect, it } from 'vitest';
import { TernaryTable, TernaryTableFullError } from '../../../board/processor/tcam/ternary-table.ts';
import { PersistenceTable } from '../../../board/processor/tcam/persistence.ts';
import {
  decodeSessionRecord, encodeSessionRecord, newSessionRecord, sessionRecordLength,
} from '../../../board/processor/session-record.ts';
import type { SessionRecord } from '../../../board/processor/session-record.ts';
import { DecodeError } from '../../../board/common/errors.ts';
import { SeededRandom } from '../../../board/common/random.ts';
import { parseAddress, parseEndpoint, parsePrefix } from '../../../board/processor/ip-address.ts';

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

describe('SessionRecord codec', () => {
  const rec = (over: Partial<SessionRecord> = {}): SessionRecord => {
    const r = newSessionRecord();
    r.client.set(parseAddress('10.0.0.1').bytes);
    r.server.set(parseAddress('192.0.2.10').bytes);
    Object.assign(r, { family: 4, proto: 6, hasPorts: true, clientPort: 40000, serverPort: 80, state: 2, flags: 0x08, service: 3, rs: 17, createdMs: 1000, lastSeenMs: 4500 }, over);
    return r;
  };

  it('encodes IPv4 in 28 bytes, annotated', () => {
    const buf = new Uint8Array(28);
    expect(encodeSessionRecord(rec(), buf, 0, 5000)).toBe(28);
    expect(Buffer.from(buf).toString('hex')).toBe([
      '02', // kind: IPv4, ports, state 2 (ESTABLISHED)
      '06', // proto TCP
      '08', // flags: reply seen
      '00', // reserved
      '0003', // service 3
      '0011', // rs 17
      '00000fa0', // age 4000 ms
      '000001f4', // idle 500 ms
      '0a000001', // client
      'c000020a', // server
      '9c40', // client port 40000
      '0050', // server port 80
    ].join(''));
  });

  it('round-trips IPv4 and IPv6 at a non-zero offset, with ages relative to the reference time', () => {
    const v6 = rec({ family: 6, hasPorts: false, clientPort: 0, serverPort: 0, proto: 58, state: 9 });
    v6.client.set(parseAddress('2001:db8::1').bytes);
    v6.server.set(parseAddress('2001:db8::80').bytes);
    for (const r of [rec(), v6]) {
      const n = sessionRecordLength(r);
      expect(n).toBe(r.family === 6 ? 52 : 28);
      const buf = new Uint8Array(n + 7);
      const end = encodeSessionRecord(r, buf, 7, 10_000);
      expect(end).toBe(n + 7);
      const d = decodeSessionRecord(buf, 7, 20_000);
      expect(d.end).toBe(end);
      expect({ ...d.value, client: Array.from(d.value.client), server: Array.from(d.value.server) }).toEqual({
        ...r, client: Array.from(r.client), server: Array.from(r.server), createdMs: r.createdMs + 10_000, lastSeenMs: r.lastSeenMs + 10_000,
      });
      const again = new Uint8Array(n + 7);
      encodeSessionRecord(d.value, again, 7, 20_000);
      expect(Buffer.from(again).equals(Buffer.from(buf))).toBe(true);
    }
  });

  it('rejects short and malformed input with DecodeError', () => {
    const buf = new Uint8Array(28);
    encodeSessionRecord(rec(), buf, 0, 5000);
    expect(() => decodeSessionRecord(buf.subarray(0, 27), 0, 0)).toThrow(DecodeError);
    expect(() => decodeSessionRecord(buf, 28, 0)).toThrow(/session-record: kind at offset 28/);
    const bad = buf.slice();
    bad[0] = 0x0f; // state 15
    expect(() => decodeSessionRecord(bad, 0, 0)).toThrow(/bad kind byte/);
    const res = buf.slice();
    res[3] = 1;
    expect(() => decodeSessionRecord(res, 0, 0)).toThrow(/reserved/);
    const v6short = buf.slice();
    v6short[0] = 0x82; // says IPv6: needs 52 bytes
    expect(() => decodeSessionRecord(v6short, 0, 0)).toThrow(/need 52 bytes, have 28/);
    expect(() => encodeSessionRecord(rec(), new Uint8Array(10), 0, 0)).toThrow(RangeError);
  });
});

describe('address text', () => {
  it('parses addresses, prefixes and endpoints', () => {
    expect(Array.from(parseAddress('192.0.2.1').bytes.subarray(0, 4))).toEqual([192, 0, 2, 1]);
    expect(Buffer.from(parseAddress('2001:db8::1').bytes).toString('hex')).toBe('20010db8000000000000000000000001');
    expect(Buffer.from(parseAddress('::ffff:1.2.3.4').bytes).toString('hex')).toBe('00000000000000000000ffff01020304');
    const p = parsePrefix('10.1.2.3/12');
    expect([p.length, ...p.bytes.subarray(0, 4)]).toEqual([12, 10, 0, 0, 0]);
    expect(parseEndpoint('127.0.0.1:8080').port).toBe(8080);
    expect(parseEndpoint('[::1]:80')).toMatchObject({ family: 6, port: 80 });
    expect(parseEndpoint('2001:db8::5').port).toBeUndefined();
    expect(() => parseAddress('1.2.3')).toThrow(/bad address/);
    expect(() => parseAddress('1::2::3')).toThrow(/bad address/);
    expect(() => parsePrefix('10.0.0.0/33')).toThrow(/prefix length/);
    expect(() => parseEndpoint('1.2.3.4:0')).toThrow(/port/);
  });
});
