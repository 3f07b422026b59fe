/**
 * Scheduler factory: builds a Scheduler by its configuration name (VirtualServiceConfig.scheduler).
 */
import type { SchedulerFlag, SchedulerName } from '../processor-config.ts';
import type { Scheduler } from './scheduler.ts';
import { RrScheduler } from './rr.ts';
import { WrrScheduler } from './wrr.ts';
import { LcScheduler } from './lc.ts';
import { WlcScheduler } from './wlc.ts';
import { SourceHashScheduler } from './source-hash.ts';
import { MaglevScheduler } from './maglev.ts';
import { DynamicScheduler } from './dynamic.ts';

export type { PoolView, Scheduler } from './scheduler.ts';
export type { SchedulerFlag } from '../processor-config.ts';

/** Options for schedulers that take any. */
export interface SchedulerOptions {
  /** Maglev table size (prime), default 65537. */
  maglevTableSize?: number;
  /** Scheduler flags (ipvsadm -b): `sh-fallback`, `sh-port` (only `sh` reads them). When
   * undefined, `sh` has `sh-fallback` on. */
  flags?: readonly SchedulerFlag[];
}

/** Scheduler flags of ipvsadm(8) `-b` that the shelf knows. */
export const SCHEDULER_FLAGS: readonly SchedulerFlag[] = ['sh-fallback', 'sh-port'];

/** Names createScheduler accepts. */
export const SCHEDULER_NAMES: readonly SchedulerName[] = ['rr', 'wrr', 'lc', 'wlc', 'sh', 'maglev', 'dynamic'];

/**
 * A new scheduler instance. Call `rebuild(pool)` before the first `pick`.
 * @throws TypeError on an unknown name; RangeError on a bad maglev table size
 */
export function createScheduler(name: SchedulerName, opts: SchedulerOptions = {}): Scheduler {
  switch (name) {
    case 'rr': return new RrScheduler();
    case 'wrr': return new WrrScheduler();
    case 'lc': return new LcScheduler();
    case 'wlc': return new WlcScheduler();
    case 'sh': return new SourceHashScheduler(opts.flags === undefined || opts.flags.includes('sh-fallback'), opts.flags?.includes('sh-port') === true);
    case 'maglev': return new MaglevScheduler(opts.maglevTableSize);
    case 'dynamic': return new DynamicScheduler();
    default: throw new TypeError(`unknown scheduler '${String(name)}' (one of ${SCHEDULER_NAMES.join(', ')})`);
  }
}
