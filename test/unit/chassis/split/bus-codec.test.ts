/** Bus codec of the split shelf (chassis/split/bus-codec.ts): round trips, garbage refused, bounded lines. */
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../board/common/errors.ts';
import { decodeBusMessage, encodeBusMessage, LineSplitter, MAX_BUS_LINE, stateloadMessages, type BusMessage } from '../../../../chassis/split/bus-codec.ts';

const on = { present: true, healthy: true, active: false, power: 'on' as const };

describe('bus codec', () => {
  const samples: BusMessage[] = [
    { t: 'hello', node: 'shmc-a', pid: 42, argv: ['--node', 'a'] },
    { t: 'hello', node: 'shmc-a', pid: 42, argv: ['--node', 'a'], adminPassword: 'pw' },
    { t: 'stateload', sel: [{ id: 1, data: 'AAAA' }], state: [{ kind: 'user', key: '2', data: '{}' }, { kind: 'thresholds', key: 'slot3#2', data: '{}' }], done: true },
    { t: 'stateload', sel: [], state: [], done: false },
    { t: 'stateend' },
    { t: 'healthy', on: true },
    { t: 'claim', epoch: 3 },
    { t: 'release' },
    { t: 'wdset', timeoutMs: 1000 },
    { t: 'kick' },
    { t: 'wdstop' },
    { t: 'role', role: 'standby.hot', epoch: 2 },
    { t: 'ipmi', id: 7, address: '127.0.0.1', port: 40000, data: 'BgD/Bw==' },
    { t: 'statewant' },
    { t: 'welcome', node: 'shmc-b', ha: { heartbeatMs: 100 } },
    { t: 'refused', reason: 'no' },
    { t: 'lines', self: on, peer: { ...on, active: true }, interlock: true, epoch: 4, at: 1_700_000_000_000 },
    { t: 'claimed', ok: false, epoch: 5 },
    { t: 'ipmi', id: 7, replies: ['AA==', 'AQ=='] },
    { t: 'send', address: '127.0.0.1', port: 1, data: 'AA==' },
    { t: 'sel', id: 12, data: 'AAAA' },
    { t: 'seldel', id: 12 },
    { t: 'selclear' },
    { t: 'user', id: 2, data: '{}' },
    { t: 'thresholds', key: 'slot3#2', data: '{}' },
    { t: 'report', hbAgeMs: 42, alarms: ['REDUNDANCY_LOST'] },
    { t: 'report', hbAgeMs: null, alarms: [] },
  ];

  it('round-trips every message type as one line', () => {
    for (const m of samples) {
      const line = encodeBusMessage(m);
      expect(line.endsWith('\n')).toBe(true);
      expect(line.indexOf('\n')).toBe(line.length - 1);
      expect(decodeBusMessage(line.slice(0, -1))).toEqual(m);
    }
  });

  it('refuses garbage with a DecodeError naming what is wrong', () => {
    const bad = ['not json', '[]', '42', '{"t":"nope"}', '{"t":"claim"}', '{"t":"claim","epoch":"1"}', '{"t":"hello","node":"shmc-c","pid":1,"argv":[]}',
      '{"t":"lines","self":{},"peer":{},"interlock":true,"epoch":0}', '{"t":"hello","node":"shmc-a","pid":1,"argv":[1]}', '{"t":"wdset","timeoutMs":0}',
      '{"t":"hello","node":"shmc-a","pid":1,"argv":[],"adminPassword":5}', '{"t":"stateload","sel":[],"state":[]}', '{"t":"stateload","sel":[{"id":"1","data":""}],"state":[],"done":true}',
      '{"t":"stateload","sel":[],"state":[{"kind":"fru","key":"x","data":""}],"done":true}'];
    for (const b of bad) {
      expect(() => decodeBusMessage(b), b).toThrow(DecodeError);
    }
    expect(() => decodeBusMessage('x'.repeat(MAX_BUS_LINE + 1))).toThrow(/exceeds/);
  });

  it('splits a stream into lines across chunk borders and bounds an endless line', () => {
    const s = new LineSplitter();
    expect(s.push('{"t":"ki')).toEqual([]);
    expect(s.push('ck"}\n{"t":"release"}\n\n{"t"')).toEqual(['{"t":"kick"}', '{"t":"release"}']);
    expect(s.push(':"wdstop"}\n')).toEqual(['{"t":"wdstop"}']);
    const long = s.push('y'.repeat(MAX_BUS_LINE + 10));
    expect(long).toHaveLength(1);
    expect(() => decodeBusMessage(long[0]!)).toThrow(DecodeError);
    expect(s.push('{"t":"kick"}\n')).toEqual(['{"t":"kick"}']);
  });

  it('cuts a large state into stateload lines below the bus limit; the last has done; nothing lost or reordered', () => {
    const sel = Array.from({ length: 5000 }, (_, i) => ({ id: i + 1, data: Buffer.alloc(16, i & 0xff).toString('base64') }));
    const state = Array.from({ length: 15 }, (_, i) => ({ kind: 'user' as const, key: String(i + 1), data: JSON.stringify({ name: `u${i}`, pad: 'x'.repeat(3000) }) }));
    const msgs = stateloadMessages(sel, state);
    expect(msgs.length).toBeGreaterThan(2);
    for (const m of msgs) {
      const line = encodeBusMessage(m);
      expect(line.length).toBeLessThan(MAX_BUS_LINE);
      expect(decodeBusMessage(line.slice(0, -1))).toEqual(m);
    }
    expect(msgs.map((m) => m.done)).toEqual([...msgs.slice(1).map(() => false), true]);
    expect(msgs.flatMap((m) => m.sel)).toEqual(sel);
    expect(msgs.flatMap((m) => m.state)).toEqual(state);
    expect(stateloadMessages([], [])).toEqual([{ t: 'stateload', sel: [], state: [], done: true }]);
  });
});
