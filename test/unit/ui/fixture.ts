/**
 * A real emulator in simulated time (MemoryStore, SimClock, the default shelf, the bundled
 * capture at 20,000 packets/s, 4,096 sessions per board) for the view-model and keymap tests:
 * their inputs are the emulator's own view bundle, not hand-made snapshots.
 */
import { readFileSync } from 'node:fs';
import { captureLogger } from '../../../board/common/logger.ts';
import { SeededRandom } from '../../../board/common/random.ts';
import { SimClock } from '../../../board/common/sim-clock.ts';
import { memoryInput } from '../../../chassis/dataplane/traffic.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../../chassis/persistence/store.ts';
import { BUNDLED_CAPTURE_PATH } from '../../../chassis/runtime/assets.ts';
import { Emulator } from '../../../chassis/runtime/emulator.ts';
import type { UiState } from '../../../ui/view-model.ts';

/** Starts the fixture emulator and lets `warmMs` of simulated traffic run. */
export async function simEmulator(warmMs = 3000): Promise<{ em: Emulator; clock: SimClock }> {
  const clock = new SimClock();
  const em = await Emulator.start({
    platform: { clock, log: captureLogger(), random: new SeededRandom(3), cryptoRandom: (n) => new Uint8Array(n).fill(1) },
    store: new MemoryStore(),
    ownsStore: true,
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 5, 1, 12, 0, 0),
    sessionCapacity: 4096,
    admin: { password: 'fixture-pass-1' },
    traffic: { inputs: [memoryInput('bundled', readFileSync(BUNDLED_CAPTURE_PATH))], label: 'bundled', pacing: { mode: 'rate', pps: 20_000 } },
  });
  clock.advance(warmMs);
  return { em, clock };
}

/** A UI state at 80×24 with slot3 selected. */
export function ui(over: Partial<UiState> = {}): UiState {
  return { selected: 'slot3', width: 80, height: 24, help: false, detailScroll: 0, ...over };
}
