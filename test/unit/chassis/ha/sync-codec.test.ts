// The session sync wire codec (chassis/ha/sync-codec.ts).
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../board/common/errors.ts';
import { SYNC_HEADER_BYTES, syncCodec } from '../../../../chassis/ha/sync-codec.ts';
import type { SyncDatagram } from '../../../../chassis/ha/sync-types.ts';

describe('session sync codec', () => {
  it('encodes the documented header and round-trips every kind at an offset', () => {
    const d: SyncDatagram = {
      kind: 'update', schema: 2, epoch: 5, stream: 0xdeadbeef, seq: 9,
      records: [{ key: 'k1', ageMs: 3120, sessions: 3, size: 4, payload: Uint8Array.of(1, 2, 3, 4) }],
    };
    const b = syncCodec.encode(d);
    expect([...b.subarray(0, SYNC_HEADER_BYTES)]).toEqual([
      0x41, 0x53, 0x01, 0x00, // 'AS', format 1, kind update
      0x02, 0x00, 0x00, 0x01, // schema 2, flags 0, count 1
      0, 0, 0, 5, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 9, // epoch, stream, seq
    ]);
    expect([...b.subarray(SYNC_HEADER_BYTES)]).toEqual([2, 0x6b, 0x31, 0, 0, 0x0c, 0x30, 0, 0, 0, 3, 0, 4, 1, 2, 3, 4]);
    expect(b.length).toBe(syncCodec.encodingLength(d));
    const all: SyncDatagram[] = [
      d,
      { kind: 'delete', schema: 1, epoch: 1, stream: 1, seq: 2, keys: ['a', 'bb', 'ccc'] },
      { kind: 'resync-begin', schema: 1, epoch: 1, stream: 1, seq: 3, gen: 4, restart: true },
      { kind: 'resync-end', schema: 1, epoch: 1, stream: 1, seq: 4, gen: 4 },
      { kind: 'final', schema: 1, epoch: 1, stream: 1, seq: 5 },
      { kind: 'idle', schema: 1, epoch: 1, stream: 1, seq: 5 },
      { kind: 'ack', schema: 1, epoch: 1, stream: 1, seq: 5, hasBase: true },
      { kind: 'nack', schema: 1, epoch: 1, stream: 1, seq: 3 },
    ];
    for (const x of all) {
      const enc = Buffer.concat([Buffer.from([7, 7]), syncCodec.encode(x)]);
      const back = syncCodec.decode(enc, 2);
      expect(back.value).toEqual(x);
      expect(back.end).toBe(enc.length);
    }
    // A record without payload is sent as `size` zero bytes and decodes with them.
    const z = syncCodec.decode(syncCodec.encode({ ...d, records: [{ key: 'z', ageMs: 1, sessions: 1, size: 3 }] })).value;
    expect([...z.records![0]!.payload!]).toEqual([0, 0, 0]);
  });

  it('rejects malformed datagrams with DecodeError', () => {
    const good = syncCodec.encode({ kind: 'delete', schema: 1, epoch: 1, stream: 1, seq: 1, keys: ['abc'] });
    const bad = (f: (b: Buffer) => Buffer, re: RegExp) => {
      const b = f(Buffer.from(good));
      expect(() => syncCodec.decode(b)).toThrow(DecodeError);
      expect(() => syncCodec.decode(b)).toThrow(re);
    };
    bad((b) => { b[1] = 0; return b; }, /magic/);
    bad((b) => { b[2] = 9; return b; }, /format/);
    bad((b) => { b[3] = 99; return b; }, /kind/);
    bad((b) => { b[5] = 4; return b; }, /flags/);
    bad((b) => b.subarray(0, 22), /key/);
    bad((b) => { b[20] = 0; return b; }, /empty key/);
    bad((b) => { b[3] = 4; return b; }, /carries no entries/); // 'final' with count 1
    expect(() => syncCodec.encode({ kind: 'update', schema: 1, epoch: 1, stream: 1, seq: 1, records: [{ key: '', ageMs: 0, sessions: 1, size: 0 }] })).toThrow(RangeError);
  });
});
