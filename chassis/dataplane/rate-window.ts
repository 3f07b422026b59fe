/**
 * Sliding-window rates (packets/s, bytes/s) over monotonically growing counters: a ring of
 * samples taken at most every `window/20` ms; a rate is (value now − value at the newest sample
 * at least one window old) / elapsed time. Pure: the caller passes the time (ms) and the values.
 * Sampling allocates nothing.
 */

/** Samples kept per window (the window is cut into this many steps). */
const STEPS = 20;

/** Ring of counter samples. */
export class RateWindow {
  /** Minimum spacing of samples, ms. */
  readonly sampleMs: number;
  private readonly cap: number;
  private readonly times: Float64Array;
  private readonly values: Float64Array;
  private head = 0;
  private count = 0;
  private lastAt = -Infinity;

  /**
   * @param series number of counters sampled together
   * @param windowMs window length, ms (> 0)
   * @throws RangeError for a window ≤ 0 or a bad series count
   */
  constructor(readonly series: number, readonly windowMs: number) {
    if (!(windowMs > 0)) throw new RangeError(`rate window must be > 0 ms, got ${windowMs}`);
    if (!Number.isInteger(series) || series < 1) throw new RangeError(`series must be a positive integer, got ${series}`);
    this.sampleMs = windowMs / STEPS;
    this.cap = STEPS + 2;
    this.times = new Float64Array(this.cap);
    this.values = new Float64Array(this.cap * series);
    this.scratch = new Float64Array(series);
  }

  private readonly scratch: Float64Array;

  /** True when a new sample is due at `now`. */
  due(now: number): boolean {
    return now - this.lastAt >= this.sampleMs;
  }

  /** Starts a sample: fill the returned array (length `series`), then call commit(). */
  begin(now: number): Float64Array {
    this.pendingAt = now;
    return this.scratch;
  }

  private pendingAt = 0;

  /** Stores the sample started by begin(). */
  commit(): void {
    const i = this.head;
    this.times[i] = this.pendingAt;
    this.values.set(this.scratch, i * this.series);
    this.head = (i + 1) % this.cap;
    if (this.count < this.cap) this.count++;
    this.lastAt = this.pendingAt;
  }

  /**
   * Rate of series `k` per second at `now`, given its current value: the change since the newest
   * sample at least one window old (or, without one, the oldest sample kept), over the time
   * between them — so the span is about the window while samples flow, and longer after a gap.
   * @returns units/s (0 without an earlier sample)
   */
  rate(k: number, now: number, current: number): number {
    let best = -1;
    for (let j = 0; j < this.count; j++) {
      const i = (this.head - 1 - j + this.cap * 2) % this.cap;
      const t = this.times[i]!;
      if (t >= now) continue;
      best = i;
      if (now - t >= this.windowMs) break;
    }
    if (best < 0) return 0;
    const dt = now - this.times[best]!;
    if (!(dt > 0)) return 0;
    const dv = current - this.values[best * this.series + k]!;
    return dv > 0 ? (dv * 1000) / dt : 0;
  }
}
