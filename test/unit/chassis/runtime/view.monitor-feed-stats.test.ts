/**
 * What the front ends read from a running emulator, in simulated time: the traffic monitor's
 * sampling and history, the event feed (SEL with sources, clear/delete, bounded), and the
 * headless stats line built from the view bundle.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { memoryInput } from '../../../../chassis/dataplane/traffic.ts';
import type { DataPlaneStats } from '../../../../chassis/dataplane/types.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { BUNDLED_CAPTURE_PATH } from '../../../../chassis/runtime/assets.ts';
import { Emulator } from '../../../../chassis/runtime/emulator.ts';
import { EventFeed } from '../../../../chassis/runtime/event-feed.ts';
import { statsLine } from '../../../../chassis/runtime/stats-line.ts';
import { TrafficMonitor } from '../../../../chassis/runtime/traffic-monitor.ts';

let em: Emulator;
const clock = new SimClock();

beforeAll(async () => {
  em = await Emulator.start({
    platform: { clock, log: captureLogger(), random: new SeededRandom(9), cryptoRandom: (n) => new Uint8Array(n) },
    store: new MemoryStore(),
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 2048,
    admin: { password: 'monitor-pass-1' },
    traffic: { inputs: [memoryInput('bundled', readFileSync(BUNDLED_CAPTURE_PATH))], label: 'bundled', pacing: { mode: 'rate', pps: 8000 } },
  });
});
afterAll(async () => {
  await em?.stop();
});

describe('TrafficMonitor', () => {
  it('samples once per period and keeps a bounded history per slot', () => {
    let calls = 0;
    const fake = {
      stats: (now?: number): DataPlaneStats =>
        ({
          atMs: now ?? 0,
          totals: { pps: ++calls * 10 },
          hubs: [{ slot: 1, pps: calls }],
          boards: [{ slot: 3, pps: calls * 2 }],
        }) as unknown as DataPlaneStats,
    };
    const c = new SimClock();
    const m = new TrafficMonitor(fake, c, { sampleMs: 100, historyLength: 3 });
    expect(calls).toBe(1); // the first sample at construction
    m.start();
    c.advance(450);
    expect(m.samples).toBe(4);
    expect(m.history().get(3)).toEqual([6, 8, 10]);
    expect(m.totalHistory()).toEqual([30, 40, 50]);
    m.stop();
    c.advance(1000);
    expect(m.samples).toBe(4);
    expect(() => new TrafficMonitor(fake, c, { sampleMs: 0 })).toThrow(TypeError);
  });

  it('in the emulator: one sample a second, per-board history', () => {
    clock.advance(5000);
    const v = em.view();
    expect(v.history.get(3)?.length).toBeGreaterThanOrEqual(4);
    expect(v.history.get(3)!.at(-1)).toBeGreaterThan(0);
    expect(v.totalHistory.at(-1)).toBeGreaterThan(5000);
  });
});

describe('EventFeed', () => {
  it('starts with the SEL so far and follows it with sources', () => {
    const entries = em.view().events;
    expect(entries).toHaveLength(13); // power-up records of a new database
    expect(entries.map((e) => e.source)).toEqual(['shmc-a', 'shmc-b', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6', 'fan1', 'fan2', 'fan3', 'pem1', 'pem2']);
    expect(entries[4]).toMatchObject({ recordId: 5, mState: 4, text: 'FRU Hot Swap Node3 HotSwap | Transition to M4 | Asserted', deasserted: false, sensorType: 0xf0 });
    em.commands.injectFault('slot4');
    const last = em.view().events.slice(-2);
    expect(last[0]).toMatchObject({ source: 'slot4', sensorType: 0x15, text: expect.stringContaining('Transition to Critical') });
    expect(last[1]).toMatchObject({ source: 'slot4', mState: 6 });
    clock.advance(1500); // M6 -> M1, then the repair asks for activation again
    em.commands.repair('slot4');
  });

  it('is bounded and follows clear', () => {
    const feed = new EventFeed(em.shelf, 5);
    expect(feed.entries()).toHaveLength(5);
    const seq = feed.seq;
    em.shelf.sel.clear();
    expect(feed.entries()).toHaveLength(0);
    expect(feed.seq).toBeGreaterThan(seq);
    em.commands.openHandle('slot6');
    expect(feed.entries().map((e) => e.mState)).toEqual([5]);
    feed.close();
    clock.advance(3000);
    expect(feed.entries()).toHaveLength(1);
  });
});

describe('statsLine', () => {
  it('carries totals, boards, hubs, SEL, ShMC and loops with snake_case fields', () => {
    clock.advance(4000);
    em.sampleTraffic();
    const s = statsLine(em.view(), 12_345);
    expect(s.event).toBe('stats');
    expect(s.uptime_s).toBe(12.3);
    expect(s.pps).toBeGreaterThan(0);
    expect(s.sessions.capacity).toBe(4 * 2048);
    expect(s.boards.map((b) => [b.slot, b.state, b.in_service])).toEqual([
      [3, 'M4', true],
      [4, 'M4', true],
      [5, 'M4', true],
      [6, 'M1', false],
    ]);
    expect(s.boards.find((b) => b.slot === 6)!.pps).toBe(0);
    expect(s.hubs.map((h) => h.slot)).toEqual([1, 2]);
    expect(s.sel).toMatchObject({ capacity: 4096, overflow: false });
    expect(s.shmc).toBe('shmc-a');
    expect(s.loops).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});
