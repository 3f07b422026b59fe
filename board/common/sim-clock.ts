/**
 * Deterministic simulated clock: timers fire only when the owner advances time.
 *
 * Used by tests, `atcasim scenario` and `atcasim chaos` (simulated time), and anywhere a run
 * must be reproducible. Timers due at the same instant fire in the order they were scheduled.
 * A timer scheduled from inside a callback for `ms <= 0` fires in the same `advance` call, after
 * the callbacks already due. Implemented with a binary heap keyed (due, seq): O(log n) per timer.
 */
import type { Clock, TimerId } from './clock.ts';

interface Entry {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class SimClock implements Clock {
  private t: number;
  private seq = 0;
  private heap: Entry[] = [];
  private live = 0;

  /** @param start initial time in ms (default 0). */
  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    const e: Entry = { due: this.t + Math.max(0, Number.isFinite(ms) ? ms : 0), seq: this.seq++, fn, cancelled: false };
    this.push(e);
    this.live++;
    return e;
  }

  clearTimeout(id: TimerId): void {
    const e = id as Entry | undefined;
    if (e && typeof e === 'object' && 'cancelled' in e && !e.cancelled) {
      e.cancelled = true;
      this.live--;
    }
  }

  /** Number of pending (not cancelled) timers. */
  pending(): number {
    return this.live;
  }

  /** Due time (ms) of the earliest pending timer, or undefined when none. */
  nextDue(): number | undefined {
    this.dropCancelled();
    return this.heap.length ? this.heap[0]!.due : undefined;
  }

  /**
   * Advances time by `ms` (>= 0), firing every timer due up to and including the new time, in
   * (due, scheduling order). `now()` inside a callback returns that timer's due time.
   * @throws RangeError if ms is negative or not finite.
   */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`SimClock.advance: bad duration ${ms}`);
    this.runUntil(this.t + ms);
  }

  /** Advances to absolute time `t` (no-op if `t` is in the past), firing due timers. */
  runUntil(t: number): void {
    for (;;) {
      this.dropCancelled();
      const top = this.heap[0];
      if (!top || top.due > t) break;
      this.pop();
      top.cancelled = true;
      this.live--;
      if (top.due > this.t) this.t = top.due;
      top.fn();
    }
    if (t > this.t) this.t = t;
  }

  private dropCancelled(): void {
    while (this.heap.length && this.heap[0]!.cancelled) this.pop();
  }

  private less(a: Entry, b: Entry): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Entry | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
