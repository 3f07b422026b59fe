/**
 * The headless mode's periodic JSON stats line (`"event":"stats"`, every `--stats-interval`) and
 * the fields of the `ready` line, built from the emulator's view bundle. Pure. Field names are
 * snake_case like `atcasim replay --json`; rates in packets/s, counts since start.
 */
import type { EmulatorView } from './view.ts';

/** Fields of a stats line (documented in docs/start.md). */
export interface StatsLine {
  event: 'stats';
  /** Seconds since the emulator started. */
  uptime_s: number;
  /** Shelf-wide packets/s over the data plane's rate window, and totals since start. */
  pps: number;
  packets: number;
  flows: number;
  dropped: number;
  /** Live sessions over all processor boards, their total capacity, and sessions lost so far. */
  sessions: { active: number; capacity: number; lost: number };
  /** Processor boards by logical slot: M-state, in service, packets/s, live sessions, and its HA role in each share (`{"lb1/slot3":"active","lb1/slot4":"standby.hot"}`; `{}` without HA). */
  boards: Array<{ slot: number; state: string; in_service: boolean; pps: number; sessions: number; ha: Record<string, string> }>;
  /** The shelf managers' HA roles (`{"shmc-a":"active","shmc-b":"standby.hot"}`; `{}` without HA). */
  shmc_roles: Record<string, string>;
  /** Hub boards by logical slot. */
  hubs: Array<{ slot: number; state: string; in_service: boolean; pps: number }>;
  sel: { entries: number; capacity: number; overflow: boolean };
  /** The ShMC answering the shelf-manager address, or null. */
  shmc: string | null;
  /** Completed loops over the capture (null without traffic). */
  loops: number | null;
}

/**
 * Builds a stats line.
 * @param uptimeMs time since start, ms
 */
export function statsLine(v: EmulatorView, uptimeMs: number): StatsLine {
  const s = v.snapshot;
  const t = v.traffic;
  const rolesOf = (node: string): Record<string, string> => Object.fromEntries(v.ha.filter((m) => m.node === node).map((m) => [m.share, m.role]));
  const stateOf = (slot: number) => s.frus.find((f) => f.slot === slot)?.stateLabel ?? 'M0';
  return {
    event: 'stats',
    uptime_s: Math.round(uptimeMs / 100) / 10,
    pps: Math.round(t?.totals.pps ?? 0),
    packets: t?.totals.packets ?? 0,
    flows: t?.totals.flows ?? 0,
    dropped: t?.totals.dropped ?? 0,
    sessions: { active: t?.totals.sessions.active ?? 0, capacity: t?.totals.sessions.capacity ?? 0, lost: t?.totals.sessions.lost ?? 0 },
    boards: (t?.boards ?? []).map((b) => ({ slot: b.slot, state: stateOf(b.slot), in_service: b.inService, pps: Math.round(b.pps), sessions: b.sessions.active, ha: rolesOf(`slot${b.slot}`) })),
    shmc_roles: Object.fromEntries(v.ha.filter((m) => m.share === 'shmc').map((m) => [m.node, m.role])),
    hubs: (t?.hubs ?? []).map((h) => ({ slot: h.slot, state: stateOf(h.slot), in_service: h.inService, pps: Math.round(h.pps) })),
    sel: { entries: s.sel.entries, capacity: s.sel.capacity, overflow: s.sel.overflow },
    shmc: s.shelf.activeShmc ?? null,
    loops: v.source ? v.source.loops : null,
  };
}
