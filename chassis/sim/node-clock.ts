/**
 * A node's own view of time over a shared base Clock, for simulating one node's faults in a
 * multi-node simulation (pair-sim.ts) without touching the others:
 * - freeze / thaw: the node's software stops (hang, GC pause, stalled control loop); timers that
 *   fall due and messages posted while frozen run, in order, when it thaws, with `now()` then;
 * - discard: a hardware reset or power loss: every pending timer and queued message of the old
 *   software is dropped and the clock thaws;
 * - rate: NTP slew of the node's monotonic clock (CLOCK_MONOTONIC follows adjtime slewing):
 *   local time runs at (1 + ppm·10⁻⁶) of base time;
 * - wall offset: a wall-clock step (clock-jump) that monotonic timers ignore, reported by `wallNow()`.
 *
 * Implements the Clock port (and so xstate's Clock). Pure over its base clock.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';

interface Entry {
  fn: () => void;
  gen: number;
  cancelled: boolean;
  baseId: TimerId | undefined;
}

/** One node's software clock. */
export class NodeClock implements Clock {
  private gen = 0;
  private frozen = false;
  private deferred: Entry[] = [];
  private rate = 1;
  private anchorBase: number;
  private anchorLocal: number;
  private wallOffset = 0;

  /**
   * @param base   the shared (hardware / simulation) clock
   * @param wallEpochMs wall-clock time (ms since 1970) at base time 0, for `wallNow()`
   */
  constructor(private readonly base: Clock, private readonly wallEpochMs = 1_767_225_600_000) {
    this.anchorBase = base.now();
    this.anchorLocal = this.anchorBase;
  }

  /** Local monotonic time, ms (slewed by the rate). */
  now(): number {
    return this.anchorLocal + (this.base.now() - this.anchorBase) * this.rate;
  }

  /** The node's wall clock, ms since 1970 (monotonic time plus steps from `jump`). */
  wallNow(): number {
    return this.wallEpochMs + this.now() + this.wallOffset;
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    const e: Entry = { fn, gen: this.gen, cancelled: false, baseId: undefined };
    e.baseId = this.base.setTimeout(() => this.fire(e), Math.max(0, ms) / this.rate);
    return e;
  }

  clearTimeout(id: TimerId): void {
    const e = id as Entry | undefined;
    if (!e || typeof e !== 'object' || !('gen' in e)) return;
    e.cancelled = true;
    if (e.baseId !== undefined) this.base.clearTimeout(e.baseId);
  }

  /** Runs `fn` as soon as the node's software runs (after the current call; queued while frozen). */
  post(fn: () => void): void {
    this.setTimeout(fn, 0);
  }

  /** True while frozen. */
  get isFrozen(): boolean {
    return this.frozen;
  }

  /** Stops the node's software: due timers and posted work wait for `thaw`. */
  freeze(): void {
    this.frozen = true;
  }

  /** Resumes: everything that fell due while frozen runs now, in order. */
  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    const q = this.deferred;
    this.deferred = [];
    for (const e of q) {
      if (e.cancelled || e.gen !== this.gen) continue;
      if (this.frozen) {
        this.deferred.push(e);
        continue;
      }
      e.cancelled = true;
      e.fn();
    }
  }

  /** Hardware reset / power loss: drops every pending timer and queued call, and thaws. */
  discard(): void {
    this.gen++;
    this.deferred = [];
    this.frozen = false;
  }

  /** Sets the NTP slew in parts per million (e.g. 500 = runs 0.05 % fast). */
  setSlewPpm(ppm: number): void {
    const local = this.now();
    this.anchorBase = this.base.now();
    this.anchorLocal = local;
    this.rate = 1 + ppm * 1e-6;
  }

  /** Current slew in ppm. */
  get slewPpm(): number {
    return (this.rate - 1) * 1e6;
  }

  /** Steps the wall clock by `deltaMs` (monotonic time is unaffected). */
  jump(deltaMs: number): void {
    this.wallOffset += deltaMs;
  }

  private fire(e: Entry): void {
    if (e.cancelled || e.gen !== this.gen) return;
    if (this.frozen) {
      this.deferred.push(e);
      return;
    }
    e.cancelled = true;
    e.fn();
  }
}
