// The session sync engine: SyncSender (chassis/ha/sync-sender.ts) feeding a SyncReceiver
// (chassis/ha/sync-receiver.ts) in simulated time, directly or through the wire codec.
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { IP_UDP_OVERHEAD, SYNC_HEADER_BYTES, recordWireBytes, syncCodec } from '../../../../chassis/ha/sync-codec.ts';
import { SyncReceiver } from '../../../../chassis/ha/sync-receiver.ts';
import { SyncSender } from '../../../../chassis/ha/sync-sender.ts';
import type { SessionSink, SessionSource, SyncDatagram, SyncRecord, SyncTiming } from '../../../../chassis/ha/sync-types.ts';

const TIMING: SyncTiming = {
  syncMinAgeMs: 3000, syncBatchMs: 100, syncMtu: 1500, syncFullResyncMs: 240_000, syncResendMs: 200, syncResendQueue: 4096,
  syncBulkBytesPerSec: 12_500_000, syncStaleMs: 1000,
};

/** A live table ordered by creation time. */
class FakeSource implements SessionSource {
  readonly recs: SyncRecord[] = [];
  private ended: Array<{ key: string; createdAt: number; sessions: number }> = [];
  private n = 0;
  add(createdAt: number, sessions = 1, size = 40): SyncRecord {
    const r = { key: `k${this.n++}`, createdAt, sessions, size };
    this.recs.push(r);
    return r;
  }
  end(key: string): void {
    const i = this.recs.findIndex((r) => r.key === key);
    const [r] = this.recs.splice(i, 1);
    this.ended.push({ key: r!.key, createdAt: r!.createdAt, sessions: r!.sessions });
  }
  *createdBetween(after: number, upTo: number) {
    for (const r of this.recs) if (r.createdAt > after && r.createdAt <= upTo) yield r;
  }
  all() {
    return this.recs;
  }
  drainEnded() {
    const e = this.ended;
    this.ended = [];
    return e;
  }
}

class FakeSink implements SessionSink {
  readonly map = new Map<string, SyncRecord>();
  readonly firstSeen = new Map<string, number>();
  constructor(private readonly clock: SimClock) {}
  upsert(records: readonly SyncRecord[]) {
    for (const r of records) {
      this.map.set(r.key, r);
      if (!this.firstSeen.has(r.key)) this.firstSeen.set(r.key, this.clock.now());
    }
  }
  remove(keys: readonly string[]) {
    for (const k of keys) this.map.delete(k);
  }
  keys() {
    return this.map.keys();
  }
  clear() {
    this.map.clear();
  }
}

interface Harness {
  clock: SimClock;
  src: FakeSource;
  sink: FakeSink;
  sender: SyncSender;
  receiver: SyncReceiver;
  sent: SyncDatagram[];
  bulkDone: number[];
  stale: number[];
  /** Return true to drop a datagram (either direction). */
  drop: (d: SyncDatagram, dir: 'fwd' | 'back') => boolean;
}

function harness(timing: Partial<SyncTiming> = {}, opts: { wire?: boolean; latencyMs?: number; startSender?: number } = {}): Harness {
  const clock = new SimClock();
  const t = { ...TIMING, ...timing };
  const src = new FakeSource();
  const sink = new FakeSink(clock);
  const h = { clock, src, sink, sent: [] as SyncDatagram[], bulkDone: [] as number[], stale: [] as number[], drop: () => false } as unknown as Harness;
  const lat = opts.latencyMs ?? 0.5;
  const carry = (d: SyncDatagram) => (opts.wire ? syncCodec.decode(syncCodec.encode(d)).value : d);
  h.receiver = new SyncReceiver({
    clock, sink, schema: 1, timing: t,
    reply: (d) => {
      if (h.drop(d, 'back')) return;
      clock.setTimeout(() => h.sender.onAckDatagram(carry(d)), lat);
    },
    onBulkDone: () => h.bulkDone.push(clock.now()),
    onStale: () => h.stale.push(clock.now()),
  });
  h.sender = new SyncSender({
    clock, source: src, epoch: 1, stream: 77, schema: 1, timing: t,
    send: (d) => {
      h.sent.push(d);
      if (h.drop(d, 'fwd')) return;
      clock.setTimeout(() => h.receiver.receive(carry(d)), lat);
    },
  });
  return h;
}

