/**
 * The HA part inside the emulator (chassis/runtime/ha-part.ts over the real data plane), in
 * simulated time: roles on the shelf and in the SEL, the operator actions (switchover, hang,
 * heal), the IPMI face (watchdog commands owned by HA → D5h for Set/Reset, `shmstatus`, the
 * synchronous switchover of FRU 0 at 20h), planned deactivation as a handover with nothing lost,
 * and wall-clock mode: a stall of the whole process is compensated (no failover) — and the same
 * stall without compensation does fail over, so the check can fail.
 */
import { describe, expect, it } from 'vitest';
import type { Clock, TimerId } from '../../../../board/common/clock.ts';
import { CommandError } from '../../../../board/common/errors.ts';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { dispatch } from '../../../../chassis/ipmi/dispatcher.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { Emulator } from '../../../../chassis/runtime/emulator.ts';
import { EmulatorHa } from '../../../../chassis/runtime/ha-part.ts';
import type { EmulatorHaOptions } from '../../../../chassis/runtime/ha-part.ts';
import { generatorInput } from '../../../../chassis/scenarios/generator.ts';
import { simulatedHa } from '../../../support/ha-fakes.ts';

/** A clock that can stall like a blocked event loop: time jumps, overdue timers then run late. */
class StallingClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers: Array<{ due: number; seq: number; fn: () => void; cancelled: boolean }> = [];
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): TimerId {
    const e = { due: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(e);
    return e;
  }
  clearTimeout(id: TimerId): void {
    if (id && typeof id === 'object') (id as { cancelled: boolean }).cancelled = true;
  }
  private next() {
    let best: (typeof this.timers)[number] | undefined;
    for (const x of this.timers) if (!x.cancelled && (!best || x.due < best.due || (x.due === best.due && x.seq < best.seq))) best = x;
    return best;
  }
  runUntil(t: number): void {
    for (;;) {
      const n = this.next();
      if (!n || n.due > t) break;
      n.cancelled = true;
      this.t = Math.max(this.t, n.due);
      n.fn();
      if (this.timers.length > 4096) this.timers = this.timers.filter((x) => !x.cancelled);
    }
    this.t = Math.max(this.t, t);
  }
  /** The process blocks for `ms`: nothing runs meanwhile; afterwards every overdue timer runs (late). */
  stall(ms: number): void {
    this.t += ms;
    this.runUntil(this.t);
  }
}

async function start(clock: Clock & { runUntil(t: number): void }, ha: Omit<EmulatorHaOptions, 'env'> = {}, traffic = true) {
  let part!: EmulatorHa;
  const { sim, env } = simulatedHa();
  const em = await Emulator.start({
    platform: { clock, log: nullLogger, random: new SeededRandom(4), cryptoRandom: (n) => new Uint8Array(n).fill(3) },
    store: new MemoryStore(),
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 8192,
    admin: { password: 'admin-secret-1' },
    traffic: traffic ? { inputs: [generatorInput({ flowsPerSec: 200, durationMedianMs: 5000, durationMaxMs: 30_000, seed: 9 })], label: 'generator', pacing: { mode: 'capture' } } : false,
    ipmi: {},
    consoles: false,
    ha: (ctx) => (part = new EmulatorHa(ctx, { seed: 1, ...ha, env })),
  });
  return { em, ha: part, sim };
}

function ipmi(em: Emulator, netFn: number, cmd: number, data: number[] = [], address = 0x20) {
  const server = em.lanServer!;
  const c = address === 0x20 ? server.frontController() : server.controllerAt(address)!;
  const req = { rsSA: address, netFn, rsLUN: 0, rqSA: 0x81, rqSeq: 0, rqLUN: 0, cmd, data: Uint8Array.from(data) };
  return dispatch([c.commands], req, { controller: c, now: 0, channel: 1, privilege: 4, session: undefined, log: nullLogger, emit: () => {} });
}

const roleOf = (em: Emulator, node: string, key: string) => em.shelf.roles.of(node).find((r) => r.key === key)?.role;

