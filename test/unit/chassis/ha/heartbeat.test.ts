import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../board/common/errors.ts';
import { HeartbeatMonitor, compatible, heartbeatCodec, parseVersion } from '../../../../chassis/ha/heartbeat.ts';
import type { Heartbeat } from '../../../../chassis/ha/heartbeat.ts';

const HB: Heartbeat = {
  share: 'lb1/slot3', node: 'slot4', incarnation: 0x01020304, seq: 7, epoch: 3, role: 'standby.hot', syncSeq: 0x1000,
  healthy: true, hearsPeer: true, handover: false, wantsBulk: false, uplink: true, version: { major: 2, minor: 5 }, wallMs: 1_767_225_600_123.5,
};

describe('heartbeat codec', () => {
  it('encodes the documented layout', () => {
    const b = heartbeatCodec.encode(HB);
    expect([...b.subarray(0, 24)]).toEqual([
      0x41, 0x48, // 'AH'
      0x01, // format 1
      0x13, // flags: healthy | hearsPeer | uplink
      0x04, // role standby.hot
      0x02, 0x05, 0x00, // version 2.5, pad
      0x01, 0x02, 0x03, 0x04, // incarnation
      0x00, 0x00, 0x00, 0x07, // seq
      0x00, 0x00, 0x00, 0x03, // epoch
      0x00, 0x00, 0x10, 0x00, // sync sequence
    ]);
    expect(b[32]).toBe(9); // 'lb1/slot3'
    expect(b.subarray(33, 42).toString()).toBe('lb1/slot3');
    expect(b[42]).toBe(5);
    expect(b.length).toBe(heartbeatCodec.encodingLength(HB));
  });

  it('round-trips every role and flag, also at a non-zero offset', () => {
    for (const role of ['booting', 'arbitrating', 'active', 'standby.ready', 'standby.hot', 'resetting', 'failed', 'active.handover'] as const) {
      for (const flags of [0, 31]) {
        const hb = { ...HB, role, healthy: !!(flags & 1), hearsPeer: !!(flags & 2), handover: !!(flags & 4), wantsBulk: !!(flags & 8), uplink: !!(flags & 16) };
        const b = heartbeatCodec.encode(hb);
        expect(heartbeatCodec.decode(b).value).toEqual(hb);
        const padded = Buffer.concat([Buffer.from([9, 9, 9]), b]);
        const d = heartbeatCodec.decode(padded, 3);
        expect(d.value).toEqual(hb);
        expect(d.end).toBe(padded.length);
        expect(heartbeatCodec.encode(d.value).equals(b)).toBe(true);
      }
    }
  });

  it('rejects malformed heartbeats with DecodeError naming the field', () => {
    const good = heartbeatCodec.encode(HB);
    const bad = (mutate: (b: Buffer) => Buffer, field: RegExp) => {
      const b = mutate(Buffer.from(good));
      expect(() => heartbeatCodec.decode(b)).toThrow(DecodeError);
      expect(() => heartbeatCodec.decode(b)).toThrow(field);
    };
    bad((b) => { b[0] = 0x58; return b; }, /magic/);
    bad((b) => { b[2] = 2; return b; }, /format/);
    bad((b) => { b[3] = 0x80; return b; }, /flags/);
    bad((b) => { b[4] = 42; return b; }, /role/);
    bad((b) => b.subarray(0, 20), /need 4 bytes/);
    bad((b) => b.subarray(0, good.length - 1), /node/);
    bad((b) => { b[32] = 0; return b; }, /empty name/);
    bad((b) => { b[33] = 0xff; b[34] = 0xfe; return b; }, /UTF-8/);
  });

  it('refuses to encode values that do not fit', () => {
    expect(() => heartbeatCodec.encode({ ...HB, seq: 2 ** 32 })).toThrow(RangeError);
    expect(() => heartbeatCodec.encode({ ...HB, share: '' })).toThrow(RangeError);
    expect(() => heartbeatCodec.encode({ ...HB, version: { major: 256, minor: 0 } })).toThrow(RangeError);
  });

  it('compares versions by major (blue/green gate) and parses MAJOR.MINOR[.PATCH]', () => {
    expect(compatible(parseVersion('1.4'), parseVersion('1.9.3'))).toBe(true);
    expect(compatible(parseVersion('1.4'), parseVersion('2.0'))).toBe(false);
    expect(() => parseVersion('v2')).toThrow(/MAJOR/);
  });
});

describe('heartbeat monitor', () => {
  it('counts heard, duplicate and missed heartbeats, restarts on a new incarnation and reports silence after N intervals', () => {
    const m = new HeartbeatMonitor(100, 3);
    expect(m.isSilent(0)).toBe(true);
    expect(m.offer({ ...HB, seq: 1 }, 0)).toBe('fresh');
    expect(m.offer({ ...HB, seq: 1 }, 10)).toBe('duplicate');
    expect(m.offer({ ...HB, seq: 4 }, 100)).toBe('fresh');
    expect(m.missed).toBe(2);
    expect(m.offer({ ...HB, seq: 3 }, 120)).toBe('duplicate'); // reordered: older than the last
    expect(m.offer({ ...HB, incarnation: 9, seq: 1 }, 150)).toBe('new-incarnation');
    expect(m.silentFor(300)).toBe(150);
    expect(m.isSilent(449)).toBe(false);
    expect(m.isSilent(450)).toBe(true);
    m.rebase(1000);
    expect(m.isSilent(1200)).toBe(false);
    expect(m.received).toBe(3);
    expect(m.duplicates).toBe(2);
  });
});
