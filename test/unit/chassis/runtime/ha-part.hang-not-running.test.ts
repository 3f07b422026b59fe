/**
 * `hang` of a node whose software is not running (powered off, in reset, booting — before its
 * software armed its IPMI watchdog) and the end of a hang by a power cycle or reset.
 *
 * The TUI bug: `f` (payload fault, M4 → M6 → M1), `r` (repair, M1 → M2 → M3 → M4), `w` (hang)
 * while the board was still in M3 (powered off): the hang froze a node whose watchdog was stopped,
 * the board booted on frozen clocks and its roles stayed `booting` for good. Now the hang is
 * refused (CommandError 'not_running': nothing runs that could hang), and powering a node on
 * (or the end of a reset) always starts its software fresh, ending any hang, pause or control
 * stall that was left on it.
 */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import type { PairSimReport } from '../../../../chassis/sim/pair-sim.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { Emulator } from '../../../../chassis/runtime/emulator.ts';
import { EmulatorHa } from '../../../../chassis/runtime/ha-part.ts';
import { simulatedHa } from '../../../support/ha-fakes.ts';
import { roleAt, runScript } from '../../../support/pair-sim.ts';

async function start(clock: SimClock) {
  let part!: EmulatorHa;
  const { sim, env } = simulatedHa();
  const em = await Emulator.start({
    platform: { clock, log: nullLogger, random: new SeededRandom(4), cryptoRandom: (n) => new Uint8Array(n).fill(3) },
    store: new MemoryStore(),
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 8192,
    admin: { password: 'admin-secret-1' },
    traffic: false,
    ipmi: {},
    consoles: false,
    ha: (ctx) => (part = new EmulatorHa(ctx, { seed: 1, env })),
  });
  return { em, ha: part, sim };
}

const roleOf = (em: Emulator, node: string, key: string) => em.shelf.roles.of(node).find((r) => r.key === key)?.role;
const SERVING = ['active', 'standby.hot'];

/** Runs `fn` and returns the CommandError it threw (null when it did not throw). */
function refusal(fn: () => void): CommandError | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (e instanceof CommandError) return e;
    throw e;
  }
}

describe('hang of a node that is not running', () => {
  it('TUI f → r → w while the board activates (M3, powered off): the hang is refused, the board boots and serves both shares', async () => {
    const clock = new SimClock();
    const { em, ha, sim } = await start(clock);
    clock.runUntil(8000);
    expect(roleOf(em, 'slot5', 'lb2/slot5')).toBe('active');
    em.commands.injectFault('slot5'); // `f`
    clock.runUntil(11_000);
    expect(em.shelf.state('slot5')).toBe(1);
    em.commands.repair('slot5'); // `r`: M1 → M2 → M3 → M4
    let t = 11_000;
    while (em.shelf.state('slot5') !== 3 && t < 13_000) clock.runUntil((t += 10));
    expect(em.shelf.state('slot5')).toBe(3);
    expect(ha.fabric.controller('slot5').isPowered).toBe(false);
    const err = refusal(() => em.commands.hang('slot5')); // `w`
    clock.runUntil(40_000);
    expect(em.shelf.state('slot5')).toBe(4);
    expect(SERVING).toContain(roleOf(em, 'slot5', 'lb2/slot5'));
    expect(SERVING).toContain(roleOf(em, 'slot5', 'lb2/slot6'));
    expect(ha.fabric.watchdog('slot5').remainingMs()).toBeDefined(); // armed by its software
    expect(err?.code).toBe('not_running');
    expect(err?.message).toMatch(/slot5.*not running/);
    expect(sim.violationList).toEqual([]);
    await em.stop();
  });

  const hangAction = (r: PairSimReport) => r.timeline.find((e) => e.type === 'action' && e.text.startsWith('hang'));
  const T0 = 8000;

  it('powered off: refused (not_running); after power-on the node boots and rejoins', () => {
    const { report: r } = runScript({ actions: [[T0, 'power-off slot3'], [T0 + 1000, 'hang slot3'], [T0 + 2000, 'power-on slot3']], runMs: T0 + 12_000 });
    expect(hangAction(r)).toMatchObject({ ok: false, error: expect.stringMatching(/^not_running: .*powered off/) });
    expect(roleAt(r, 'slot3', 'lb1/slot3', T0 + 12_000)).toBe('standby.hot');
    expect(roleAt(r, 'slot3', 'lb1/slot4', T0 + 12_000)).toBe('standby.hot');
    expect(r.invariants.violations).toEqual([]);
  });

  it('in reset and while booting: refused; once its software runs the hang works (its watchdog resets it)', () => {
    // crash at T0: reset for resetMs (500), then booting for bootMs (200).
    for (const at of [T0 + 100, T0 + 600]) {
      const { report: r } = runScript({ actions: [[T0, 'crash slot3'], [at, 'hang slot3']], runMs: T0 + 12_000 });
      expect(hangAction(r), `hang at T0+${at - T0}`).toMatchObject({ ok: false, error: expect.stringMatching(/^not_running: .*(reset|booting)/) });
      expect(roleAt(r, 'slot3', 'lb1/slot3', T0 + 12_000)).toBe('standby.hot');
      expect(r.timeline.filter((e) => e.type === 'watchdog' && e.node === 'slot3')).toEqual([]);
    }
    const { report: r } = runScript({ actions: [[T0, 'crash slot3'], [T0 + 3000, 'hang slot3']], runMs: T0 + 12_000 });
    expect(hangAction(r)).toMatchObject({ ok: true });
    expect(r.timeline.some((e) => e.type === 'watchdog' && e.node === 'slot3' && e.event === 'expired')).toBe(true);
    expect(roleAt(r, 'slot3', 'lb1/slot3', T0 + 12_000)).toBe('standby.hot');
  });

  it('power cycle and reset end a freeze: a control stall left on a powered-off node does not survive power-on; a hung node power-cycled boots fresh', () => {
    const stalled = runScript({ actions: [[T0, 'power-off slot3'], [T0 + 1000, 'stall-control slot3'], [T0 + 2000, 'power-on slot3']], runMs: T0 + 12_000 }).report;
    expect(roleAt(stalled, 'slot3', 'lb1/slot3', T0 + 12_000)).toBe('standby.hot');
    expect(roleAt(stalled, 'slot3', 'lb1/slot4', T0 + 12_000)).toBe('standby.hot');
    const cycled = runScript({ actions: [[T0, 'hang slot3'], [T0 + 300, 'power-off slot3'], [T0 + 400, 'power-on slot3']], runMs: T0 + 12_000 }).report;
    expect(cycled.timeline.some((e) => e.type === 'watchdog' && e.node === 'slot3')).toBe(false); // no watchdog needed
    expect(roleAt(cycled, 'slot3', 'lb1/slot3', T0 + 12_000)).toBe('standby.hot');
    const reset = runScript({ actions: [[T0, 'hang slot3'], [T0 + 300, 'crash slot3']], runMs: T0 + 12_000 }).report;
    expect(roleAt(reset, 'slot3', 'lb1/slot3', T0 + 12_000)).toBe('standby.hot');
  });
});