describe('HA part in the emulator', () => {
  it('boots every pair: roles on the shelf (one SEL record per change), live status for the TUI', async () => {
    const clock = new SimClock();
    const { em } = await start(clock);
    clock.runUntil(6000);
    expect(roleOf(em, 'shmc-a', 'shmc-a')).toBe('active');
    expect(roleOf(em, 'shmc-b', 'shmc-b')).toBe('standby.hot');
    expect(roleOf(em, 'slot3', 'lb1/slot3')).toBe('active');
    expect(roleOf(em, 'slot3', 'lb1/slot4')).toBe('standby.hot');
    expect(roleOf(em, 'slot6', 'lb2/slot6')).toBe('active');
    expect(em.shelf.activeShmc()).toBe('shmc-a');
    const sel = em.shelf.sel.records().map((r) => em.shelf.sel.describe(r));
    expect(sel.filter((t) => /^Module\/Board Node\d HA Role \| Transition to On Line/.test(t)).length).toBe(4); // 4 shares became active
    expect(sel.filter((t) => t.includes('#0x'))).toEqual([]); // every record the shelf wrote names its sensor
    const view = em.view();
    expect(view.haAvailable).toBe(true);
    const m = view.ha.find((x) => x.node === 'slot3' && x.share === 'lb1/slot3')!;
    expect(m.role).toBe('active');
    expect(m.epoch).toBe(1);
    expect(m.heartbeatAgeMs).toBeLessThan(150);
    expect(m.watchdogMs).toBeGreaterThan(0);
    expect(m.watchdogMs).toBeLessThanOrEqual(1000);
    expect(m.syncLagMs).toBeDefined();
    await em.stop();
  });

  it('operator actions: switchover of a share and of the ShMC pair, hang (watchdog reset), heal, refusals', async () => {
    const clock = new SimClock();
    const { em, sim } = await start(clock);
    clock.runUntil(8000);
    em.commands.switchover('slot3'); // the TUI's `s` on slot3: its home share goes to its buddy
    clock.runUntil(8500);
    expect(roleOf(em, 'slot4', 'lb1/slot3')).toBe('active');
    expect(sim.takeovers.at(-1)).toMatchObject({ share: 'lb1/slot3', from: 'slot3', to: 'slot4', kind: 'planned' });
    expect(sim.takeovers.at(-1)!.loss.lost).toBe(0);
    em.commands.switchover('shmc');
    clock.runUntil(9000);
    expect(em.shelf.activeShmc()).toBe('shmc-b');
    expect(() => em.commands.switchover('lb9')).toThrow(CommandError); // no such pair
    expect(() => em.commands.hang('slot1')).toThrow(/runs no HA software to hang/);
    em.commands.hang('slot5');
    clock.runUntil(9500);
    em.commands.heal('slot5'); // healed before its watchdog expired: nothing happens
    clock.runUntil(12_000);
    expect(sim.events.some((e) => e.type === 'hardware' && e.node === 'slot5' && e.what === 'reset')).toBe(false);
    em.commands.hang('slot5');
    clock.runUntil(14_000);
    const reset = sim.events.find((e) => e.type === 'hardware' && e.node === 'slot5' && e.what === 'reset');
    expect(reset).toMatchObject({ cause: 'watchdog' });
    expect(roleOf(em, 'slot6', 'lb2/slot5')).toBe('active');
    expect(em.shelf.sel.records().map((r) => em.shelf.sel.describe(r))).toContain('Watchdog 2 Node5 Watchdog | Hard reset | Asserted');
    expect(sim.violationList).toEqual([]);
    await em.stop();
  });

  it('IPMI: the active ShMC watchdog is HA-owned (Get works, Set/Reset D5h); shmstatus; FRU 0 deactivation at 20h moves the address synchronously', async () => {
    const clock = new SimClock();
    const { em, ha, sim } = await start(clock, {}, false);
    clock.runUntil(3000);
    const get = ipmi(em, 0x06, 0x25);
    expect(get.cc).toBe(0);
    expect(get.data[0]).toBe(0x44); // SMS/OS, running
    expect(get.data[1]).toBe(0x01); // hard reset
    expect(get.data[4] | (get.data[5]! << 8)).toBe(10); // 1 s
    expect(ipmi(em, 0x06, 0x24, [0x04, 0x01, 0, 0, 10, 0]).cc).toBe(0xd5);
    expect(ipmi(em, 0x06, 0x22).cc).toBe(0xd5);
    expect(ha.ipmiHooks.shmStatus!()).toEqual({ self: 'shmc-a', role: 'active', peer: 'shmc-b', peerRole: 'standby.hot', epoch: 1 });
    // picmg deactivate 0 at 20h: Set FRU Activation (2Ch/0Ch) FRU 0 deactivate
    expect(ipmi(em, 0x2c, 0x0c, [0x00, 0x00, 0x00]).cc).toBe(0);
    expect(em.shelf.activeShmc()).toBe('shmc-b'); // before any time passed: the address moved with the reply
    expect(ipmi(em, 0x06, 0x01).cc).toBe(0); // the shelf address answers (the peer now)
    clock.runUntil(6000);
    expect(ha.fabric.roleOf('shmc-b', 'shmc')).toBe('active');
    expect(ha.fabric.roleOf('shmc-a', 'shmc')).toBe('failed'); // deactivated: M1, payload off
    expect(roleOf(em, 'shmc-a', 'shmc-a')).toBe('failed');
    expect(ha.ipmiHooks.shmStatus!()).toMatchObject({ self: 'shmc-b', role: 'active', peerRole: 'failed' });
    em.shelf.hotSwap.extract('shmc-a');
    expect(ha.ipmiHooks.shmStatus!()).toMatchObject({ peerRole: 'absent' });
    expect(sim.violationList).toEqual([]);
    await em.stop();
  });

  it('a planned deactivation hands every session to the buddy (young ones included): nothing lost', async () => {
    const clock = new SimClock();
    const { em, ha, sim } = await start(clock);
    clock.runUntil(10_000);
    const held = em.dataPlane.board(3).table.size;
    expect(held).toBeGreaterThan(100);
    em.commands.openHandle('slot3');
    clock.runUntil(14_000);
    expect(em.shelf.state('slot3')).toBe(1);
    expect(ha.model.handedOver).toBe(held);
    const st = em.sampleTraffic();
    expect(st.totals.sessions.lost).toBe(0);
    expect(st.boards.find((b) => b.slot === 3)!.sessions.active).toBe(0);
    expect(roleOf(em, 'slot4', 'lb1/slot3')).toBe('active');
    expect(roleOf(em, 'slot3', 'lb1/slot3')).toBe('failed');
    const t = sim.takeovers.find((x) => x.share === 'lb1/slot3' && x.from === 'slot3')!;
    expect(t.kind).toBe('planned');
    expect(t.loss.lost).toBe(0);
    em.commands.closeHandle('slot3');
    clock.runUntil(20_000);
    expect(roleOf(em, 'slot3', 'lb1/slot3')).toBe('standby.hot');
    await em.stop();
  });

  it('wall-clock mode: a 2 s stall of the whole process is not a node fault (and without compensation it would be)', async () => {
    for (const wallClock of [true, false]) {
      const clock = new StallingClock();
      const { em, sim } = await start(clock, { wallClock }, false);
      clock.runUntil(5000);
      const before = sim.takeovers.length;
      clock.stall(2000);
      clock.runUntil(clock.now() + 3000);
      const resets = sim.events.filter((e) => e.type === 'hardware' && e.what === 'reset');
      if (wallClock) {
        expect(sim.takeovers.length).toBe(before);
        expect(resets).toEqual([]);
      } else {
        expect(resets.length).toBeGreaterThan(0); // every watchdog saw 2 s without a kick
      }
      await em.stop();
    }
  });
});
