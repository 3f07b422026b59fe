/**
 * Session sync of one share, active → standby: the sender (on the owner). The receiver (on the
 * standby) is sync-receiver.ts, the wire codec sync-codec.ts, the shared types sync-types.ts.
 *
 * Design (ha.md §4.2–§4.5; docs/ha.md "Session sync"), FTFW-like as conntrackd:
 * - Age filter: only sessions older than T_s (syncMinAgeMs, default 3 s) are sent incrementally;
 *   younger ones are lost on a failover (reported), never on a planned switchover (final flush).
 * - Batching: eligible records are packed into datagrams of at most MTU − 28 bytes (IPv4 + UDP
 *   headers); a full datagram leaves at once, a partial one when its oldest record has waited B
 *   (syncBatchMs, default 100 ms).
 * - Reliability: every data datagram has a sequence number in the sender's stream (a new stream
 *   per activation); the receiver applies strictly in order, acknowledges cumulatively, buffers
 *   out-of-order datagrams and NACKs a gap; the sender retransmits from its resend queue
 *   (syncResendQueue datagrams) on a NACK or after syncResendMs without an ACK. A gap the queue
 *   can no longer fill forces a bulk resync (resync on gap). An idle datagram every B carries the
 *   last sequence so tail loss is noticed.
 * - Bulk and full resync: a generation bracketed by resync-begin / resync-end holding every live
 *   eligible record, paced at syncBulkBytesPerSec; at the end the receiver sweeps entries not
 *   refreshed during the generation (mark and sweep). A bulk starts when the standby asks for it
 *   (join: its heartbeats carry wantsBulk; the controller calls `requestBulk`), and periodically
 *   every R (syncFullResyncMs, default 4 min). A bulk begins a restart point: the receiver takes
 *   its sequence as the new expected one. The receiver reports `onBulkDone` at the end of every
 *   complete generation (standby.ready → standby.hot).
 * - Deletes propagate: a record that ends after it was sent is deleted on the standby (conntrackd
 *   destroy events); a lost delete is repaired by the next full resync's sweep.
 * - Epochs (I4): every datagram carries the sender's epoch; the receiver ignores lower epochs.
 *   A schema byte (the sender's major version) must equal the receiver's (blue/green gate).
 * - Final sync (planned switchover): everything not yet sent, young sessions included, then a
 *   final marker; `finalSync(cb)` calls back when the marker is acknowledged.
 * - Lag and protection: `ackedWatermark()` is the creation-time cutoff up to which every live
 *   session is acknowledged by a standby that holds a complete base (−Infinity before that).
 *   The oracle (chassis/sim/oracle.ts) calls a session protected when it is older than T_s + B + lag, with
 *   lag = how far that watermark trails the eligibility edge (ha.md §5.5).
 *
 * Time: the Clock given (the node's data-plane clock). Sizes in bytes, times in ms.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { deleteWireBytes, IP_UDP_OVERHEAD, recordWireBytes, SYNC_HEADER_BYTES, syncCodec } from './sync-codec.ts';
import type { SessionSource, SyncDatagram, SyncKind, SyncRecord, SyncSenderStats, SyncTiming, WireRecord } from './sync-types.ts';

interface Inflight {
  d: SyncDatagram;
  sentAt: number;
  bytes: number;
  /** Eligibility cutoff covered once this datagram is delivered (update/idle-bearing). */
  cutoff: number;
  /** This datagram ends a bulk generation (restart) — delivering it completes the base. */
  endsBulk: boolean;
  isFinal: boolean;
}

interface Pending {
  records: SyncRecord[];
  bytes: number;
  firstAt: number;
}

/**
 * The owner's side of one share's sync stream. Create it when the member becomes active; call
 * `stop()` when it stops being active. `send` delivers datagrams to the standby (a link, a UDP
 * socket); `onAckDatagram` is how ACK/NACK datagrams come back.
 */
