/**
 * Management-state mirroring between the two shelf managers (docs/split.md): the active ShMC sends
 * every management write (today: SEL records) to the standby, which commits it to its own database and
 * acknowledges it; while a hot standby exists, the active releases an answer that reports a write (an
 * IPMI response) only after every write made before it is acknowledged — so nothing a user was told
 * succeeded is lost in a switchover (the synchronous replication of Pacemaker/DRBD protocol C;
 * conntrackd's FTFW for the sequence/ack/resend scheme).
 *
 * Protocol (UDP on loopback, next to the heartbeats and session sync; datagram = 'AM', u8 format 1,
 * then UTF-8 JSON):
 *   rec  {k:'rec', stream, seq, entry}   active → standby, seq 1, 2, … per stream (a new stream per
 *                                        activation and per catch-up)
 *   ack  {k:'ack', stream, seq}          standby → active, cumulative: every seq ≤ `seq` committed
 *   want {k:'want'}                      standby → active: start a catch-up (a stream it cannot
 *                                        join: it missed seq 1, or it just booted)
 * The standby commits in sequence order only; a gap is answered with the last in-order ack, and
 * the active resends everything unacknowledged every `resendMs`. A catch-up resends every entry
 * the active holds (entries are idempotent upserts keyed by `kind`+`id`).
 *
 * Waiting is bounded: a waiter is released after `ackTimeoutMs` without the acks (the standby is
 * then counted lagging, `lagging` true, and writes are no longer held until it acknowledges again);
 * the heartbeat layer declares it gone within the same bound. Pure: Clock for time, no I/O.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { DecodeError } from '../../board/common/errors.ts';

/**
 * One mirrored management write (the shelf configuration is not mirrored: docs/split.md): a SEL
 * record added (`sel`: ID and bytes, base64), deleted (`sel-del`), the whole SEL cleared
 * (`sel-clear`; a catch-up starts with one), an IPMI user as it now is (`user`: ID 1..15 and its
 * JSON), a sensor's thresholds as they now are (`thresholds`: key `FRU#number` and JSON), and the
 * marker `held`: everything before it in the stream, on top of the catch-up it follows, is the whole
 * management state of the active (it ends a catch-up, or the shelf's seeding of a fresh active); a
 * ShMC whose database took it holds management state and, once active, loads the shelf from it.
 */
export type MirrorEntry =
  | { kind: 'sel'; id: number; data: string }
  | { kind: 'sel-del'; id: number }
  | { kind: 'sel-clear' }
  | { kind: 'user'; id: number; data: string }
  | { kind: 'thresholds'; key: string; data: string }
  | { kind: 'held' };

/** Mirror datagrams. */
export type MirrorDatagram =
  | { k: 'rec'; stream: number; seq: number; entry: MirrorEntry }
  | { k: 'ack'; stream: number; seq: number }
  | { k: 'want' };

const TAG0 = 0x41; // 'A'
const TAG1 = 0x4d; // 'M'
const FORMAT = 1;

/** Mirror datagram codec. */
export const mirrorCodec = {
  /** Encodes a datagram ('AM', format, JSON). */
  encode(d: MirrorDatagram): Uint8Array {
    const body = new TextEncoder().encode(JSON.stringify(d));
    const out = new Uint8Array(3 + body.length);
    out[0] = TAG0;
    out[1] = TAG1;
    out[2] = FORMAT;
    out.set(body, 3);
    return out;
  },
  /**
   * Decodes a datagram.
   * @throws DecodeError('mirror', field) for a wrong tag/format, bad JSON or mistyped fields
   */
  decode(b: Uint8Array): MirrorDatagram {
    if (b.length < 3 || b[0] !== TAG0 || b[1] !== TAG1) throw new DecodeError('mirror', 'magic', 0, 'not a mirror datagram');
    if (b[2] !== FORMAT) throw new DecodeError('mirror', 'format', 2, `unknown format ${b[2]}`);
    let v: unknown;
    try {
      v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(3)));
    } catch {
      throw new DecodeError('mirror', 'body', 3, 'not UTF-8 JSON');
    }
    const o = v as Record<string, unknown>;
    const u32 = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;
    if (o && o.k === 'want') return { k: 'want' };
    if (o && o.k === 'ack' && u32(o.stream) && u32(o.seq)) return { k: 'ack', stream: o.stream as number, seq: o.seq as number };
    if (o && o.k === 'rec' && u32(o.stream) && u32(o.seq) && (o.seq as number) >= 1) {
      const e = o.entry as Record<string, unknown> | undefined;
      const head = { k: 'rec' as const, stream: o.stream as number, seq: o.seq as number };
      if (e && e.kind === 'sel' && u32(e.id) && typeof e.data === 'string') return { ...head, entry: { kind: 'sel', id: e.id as number, data: e.data } };
      if (e && e.kind === 'sel-del' && u32(e.id)) return { ...head, entry: { kind: 'sel-del', id: e.id as number } };
      if (e && e.kind === 'sel-clear') return { ...head, entry: { kind: 'sel-clear' } };
      if (e && e.kind === 'user' && u32(e.id) && typeof e.data === 'string') return { ...head, entry: { kind: 'user', id: e.id as number, data: e.data } };
      if (e && e.kind === 'thresholds' && typeof e.key === 'string' && typeof e.data === 'string') return { ...head, entry: { kind: 'thresholds', key: e.key, data: e.data } };
      if (e && e.kind === 'held') return { ...head, entry: { kind: 'held' } };
    }
    throw new DecodeError('mirror', 'body', 3, 'unknown kind or mistyped fields');
  },
};

