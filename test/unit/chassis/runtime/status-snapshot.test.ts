/**
 * The HA status (chassis/runtime/status-snapshot.ts) of an emulator with its HA part in simulated
 * time, before and after a board crash and a planned deactivation: owners, roles, epochs, alarms
 * with their age, sessions lost by age (checked against the simulator's takeover ledger, which
 * classifies the same losses on its own), planned vs unplanned out of service; the text form; the
 * stats line's HA roles.
 */
import { describe, expect, it } from 'vitest';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { Emulator } from '../../../../chassis/runtime/emulator.ts';
import { EmulatorHa } from '../../../../chassis/runtime/ha-part.ts';
import { ServiceLog } from '../../../../chassis/runtime/service-log.ts';
import { statsLine } from '../../../../chassis/runtime/stats-line.ts';
import { formatStatus, statusSnapshot } from '../../../../chassis/runtime/status-snapshot.ts';
import { generatorInput } from '../../../../chassis/scenarios/generator.ts';
import { simulatedHa } from '../../../support/ha-fakes.ts';

async function start(clock: SimClock) {
  const { sim, env } = simulatedHa();
  const em = await Emulator.start({
    platform: { clock, log: nullLogger, random: new SeededRandom(4), cryptoRandom: (n) => new Uint8Array(n).fill(3) },
    store: new MemoryStore(),
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 8192,
    admin: { password: 'admin-secret-1' },
    traffic: { inputs: [generatorInput({ flowsPerSec: 400, durationMedianMs: 8000, durationMaxMs: 60_000, seed: 9 })], label: 'generator', pacing: { mode: 'capture' } },
    ipmi: {},
    consoles: false,
    ha: (ctx) => new EmulatorHa(ctx, { seed: 1, env }),
  });
  const service = new ServiceLog();
  em.shelf.on('hotswap', (e) => service.onHotSwap(e));
  const status = () => statusSnapshot({ view: em.view(), pairs: em.config.ha.pairs, lostByAge: em.ha!.lostByAge!(), service, now: clock.now(), uptimeMs: clock.now() });
  return { em, sim, status };
}

describe('status snapshot', () => {
  it('before and after a crash: the owner moves, the alarm shows with its age, lost by age as the ledger says', async () => {
    const clock = new SimClock();
    const { em, sim, status } = await start(clock);
    clock.runUntil(10_000);
    const before = status();
    expect(before.ha).toBe(true);
    expect(before.shares.map((s) => [s.share, s.owner])).toEqual([
      ['shmc', 'shmc-a'],
      ['lb1/slot3', 'slot3'],
      ['lb1/slot4', 'slot4'],
      ['lb2/slot5', 'slot5'],
      ['lb2/slot6', 'slot6'],
    ]);
    const m = before.shares[1]!.members;
    expect(m.map((x) => [x.node, x.role, x.epoch])).toEqual([
      ['slot3', 'active', 1],
      ['slot4', 'standby.hot', 0],
    ]);
    expect(m[0]!.heartbeat_age_ms).toBeLessThan(200);
    expect(m[0]!.watchdog_left_ms).toBeGreaterThan(0);
    expect(m[0]!.sync_lag_ms).not.toBeNull();
    expect(m[1]!.sync_lag_ms).toBeNull(); // the standby does not send
    expect(before.alarms).toEqual([]);
    expect(before.sessions_lost).toEqual({ young: 0, established: 0, established_ms: 3100 });
    expect(before.out_of_service).toEqual({ planned: 0, unplanned: 0, now: [] });
    expect(before.boards.find((b) => b.fru === 'slot3')).toMatchObject({ state: 'M4', in_service: true, roles: { 'lb1/slot3': 'active', 'lb1/slot4': 'standby.hot' } });

    em.commands.injectFault('slot3');
    clock.runUntil(14_000);
    const after = status();
    const lb1 = after.shares.find((s) => s.share === 'lb1/slot3')!;
    expect(lb1.owner).toBe('slot4');
    expect(lb1.members.find((x) => x.node === 'slot4')!.epoch).toBe(2);
    expect(lb1.members.find((x) => x.node === 'slot3')!.role).toBe('failed');
    const alarm = after.alarms.find((a) => a.node === 'slot4' && a.share === 'lb1/slot3' && a.alarm === 'REDUNDANCY_LOST');
    expect(alarm).toBeDefined();
    expect(alarm!.age_ms).toBeGreaterThan(0);
    expect(alarm!.age_ms).toBeLessThanOrEqual(4000);
    // the ledger's own classification of the same takeover
    const t = sim.takeovers.filter((x) => x.from === 'slot3');
    expect(t.length).toBeGreaterThan(0);
    const young = t.reduce((a, x) => a + x.loss.lostYoung, 0);
    const established = t.reduce((a, x) => a + x.loss.lostEstablished, 0);
    expect(young).toBeGreaterThan(0); // 400 new flows/s: some were not synced yet
    expect(after.sessions_lost).toEqual({ young, established, established_ms: 3100 });
    expect(after.out_of_service.unplanned).toBe(1);
    expect(after.out_of_service.now).toEqual([{ fru: 'slot3', planned: false, cause: 'unexpectedDeactivation', for_ms: expect.any(Number) }]);
    expect(after.out_of_service.now[0]!.for_ms).toBeGreaterThanOrEqual(3900);

    em.commands.openHandle('slot6'); // planned
    clock.runUntil(18_000);
    const planned = status();
    expect(planned.shares.find((s) => s.share === 'lb2/slot6')!.owner).toBe('slot5');
    expect(planned.out_of_service).toMatchObject({ planned: 1, unplanned: 1 });
    expect(planned.out_of_service.now.map((o) => [o.fru, o.planned])).toEqual([
      ['slot3', false],
      ['slot6', true],
    ]);
    expect(planned.sessions_lost).toEqual(after.sessions_lost); // a planned leave loses nothing

    const text = formatStatus(planned);
    expect(text).toMatch(/^lb1\/slot3 +slot4 +slot3 +failed/m);
    expect(text).toMatch(/REDUNDANCY_LOST +slot4 +lb1\/slot3 +for \d+\.\d s/);
    expect(text).toContain(`Sessions lost since start: ${young} young (< 3.1 s old), ${established} established`);
    expect(text).toMatch(/^Out of service:\n {2}slot3 +UNPLANNED unexpectedDeactivation +for \d+\.\d s\n {2}slot6 +planned +handle +for \d+\.\d s$/m);
    expect(text).toContain('Left service since start: 1 planned, 1 unplanned');
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(78);
    expect(JSON.parse(JSON.stringify(planned))).toEqual(planned);

    const line = statsLine(em.view(), 18_000);
    expect(line.boards.find((b) => b.slot === 4)!.ha).toEqual({ 'lb1/slot3': 'active', 'lb1/slot4': 'active' });
    expect(line.shmc_roles).toEqual({ 'shmc-a': 'active', 'shmc-b': 'standby.hot' });
    await em.stop();
  });

  it('without HA: no pairs, lost not counted', () => {
    const s = statusSnapshot({
      view: { snapshot: { shelf: { name: 'x' }, frus: [] }, ha: [] } as never,
      pairs: [{ name: 'shmc', kind: 'shmc', members: ['shmc-a', 'shmc-b'] }],
      service: new ServiceLog(),
      now: 0,
      uptimeMs: 1500,
    });
    expect(s).toMatchObject({ shelf: 'x', uptime_s: 1.5, ha: false, shares: [], alarms: [], sessions_lost: null });
    expect(formatStatus(s)).toContain('Sessions lost since start: not counted');
  });
});