export class SyncSender {
  readonly stats: SyncSenderStats = {
    datagrams: 0, bytes: 0, incrementalRecords: 0, incrementalSessions: 0, bulkRecords: 0, bulkSessions: 0,
    finalRecords: 0, finalSessions: 0, deletes: 0, retransmits: 0, queueOverflows: 0, bulks: 0, fullResyncs: 0,
    filteredRecords: 0, filteredSessions: 0,
  };
  private seq = 0;
  private cutoff: number;
  private pending: Pending = { records: [], bytes: 0, firstAt: 0 };
  private pendingDeletes: string[] = [];
  private readonly inflight = new Map<number, Inflight>();
  private acked = 0;
  private ackedCutoff = -Infinity;
  private peerHasBase = false;
  private lastSentAt: number;
  private gen = 0;
  private resync: { gen: number; restart: boolean; queue: SyncRecord[]; i: number; cutoff: number } | null = null;
  private bulkWanted = false;
  private lastBulkEndSeq: number | undefined;
  private final: { seq: number; cb: () => void } | null = null;
  private timers: TimerId[] = [];
  private running = true;
  private readonly maxPayload: number;
  /** Last time an ACK arrived (ms). */
  lastAckAt: number;
  /** When the resend queue last went from empty to non-empty (ms): the sender waits for ACKs since then. */
  private outstandingSince: number;
  /** Measured one-way-and-back time of the last ACK that advanced the window, ms. */
  lastAckLagMs = 0;

  /**
   * @param o.clock   the owner's data-plane clock
   * @param o.source  the live session table
   * @param o.send    delivers a datagram to the standby (sizes are counted with syncCodec.encodingLength)
   * @param o.epoch   the owner's activation epoch
   * @param o.stream  stream id, new per activation
   * @param o.schema  the owner's major version
   * @param o.timing  sync tunables
   */
  constructor(private readonly o: {
    clock: Clock;
    source: SessionSource;
    send: (d: SyncDatagram) => void;
    epoch: number;
    stream: number;
    schema: number;
    timing: SyncTiming;
  }) {
    const now = o.clock.now();
    this.cutoff = now - o.timing.syncMinAgeMs;
    this.lastSentAt = now;
    this.lastAckAt = now;
    this.outstandingSince = now;
    this.maxPayload = Math.max(64, o.timing.syncMtu - IP_UDP_OVERHEAD);
    this.schedule(() => this.tick(), this.pollMs());
    this.schedule(() => this.resendTick(), o.timing.syncResendMs);
    if (o.timing.syncFullResyncMs > 0) this.schedule(() => this.periodicResync(), o.timing.syncFullResyncMs);
  }

  /** Sequence number of the last data datagram sent. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Highest cumulatively acknowledged sequence number. */
  get ackedSeq(): number {
    return this.acked;
  }

  /** Datagrams waiting for an ACK (the resend queue). */
  get resendQueueLength(): number {
    return this.inflight.size;
  }

  /**
   * How long the sender has been waiting for an ACK, ms: 0 while nothing is in the resend queue,
   * else the time since the later of the last ACK and the moment the queue last became non-empty.
   * This is the "acknowledgements stopped coming" measure of the SYNC_ACKS_LOST alarm: a quiet
   * stream (nothing to acknowledge, so no ACKs) followed by a burst (a periodic full resync) does
   * not count as waiting, while a burst that is never acknowledged does — retransmissions and
   * resend-queue overflow do not reset it.
   */
  ackWaitMs(now: number = this.o.clock.now()): number {
    if (this.inflight.size === 0) return 0;
    return Math.max(0, now - Math.max(this.lastAckAt, this.outstandingSince));
  }

  /** True while a bulk or full resync generation is being sent. */
  get resyncInProgress(): boolean {
    return this.resync !== null;
  }

  /**
   * Creation-time cutoff up to which every live session is acknowledged by a standby holding a
   * complete base; −Infinity when the standby has no base yet.
   */
  ackedWatermark(): number {
    if (!this.peerHasBase) return -Infinity;
    // Everything sent is acknowledged and nothing eligible waits in the batch: covered up to the cutoff.
    if (this.inflight.size === 0 && this.pending.records.length === 0 && this.acked === this.seq) return Math.max(this.ackedCutoff, this.cutoff);
    return this.ackedCutoff;
  }

