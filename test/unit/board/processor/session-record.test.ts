// The session record codec (board/processor/session-record.ts).
import { describe, expect, it } from 'vitest';
import {
  decodeSessionRecord, encodeSessionRecord, newSessionRecord, sessionRecordLength,
} from '../../../../board/processor/session-record.ts';
import type { SessionRecord } from '../../../../board/processor/session-record.ts';
import { DecodeError } from '../../../../board/common/errors.ts';
import { parseAddress } from '../../../../board/processor/ip-address.ts';

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
