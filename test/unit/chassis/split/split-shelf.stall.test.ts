/**
 * A stall of the shelf process in split mode (docs/split.md "What each fault looks like"): the shelf
 * holds both ShMCs' IPMI watchdogs (chassis/split/shmc-hardware.ts). While the shelf's event loop is
 * blocked (GC, a loaded machine) the ShMC processes keep kicking, their kicks wait in the bus socket,
 * and after the block Node runs the due timers before it reads the sockets. Seen on a loaded machine:
 * after a 949 ms stall both ShMCs were killed at once (the shelf address unbound for ~13 s), then again
 * after stalls of 2.1, 1.5 and 2.8 s. A stall of the shelf process is not a ShMC fault; a ShMC whose
 * own process stops (SIGSTOP) must still be reset by its watchdog, also across a shelf stall.
 */
import { describe, expect, it } from 'vitest';
import type { Clock, TimerId } from '../../../../board/common/clock.ts';
import { nullLogger } from '../../../../board/common/logger.ts';
import { resolveHaConfig } from '../../../../chassis/config/ha.ts';
import type { ShmcNode, ToShelf, ToShmc } from '../../../../chassis/split/bus-codec.ts';
import { shmcArgv } from '../../../../chassis/split/shmc-flags.ts';
import { SplitShelf, type BusConnection, type ShmcRegistration } from '../../../../chassis/split/split-shelf.ts';

interface Timer {
  due: number;
  seq: number;
  fn: () => void;
  dead: boolean;
}

/**
 * The shelf process's event loop in simulated time, as Node runs it: each iteration first runs the
 * timers due at its start (timers phase), then delivers the bus messages that have arrived (poll
 * phase). The ShMC processes are outside this loop: each kicks every `kickMs` of (base) time unless
 * stopped, and its kicks queue in the socket until the shelf's loop reads them. `block(ms)` is the
 * shelf's loop blocked: time passes, nothing of the shelf runs, kicks pile up.
 */
class ShelfLoop implements Clock {
  private t = 0;
  private seq = 0;
  private timers: Timer[] = [];
  private readonly inbox: Array<{ at: number; deliver: () => void }> = [];
  private readonly sources: Array<{ next: number; period: number; stoppedAt: number; deliver: () => void }> = [];

  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): TimerId {
    const e: Timer = { due: this.t + Math.max(1, ms), seq: this.seq++, fn, dead: false };
    this.timers.push(e);
    return e;
  }
  clearTimeout(id: TimerId): void {
    (id as Timer).dead = true;
  }

  /** A ShMC process that sends `deliver` every `period` ms from `start` on. @returns stop (SIGSTOP) */
  source(start: number, period: number, deliver: () => void): () => void {
    const s = { next: start, period, stoppedAt: Infinity, deliver };
    this.sources.push(s);
    return () => {
      s.stoppedAt = this.t;
    };
  }

  /** The shelf's loop blocked for `ms`: nothing of the shelf runs. */
  block(ms: number): void {
    this.t += ms;
    this.pump();
  }

  /** Runs the shelf's loop for `ms`. */
  run(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.pump();
      // timers phase: what is due at the start of the iteration, in due order
      this.timers = this.timers.filter((e) => !e.dead);
      const due = this.timers.filter((e) => e.due <= this.t).sort((a, b) => a.due - b.due || a.seq - b.seq);
      for (const e of due) {
        if (e.dead) continue;
        e.dead = true;
        e.fn();
      }
      // poll phase: every message that has arrived
      while (this.inbox.length && this.inbox[0]!.at <= this.t) this.inbox.shift()!.deliver();
      const next = Math.min(
        ...this.timers.filter((e) => !e.dead).map((e) => e.due),
        ...this.sources.filter((s) => s.next < s.stoppedAt).map((s) => s.next),
      );
      if (next > end) break;
      this.t = Math.max(this.t, next);
    }
    this.t = end;
    this.pump();
  }

  private pump(): void {
    for (const s of this.sources) {
      while (s.next <= this.t && s.next < s.stoppedAt) {
        this.inbox.push({ at: s.next, deliver: s.deliver });
        s.next += s.period;
      }
    }
    this.inbox.sort((a, b) => a.at - b.at);
  }
}

function conn(label: string): BusConnection & { sent: ToShmc[] } {
  const sent: ToShmc[] = [];
  return { label, sent, send: (m) => void sent.push(m), close: () => {} };
}

