/**
 * One active SOL payload instance: the character stream between a remote console and a board's
 * serial console, with the packet rules of IPMI v2.0 §15.9–§15.10:
 *
 * - console → BMC: every packet with data (sequence number 1..15) is acknowledged at once with an
 *   ACK-only packet (sequence 0, ACK = its sequence number, accepted count = all of its
 *   characters). A retransmission (same sequence number as the last one) delivers only the
 *   characters not accepted before, and is acknowledged again.
 * - BMC → console: stop-and-wait. Serial output is buffered; one packet is outstanding at a time
 *   (output produced while a console packet is handled — the echo and a command's answer — is
 *   gathered and leaves in one packet after the ACK)
 *   (at most `maxOutbound` characters, sequence numbers 1..15 wrapping); it is retransmitted
 *   unchanged every `retryIntervalMs` until the console acknowledges it, at most `retryCount`
 *   times — then its characters are dropped and the next packet carries the "transmit overrun"
 *   status bit. A partial ACK sends the rest in a new packet; a NACK retries later.
 * - operation bits from the console: flush outbound discards buffered output; deassert CTS pauses
 *   sending until a packet clears it; generate break is passed on.
 *
 * Pure: timers from the Clock port; packets leave through `send` (the SOL service wraps them in
 * the RMCP+ session), characters through `deliver`.
 */
import type { Clock, TimerId } from '../../../board/common/clock.ts';
import { encodeSolPacket, nextSolSeq, SolOperation, SolStatus, type SolPacket } from './sol-packet.ts';

/** Options of a SOL channel. */
export interface SolChannelOptions {
  clock: Clock;
  /** Sends one SOL payload (unwrapped) to the console. */
  send(payload: Uint8Array): void;
  /** Characters typed at the console, for the serial port. */
  deliver(bytes: Uint8Array): void;
  /** A break was requested by the console. */
  onBreak?(): void;
  /** Characters per outbound packet (1..255). */
  maxOutbound: number;
  /** Retransmissions of an unacknowledged packet before its characters are dropped (0..7). */
  retryCount: number;
  /** Time between retransmissions, ms (> 0). */
  retryIntervalMs: number;
  /** Largest amount of buffered output, bytes [65536]; beyond it characters are dropped (overrun). */
  bufferLimit?: number;
}

/** Counters of a channel. */
export interface SolChannelStats {
  packetsIn: number;
  charsIn: number;
  duplicatesIn: number;
  packetsOut: number;
  charsOut: number;
  retransmits: number;
  /** Characters dropped: unacknowledged after every retry, or over the buffer limit. */
  charsDropped: number;
}

interface Outstanding {
  seq: number;
  data: Uint8Array;
  flags: number;
  retries: number;
}

/** One SOL payload instance (see the module comment). */
export class SolChannel {
  private buffer: Uint8Array[] = [];
  private buffered = 0;
  private outstanding: Outstanding | undefined;
  private timer: TimerId | undefined;
  private outSeq = 0;
  private lastInSeq = 0;
  private lastInAccepted = 0;
  private overrun = false;
  private paused = false;
  /** True while a console packet is being handled: output is gathered and sent once at the end. */
  private holding = false;
  private closed = false;
  readonly stats: SolChannelStats = { packetsIn: 0, charsIn: 0, duplicatesIn: 0, packetsOut: 0, charsOut: 0, retransmits: 0, charsDropped: 0 };

  /** @throws RangeError for sizes or timings out of range */
  constructor(private readonly opts: SolChannelOptions) {
    if (!(Number.isInteger(opts.maxOutbound) && opts.maxOutbound >= 1 && opts.maxOutbound <= 255)) throw new RangeError(`maxOutbound must be 1..255, got ${opts.maxOutbound}`);
    if (!(Number.isInteger(opts.retryCount) && opts.retryCount >= 0 && opts.retryCount <= 7)) throw new RangeError(`retryCount must be 0..7, got ${opts.retryCount}`);
    if (!(opts.retryIntervalMs > 0)) throw new RangeError(`retryIntervalMs must be > 0, got ${opts.retryIntervalMs}`);
  }

  /** True while a packet waits for its ACK. */
  get awaitingAck(): boolean {
    return this.outstanding !== undefined;
  }

  /** Output bytes buffered and not yet sent. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** A packet from the console (decoded). Sends the ACK and any output it allows through `send`. */
  receive(pkt: SolPacket): void {
    if (this.closed) return;
    this.stats.packetsIn++;
    this.holding = true;
    try {
      this.receivePacket(pkt);
    } finally {
      this.holding = false;
    }
    this.pump();
  }

