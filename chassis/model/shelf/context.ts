/**
 * What the Shelf hands each of its parts: the configuration, the clock, the store, the logger, the
 * event sink every part announces through, and the FRUs. A part holds one concept (hot swap, power,
 * LEDs, ports, fans, payload, sensors, SEL, SDR, FRU data, chassis, roles) and reaches the others
 * only through what its constructor is given.
 */
import type { Clock } from '../../../board/common/clock.ts';
import type { Logger } from '../../../board/common/logger.ts';
import type { ShelfConfig } from '../../config/types.ts';
import type { Store } from '../../persistence/store.ts';
import type { ChassisEventEmitter } from '../events.ts';
import type { ShelfFrus } from './frus.ts';

export interface ShelfContext {
  readonly config: ShelfConfig;
  /** Simulated or wall-clock time (ms); every timer of the shelf runs on it. */
  readonly clock: Clock;
  /** Where the shelf's state is committed before a command returns. */
  readonly store: Store;
  readonly log: Logger;
  /** The event sink (ChassisEvents). */
  readonly events: ChassisEventEmitter;
  readonly frus: ShelfFrus;
}