const argvOf = (n: 'a' | 'b') =>
  shmcArgv({ node: n, shelf: { host: '127.0.0.1', port: 4000 }, peerListen: { host: '127.0.0.1', port: n === 'a' ? 4001 : 4002 }, peer: { host: '127.0.0.1', port: n === 'a' ? 4002 : 4001 }, ipmiPort: 6230, maintPort: n === 'a' ? 4003 : 4004, db: `/tmp/shmc-${n}.db`, adminPassword: 'pw' });

/** A split shelf with both ShMCs registered (a active), watchdogs set (1000 ms), kicking every 100 ms. */
function world() {
  const loop = new ShelfLoop();
  const cfg = resolveHaConfig();
  const restarts: Array<{ node: ShmcNode; at: number }> = [];
  const split = new SplitShelf({ clock: loop, log: nullLogger, wallNow: () => loop.now(), ha: { ...cfg }, restart: (r: ShmcRegistration) => restarts.push({ node: r.node, at: loop.now() }), kill: () => {} });
  const stop: Partial<Record<ShmcNode, () => void>> = {};
  for (const [n, pid] of [['a', 11], ['b', 22]] as const) {
    const c = conn(n);
    const say = (m: ToShelf) => split.onMessage(c, m);
    say({ t: 'hello', node: `shmc-${n}`, pid, argv: argvOf(n) });
    say({ t: 'healthy', on: true });
    if (n === 'a') say({ t: 'claim', epoch: 1 });
    say({ t: 'wdset', timeoutMs: cfg.watchdogTimeoutMs });
    stop[`shmc-${n}`] = loop.source(cfg.watchdogKickMs, cfg.watchdogKickMs, () => say({ t: 'kick' }));
  }
  return { loop, cfg, split, restarts, stop };
}

describe('split shelf: a stall of the shelf process is not a ShMC fault', () => {
  it('stalls of 0.949, 2.1, 1.5 and 2.8 s of the shelf loop, kicks queued on the bus: no ShMC watchdog expires', () => {
    const { loop, split, restarts } = world();
    loop.run(1080); // last kick read at 1000
    for (const stallMs of [949, 2100, 1500, 2800]) {
      loop.block(stallMs);
      loop.run(3000);
    }
    expect(restarts).toEqual([]);
    expect(split.hw.expiries).toEqual({ 'shmc-a': 0, 'shmc-b': 0 });
    expect(split.stalls).toBe(4);
    expect(split.roleOf('shmc-a')).not.toBe('resetting');
    expect(split.roleOf('shmc-b')).not.toBe('resetting');
    // the countdowns are running and fed
    for (const v of split.memberViews()) expect(v.watchdogMs).toBeGreaterThan(800);
    split.stop();
  });

  it('a stopped ShMC (SIGSTOP) is still reset within its watchdog bound while the shelf loop runs; its peer is not', () => {
    const { loop, cfg, split, restarts, stop } = world();
    loop.run(1050); // last kick read at 1000
    stop['shmc-a']!();
    loop.run(3000);
    expect(restarts).toEqual([{ node: 'shmc-a', at: 1000 + cfg.watchdogTimeoutMs }]);
    expect(split.hw.expiries['shmc-b']).toBe(0);
    split.stop();
  });

  it('a ShMC stopped across a shelf stall is reset (the stall counts up to globalStallMs); its kicking peer is not', () => {
    const { loop, cfg, split, restarts, stop } = world();
    loop.run(1050); // last kicks read at 1000
    stop['shmc-a']!();
    loop.run(300); // 1350
    loop.block(2000); // 3350: HA time moved by globalStallMs only
    loop.run(3000);
    expect(restarts.map((r) => r.node)).toEqual(['shmc-a']);
    // HA time from the last kick: 350 before the block + globalStallMs during it, the rest after it;
    // the stall is measured from the last loop turn seen (a probe, every globalStallMs / 4), so up
    // to one probe period of the time before the block is compensated too
    const earliest = 1350 + 2000 + (cfg.watchdogTimeoutMs - 350 - cfg.globalStallMs);
    expect(restarts[0]!.at).toBeGreaterThanOrEqual(earliest);
    expect(restarts[0]!.at).toBeLessThanOrEqual(earliest + cfg.globalStallMs / 4);
    expect(split.hw.expiries['shmc-b']).toBe(0);
    split.stop();
  });
});