  private receivePacket(pkt: SolPacket): void {
    // 1. operation bits (a flush discards what was not sent yet, before an ACK releases more)
    if (pkt.flags & SolOperation.flushOutbound) {
      this.stats.charsDropped += this.buffered;
      this.buffer = [];
      this.buffered = 0;
    }
    this.paused = (pkt.flags & SolOperation.deassertCts) !== 0;
    if (pkt.flags & SolOperation.generateBreak) this.opts.onBreak?.();
    // 2. the console's ACK/NACK of our outstanding packet
    const o = this.outstanding;
    if (pkt.ackSeq !== 0 && o && pkt.ackSeq === o.seq) {
      if (pkt.flags & SolOperation.nack) {
        // the console cannot take characters now: keep the packet, the retry timer resends it
      } else if (pkt.accepted >= o.data.length) {
        this.settle();
      } else {
        // partial ACK: the rest goes again in a new packet, ahead of newer output
        const rest = o.data.subarray(pkt.accepted);
        this.settle(false);
        this.buffer.unshift(rest);
        this.buffered += rest.length;
      }
    }
    // 3. the console's characters
    if (pkt.seq !== 0) {
      const repeat = pkt.seq === this.lastInSeq;
      if (repeat) this.stats.duplicatesIn++;
      const fresh = repeat ? pkt.data.subarray(Math.min(this.lastInAccepted, pkt.data.length)) : pkt.data;
      this.lastInAccepted = repeat ? Math.max(this.lastInAccepted, pkt.data.length) : pkt.data.length;
      this.lastInSeq = pkt.seq;
      this.send({ seq: 0, ackSeq: pkt.seq, accepted: Math.min(255, pkt.data.length), flags: 0, data: new Uint8Array(0) });
      if (fresh.length > 0) {
        this.stats.charsIn += fresh.length;
        this.opts.deliver(fresh.slice());
      }
    } else if (pkt.data.length > 0) {
      // characters in an ACK-only packet are not allowed to be acknowledged; accept them anyway
      this.stats.charsIn += pkt.data.length;
      this.opts.deliver(pkt.data.slice());
    }
  }

  /** Serial output for the console: buffered and sent packet by packet. */
  write(bytes: Uint8Array): void {
    if (this.closed || bytes.length === 0) return;
    const limit = this.opts.bufferLimit ?? 65536;
    let b = bytes;
    if (this.buffered + b.length > limit) {
      const room = Math.max(0, limit - this.buffered);
      this.stats.charsDropped += b.length - room;
      this.overrun = true;
      b = b.subarray(0, room);
    }
    if (b.length > 0) {
      this.buffer.push(b.slice());
      this.buffered += b.length;
    }
    this.pump();
  }

  /**
   * Ends the channel: timers stop, buffered output is discarded. With `notify`, a last packet
   * with the "SOL deactivating" status bit tells the console (BMC-initiated deactivation).
   */
  close(notify = false): void {
    if (this.closed) return;
    if (notify) this.send({ seq: 0, ackSeq: 0, accepted: 0, flags: SolStatus.deactivating, data: new Uint8Array(0) });
    this.closed = true;
    this.cancelTimer();
    this.buffer = [];
    this.buffered = 0;
    this.outstanding = undefined;
  }

  private settle(pump = true): void {
    this.outstanding = undefined;
    this.cancelTimer();
    if (pump) this.pump();
  }

  private pump(): void {
    if (this.closed || this.holding || this.outstanding || this.paused || this.buffered === 0) return;
    const n = Math.min(this.opts.maxOutbound, this.buffered);
    const data = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.buffer[0]!;
      const take = Math.min(head.length, n - at);
      data.set(head.subarray(0, take), at);
      at += take;
      if (take === head.length) this.buffer.shift();
      else this.buffer[0] = head.subarray(take);
    }
    this.buffered -= n;
    this.outSeq = nextSolSeq(this.outSeq);
    const flags = this.overrun ? SolStatus.transmitOverrun : 0;
    this.overrun = false;
    this.outstanding = { seq: this.outSeq, data, flags, retries: 0 };
    this.transmit();
  }

  private transmit(): void {
    const o = this.outstanding!;
    this.send({ seq: o.seq, ackSeq: 0, accepted: 0, flags: o.flags, data: o.data });
    this.stats.charsOut += o.data.length;
    this.cancelTimer();
    this.timer = this.opts.clock.setTimeout(() => this.onTimeout(), this.opts.retryIntervalMs);
  }

  private onTimeout(): void {
    this.timer = undefined;
    const o = this.outstanding;
    if (!o || this.closed) return;
    if (o.retries >= this.opts.retryCount) {
      this.stats.charsDropped += o.data.length;
      this.overrun = true;
      this.settle();
      return;
    }
    o.retries++;
    this.stats.retransmits++;
    this.stats.charsOut -= o.data.length; // counted once per packet, not per retransmission
    this.transmit();
  }

  private send(p: SolPacket): void {
    this.stats.packetsOut++;
    this.opts.send(encodeSolPacket(p));
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
