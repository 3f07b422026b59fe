/**
 * DatagramPairLink (chassis/ha/pair-link.ts), the byte side of the HA links that the UDP adapter
 * and the split shelf's ShMC share: heartbeats and sync datagrams go out encoded on their share's
 * flow, come back decoded to the receiver, other protocols' datagrams reach `other`, and garbage
 * (bad magic, a truncated heartbeat, an `other` handler that refuses it) is counted, never thrown.
 */
import { describe, expect, it } from 'vitest';
import { heartbeatCodec } from '../../../../chassis/ha/heartbeat.ts';
import type { Heartbeat } from '../../../../chassis/ha/heartbeat.ts';
import { DatagramPairLink } from '../../../../chassis/ha/pair-link.ts';
import { syncCodec } from '../../../../chassis/ha/sync-codec.ts';
import type { SyncDatagram } from '../../../../chassis/ha/sync-types.ts';

const hb: Heartbeat = {
  share: 'lb1/slot3', node: 'slot3', incarnation: 3, seq: 9, epoch: 2, role: 'standby.hot', syncSeq: 4, healthy: true, hearsPeer: true,
  handover: false, wantsBulk: false, uplink: true, version: { major: 1, minor: 2 }, wallMs: 1_700_000_000_000,
};
const sync: SyncDatagram = { kind: 'ack', schema: 1, epoch: 2, stream: 77, seq: 12, hasBase: true };

describe('DatagramPairLink', () => {
  it('sends heartbeats on their own share, sync on the share named; the peer decodes both', () => {
    const wire: Array<[string, Uint8Array]> = [];
    const a = new DatagramPairLink((share, bytes) => wire.push([share, bytes]));
    a.sendHeartbeat(hb);
    a.sendSync('lb1/slot4', sync);
    expect(wire.map(([s]) => s)).toEqual(['lb1/slot3', 'lb1/slot4']);
    expect(Buffer.from(wire[0]![1])).toEqual(heartbeatCodec.encode(hb));
    expect(Buffer.from(wire[1]![1])).toEqual(syncCodec.encode(sync));

    const got: unknown[] = [];
    const b = new DatagramPairLink(() => {});
    b.connect({ receiveHeartbeat: (h) => got.push(h), receiveSync: (share, d) => got.push([share, d]) });
    for (const [share, bytes] of wire) b.deliver(share, bytes);
    expect(got).toEqual([hb, ['lb1/slot4', sync]]);
    expect(b.stats).toMatchObject({ heartbeatsReceived: 1, syncReceived: 1, garbage: 0, other: 0 });
    expect(a.stats).toMatchObject({ heartbeatsSent: 1, syncSent: 1 });
  });

  it('hands other datagrams to `other`; counts garbage without throwing', () => {
    const others: Array<[string, number[]]> = [];
    const l = new DatagramPairLink(() => {}, (share, bytes) => {
      if (bytes[0] !== 0x41 || bytes[1] !== 0x4d) throw new Error('not a mirror datagram');
      others.push([share, [...bytes]]);
    });
    const got: unknown[] = [];
    l.connect({ receiveHeartbeat: (h) => got.push(h), receiveSync: () => got.push('sync') });
    l.deliver('shmc', Uint8Array.from([0x41, 0x4d, 1, 2])); // 'AM': another protocol on the flow
    l.deliver('shmc', Uint8Array.from([1, 2, 3])); // no 'A' tag
    l.deliver('shmc', heartbeatCodec.encode(hb).subarray(0, 20)); // truncated heartbeat
    l.deliver('shmc', Uint8Array.from([0x41, 0x53, 9, 9, 9])); // 'AS' of an unknown format
    expect(others).toEqual([['shmc', [0x41, 0x4d, 1, 2]]]);
    expect(got).toEqual([]);
    expect(l.stats).toMatchObject({ other: 2, garbage: 3, heartbeatsReceived: 0, syncReceived: 0 });

    const bare = new DatagramPairLink(() => {});
    bare.deliver('shmc', Uint8Array.from([0x41, 0x4d, 1, 2])); // no `other`: garbage
    expect(bare.stats.garbage).toBe(1);
  });
});
