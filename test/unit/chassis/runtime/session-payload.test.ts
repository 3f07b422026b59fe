/**
 * The sync payload of a session (chassis/runtime/session-payload.ts): the record, and the local
 * binding of a translated connection, survive the round trip byte for byte; a payload without a
 * binding reads as none; a damaged binding is refused, not half-read.
 */
import { describe, expect, it } from 'vitest';
import { newTranslation } from '../../../../board/processor/forwarding/translation.ts';
import { newSessionRecord } from '../../../../board/processor/session-record.ts';
import { parseAddress } from '../../../../board/processor/ip-address.ts';
import { decodePayload, encodePayload, payloadBinding, sessionKey } from '../../../../chassis/runtime/session-payload.ts';

function record(family: 4 | 6) {
  const r = newSessionRecord();
  r.family = family;
  r.proto = 6;
  r.hasPorts = true;
  r.client.set(parseAddress(family === 4 ? '198.18.0.2' : 'fd00:a7ca::2').bytes);
  r.server.set(parseAddress(family === 4 ? '198.18.100.12' : 'fd00:a7ca:100::12').bytes);
  r.clientPort = 40001;
  r.serverPort = 80;
  r.state = 4;
  r.service = 2;
  r.rs = 7;
  r.createdMs = 1000;
  r.lastSeenMs = 4000;
  return r;
}

describe('session sync payload', () => {
  for (const family of [4, 6] as const) {
    it(`IPv${family}: a fullnat connection's local address and port travel with its record`, () => {
      const r = record(family);
      const t = newTranslation('fullnat', family);
      t.local.set(parseAddress(family === 4 ? '198.18.10.31' : 'fd00:a7ca:10::30').bytes);
      t.localPort = 50123;
      const p = encodePayload(r, 5000, t);
      expect(p.length).toBe(family === 4 ? 28 + 7 : 52 + 19);
      const b = payloadBinding(p);
      expect(b).not.toBeNull();
      expect(b!.mode).toBe('fullnat');
      expect(b!.localPort).toBe(50123);
      expect(Array.from(b!.local)).toEqual(Array.from(t.local));
      const back = decodePayload({ key: sessionKey(r), createdAt: 1000, sessions: 1, size: p.length, payload: p }, 5000)!;
      expect(sessionKey(back)).toBe(sessionKey(r));
      expect([back.rs, back.service, back.state, back.lastSeenMs]).toEqual([7, 2, 4, 4000]);
    });
  }

  it('a nat binding carries its mode and no local endpoint; a record alone carries none', () => {
    const r = record(4);
    const t = newTranslation('nat', 4);
    t.localPort = 999; // ignored: not fullnat
    const b = payloadBinding(encodePayload(r, 5000, t))!;
    expect(b.mode).toBe('nat');
    expect(b.localPort).toBe(0);
    expect(payloadBinding(encodePayload(r, 5000))).toBeNull();
  });

  it('refuses a binding of the other family, and reads a damaged binding as none', () => {
    const r = record(4);
    expect(() => encodePayload(r, 5000, newTranslation('fullnat', 6))).toThrow(/family 6 on an IPv4 record/);
    const p = encodePayload(r, 5000, newTranslation('fullnat', 4));
    p[28] = 9; // unknown mode
    expect(payloadBinding(p)).toBeNull();
    expect(payloadBinding(p.subarray(0, 30))).toBeNull();
  });
});