/** Steps time in 10 ms increments, calling `each` after every step. */
function step(h: Harness, ms: number, each?: () => void): void {
  const end = h.clock.now() + ms;
  while (h.clock.now() < end) {
    h.clock.advance(Math.min(10, end - h.clock.now()));
    each?.();
  }
}

describe('session sync engine', () => {
  it('sends only sessions older than T_s, each within T_s + B of its creation (age filter, batch bound)', () => {
    const h = harness({}, { wire: true });
    const rnd = new SeededRandom(3);
    const created: SyncRecord[] = [];
    const ended = new Set<string>();
    for (let t = 0; t < 20_000; t += 10) {
      h.clock.runUntil(t);
      for (let i = 0; i < 2; i++) created.push(h.src.add(t));
      // A third of the sessions end before they are 3 s old.
      for (const r of created.slice(-2)) if (rnd.next() < 0.33) h.clock.setTimeout(() => { h.src.end(r.key); ended.add(r.key); }, 500 + rnd.int(2000));
    }
    h.clock.runUntil(20_000);
    step(h, 5000);
    for (const r of created) {
      const seen = h.sink.firstSeen.get(r.key);
      if (ended.has(r.key)) {
        expect(seen, r.key).toBeUndefined(); // ended young: never sent
        continue;
      }
      if (r.createdAt + 3000 + 100 > 24_900) continue;
      expect(seen, r.key).toBeDefined();
      expect(seen! - r.createdAt).toBeGreaterThanOrEqual(3000);
      expect(seen! - r.createdAt).toBeLessThanOrEqual(3000 + 100 + 0.5);
    }
    const s = h.sender.stats;
    expect(s.filteredRecords).toBe(ended.size);
    expect(s.incrementalRecords + s.filteredRecords).toBe(created.filter((r) => r.createdAt <= h.clock.now() - 3000 || ended.has(r.key)).length);
    expect(s.filteredSessions).toBe(ended.size);
  });

  it('packs datagrams up to MTU − 28 bytes; a burst fills them', () => {
    const h = harness();
    for (let i = 0; i < 1000; i++) h.src.add(100, 1, 40);
    step(h, 3300);
    const upd = h.sent.filter((d) => d.kind === 'update');
    const limit = 1500 - IP_UDP_OVERHEAD;
    for (const d of h.sent) expect(syncCodec.encodingLength(d)).toBeLessThanOrEqual(limit);
    const per = Math.floor((limit - SYNC_HEADER_BYTES) / recordWireBytes({ key: 'k999', size: 40 }));
    expect(upd.length).toBeLessThanOrEqual(Math.ceil(1000 / per) + 1);
    expect(upd.slice(0, -1).every((d) => syncCodec.encodingLength(d) > limit - 60)).toBe(true);
    expect(h.sink.map.size).toBe(1000);
  });

  it('detects a gap, NACKs it and gets the retransmission; the table ends complete', () => {
    const h = harness();
    const lost = new Set<number>();
    h.drop = (d, dir) => dir === 'fwd' && d.kind === 'update' && (d.seq === 3 || d.seq === 4) && !lost.has(d.seq) && (lost.add(d.seq), true);
    for (let t = 0; t < 2000; t += 50) h.src.add(t, 1, 200);
    step(h, 6000);
    expect(lost.size).toBe(2);
    expect(h.receiver.stats.nacks).toBeGreaterThanOrEqual(1);
    expect(h.sender.stats.retransmits).toBeGreaterThanOrEqual(2);
    expect([...h.sink.map.keys()].sort()).toEqual(h.src.recs.map((r) => r.key).sort());
    expect(h.sender.resendQueueLength).toBe(0);
  });

  it('resyncs with a bulk when the gap is older than the resend queue', () => {
    const h = harness({ syncResendQueue: 4 });
    let cut = true;
    h.drop = (d, dir) => cut && dir === 'fwd' && d.kind === 'update' && d.seq > 2;
    for (let t = 0; t < 3000; t += 20) h.src.add(t, 1, 300);
    step(h, 5500);
    cut = false;
    step(h, 2000);
    expect(h.sender.stats.queueOverflows).toBeGreaterThan(0);
    expect(h.sender.stats.bulks).toBeGreaterThanOrEqual(1);
    expect([...h.sink.map.keys()].sort()).toEqual(h.src.recs.map((r) => r.key).sort());
    expect(h.receiver.complete).toBe(true);
  });

  it('propagates deletes of synced sessions', () => {
    const h = harness();
    const a = h.src.add(0);
    const b = h.src.add(0);
    step(h, 3300);
    expect(h.sink.map.has(a.key) && h.sink.map.has(b.key)).toBe(true);
    h.src.end(a.key);
    step(h, 200);
    expect(h.sink.map.has(a.key)).toBe(false);
    expect(h.sink.map.has(b.key)).toBe(true);
    expect(h.sender.stats.deletes).toBe(1);
  });

  it('bulk on join: sweeps entries the owner no longer has, completes the base once, and reports bulk done', () => {
    const h = harness();
    h.sink.upsert([{ key: 'ghost', createdAt: 0, sessions: 1, size: 1 }]);
    for (let i = 0; i < 50; i++) h.src.add(i * 10);
    step(h, 4000);
    expect(h.receiver.complete).toBe(false);
    expect(h.sender.ackedWatermark()).toBe(-Infinity); // no base yet: nothing protected
    expect(h.receiver.wantsBulk).toBe(true);
    h.sender.requestBulk(h.receiver.appliedSeq);
    step(h, 200);
    h.sender.requestBulk(0); // a stale request sent before the bulk was applied is ignored
    step(h, 200);
    expect(h.bulkDone).toHaveLength(1);
    expect(h.sink.map.has('ghost')).toBe(false);
    expect(h.sink.map.size).toBe(50);
    expect(h.sender.stats.bulks).toBe(1);
    expect(h.receiver.wantsBulk).toBe(false);
    expect(h.sender.ackedWatermark()).toBeGreaterThan(h.clock.now() - 3000 - 100 - 30);
  });

  it('paces a bulk at syncBulkBytesPerSec', () => {
    const h = harness({ syncBulkBytesPerSec: 100_000 });
    for (let i = 0; i < 2000; i++) h.src.add(0, 1, 40); // ~116 kB of records
    step(h, 3200);
    const t0 = h.clock.now();
    h.sender.requestBulk();
    while (!h.bulkDone.length) step(h, 10);
    const took = h.bulkDone[0]! - t0;
    expect(took).toBeGreaterThan(900);
    expect(took).toBeLessThan(1600);
  });

  it('final sync sends young sessions too and calls back once the standby acknowledged', () => {
    const h = harness();
    h.sender.requestBulk();
    step(h, 100);
    const young = [h.src.add(h.clock.now()), h.src.add(h.clock.now() - 1000)];
    step(h, 50);
    expect(young.some((r) => h.sink.map.has(r.key))).toBe(false);
    let acked = -1;
    h.sender.finalSync(() => (acked = h.clock.now()));
    step(h, 20);
    expect(acked).toBeGreaterThan(0);
    for (const r of young) expect(h.sink.map.has(r.key)).toBe(true);
    expect(h.sender.stats.finalRecords).toBe(2);
  });

  it('ignores datagrams from a lower epoch (I4) or another schema (blue/green gate)', () => {
    const h = harness();
    h.receiver.noteEpoch(3);
    h.receiver.receive({ kind: 'update', schema: 1, epoch: 2, stream: 9, seq: 1, records: [{ key: 'x', ageMs: 5000, sessions: 1, size: 0 }] });
    h.receiver.receive({ kind: 'update', schema: 2, epoch: 3, stream: 9, seq: 1, records: [{ key: 'y', ageMs: 5000, sessions: 1, size: 0 }] });
    expect(h.sink.map.size).toBe(0);
    expect(h.receiver.stats.ignoredEpoch).toBe(1);
    expect(h.receiver.stats.ignoredSchema).toBe(1);
  });

  it('under 10 % loss both ways, everything created at or before the acknowledged watermark is on the standby at every step', () => {
    const h = harness();
    const rnd = new SeededRandom(11);
    h.drop = () => rnd.next() < 0.1;
    h.sender.requestBulk();
    let checks = 0;
    let t = 0;
    const keyset = () => new Set(h.sink.map.keys());
    step(h, 20_000, () => {
      while (t <= h.clock.now()) {
        h.src.add(t, 2, 64);
        t += 25;
      }
      if (h.src.recs.length > 50 && rnd.next() < 0.3) h.src.end(h.src.recs[rnd.int(h.src.recs.length)]!.key);
      // Heartbeats carry the standby's wish for a bulk every 100 ms.
      if (Math.round(h.clock.now()) % 100 === 0 && h.receiver.wantsBulk) h.sender.requestBulk(h.receiver.appliedSeq);
      const w = h.sender.ackedWatermark();
      if (w === -Infinity || Math.round(h.clock.now()) % 50 !== 0) return;
      const have = keyset();
      for (const r of h.src.recs) if (r.createdAt <= w) expect(have.has(r.key), `${r.key} created ${r.createdAt} ≤ W ${w}`).toBe(true);
      checks++;
    });
    expect(checks).toBeGreaterThan(300);
    expect(h.sender.stats.retransmits).toBeGreaterThan(0);
    // The watermark keeps up: within T_s + B plus a few resend periods of now.
    expect(h.sender.ackedWatermark()).toBeGreaterThan(h.clock.now() - 3000 - 100 - 1000);
  });

  it('runs a periodic full resync every R and marks the standby stale when the channel goes silent', () => {
    const h = harness({ syncFullResyncMs: 10_000 });
    for (let i = 0; i < 20; i++) h.src.add(0);
    h.sender.requestBulk();
    step(h, 25_000);
    expect(h.sender.stats.fullResyncs).toBe(2);
    expect(h.bulkDone.length).toBe(3);
    let cut = true;
    h.drop = () => cut;
    const before = h.stale.length;
    step(h, 1500);
    expect(h.stale.length).toBe(before + 1);
    cut = false;
    step(h, 200);
    expect(h.receiver.wantsBulk).toBe(true);
  });

  it('ackWaitMs: a full resync after a quiet spell is no wait; lost ACKs are, and retransmissions do not reset it', () => {
    const h = harness({ syncFullResyncMs: 10_000 });
    for (let i = 0; i < 2000; i++) h.src.add(0, 1, 300);
    h.sender.requestBulk();
    step(h, 500);
    // quiet: nothing new to send, so no ACKs for ~10 s, then the periodic resync's burst
    let worst = 0;
    let sinceLastAck = 0; // the old measure: time since the last ACK while something is outstanding
    step(h, 35_000, () => {
      worst = Math.max(worst, h.sender.ackWaitMs());
      if (h.sender.resendQueueLength > 0) sinceLastAck = Math.max(sinceLastAck, h.clock.now() - h.sender.lastAckAt);
    });
    expect(h.sender.stats.fullResyncs).toBe(3);
    expect(sinceLastAck).toBeGreaterThan(5000);
    expect(worst).toBeLessThan(50);
    expect(h.sender.ackWaitMs()).toBe(0);
    // the ACKs stop coming back while sessions keep being created
    let cut = true;
    h.drop = (_d, dir) => cut && dir === 'back';
    const t0 = h.clock.now();
    for (let t = 0; t < 3000; t += 50) h.src.add(t0 - 3000 + t, 1, 300);
    step(h, 1500);
    const w1 = h.sender.ackWaitMs();
    const r1 = h.sender.stats.retransmits;
    step(h, 1500);
    expect(h.sender.stats.retransmits).toBeGreaterThan(r1);
    expect(h.sender.resendQueueLength).toBeGreaterThan(0);
    expect(w1).toBeGreaterThan(1000); // first datagram left within T_s-eligibility + B of t0
    expect(h.sender.ackWaitMs() - w1).toBe(1500);
    cut = false;
    step(h, 500);
    expect(h.sender.ackWaitMs()).toBe(0);
  });
});
