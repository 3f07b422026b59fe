/**
 * The emulator composition in simulated time: MemoryStore, SimClock, the bundled capture paced at
 * a fixed rate, no sockets. Checks the wiring (config selection, administrator, shelf over the
 * data plane, traffic reaching every processor board, service changes moving traffic, the event
 * feed, the operator commands, HA seam refusals, clean stop) rather than re-testing the parts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CommandError, ConfigError } from '../../../../board/common/errors.ts';
import { captureLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { memoryInput } from '../../../../chassis/dataplane/traffic.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { BUNDLED_CAPTURE_PATH } from '../../../../chassis/runtime/assets.ts';
import { Emulator, type EmulatorOptions } from '../../../../chassis/runtime/emulator.ts';
import type { HaPart } from '../../../../chassis/runtime/ha-seam.ts';

const capture = readFileSync(BUNDLED_CAPTURE_PATH);

function options(clock: SimClock, store = new MemoryStore(), over: Partial<EmulatorOptions> = {}): EmulatorOptions {
  return {
    platform: { clock, log: captureLogger(), random: new SeededRandom(1), cryptoRandom: (n) => new Uint8Array(n).fill(7) },
    store,
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 4096,
    admin: { password: 'admin-secret-1' },
    traffic: { inputs: [memoryInput('bundled', capture)], label: 'bundled', pacing: { mode: 'rate', pps: 20_000 } },
    ipmi: {},
    ...over,
  };
}

describe('Emulator in simulated time', () => {
  it('starts on a new store: default shelf stored, administrator created, boards in M4', async () => {
    const clock = new SimClock();
    const store = new MemoryStore();
    const em = await Emulator.start(options(clock, store));
    expect(em.resolved.origin).toBe('default');
    expect(store.getConfig()?.source).toBe(DEFAULT_SHELF_NAME);
    expect(em.admin.created).toBe(true);
    expect(em.admin.generatedPassword).toBeUndefined();
    expect(store.listUsers().map((u) => u.name)).toContain('admin');
    const s = em.view().snapshot;
    expect(s.frus.filter((f) => f.slot !== undefined).map((f) => `${f.name}:${f.stateLabel}`)).toEqual(
      ['slot1:M4', 'slot2:M4', 'slot3:M4', 'slot4:M4', 'slot5:M4', 'slot6:M4'],
    );
    expect(em.lanServer).toBeDefined();
    expect(em.endpoints.ipmi).toBeUndefined(); // no listener: simulated runs bind nothing
    await em.stop();
  });

  it('a random administrator password is generated only when none is given', async () => {
    const em = await Emulator.start(options(new SimClock(), new MemoryStore(), { admin: {} }));
    expect(em.admin.generatedPassword).toMatch(/^[A-Za-z2-9]{16}$/);
    await em.stop();
  });

  it('loops the capture at the given rate: every processor board carries traffic', async () => {
    const clock = new SimClock();
    const em = await Emulator.start(options(clock));
    clock.advance(3000);
    const t = em.sampleTraffic();
    expect(t.totals.packets).toBeGreaterThan(50_000);
    expect(t.totals.packets).toBeLessThanOrEqual(60_001);
    for (const b of t.boards) {
      expect(b.pps, `slot${b.slot}`).toBeGreaterThan(0);
      expect(b.sessions.active, `slot${b.slot}`).toBeGreaterThan(0);
      expect(b.sessions.capacity).toBe(4096);
    }
    expect(em.sourceView()).toMatchObject({ file: 'bundled', rate: 20_000 });
    expect(em.sourceView()!.loops).toBeGreaterThanOrEqual(2);
    await em.stop();
  });

  it('open handle (x): M4 → M5 → M6 → M1 in steps, the board stops carrying traffic, the rest carry on', async () => {
    const clock = new SimClock();
    const em = await Emulator.start(options(clock));
    clock.advance(2000);
    const seen: string[] = [];
    em.shelf.on('hotswap', (e) => e.fru === 'slot3' && seen.push(`M${e.to}`));
    const o = em.commands.openHandle('slot3');
    expect(o.state).toBe(5);
    clock.advance(500);
    expect(em.shelf.state('slot3')).toBe(5); // the default 1 s step: a person can follow it
    clock.advance(5000);
    expect(seen).toEqual(['M5', 'M6', 'M1']);
    const t = em.sampleTraffic();
    const b3 = t.boards.find((b) => b.slot === 3)!;
    expect(b3.inService).toBe(false);
    expect(b3.pps).toBe(0);
    expect(t.totals.pps).toBeGreaterThan(0);
    for (const b of t.boards.filter((x) => x.slot !== 3)) expect(b.pps).toBeGreaterThan(0);
    // the SEL records reached the event feed with their source
    const feed = em.view().events.filter((e) => e.source === 'slot3' && e.mState !== undefined).map((e) => e.mState);
    expect(feed.slice(-3)).toEqual([5, 6, 1]);
    em.commands.closeHandle('slot3');
    clock.advance(5000);
    expect(em.shelf.state('slot3')).toBe(4);
    clock.advance(3000);
    expect(em.sampleTraffic().boards.find((b) => b.slot === 3)!.pps).toBeGreaterThan(0);
    await em.stop();
  });

  it('inputs that yield no packet are left out; none at all is an error', async () => {
    const clock = new SimClock();
    const bad = memoryInput('notes.txt', new TextEncoder().encode('not a capture at all'));
    const em = await Emulator.start(options(clock, new MemoryStore(), { traffic: { inputs: [bad, memoryInput('bundled', capture)], label: 'mixed', pacing: { mode: 'rate', pps: 5000 } } }));
    clock.advance(2000);
    expect(em.sampleTraffic().totals.packets).toBeGreaterThan(5000);
    await em.stop();
    const none = Emulator.start(options(new SimClock(), new MemoryStore(), { traffic: { inputs: [bad], label: 'bad', pacing: { mode: 'capture' } } }));
    // a typed input error (CommandError 'no_traffic'), not a TypeError that front ends show as a crash
    await expect(none).rejects.toThrow(/no capture input yields a packet \(notes\.txt\)/);
    await expect(none).rejects.toMatchObject({ name: 'CommandError', code: 'no_traffic' });
  });

  it('hot-swap step override', async () => {
    const clock = new SimClock();
    const em = await Emulator.start(options(clock, new MemoryStore(), { hotSwapStepMs: 100 }));
    em.commands.openHandle('slot4');
    clock.advance(350);
    expect(em.shelf.state('slot4')).toBe(1);
    await em.stop();
  });

  it('HA actions are refused honestly until an HA part is wired, then routed to it', async () => {
    const clock = new SimClock();
    const em = await Emulator.start(options(clock));
    expect(em.commands.haAvailable).toBe(false);
    expect(() => em.commands.switchover('shmc')).toThrow(CommandError);
    expect(() => em.commands.hang('slot3')).toThrow(/the HA layer is off/);
    await em.stop();
    const calls: string[] = [];
    const ha: HaPart = {
      switchover: (p) => void calls.push(`switchover ${p}`),
      hang: (n) => void calls.push(`hang ${n}`),
      heal: (n) => void calls.push(`heal ${n}`),
      status: () => [{ share: 'shmc', node: 'shmc-a', role: 'active', epoch: 1, heartbeatAgeMs: 50, alarms: [] }],
      stop: () => void calls.push('stop'),
    };
    const em2 = await Emulator.start(options(new SimClock(), new MemoryStore(), { ha: () => ha }));
    em2.commands.switchover('shmc');
    em2.commands.hang('3');
    expect(em2.view().ha).toHaveLength(1);
    expect(em2.view().haAvailable).toBe(true);
    await em2.stop();
    expect(calls).toEqual(['switchover shmc', 'hang slot3', 'stop']);
  });

  it('HA seam: buddies as ECMP failover targets, and the session handover hook', async () => {
    const clock = new SimClock();
    const handed: Array<[number, number]> = [];
    const ha: HaPart = {
      switchover: () => {},
      hang: () => {},
      heal: () => {},
      status: () => [],
      stop: () => {},
      handover: (slot, board) => {
        handed.push([slot, board.table.size]);
        return board.table.size - 1; // the buddy takes all but one
      },
    };
    let ctxSeen = false;
    const em = await Emulator.start(
      options(clock, new MemoryStore(), {
        ha: (ctx) => {
          ctxSeen = ctx.dataPlane.boardSlots.length === 4 && ctx.shelf.state('slot3') === 4;
          return ha;
        },
      }),
    );
    expect(ctxSeen).toBe(true);
    clock.advance(2000);
    const before = em.sampleTraffic().boards.map((b) => [b.slot, b.buckets]);
    em.commands.openHandle('slot3');
    clock.advance(3000);
    const after = new Map(em.sampleTraffic().boards.map((b) => [b.slot, b]));
    expect(handed).toHaveLength(1);
    expect(handed[0]![0]).toBe(3);
    expect(handed[0]![1]).toBeGreaterThan(1);
    expect(after.get(3)!.sessions.lost).toBe(1);
    const b = new Map(before as Array<[number, number]>);
    expect(after.get(3)!.buckets).toBe(0);
    expect(after.get(4)!.buckets).toBe(b.get(4)! + b.get(3)!); // slot3's share went to its buddy
    expect(after.get(5)!.buckets).toBe(b.get(5));
    await em.stop();
  });

  it('later starts use the stored shelf; a given config replaces it; a bad one is a ConfigError', async () => {
    const store = new MemoryStore();
    const em = await Emulator.start(options(new SimClock(), store, { traffic: false }));
    await em.stop();
    const em2 = await Emulator.start(options(new SimClock(), store, { traffic: false }));
    expect(em2.resolved.origin).toBe('stored');
    expect(em2.admin.created).toBe(false);
    await em2.stop();
    const yaml = readDefaultShelfYaml().replace('name: atcasim-default', 'name: my-shelf');
    const em3 = await Emulator.start(options(new SimClock(), store, { traffic: false, configInput: { yaml, source: 'my.yaml' } }));
    expect(em3.resolved.replaced).toBe(true);
    expect(em3.view().snapshot.shelf.name).toBe('my-shelf');
    await em3.stop();
    await expect(Emulator.start(options(new SimClock(), store, { configInput: { yaml: 'shelf: [', source: 'bad.yaml' } }))).rejects.toThrow(ConfigError);
  });

  it('stop() stops every timer and closes an owned store', async () => {
    const clock = new SimClock();
    const store = new MemoryStore();
    const em = await Emulator.start(options(clock, store, { ownsStore: true }));
    clock.advance(1000);
    await em.stop();
    await em.stop();
    expect(clock.pending()).toBe(0);
    expect(() => store.getConfig()).toThrow(/closed/);
  });
});