  /**
   * The standby asked for a bulk (join, gap it cannot fill): starts one unless one is running or
   * one already ended that the standby has not applied yet.
   * @param peerAppliedSeq the standby's last applied sequence (from its heartbeat); omit to force.
   */
  requestBulk(peerAppliedSeq?: number): void {
    if (peerAppliedSeq !== undefined && this.lastBulkEndSeq !== undefined && peerAppliedSeq < this.lastBulkEndSeq) return;
    this.peerHasBase = false;
    if (this.resync?.restart) return;
    if (this.resync) {
      this.bulkWanted = true;
      return;
    }
    this.startResync(true);
  }

  /**
   * Planned switchover: sends everything not yet sent (young sessions included), then a final
   * marker; calls `cb` once the marker and everything before it are acknowledged.
   */
  finalSync(cb: () => void): void {
    const now = this.o.clock.now();
    this.collect(now);
    const young = [...this.o.source.createdBetween(this.cutoff, Infinity)];
    for (const r of young) {
      this.stats.finalRecords++;
      this.stats.finalSessions += r.sessions;
      this.addToBatch(r, now, 'final');
    }
    this.cutoff = Math.max(this.cutoff, now);
    this.flushDeletes(now);
    this.flush(now);
    const d = this.next('final');
    this.final = { seq: d.seq, cb };
    this.transmit(d, this.covered(), false, true);
  }

  /** Cancels a pending final sync (handover aborted). */
  cancelFinal(): void {
    this.final = null;
  }

  /** An ACK or NACK from the standby. Datagrams of another stream or epoch are ignored. */
  onAckDatagram(d: SyncDatagram): void {
    if (!this.running || d.stream !== this.o.stream || d.epoch !== this.o.epoch) return;
    const now = this.o.clock.now();
    if (d.kind === 'ack') {
      this.lastAckAt = now;
      if (d.seq > this.acked) {
        let cut = this.ackedCutoff;
        for (let s = this.acked + 1; s <= d.seq; s++) {
          const f = this.inflight.get(s);
          if (f) {
            cut = Math.max(cut, f.cutoff);
            this.lastAckLagMs = now - f.sentAt;
            this.inflight.delete(s);
          }
        }
        this.acked = Math.min(d.seq, this.seq);
        this.ackedCutoff = cut;
      }
      this.peerHasBase = d.hasBase === true;
      if (this.final && this.acked >= this.final.seq) {
        const cb = this.final.cb;
        this.final = null;
        cb();
      }
    } else if (d.kind === 'nack') {
      if (d.seq <= this.acked) return;
      if (!this.inflight.has(d.seq)) {
        // The gap can no longer be filled from the resend queue: resync on gap.
        this.requestBulk();
        return;
      }
      this.retransmitFrom(d.seq, now, 64);
    }
  }

  /** Stops all timers (the member stopped being active). */
  stop(): void {
    this.running = false;
    for (const t of this.timers) this.o.clock.clearTimeout(t);
    this.timers = [];
  }

  // ---- internals ----

  private pollMs(): number {
    return Math.max(1, Math.min(this.o.timing.syncBatchMs, 20));
  }