/** Which kind of pair datagram a buffer is, by its two tag bytes. */
export function classifyPairDatagram(b: Uint8Array): 'heartbeat' | 'sync' | 'mirror' | 'garbage' {
  if (b.length < 3 || b[0] !== 0x41) return 'garbage';
  if (b[1] === 0x48) return 'heartbeat'; // 'AH' chassis/ha/heartbeat.ts
  if (b[1] === 0x53) return 'sync'; // 'AS' chassis/ha/sync-codec.ts
  if (b[1] === TAG1) return 'mirror';
  return 'garbage';
}

/** Options of the active side. */
export interface MirrorSenderOptions {
  clock: Clock;
  /** Sends one datagram to the peer (may be lost). */
  send(d: MirrorDatagram): void;
  /** Every entry this ShMC holds (its own database), for a catch-up (the receiver replaces what it holds: start with a `sel-clear`). */
  all(): Iterable<MirrorEntry>;
  /** New stream ids (non-zero u32). */
  newStream(): number;
  /** Resend period for unacknowledged entries, ms [100]. */
  resendMs?: number;
  /** Longest a write is held for the standby's ack, ms [300]. */
  ackTimeoutMs?: number;
}

/** Active side: numbering, resends, synchronous waiting. */
export class MirrorSender {
  private stream: number;
  private seq = 0;
  private acked = 0;
  private readonly pending = new Map<number, MirrorEntry>();
  private waiters: Array<{ upTo: number; fn: () => void; timer: TimerId }> = [];
  private resendTimer: TimerId | undefined;
  private peerHot = false;
  private stopped = false;
  /** True after a waiter timed out, until the standby acknowledges everything again. */
  lagging = false;
  /** Counters. */
  readonly stats = { sent: 0, resent: 0, acks: 0, timeouts: 0, catchUps: 0 };

  constructor(private readonly o: MirrorSenderOptions) {
    this.stream = o.newStream();
    this.armResend();
  }

  /** Last sequence sent / acknowledged in the current stream. */
  get lastSeq(): number {
    return this.seq;
  }
  get ackedSeq(): number {
    return this.acked;
  }

  /** The heartbeat layer's view: the peer is a hot standby (writes are then held for its acks). */
  setPeerHot(hot: boolean): void {
    this.peerHot = hot;
    if (!hot) this.releaseAll();
  }

  /** True while writes are acknowledged only after the standby committed them. */
  get synchronous(): boolean {
    return this.peerHot && !this.lagging;
  }

  /** Sends one write (the caller committed it locally first). @returns its sequence number */
  append(entry: MirrorEntry): number {
    const seq = ++this.seq;
    this.pending.set(seq, entry);
    this.stats.sent++;
    this.o.send({ k: 'rec', stream: this.stream, seq, entry });
    return seq;
  }

  /**
   * Runs `fn` once every write appended so far is acknowledged (at once when not synchronous or
   * nothing is outstanding; after `ackTimeoutMs` at the latest).
   */
  afterCommitted(fn: () => void): void {
    const upTo = this.seq;
    if (!this.synchronous || this.acked >= upTo) {
      fn();
      return;
    }
    const timer = this.o.clock.setTimeout(() => {
      this.stats.timeouts++;
      this.lagging = true;
      this.releaseAll();
    }, this.o.ackTimeoutMs ?? 300);
    this.waiters.push({ upTo, fn, timer });
  }

