/**
 * The port through which the shelf tells the data plane which boards may carry traffic. A board carries
 * traffic only in M4 (docs/shelf.md "Hot-swap states M0–M7"): when it leaves M4 its hub ports leave the
 * ECMP group and its buckets move to the other boards (to its buddy once HA is wired, which also hands
 * its sessions over); the data plane reports how many sessions were lost, and the shelf counts them.
 * The composition root implements this over the real boards; NullDataPlane serves tests and shelves
 * without a data plane.
 */

/** What the data plane reports when a board's service state changes. */
export interface ServiceChange {
  /** Sessions the board held that no other board took over (0 when entering service, or when HA
   * handed them to the buddy). */
  sessionsLost: number;
}

export interface DataPlanePort {
  /**
   * The board in logical slot `slot` (a hub or a processor board) starts (true) or stops (false)
   * carrying traffic. Called on every M4 entry/exit, on payload resets, and once per board when the
   * shelf is created (with the board's current state). Must not throw for a known slot.
   */
  setInService(slot: number, inService: boolean): ServiceChange;
}

/**
 * A data plane that only remembers: which slots are in service, every call made, and a settable
 * session count per slot that is reported as lost when the slot leaves service.
 */
export class NullDataPlane implements DataPlanePort {
  readonly inService = new Map<number, boolean>();
  readonly calls: Array<{ slot: number; inService: boolean; sessionsLost: number }> = [];
  private readonly sessions = new Map<number, number>();

  /** Sessions the board in `slot` holds (reported lost, then zeroed, when it leaves service). */
  setSessions(slot: number, n: number): void {
    this.sessions.set(slot, n);
  }

  setInService(slot: number, inService: boolean): ServiceChange {
    const wasIn = this.inService.get(slot) ?? false;
    this.inService.set(slot, inService);
    let sessionsLost = 0;
    if (wasIn && !inService) {
      sessionsLost = this.sessions.get(slot) ?? 0;
      this.sessions.set(slot, 0);
    }
    this.calls.push({ slot, inService, sessionsLost });
    return { sessionsLost };
  }
}
