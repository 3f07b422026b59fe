/**
 * Which FRUs are out of service, since when and why — planned (a handle opened, Set FRU
 * Activation from the shelf manager, a programmatic deactivation) or unplanned (a fault, a
 * surprise extraction, lost communication) — and how many times each happened since start.
 * Fed with the shelf's `hotswap` events (the composition subscribes it); read by
 * `atcasim status` (./status-snapshot.ts). Pure: times come with the events.
 */
import type { HotSwapCause } from '../model/hot-swap.ts';

/** The hot-swap causes of a planned leave from M4 (PICMG 3.0 §3.2.4.2: operator or shelf manager asked). */
export const PLANNED_LEAVE: ReadonlySet<HotSwapCause> = new Set<HotSwapCause>(['handle', 'shelfManager', 'programmatic']);

/** One FRU out of service. */
export interface OutOfService {
  fru: string;
  planned: boolean;
  /** The cause of the leave from M4 (hot-swap cause name). */
  cause: HotSwapCause;
  /** Clock ms of the leave. */
  since: number;
}

/** See the module comment. */
export class ServiceLog {
  private readonly out = new Map<string, OutOfService>();
  /** Leaves from M4 since start. */
  planned = 0;
  unplanned = 0;

  /** A hot-swap transition (the shelf's `hotswap` event). */
  onHotSwap(e: { at: number; fru: string; from: number; to: number; cause: HotSwapCause }): void {
    if (e.to === 4) {
      this.out.delete(e.fru);
      return;
    }
    if (e.from !== 4) return;
    const planned = PLANNED_LEAVE.has(e.cause);
    if (planned) this.planned++;
    else this.unplanned++;
    this.out.set(e.fru, { fru: e.fru, planned, cause: e.cause, since: e.at });
  }

  /** FRUs out of service now (left M4 since start and not back), in the order they left. */
  current(): OutOfService[] {
    return [...this.out.values()];
  }
}
