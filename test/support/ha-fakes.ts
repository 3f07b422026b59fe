/**
 * Test doubles shared by the HA unit tests: an event loop in simulated time whose callbacks can
 * block it (LoopClock), the smallest ShareDataPlane (MemoryTable), and the simulated environment
 * of the emulator's HA part (simulatedHa: what the scenario runner hands it).
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import type { ShareDataPlane } from '../../chassis/ha/node-ports.ts';
import type { SessionSink, SessionSource, SyncRecord } from '../../chassis/ha/sync-types.ts';
import type { HaEnvironment } from '../../chassis/runtime/ha-seam.ts';
import { HaSimulator } from '../../chassis/sim/ha-simulator.ts';
import type { SimulatorOptions } from '../../chassis/sim/ha-simulator.ts';

/** A fresh simulator and the HA environment over it (simulated links, node clocks, timeline). */
export function simulatedHa(o: SimulatorOptions = {}): { sim: HaSimulator; env: HaEnvironment } {
  const sim = new HaSimulator(o);
  return { sim, env: { links: sim.links, faults: sim } };
}

interface Timer {
  due: number;
  seq: number;
  fn: () => void;
  dead: boolean;
}

/**
 * A single-threaded event loop in simulated time (ms). `advance(ms)` runs due timers in order (by
 * due time, then by arming order); `stall(ms)` blocks the loop — time moves on without running
 * anything, then every overdue timer runs late, with now() at the end of the stall, as a blocked
 * Node loop does; `work(ms, stepMs, during)`, called inside a callback, is synchronous work: time
 * moves on in steps, `during` runs after each step, and no timer runs until it returns.
 */
export class LoopClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    const e: Timer = { due: this.t + Math.max(0, ms), seq: this.seq++, fn, dead: false };
    this.timers.push(e);
    return e;
  }

  clearTimeout(id: TimerId): void {
    (id as Timer).dead = true;
  }

  private next(): Timer | undefined {
    this.timers = this.timers.filter((e) => !e.dead);
    let best: Timer | undefined;
    for (const e of this.timers) if (!best || e.due < best.due || (e.due === best.due && e.seq < best.seq)) best = e;
    return best;
  }

  /** Runs every timer due within `ms` from now, in order; then now() is at least now + ms. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const e = this.next();
      if (!e || e.due > end) break;
      e.dead = true;
      this.t = Math.max(this.t, e.due);
      e.fn();
    }
    this.t = Math.max(this.t, end);
  }

  /** The loop blocks for `ms`, then runs the overdue timers late. */
  stall(ms: number): void {
    this.t += ms;
    for (;;) {
      const e = this.next();
      if (!e || e.due > this.t) break;
      e.dead = true;
      e.fn();
    }
  }

  /** Synchronous work of `ms` in steps of `stepMs`, calling `during` after each step. */
  work(ms: number, stepMs: number, during: () => void): void {
    for (let done = 0; done < ms; done += stepMs) {
      this.t += Math.min(stepMs, ms - done);
      during();
    }
  }
}

/** The smallest ShareDataPlane: a live map when owner, a standby map when standby. */
export class MemoryTable implements ShareDataPlane {
  live = new Map<string, SyncRecord>();
  standby = new Map<string, SyncRecord>();
  forwarding = false;
  readonly source: SessionSource = {
    createdBetween: (a, b) => [...this.live.values()].filter((r) => r.createdAt > a && r.createdAt <= b),
    all: () => [...this.live.values()],
    drainEnded: () => [],
  };
  readonly sink: SessionSink = {
    upsert: (rs) => rs.forEach((r) => this.standby.set(r.key, r)),
    remove: (ks) => ks.forEach((k) => this.standby.delete(k)),
    keys: () => this.standby.keys(),
    clear: () => this.standby.clear(),
  };
  promote(): void {
    if (!this.forwarding && this.live.size === 0) this.live = new Map(this.standby);
    this.standby.clear();
    this.forwarding = true;
  }
  demote(keep: boolean): void {
    if (keep) for (const [k, r] of this.live) this.standby.set(k, r);
    this.live.clear();
    this.forwarding = false;
  }
  hold(): void {
    this.forwarding = false;
  }
  resume(): void {
    this.forwarding = true;
  }
  reset(): void {
    this.live.clear();
    this.standby.clear();
    this.forwarding = false;
  }
}
