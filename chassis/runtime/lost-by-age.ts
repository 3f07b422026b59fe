/**
 * Sessions lost since start, split by their age when the old owner stopped forwarding (t_f):
 * young (younger than T_s + B, which sync could not yet have protected) and established. One
 * definition for the status view, the TUI and the stats line (docs/ha.md "Lost sessions").
 */
import type { LostItem } from '../ha/ha-fabric.ts';
import type { LostByAge } from './ha-seam.ts';

/** Counts lost sessions by age cohort. */
export class LostByAgeCounter {
  private young = 0;
  private established = 0;

  /** @param establishedMs the age boundary T_s + B, ms (Infinity while no HA is configured) */
  constructor(private readonly establishedMs: () => number) {}

  /** Counts `items` by their age at `tf` (ms, the HA clock). @returns the items, unchanged */
  count(items: LostItem[], tf: number): LostItem[] {
    const est = this.establishedMs();
    for (const it of items) {
      if (tf - it.createdAt >= est) this.established += it.sessions;
      else this.young += it.sessions;
    }
    return items;
  }

  /** @returns the counts since start and the boundary, ms */
  snapshot(): LostByAge {
    return { young: this.young, established: this.established, establishedMs: this.establishedMs() };
  }
}