  private schedule(fn: () => void, ms: number): void {
    const id = this.o.clock.setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== id);
      if (this.running) fn();
    }, ms);
    this.timers.push(id);
  }

  private tick(): void {
    const now = this.o.clock.now();
    this.collect(now);
    this.flushDeletes(now);
    // A partial batch leaves at the last poll before its oldest record has waited B since it became eligible.
    if (this.pending.records.length && now + this.pollMs() >= this.pending.firstAt + this.o.timing.syncBatchMs) this.flush(now);
    if (this.resync) this.pumpResync(now);
    if (now - this.lastSentAt >= this.o.timing.syncBatchMs) this.sendIdle(now);
    this.schedule(() => this.tick(), this.pollMs());
  }

  /** Moves newly eligible records into the batch; notes ended ones. */
  private collect(now: number): void {
    const cut = now - this.o.timing.syncMinAgeMs;
    const ended = [...this.o.source.drainEnded()];
    // Ended records: not yet eligible → never sent (saved by the filter); in the batch → drop; else delete.
    if (ended.length) {
      const inBatch = new Set(this.pending.records.map((r) => r.key));
      for (const e of ended) {
        if (e.createdAt > this.cutoff) {
          this.stats.filteredRecords++;
          this.stats.filteredSessions += e.sessions;
          continue;
        }
        if (inBatch.has(e.key)) {
          this.pending.records = this.pending.records.filter((r) => r.key !== e.key);
          continue;
        }
        if (e.createdAt <= this.cutoff) this.pendingDeletes.push(e.key);
      }
    }
    if (cut > this.cutoff) {
      for (const r of this.o.source.createdBetween(this.cutoff, cut)) {
        this.stats.incrementalRecords++;
        this.stats.incrementalSessions += r.sessions;
        this.addToBatch(r, now, 'inc');
      }
      this.cutoff = cut;
    }
  }

  private addToBatch(r: SyncRecord, now: number, why: 'inc' | 'final'): void {
    const b = recordWireBytes(r);
    if (this.pending.records.length && SYNC_HEADER_BYTES + this.pending.bytes + b > this.maxPayload) this.flush(now);
    const eligibleAt = why === 'final' ? now : Math.min(now, r.createdAt + this.o.timing.syncMinAgeMs);
    if (!this.pending.records.length || eligibleAt < this.pending.firstAt) this.pending.firstAt = eligibleAt;
    this.pending.records.push(r);
    this.pending.bytes += b;
    if (SYNC_HEADER_BYTES + this.pending.bytes >= this.maxPayload) this.flush(now);
  }

  private flush(now: number): void {
    if (!this.pending.records.length) return;
    const d = this.next('update');
    d.records = this.pending.records.map((r) => toWire(r, now));
    this.pending = { records: [], bytes: 0, firstAt: now };
    this.transmit(d, this.covered(), false, false);
  }

  private flushDeletes(now: number): void {
    while (this.pendingDeletes.length) {
      const keys: string[] = [];
      let bytes = SYNC_HEADER_BYTES;
      while (this.pendingDeletes.length) {
        const k = this.pendingDeletes[0]!;
        const b = deleteWireBytes(k);
        if (keys.length && bytes + b > this.maxPayload) break;
        keys.push(this.pendingDeletes.shift()!);
        bytes += b;
      }
      const d = this.next('delete');
      d.keys = keys;
      this.stats.deletes += keys.length;
      this.transmit(d, this.covered(), false, false);
    }
    void now;
  }

  /** Creation-time cutoff of what has been transmitted: records still waiting in the batch are not covered. */
  private covered(): number {
    const first = this.pending.records[0];
    return first ? Math.min(this.cutoff, first.createdAt - 1e-6) : this.cutoff;
  }

  private next(kind: SyncKind): SyncDatagram {
    return { kind, schema: this.o.schema, epoch: this.o.epoch, stream: this.o.stream, seq: ++this.seq };
  }

  private transmit(d: SyncDatagram, cutoff: number, endsBulk: boolean, isFinal: boolean): void {
    const now = this.o.clock.now();
    const bytes = syncCodec.encodingLength(d);
    if (this.inflight.size === 0) this.outstandingSince = now;
    this.inflight.set(d.seq, { d, sentAt: now, bytes, cutoff, endsBulk, isFinal });
    while (this.inflight.size > this.o.timing.syncResendQueue) {
      const oldest = this.inflight.keys().next().value as number;
      this.inflight.delete(oldest);
      this.stats.queueOverflows++;
    }
    this.stats.datagrams++;
    this.stats.bytes += bytes;
    this.lastSentAt = now;
    this.o.send(d);
  }

  private sendIdle(now: number): void {
    const d: SyncDatagram = { kind: 'idle', schema: this.o.schema, epoch: this.o.epoch, stream: this.o.stream, seq: this.seq };
    this.stats.datagrams++;
    this.stats.bytes += SYNC_HEADER_BYTES;
    this.lastSentAt = now;
    this.o.send(d);
  }

  private resendTick(): void {
    const now = this.o.clock.now();
    const first = this.inflight.values().next().value as Inflight | undefined;
    if (first && now - first.sentAt >= this.o.timing.syncResendMs) this.retransmitFrom(first.d.seq, now, 64);
    this.schedule(() => this.resendTick(), this.o.timing.syncResendMs);
  }

  private retransmitFrom(seq: number, now: number, max = Infinity): void {
    let n = 0;
    for (const [s, f] of this.inflight) {
      if (s < seq) continue;
      if (n++ >= max) break;
      f.sentAt = now;
      this.stats.retransmits++;
      this.stats.datagrams++;
      this.stats.bytes += f.bytes;
      this.o.send(f.d);
    }
    this.lastSentAt = now;
  }

  private periodicResync(): void {
    if (!this.resync) this.startResync(false);
    this.schedule(() => this.periodicResync(), this.o.timing.syncFullResyncMs);
  }

  private startResync(restart: boolean): void {
    const now = this.o.clock.now();
    this.collect(now);
    this.flush(now);
    const queue = [...this.o.source.createdBetween(-Infinity, this.cutoff)];
    this.gen++;
    if (restart) this.stats.bulks++;
    else this.stats.fullResyncs++;
    this.resync = { gen: this.gen, restart, queue, i: 0, cutoff: this.cutoff };
    this.lastPump = now;
    this.credit = this.maxPayload;
    const d = this.next('resync-begin');
    d.gen = this.gen;
    if (restart) d.restart = true;
    this.transmit(d, -Infinity, false, false);
    this.pumpResync(now);
  }

  private lastPump = 0;
  private credit = 0;

  /** Sends the next slice of the running generation, paced at syncBulkBytesPerSec. */
  private pumpResync(now: number): void {
    const rs = this.resync;
    if (!rs) return;
    // Token bucket: credit accrues at syncBulkBytesPerSec; a datagram leaves while credit remains.
    this.credit = Math.min(4 * this.maxPayload, this.credit + (this.o.timing.syncBulkBytesPerSec * Math.max(0, now - this.lastPump)) / 1000);
    this.lastPump = now;
    while (rs.i < rs.queue.length && this.credit > 0) {
      const recs: SyncRecord[] = [];
      let bytes = SYNC_HEADER_BYTES;
      while (rs.i < rs.queue.length) {
        const r = rs.queue[rs.i]!;
        const b = recordWireBytes(r);
        if (recs.length && bytes + b > this.maxPayload) break;
        recs.push(r);
        bytes += b;
        rs.i++;
      }
      const d = this.next('update');
      d.records = recs.map((r) => toWire(r, now));
      for (const r of recs) {
        this.stats.bulkRecords++;
        this.stats.bulkSessions += r.sessions;
      }
      this.credit -= bytes;
      this.transmit(d, -Infinity, false, false);
    }
    if (rs.i >= rs.queue.length) {
      const d = this.next('resync-end');
      d.gen = rs.gen;
      if (rs.restart) d.restart = true;
      // Delivering the end of a generation means the standby holds everything up to its cutoff.
      this.transmit(d, rs.cutoff, rs.restart, false);
      if (rs.restart) this.lastBulkEndSeq = d.seq;
      this.resync = null;
      if (this.bulkWanted) {
        this.bulkWanted = false;
        this.startResync(true);
      }
    }
  }
}

function toWire(r: SyncRecord, now: number): WireRecord {
  const w: WireRecord = { key: r.key, ageMs: Math.max(0, now - r.createdAt), sessions: r.sessions, size: r.size };
  if (r.payload) w.payload = r.payload;
  return w;
}
