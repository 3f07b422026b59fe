/**
 * Helpers for the HA scenario tests: run a pair simulation with a script and read its report.
 */
import { createPairSim } from '../../chassis/sim/pair-sim.ts';
import type { PairSim, PairSimOptions, PairSimReport, TakeoverReport, TimelineEntry } from '../../chassis/sim/pair-sim.ts';
import type { WireRole } from '../../chassis/ha/heartbeat.ts';

/** A scripted run: actions at absolute simulated times (ms). */
export interface Script {
  seed?: number;
  options?: Omit<PairSimOptions, 'seed'>;
  actions: Array<[number, string]>;
  runMs: number;
  /** Inspect the sim at given times (ms), before the report. */
  probes?: Array<[number, (sim: PairSim) => void]>;
}

/** Runs a script and returns the sim (still inspectable) and its report. */
export function runScript(s: Script): { sim: PairSim; report: PairSimReport } {
  const sim = createPairSim({ seed: s.seed ?? 7, ...(s.options ?? {}) });
  for (const [at, text] of s.actions) sim.apply(text, at);
  const probes = [...(s.probes ?? [])].sort((a, b) => a[0] - b[0]);
  for (const [at, fn] of probes) {
    sim.run(at);
    fn(sim);
  }
  sim.run(s.runMs);
  const report = sim.report();
  sim.dispose();
  return { sim, report };
}

/** Role of `node` for `share` at time t (from the timeline). */
export function roleAt(r: PairSimReport, node: string, share: string, t: number): WireRole | 'none' {
  let role: WireRole | 'none' = 'none';
  for (const e of r.timeline) {
    if (e.t > t) break;
    if (e.type === 'role' && e.node === node && e.share === share) role = e.to;
  }
  return role;
}

/** Role entries of a share after t. */
export function rolesAfter(r: PairSimReport, share: string, t: number): Array<Extract<TimelineEntry, { type: 'role' }>> {
  return r.timeline.filter((e): e is Extract<TimelineEntry, { type: 'role' }> => e.type === 'role' && e.share === share && e.t >= t);
}

/** Changes into or out of 'active' for a share after t (the "role changes" of ha.md §5.3). */
export function activeChangesAfter(r: PairSimReport, share: string, t: number): number {
  return rolesAfter(r, share, t).filter((e) => e.to === 'active' || e.from === 'active' || e.from === 'active.handover').filter((e) => !(e.from === 'active' && e.to === 'active.handover')).length;
}

/** Distinct owner changes (takeovers/handovers) of a share after t. */
export function takeoversAfter(r: PairSimReport, share: string, t: number): TakeoverReport[] {
  return r.takeovers.filter((x) => x.share === share && x.claimAt >= t);
}

/** First time at or after t when `node` is active for `share`. */
export function activeSince(r: PairSimReport, node: string, share: string, t: number): number | null {
  if (roleAt(r, node, share, t) === 'active') return t;
  const e = rolesAfter(r, share, t).find((x) => x.node === node && x.to === 'active');
  return e ? e.t : null;
}

/** Alarm raises of a given name after t (optionally for a node). */
export function alarmRaises(r: PairSimReport, alarm: string, t: number, node?: string, share?: string): Array<Extract<TimelineEntry, { type: 'alarm' }>> {
  return r.timeline.filter((e): e is Extract<TimelineEntry, { type: 'alarm' }> =>
    e.type === 'alarm' && e.alarm === alarm && e.raised && e.t >= t && (node === undefined || e.node === node) && (share === undefined || e.share === share));
}

/** Alarm clears of a given name after t. */
export function alarmClears(r: PairSimReport, alarm: string, t: number, node?: string): Array<Extract<TimelineEntry, { type: 'alarm' }>> {
  return r.timeline.filter((e): e is Extract<TimelineEntry, { type: 'alarm' }> =>
    e.type === 'alarm' && e.alarm === alarm && !e.raised && e.t >= t && (node === undefined || e.node === node));
}

/** Whether an alarm is raised for node/share at time t. */
export function alarmActiveAt(r: PairSimReport, alarm: string, node: string, share: string, t: number): boolean {
  let on = false;
  for (const e of r.timeline) {
    if (e.t > t) break;
    if (e.type === 'alarm' && e.alarm === alarm && e.node === node && e.share === share) on = e.raised;
  }
  return on;
}

/** Sum of a loss field over a share's takeovers after t. */
export function lostAfter(r: PairSimReport, share: string, t: number, field: 'lost' | 'lostProtected' | 'lostEstablished' = 'lost'): number {
  return takeoversAfter(r, share, t).reduce((s, x) => s + x.loss[field], 0);
}