  /** A datagram from the standby. */
  receive(d: MirrorDatagram): void {
    if (this.stopped) return;
    if (d.k === 'want') {
      this.catchUp();
      return;
    }
    if (d.k !== 'ack' || d.stream !== this.stream || d.seq <= this.acked || d.seq > this.seq) return;
    this.stats.acks++;
    for (let s = this.acked + 1; s <= d.seq; s++) this.pending.delete(s);
    this.acked = d.seq;
    if (this.acked >= this.seq) this.lagging = false;
    const ready = this.waiters.filter((w) => w.upTo <= this.acked);
    this.waiters = this.waiters.filter((w) => w.upTo > this.acked);
    for (const w of ready) {
      this.o.clock.clearTimeout(w.timer);
      w.fn();
    }
  }

  /** Restarts the stream with every entry held (a standby that booted or lost its place). */
  catchUp(): void {
    this.stats.catchUps++;
    const waiting = this.waiters;
    this.waiters = [];
    this.stream = this.o.newStream();
    this.seq = 0;
    this.acked = 0;
    this.pending.clear();
    for (const e of this.o.all()) this.append(e);
    // Held writes are in the new stream too: they wait for its end.
    for (const w of waiting) {
      this.o.clock.clearTimeout(w.timer);
      this.afterCommitted(w.fn);
    }
  }

  /** Stops resending and releases every waiter. */
  stop(): void {
    this.stopped = true;
    if (this.resendTimer !== undefined) this.o.clock.clearTimeout(this.resendTimer);
    this.releaseAll();
  }

  private releaseAll(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const x of w) {
      this.o.clock.clearTimeout(x.timer);
      x.fn();
    }
  }

  private armResend(): void {
    this.resendTimer = this.o.clock.setTimeout(() => {
      if (this.stopped) return;
      for (const [seq, entry] of this.pending) {
        this.stats.resent++;
        this.o.send({ k: 'rec', stream: this.stream, seq, entry });
      }
      this.armResend();
    }, this.o.resendMs ?? 100);
  }
}

/** Options of the standby side. */
export interface MirrorReceiverOptions {
  /** Commits one entry to the standby's own database (synchronous; throws on failure). */
  commit(entry: MirrorEntry): void;
  /** Sends one datagram to the active. */
  send(d: MirrorDatagram): void;
  /**
   * Called whenever a catch-up is asked (its database is about to be rewritten: until a `held`
   * entry arrives, it does not hold the whole state).
   */
  onCatchUp?(): void;
}

/** Standby side: in-order commit and cumulative acks. */
export class MirrorReceiver {
  private stream = 0;
  private next = 1;
  /** Counters. */
  readonly stats = { committed: 0, duplicates: 0, gaps: 0, wants: 0 };

  constructor(private readonly o: MirrorReceiverOptions) {}

  /** True once it joined a stream from its start (it holds everything the active held then). */
  get inStep(): boolean {
    return this.stream !== 0;
  }

  /** Asks the active for a catch-up (after boot, or on entering standby). */
  requestCatchUp(): void {
    this.stats.wants++;
    this.o.onCatchUp?.();
    this.stream = 0;
    this.next = 1;
    this.o.send({ k: 'want' });
  }

  /** A datagram from the active. */
  receive(d: MirrorDatagram): void {
    if (d.k !== 'rec') return;
    if (d.stream !== this.stream) {
      if (d.seq !== 1) {
        // A stream we did not see start: we cannot know what we missed.
        if (this.stream !== 0 || this.stats.wants === 0) this.requestCatchUp();
        return;
      }
      this.stream = d.stream;
      this.next = 1;
    }
    if (d.seq < this.next) {
      this.stats.duplicates++;
      this.o.send({ k: 'ack', stream: this.stream, seq: this.next - 1 });
      return;
    }
    if (d.seq > this.next) {
      this.stats.gaps++;
      if (this.next > 1) this.o.send({ k: 'ack', stream: this.stream, seq: this.next - 1 });
      return;
    }
    this.o.commit(d.entry);
    this.stats.committed++;
    this.next++;
    this.o.send({ k: 'ack', stream: this.stream, seq: d.seq });
  }
}
