// Test fixture: a Shelf on the default shelf (or a given YAML) in simulated time, with a
// recording data plane and a capturing logger.
import { captureLogger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { SimClock } from '../../board/common/sim-clock.ts';
import { parseShelfConfig } from '../../chassis/config/shelf-config.ts';
import type { ShelfConfig } from '../../chassis/config/types.ts';
import { readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { NullDataPlane } from '../../chassis/model/data-plane-port.ts';
import type { ChassisEvent } from '../../chassis/model/events.ts';
import { Shelf } from '../../chassis/model/shelf.ts';
import { MemoryStore, type Store } from '../../chassis/persistence/store.ts';
import { seededCryptoRandom } from '../../chassis/platform.ts';

/** The default shelf YAML with `edit` applied to its text. */
export function defaultConfig(edit: (yaml: string) => string = (y) => y): ShelfConfig {
  return parseShelfConfig(edit(readDefaultShelfYaml()), 'default-shelf.yaml');
}

export interface Rig {
  shelf: Shelf;
  clock: SimClock;
  store: Store;
  dp: NullDataPlane;
  events: ChassisEvent[];
  log: ReturnType<typeof captureLogger>;
  /** Advance simulated time by ms. */
  run(ms: number): void;
  /** Texts of the SEL records added since the rig was built (or since `mark`). */
  selSince(mark?: number): string[];
  mark(): number;
}

export function rig(opts: { config?: ShelfConfig; store?: Store; clock?: SimClock; dp?: NullDataPlane } = {}): Rig {
  const clock = opts.clock ?? new SimClock();
  const store = opts.store ?? new MemoryStore();
  const dp = opts.dp ?? new NullDataPlane();
  const log = captureLogger();
  const shelf = Shelf.open({ config: opts.config ?? defaultConfig(), platform: { clock, log, random: new SeededRandom(7), cryptoRandom: seededCryptoRandom(new SeededRandom(7)) }, store, dataPlane: dp });
  const events: ChassisEvent[] = [];
  shelf.onAny((e) => events.push(e));
  const start = shelf.sel.records().length;
  return {
    shelf,
    clock,
    store,
    dp,
    events,
    log,
    run: (ms) => clock.advance(ms),
    mark: () => shelf.sel.records().length,
    selSince: (mark = start) => shelf.sel.records().slice(mark).map((r) => shelf.sel.describe(r)),
  };
}
