/**
 * Session sync of one share: the receiver on the standby — applies the owner's stream strictly in
 * order, acknowledges cumulatively, buffers out-of-order datagrams and NACKs a gap, sweeps what a
 * full generation did not refresh, and reports a complete base (standby.hot) or staleness. The
 * design is described in sync-sender.ts. Time: the Clock given (the node's data-plane clock).
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import type { SessionSink, SyncDatagram, SyncReceiverStats, SyncRecord, SyncTiming } from './sync-types.ts';

/**
 * The standby's side of one share's sync stream. Keeps receiving across streams (a new owner
 * starts a new stream: the receiver then wants a bulk).
 */
export class SyncReceiver {
  readonly stats: SyncReceiverStats = {
    datagrams: 0, applied: 0, duplicates: 0, outOfOrder: 0, nacks: 0, acks: 0, ignoredEpoch: 0, ignoredSchema: 0,
    records: 0, deletes: 0, swept: 0, bulksCompleted: 0,
  };
  private stream: number | null = null;
  private expected = 0;
  private epoch = 0;
  private readonly buffer = new Map<number, SyncDatagram>();
  private gen: { gen: number; touched: Set<string>; restart: boolean } | null = null;
  private hasBase = false;
  private lastNackAt = -Infinity;
  private staleTimer: TimerId | undefined;
  private stale = false;
  private running = true;
  /** The receiver wants a bulk: put this in the heartbeats (wantsBulk). */
  wantsBulk = true;

  /**
   * @param o.clock      the standby's data-plane clock
   * @param o.sink       the standby table
   * @param o.reply      sends an ACK/NACK datagram back to the owner
   * @param o.schema     our major version (datagrams of another schema are ignored)
   * @param o.timing     sync tunables
   * @param o.onBulkDone a complete generation was applied (standby.ready → standby.hot)
   * @param o.onStale   the table stopped being current (silence ≥ syncStaleMs, unfillable gap)
   */
  constructor(private readonly o: {
    clock: Clock;
    sink: SessionSink;
    reply: (d: SyncDatagram) => void;
    schema: number;
    timing: SyncTiming;
    onBulkDone: () => void;
    onStale: () => void;
  }) {
    this.armStale();
  }

  /** Highest epoch seen (I4: lower epochs are ignored). */
  get knownEpoch(): number {
    return this.epoch;
  }

  /** Last sequence applied in order. */
  get appliedSeq(): number {
    return Math.max(0, this.expected - 1);
  }

  /** True once a complete generation has been applied on the current stream. */
  get complete(): boolean {
    return this.hasBase;
  }

  /** The machine entered standby.ready: the table must be rebuilt by a bulk. */
  requestBulk(): void {
    this.wantsBulk = true;
  }

  /** Raises the epoch floor (e.g. from heartbeats): datagrams below it are ignored. */
  noteEpoch(epoch: number): void {
    if (epoch > this.epoch) this.epoch = epoch;
  }

  /** A datagram from the owner. */
  receive(d: SyncDatagram): void {
    if (!this.running) return;
    this.stats.datagrams++;
    if (d.schema !== this.o.schema) {
      this.stats.ignoredSchema++;
      return;
    }
    if (d.epoch < this.epoch) {
      this.stats.ignoredEpoch++;
      return;
    }
    this.epoch = d.epoch;
    const now = this.o.clock.now();
    if (this.stream !== d.stream) {
      // A new owner (or a new activation): start over on this stream, ask for a bulk.
      this.stream = d.stream;
      this.expected = d.kind === 'idle' ? d.seq + 1 : d.seq;
      this.buffer.clear();
      this.gen = null;
      this.hasBase = false;
      this.wantsBulk = true;
      this.markStale();
    }
    this.armStale();
    if (d.kind === 'idle') {
      if (d.seq >= this.expected) this.nack(now);
      return;
    }
    if (d.kind === 'ack' || d.kind === 'nack') return;
    if (d.kind === 'resync-begin' && d.restart && d.seq > this.expected) {
      // A restart point: whatever was missing before it no longer matters.
      this.expected = d.seq;
      for (const s of [...this.buffer.keys()]) if (s < d.seq) this.buffer.delete(s);
    }
    if (d.seq < this.expected) {
      this.stats.duplicates++;
      this.ack();
      return;
    }
    if (d.seq > this.expected) {
      this.stats.outOfOrder++;
      if (this.buffer.size < Math.max(64, this.o.timing.syncResendQueue)) this.buffer.set(d.seq, d);
      this.nack(now);
      return;
    }
    this.apply(d, now);
    for (;;) {
      const b = this.buffer.get(this.expected);
      if (!b) break;
      this.buffer.delete(this.expected);
      this.apply(b, now);
    }
    this.ack();
  }

  /** Stops timers (the member stopped being standby). */
  stop(): void {
    this.running = false;
    if (this.staleTimer !== undefined) this.o.clock.clearTimeout(this.staleTimer);
  }

  private apply(d: SyncDatagram, now: number): void {
    this.expected = d.seq + 1;
    this.stats.applied++;
    switch (d.kind) {
      case 'update': {
        const recs: SyncRecord[] = (d.records ?? []).map((w) => {
          const r: SyncRecord = { key: w.key, createdAt: now - w.ageMs, sessions: w.sessions, size: w.size };
          if (w.payload) r.payload = w.payload;
          return r;
        });
        this.o.sink.upsert(recs);
        this.stats.records += recs.length;
        if (this.gen) for (const r of recs) this.gen.touched.add(r.key);
        break;
      }
      case 'delete':
        this.o.sink.remove(d.keys ?? []);
        this.stats.deletes += (d.keys ?? []).length;
        break;
      case 'resync-begin':
        this.gen = { gen: d.gen ?? 0, touched: new Set(), restart: d.restart === true };
        // A restart point may have skipped data: no complete base until this generation ends.
        if (d.restart) this.hasBase = false;
        break;
      case 'resync-end': {
        const g = this.gen;
        if (g && g.gen === d.gen) {
          const gone = [...this.o.sink.keys()].filter((k) => !g.touched.has(k));
          if (gone.length) this.o.sink.remove(gone);
          this.stats.swept += gone.length;
          this.gen = null;
          this.hasBase = true;
          this.stats.bulksCompleted++;
          this.wantsBulk = false;
          this.stale = false;
          this.o.onBulkDone();
        }
        break;
      }
      case 'final':
        break;
      default:
        break;
    }
  }

  private ack(): void {
    if (this.stream === null) return;
    this.stats.acks++;
    this.o.reply({ kind: 'ack', schema: this.o.schema, epoch: this.epoch, stream: this.stream, seq: this.expected - 1, hasBase: this.hasBase });
  }

  private nack(now: number): void {
    if (this.stream === null || now - this.lastNackAt < Math.min(this.o.timing.syncResendMs / 2, 50)) return;
    this.lastNackAt = now;
    this.stats.nacks++;
    this.o.reply({ kind: 'nack', schema: this.o.schema, epoch: this.epoch, stream: this.stream, seq: this.expected });
  }

  private armStale(): void {
    if (this.staleTimer !== undefined) this.o.clock.clearTimeout(this.staleTimer);
    this.staleTimer = this.o.clock.setTimeout(() => {
      this.staleTimer = undefined;
      if (!this.running) return;
      this.markStale();
    }, this.o.timing.syncStaleMs);
  }

  private markStale(): void {
    if (this.stale) return;
    this.stale = true;
    this.wantsBulk = true;
    this.o.onStale();
  }
}
