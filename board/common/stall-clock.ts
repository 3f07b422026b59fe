/**
 * Global-stall compensation for wall-clock mode (docs/ha.md "Wall clock": in single-process
 * `atcasim start` every node shares one event loop, so a stall of the whole process — GC, a loaded machine, a long
 * synchronous block such as a 47k-session promotion or a TUI render — is not a node fault and must
 * never cause a failover).
 *
 * `StallCompensatedClock` wraps the real clock and gives the HA layer (machines, heartbeat
 * senders, watchdogs, sync) a time that does not advance while the process was not running its
 * timers. Only the start of one of its own base-clock callbacks (the probe, every `probeMs`, or the
 * timer dispatch) proves that the event loop turned; `now()` calls in between prove nothing — a
 * long synchronous block may call `now()` thousands of times (logging, reading the HA view) while
 * no HA timer, heartbeat or watchdog kick can run. So within one loop turn HA time advances at most
 * `globalStallMs`, then stands still until the loop turns again; at that turn a gap longer than
 * `globalStallMs` is a global stall: its excess is added to the stall offset (so `now()` stays
 * continuous and monotonic, and every pending HA timer moves with it) and listeners learn of it
 * (log it; send the machines `clock.rebased`, which restarts their silence timers as a second line
 * of defence). Gaps up to `globalStallMs` count in full (a loaded but running process keeps real
 * time). All peers' heartbeats and every watchdog in the process live on the same compensated time,
 * so nobody's silence timer or countdown counts the stall, while a node whose own software stopped
 * (NodeClock frozen) misses its kicks in HA time and is reset by its watchdog as before.
 *
 * A stall of one node in simulated time is a node fault and is modelled by NodeClock instead.
 * Pure over its base clock (the probe timer runs on it). It is a Clock implementation with no HA
 * type in it, used by every wall-clock layer (the emulator's HA part, the split shelf's hardware,
 * each `atcasim shmc` process), so it sits at the bottom beside the Clock port and SimClock.
 */
import type { Clock, TimerId } from './clock.ts';

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
  /** Base time the event loop was last seen turning (start of a probe or dispatch callback). */
  private lastTurn: number;
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
    this.lastTurn = base.now();
    this.armProbe();
  }

  /**
   * Compensated monotonic time, ms: base time minus the stalls compensated so far, and within the
   * current loop turn at most `globalStallMs` past its start (a block longer than that is a stall).
   */
  now(): number {
    const b = this.base.now();
    return b - this.stalled - Math.max(0, b - this.lastTurn - this.globalStallMs);
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

  /**
   * The event loop turned (called first in each of our own base-clock callbacks): a gap since the
   * previous turn longer than `globalStallMs` was a global stall; its excess over `globalStallMs`
   * (the part `now()` already stood still for) joins the offset.
   */
  private turn(): void {
    const b = this.base.now();
    const gap = b - this.lastTurn;
    this.lastTurn = b;
    if (gap > this.globalStallMs) {
      this.stalled += gap - this.globalStallMs;
      this.stalls++;
      const e: StallEvent = { at: b, gapMs: gap, totalMs: this.stalled };
      for (const fn of [...this.listeners]) fn(e);
    }
  }

  private armProbe(): void {
    if (this.disposed) return;
    this.probe = this.base.setTimeout(() => {
      this.turn();
      this.arm();
      this.armProbe();
    }, this.probeMs);
  }

  private arm(): void {
    if (this.disposed) return;
    while (this.timers.length && this.timers[0]!.cancelled) this.timers.shift();
    const first = this.timers[0];
    if (!first) return;
    // While HA time stands still (a block longer than globalStallMs), the mapping to base time is
    // only known after the next turn: dispatch as soon as the loop turns, then re-arm.
    const b = this.base.now();
    const delay = b - this.lastTurn > this.globalStallMs ? 0 : Math.max(0, first.due - this.now());
    const realDue = b + delay;
    if (this.baseTimer !== undefined && realDue >= this.baseDue) return;
    if (this.baseTimer !== undefined) this.base.clearTimeout(this.baseTimer);
    this.baseDue = realDue;
    this.baseTimer = this.base.setTimeout(() => this.run(), delay);
  }

  private run(): void {
    this.baseTimer = undefined;
    this.baseDue = Infinity;
    this.turn(); // a stall is accounted first: due timers may move later
    const now = this.now();
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
