/**
 * Global-stall compensation for wall-clock mode (issue 6: in single-process `atcasim start` every
 * node shares one event loop, so a stall of the whole process — GC, a loaded machine — is not a
 * node fault and must never cause a failover).
 *
 * `StallCompensatedClock` wraps the real clock and gives the HA layer (machines, heartbeat
 * senders, watchdogs, sync) a time that does not advance while the process was not running: when
 * the base clock is seen to jump by more than `globalStallMs` since the last observation (a probe
 * timer observes it every `probeMs` while the loop is healthy), the excess is added to a stall
 * offset, so `now()` and every pending HA timer move as if the stall had not happened. All peers'
 * heartbeats and every watchdog in the process live on the same compensated time, so nobody's
 * silence timer or countdown counts the stall. Listeners learn of each stall (log it; send the
 * machines `clock.rebased`, which restarts their silence timers as a second line of defence).
 *
 * A stall of one node in simulated time is a node fault and is modelled by NodeClock instead.
 * Pure over its base clock (the probe timer runs on it).
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';

interface VTimer {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A detected global stall. */
export interface StallEvent {
  /** Base-clock time the stall was noticed, ms. */
  at: number;
  /** Length of the gap observed, ms. */
  gapMs: number;
  /** Total compensated so far, ms. */
  totalMs: number;
}

/** Clock for the HA layer in wall-clock mode. */
export class StallCompensatedClock implements Clock {
  private stalled = 0;
  private lastSeen: number;
  private timers: VTimer[] = [];
  private seq = 0;
  private baseTimer: TimerId | undefined;
  private baseDue = Infinity;
  private probe: TimerId | undefined;
  private readonly listeners = new Set<(e: StallEvent) => void>();
  private disposed = false;
  /** Stalls detected so far. */
  stalls = 0;

  /**
   * @param base          the real clock (chassis/io/system-clock.ts)
   * @param globalStallMs a gap longer than this is a global stall (HaConfig.globalStallMs)
   * @param probeMs       observation period while healthy; default globalStallMs / 4
   * @throws RangeError when probeMs is not below globalStallMs
   */
  constructor(private readonly base: Clock, private readonly globalStallMs: number, private readonly probeMs = globalStallMs / 4) {
    if (!(probeMs > 0 && probeMs < globalStallMs)) throw new RangeError(`stall clock: probeMs ${probeMs} must be in (0, ${globalStallMs})`);
    this.lastSeen = base.now();
    this.armProbe();
  }

  /** Compensated monotonic time, ms. */
  now(): number {
    this.observe();
    return this.base.now() - this.stalled;
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    const t: VTimer = { due: this.now() + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1]!.due > t.due)) i--;
    this.timers.splice(i, 0, t);
    this.arm();
    return t;
  }

  clearTimeout(id: TimerId): void {
    const t = id as VTimer | undefined;
    if (t && typeof t === 'object' && 'due' in t) t.cancelled = true;
  }

  /** Subscribes to stall notices; returns an unsubscribe function. */
  onStall(fn: (e: StallEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Total compensated stall time, ms. */
  get stalledMs(): number {
    return this.stalled;
  }

  /** Stops the probe and every timer. */
  dispose(): void {
    this.disposed = true;
    if (this.probe !== undefined) this.base.clearTimeout(this.probe);
    if (this.baseTimer !== undefined) this.base.clearTimeout(this.baseTimer);
    this.timers = [];
  }

  private observe(): void {
    const b = this.base.now();
    const gap = b - this.lastSeen;
    this.lastSeen = b;
    if (gap > this.globalStallMs) {
      // The loop did not run for `gap`; a healthy loop would have observed it after ~probeMs.
      const excess = gap - this.probeMs;
      this.stalled += excess;
      this.stalls++;
      const e: StallEvent = { at: b, gapMs: gap, totalMs: this.stalled };
      for (const fn of [...this.listeners]) fn(e);
    }
  }

  private armProbe(): void {
    if (this.disposed) return;
    this.probe = this.base.setTimeout(() => {
      this.observe();
      this.arm();
      this.armProbe();
    }, this.probeMs);
  }

  private arm(): void {
    if (this.disposed) return;
    while (this.timers.length && this.timers[0]!.cancelled) this.timers.shift();
    const first = this.timers[0];
    if (!first) return;
    const realDue = first.due + this.stalled;
    if (this.baseTimer !== undefined && realDue >= this.baseDue) return;
    if (this.baseTimer !== undefined) this.base.clearTimeout(this.baseTimer);
    this.baseDue = realDue;
    this.baseTimer = this.base.setTimeout(() => this.run(), Math.max(0, realDue - this.base.now()));
  }

  private run(): void {
    this.baseTimer = undefined;
    this.baseDue = Infinity;
    const now = this.now(); // observes a stall first: due timers may move later
    for (;;) {
      const t = this.timers[0];
      if (!t || t.due > now) break;
      this.timers.shift();
      if (t.cancelled) continue;
      t.cancelled = true;
      t.fn();
    }
    this.arm();
  }
}
