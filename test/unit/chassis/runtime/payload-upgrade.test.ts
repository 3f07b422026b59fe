/**
 * The payload installer of HPM.1 activations (chassis/runtime/payload-upgrade.ts) on the emulator's
 * HA part, in simulated time with generated traffic: the blue/green step for one node (shares to
 * the buddy by planned switchovers, reboot on the new version, home share back, nothing lost), the
 * refusals that change nothing (another major version on the buddy, no hot standby), and the
 * rollback to the previous version.
 */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { Emulator } from '../../../../chassis/runtime/emulator.ts';
import { EmulatorHa } from '../../../../chassis/runtime/ha-part.ts';
import { generatorInput } from '../../../../chassis/scenarios/generator.ts';
import { simulatedHa } from '../../../support/ha-fakes.ts';

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
    traffic: { inputs: [generatorInput({ flowsPerSec: 200, durationMedianMs: 5000, durationMaxMs: 30_000, seed: 9 })], label: 'generator', pacing: { mode: 'capture' } },
    ipmi: {},
    consoles: false,
    ha: (ctx) => (part = new EmulatorHa(ctx, { seed: 1, env })),
  });
  return { em, ha: part, sim, port: part.ipmiHooks.payloadFirmware! };
}

function refusal(fn: () => void): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof CommandError) return e.code;
    throw e;
  }
  return 'none';
}

describe('payload installs (HPM.1 activation on an HA node)', () => {
  it('slot4 to 1.1: its share to slot3 (planned), a reboot on 1.1, its share back; nothing lost', async () => {
    const clock = new SimClock();
    const { em, ha, sim, port } = await start(clock);
    clock.runUntil(8000);
    const f = ha.fabric;
    expect(port.version('slot4')).toEqual({ major: 1, minor: 0 });
    expect(port.version('slot1')).toBeUndefined(); // a hub runs no HA node
    let result: CommandError | undefined | 'pending' = 'pending';
    port.install('slot4', { major: 1, minor: 1 }, (e) => (result = e));
    clock.runUntil(8300);
    expect(f.ownerOf('lb1/slot4')).toBe('slot3');
    expect(refusal(() => port.check('slot4', { major: 1, minor: 2 }))).toBe('upgrade_in_progress');
    clock.runUntil(30_000);
    expect(result).toBeUndefined();
    expect(f.controller('slot4').softwareVersion).toEqual({ major: 1, minor: 1 });
    expect(f.ownerOf('lb1/slot4')).toBe('slot4');
    expect(f.roleOf('slot4', 'lb1/slot3')).toBe('standby.hot');
    const moves = sim.takeovers.filter((t) => t.share === 'lb1/slot4');
    expect(moves.map((t) => [t.from, t.to, t.kind])).toEqual([['slot4', 'slot3', 'planned'], ['slot3', 'slot4', 'planned']]);
    expect(moves.every((t) => t.loss.lost === 0)).toBe(true);
    await em.stop();
  });

  it('a handover abandoned each time (final sync never acknowledged) ends the install failed; another may be asked', async () => {
    const clock = new SimClock();
    const { em, ha, sim, port } = await start(clock);
    clock.runUntil(8000);
    const f = ha.fabric;
    sim.apply('cut sync lb1 one-way slot3->slot4'); // slot3's ACKs of slot4's final sync are lost
    let result: CommandError | undefined | 'pending' = 'pending';
    port.install('slot4', { major: 1, minor: 1 }, (e) => (result = e));
    clock.runUntil(8600);
    expect(result).toBe('pending'); // the first abandonment is followed by a second request
    expect(f.ownerOf('lb1/slot4')).toBe('slot4');
    clock.runUntil(12_000); // three handovers of 500 ms each, far below the 100 s install deadline
    expect(result).toBeInstanceOf(CommandError);
    const err = result as unknown as CommandError;
    expect(err.code).toBe('handover_abandoned');
    expect(err.message).toBe('slot4: planned switchover of lb1/slot4 abandoned 3 times (final_sync_unacked): slot4 keeps serving its old version');
    expect(f.ownerOf('lb1/slot4')).toBe('slot4');
    expect(f.roleOf('slot4', 'lb1/slot4')).toBe('active');
    expect(f.controller('slot4').softwareVersion).toEqual({ major: 1, minor: 0 });
    expect(sim.takeovers.filter((t) => t.share === 'lb1/slot4')).toEqual([]);
    // The install is over: a new one may be asked, and with the link back it goes through.
    expect(refusal(() => port.check('slot4', { major: 1, minor: 1 }))).toBe('none');
    sim.apply('restore sync lb1');
    clock.runUntil(14_000);
    let again: CommandError | undefined | 'pending' = 'pending';
    port.install('slot4', { major: 1, minor: 1 }, (e) => (again = e));
    clock.runUntil(40_000);
    expect(again).toBeUndefined();
    expect(f.controller('slot4').softwareVersion).toEqual({ major: 1, minor: 1 });
    expect(f.ownerOf('lb1/slot4')).toBe('slot4');
    await em.stop();
  });

  it('refuses, changing nothing: another major than the buddy runs, a share without a hot standby, a node that does not run', async () => {
    const clock = new SimClock();
    const { em, ha, port } = await start(clock);
    clock.runUntil(8000);
    expect(refusal(() => port.check('slot4', { major: 2, minor: 0 }))).toBe('incompatible_version');
    expect(() => port.install('slot4', { major: 2, minor: 0 }, () => {})).toThrow(/slot3 runs 1\.0 and refuses 2\.0/);
    expect(ha.fabric.ownerOf('lb1/slot4')).toBe('slot4');
    em.shelf.hotSwap.deactivate('slot3');
    clock.runUntil(12_000);
    expect(refusal(() => port.check('slot4', { major: 1, minor: 1 }))).toBe('peer_not_hot');
    expect(refusal(() => port.check('slot3', { major: 1, minor: 1 }))).toBe('not_running');
    expect(refusal(() => port.check('slot1', { major: 1, minor: 1 }))).toBe('not_ha_node');
    expect(ha.fabric.controller('slot4').softwareVersion).toEqual({ major: 1, minor: 0 });
    await em.stop();
  });
});
