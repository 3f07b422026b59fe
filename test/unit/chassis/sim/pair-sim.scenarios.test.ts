/**
 * The failover scenarios of ../shared/research/ha.md §5.3 (S01–S27, S09 in two variants), each on the
 * share lb1/slot3 (A = slot3, its home; B = slot4) unless it is about management (S27: its command
 * semantics in test/unit/chassis/model/ipmi-watchdog.test.ts), run in the pair simulation with the
 * outcome ha.md states: who ends active, within what time, sessions lost by age (no protected session
 * lost), double-active instants 0 except S24. Plus a processor-board failure, and determinism.
 *
 * Parameters (ha.md §5.1, §4.5): h = 100 ms, N = 3, D = 300 ms, W = 1 s, a = 20 ms (our
 * activation cost, ≤ 100 ms), T_s = 3 s, B = 100 ms, R = 240 s, T_settle = 2 s.
 * Faults start at T0 = 10 s, when A has been active and B hot for ~10 s with sessions of every age.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { shared } from '../../../support/shared.ts';
import { createPairSim } from '../../../../chassis/sim/pair-sim.ts';
import type { PairSimReport } from '../../../../chassis/sim/pair-sim.ts';
import {
  activeChangesAfter, activeSince, alarmActiveAt, alarmClears, alarmRaises, lostAfter, roleAt, rolesAfter, runScript, takeoversAfter,
} from '../../../support/pair-sim.ts';

const H = 100;
const D = 300;
const W = 1000;
const A_COST = 20;
const TS_B = 3100;
const T0 = 10_000;
const S = 'lb1/slot3';

/** Invariants every scenario must keep (I1/I3/I6 and the oracle), and no double active unless allowed. */
function healthy(r: PairSimReport, allowDouble = false): void {
  expect(r.invariants.violations, JSON.stringify(r.invariants.violations.slice(0, 3))).toEqual([]);
  if (!allowDouble) expect(r.doubleActive).toEqual({ episodes: 0, totalMs: 0 });
  expect(r.sessions.lostProtected).toBe(0);
  expect(r.invariants.checks).toBeGreaterThan(100);
}

/** The takeover of share S after T0 (exactly one). */
function onlyTakeover(r: PairSimReport, from = 'slot3', to = 'slot4') {
  const t = takeoversAfter(r, S, T0);
  expect(t.map((x) => `${x.from}->${x.to}`)).toEqual([`${from}->${to}`]);
  return t[0]!;
}

describe('ha.md §5.3 scenarios on lb1/slot3 (A = slot3, B = slot4)', () => {
  it('the research file lists the scenarios these tests cover', () => {
    const text = readFileSync(shared('research', 'ha.md'), 'utf8');
    for (const id of ['S01', 'S02', 'S03', 'S04', 'S05', 'S06', 'S07', 'S08', 'S09a', 'S09b', 'S10', 'S11', 'S12', 'S13', 'S14',
      'S15', 'S16', 'S17', 'S18', 'S19', 'S20', 'S21', 'S22', 'S23', 'S24', 'S25', 'S26', 'S27']) {
      expect(text).toContain(`**${id} `);
    }
  });

  it('S01 steady state, 10 min with session churn: no role change, 0 lost, the standby holds every established session', () => {
    let checked = 0;
    const { report: r } = runScript({
      actions: [],
      runMs: 600_000,
      probes: [200_000, 300_000, 500_000, 599_000].map((t) => [t, (sim) => {
        // Every live session older than T_s + B on A is in B's standby table.
        const b = sim.controller('slot4').receiver(S);
        expect(b?.complete).toBe(true);
        expect(sim.roleOf('slot4', S)).toBe('standby.hot');
        checked++;
      }] as [number, (s: import('../../../../chassis/sim/pair-sim.ts').PairSim) => void]),
    });
    expect(checked).toBe(4);
    expect(activeChangesAfter(r, S, 1000)).toBe(0);
    expect(r.shares[S]!.owner).toBe('slot3');
    expect(r.shares[S]!.roles.slot4).toBe('standby.hot');
    expect(r.takeovers.filter((t) => t.from !== null)).toEqual([]);
    expect(r.sessions.lost).toBe(0);
    expect(r.sessions.created).toBeGreaterThan(200_000);
    // Two periodic full resyncs (R = 240 s) per owner stream happened and the age filter saved traffic.
    expect(r.sync.bulkSessions).toBeGreaterThan(0);
    expect(r.sync.ageFilterReduction).toBeGreaterThan(0.25);
    healthy(r);
  });

  it('S02 planned switchover: B active within 2h + a, A ready then hot, 0 sessions lost including young ones', () => {
    const { report: r } = runScript({ actions: [[T0, 'switchover lb1/slot3']], runMs: T0 + 5000 });
    const t = onlyTakeover(r);
    expect(t.kind).toBe('planned');
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(2 * H + A_COST);
    expect(t.loss.lost).toBe(0);
    expect(r.sessions.lost).toBe(0);
    const a = rolesAfter(r, S, T0).filter((e) => e.node === 'slot3').map((e) => e.to);
    expect(a).toEqual(['active.handover', 'standby.ready', 'standby.hot']);
    expect(r.shares[S]!.owner).toBe('slot4');
    expect(activeChangesAfter(r, S, T0)).toBe(2); // A out (via handover), B in
    healthy(r);
  });

  it('S03 crash of A: B active within D + a, A reboots to standby, N_est 0 (only young sessions lost)', () => {
    const { report: r } = runScript({ actions: [[T0, 'crash slot3']], runMs: T0 + 8000 });
    const t = onlyTakeover(r);
    expect(t.kind).toBe('forced');
    expect(t.detectionMs).toBeLessThanOrEqual(D);
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(D + A_COST);
    expect(t.loss.lostEstablished).toBe(0);
    expect(t.loss.lost).toBeGreaterThan(0); // young ones (< T_s) go: reported, not targeted
    expect(t.loss.maxLostAgeMs).toBeLessThan(TS_B);
    expect(roleAt(r, 'slot3', S, T0 + 8000)).toBe('standby.hot');
    expect(rolesAfter(r, S, T0).filter((e) => e.node === 'slot3').map((e) => e.to).slice(0, 4)).toEqual(['resetting', 'booting', 'standby.ready', 'standby.hot']);
    healthy(r);
  });

  it('S04 power loss (and extraction) of A: B active within D + a, N_est 0', () => {
    for (const fault of ['power-off slot3', 'extract slot3']) {
      const { report: r } = runScript({ actions: [[T0, fault]], runMs: T0 + 3000 });
      const t = onlyTakeover(r);
      expect(t.forwardingAt - T0, fault).toBeLessThanOrEqual(D + A_COST);
      expect(t.loss.lostEstablished).toBe(0);
      expect(roleAt(r, 'slot3', S, T0 + 3000)).toBe('failed');
      expect(r.shares[S]!.owner).toBe('slot4');
      healthy(r);
    }
  });

  it('S05 A hung completely: watchdog reset at ≤ W, then ready; B active within W + h + a; N_est 0', () => {
    const { report: r } = runScript({ actions: [[T0, 'hang slot3']], runMs: T0 + 6000 });
    const wd = r.timeline.find((e) => e.type === 'watchdog' && e.node === 'slot3' && e.t >= T0)!;
    expect(wd.t - T0).toBeLessThanOrEqual(W);
    const t = onlyTakeover(r);
    expect(t.claimAt).toBeGreaterThanOrEqual(wd.t); // only after the reset dropped HEALTHY
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(W + H + A_COST);
    expect(t.detectionMs).toBeLessThanOrEqual(W + H);
    expect(t.tf).toBe(T0); // a hung node stops forwarding at once
    expect(t.loss.lostEstablished).toBe(0);
    expect(roleAt(r, 'slot3', S, T0 + 6000)).toBe('standby.hot');
    // Before the reset B only raised an alarm: the peer was silent but HEALTHY.
    expect(alarmRaises(r, 'PEER_SILENT_BUT_HEALTHY', T0, 'slot4', S).length).toBeGreaterThan(0);
    healthy(r);
  });

  it('S06 A hung but alive (arbitration stuck, data plane forwarding): reset at ≤ W, B active within W + h + a; losses only unacknowledged at the reset', () => {
    const { report: r } = runScript({ actions: [[T0, 'stall-control slot3']], runMs: T0 + 6000 });
    const t = onlyTakeover(r);
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(W + H + A_COST);
    expect(t.tf).toBeGreaterThan(T0 + 800); // it kept forwarding until the reset
    expect(t.loss.lostProtected).toBe(0);
    expect(t.loss.maxLostAgeMs).toBeLessThan(TS_B + W);
    expect(roleAt(r, 'slot3', S, T0 + 6000)).toBe('standby.hot');
    healthy(r);
  });

  it('S06 profile B (W = 2 s, 1 s pre-timeout): the pre-timeout is logged before the reset', () => {
    const { report: r } = runScript({ options: { ha: { watchdogTimeoutMs: 2000, watchdogPretimeoutMs: 1000 } }, actions: [[T0, 'stall-control slot3']], runMs: T0 + 6000 });
    const wd = r.timeline.filter((e) => e.type === 'watchdog' && e.node === 'slot3');
    expect(wd.map((e) => (e as { event: string }).event)).toEqual(['pretimeout', 'expired']);
    expect(wd[1]!.t - wd[0]!.t).toBe(1000);
    const t = onlyTakeover(r);
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(2000 + H + A_COST);
    healthy(r);
  });

  it('S07 short GC pause on A (0.5 s < W): A active throughout, B hot, alarm raised ≤ D and cleared ≤ h after A resumes', () => {
    const { report: r } = runScript({ actions: [[T0, 'pause slot3 500ms']], runMs: T0 + 5000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(r.shares[S]!.roles).toEqual({ slot3: 'active', slot4: 'standby.hot' });
    const raised = alarmRaises(r, 'PEER_SILENT_BUT_HEALTHY', T0, 'slot4', S);
    expect(raised).toHaveLength(1);
    expect(raised[0]!.t - T0).toBeLessThanOrEqual(D);
    const cleared = alarmClears(r, 'PEER_SILENT_BUT_HEALTHY', T0, 'slot4').filter((e) => e.share === S);
    expect(cleared[0]!.t - (T0 + 500)).toBeLessThanOrEqual(H);
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S08 long GC pause on A (1.5 s > W): A reset at W and never resumes as active; B active within W + h + a', () => {
    const { report: r } = runScript({ actions: [[T0, 'pause slot3 1500ms']], runMs: T0 + 6000 });
    const t = onlyTakeover(r);
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(W + H + A_COST);
    expect(t.loss.lostEstablished).toBe(0);
    const aRoles = rolesAfter(r, S, T0).filter((e) => e.node === 'slot3').map((e) => e.to);
    expect(aRoles[0]).toBe('resetting');
    expect(aRoles).not.toContain('active');
    expect(roleAt(r, 'slot3', S, T0 + 6000)).toBe('standby.hot');
    healthy(r);
  });

  it('S09a short GC pause on B (0.5 s): late timers fire on resume, HEALTHY(A) vetoes, no role change', () => {
    const { report: r } = runScript({ actions: [[T0, 'pause slot4 500ms']], runMs: T0 + 5000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(r.shares[S]!.roles).toEqual({ slot3: 'active', slot4: 'standby.hot' });
    // lb1/slot4 is B's own share: a 0.5 s pause of its owner does not fail it over either.
    expect(activeChangesAfter(r, 'lb1/slot4', T0)).toBe(0);
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S09b long GC pause on B (2 s > W): B reset by its own watchdog, back to ready then hot; A keeps lb1/slot3 with a redundancy alarm', () => {
    const { report: r } = runScript({ actions: [[T0, 'pause slot4 2s']], runMs: T0 + 8000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(r.timeline.some((e) => e.type === 'watchdog' && e.node === 'slot4' && e.event === 'expired')).toBe(true);
    expect(rolesAfter(r, S, T0).filter((e) => e.node === 'slot4').map((e) => e.to).slice(0, 4)).toEqual(['resetting', 'booting', 'standby.ready', 'standby.hot']);
    expect(alarmRaises(r, 'REDUNDANCY_LOST', T0, 'slot3', S).length).toBeGreaterThan(0);
    expect(alarmActiveAt(r, 'REDUNDANCY_LOST', 'slot3', S, T0 + 8000)).toBe(false);
    expect(lostAfter(r, S, T0)).toBe(0);
    healthy(r);
  });

  it('S10 heartbeat and sync cut both ways for 10 s: no takeover; B stale (ready) with alarms, hot again after the heal', () => {
    const { report: r } = runScript({ actions: [[T0, 'cut heartbeat lb1'], [T0, 'cut sync lb1'], [T0 + 10_000, 'restore heartbeat lb1'], [T0 + 10_000, 'restore sync lb1']], runMs: T0 + 14_000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(roleAt(r, 'slot4', S, T0 + 9000)).toBe('standby.ready');
    expect(alarmActiveAt(r, 'PEER_SILENT_BUT_HEALTHY', 'slot4', S, T0 + 9000)).toBe(true);
    expect(alarmActiveAt(r, 'REDUNDANCY_LOST', 'slot3', S, T0 + 9000)).toBe(true);
    expect(roleAt(r, 'slot4', S, T0 + 14_000)).toBe('standby.hot');
    expect(alarmActiveAt(r, 'PEER_SILENT_BUT_HEALTHY', 'slot4', S, T0 + 14_000)).toBe(false);
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S11 link cut, then A loses power: B takes over within D + a of the power loss, flagged TAKEOVER_NOT_HOT; lost only sessions after the cut or young', () => {
    const { report: r } = runScript({ actions: [[T0, 'cut heartbeat lb1'], [T0, 'cut sync lb1'], [T0 + 5000, 'power-off slot3']], runMs: T0 + 8000 });
    const t = onlyTakeover(r);
    expect(t.notHot).toBe(true);
    expect(t.forwardingAt - (T0 + 5000)).toBeLessThanOrEqual(D + A_COST);
    // L ⊆ sessions created after the cut (T0) or too young to be synced before it.
    expect(t.loss.maxLostAgeMs).toBeLessThan(5000 + TS_B + 50);
    expect(t.loss.lost).toBeGreaterThan(0);
    healthy(r);
  });

  it('S12 one-way loss A→B: no takeover (HEALTHY high); A sees "can\'t hear you"; B stale', () => {
    const { report: r } = runScript({ actions: [[T0, 'cut heartbeat lb1 one-way slot3->slot4'], [T0, 'cut sync lb1 one-way slot3->slot4']], runMs: T0 + 5000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    const alarm = alarmRaises(r, 'PEER_CANNOT_HEAR_US', T0, 'slot3', S);
    expect(alarm.length).toBeGreaterThan(0);
    expect(alarm[0]!.t - T0).toBeLessThanOrEqual(D + 2 * H);
    expect(roleAt(r, 'slot4', S, T0 + 5000)).toBe('standby.ready');
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S13 one-way loss B→A (acks lost): no role change; the resend queue grows with an alarm; B stays current through retransmits', () => {
    let resend = 0;
    let current = false;
    const { report: r } = runScript({
      actions: [[T0, 'cut heartbeat lb1 one-way slot4->slot3'], [T0, 'cut sync lb1 one-way slot4->slot3']],
      runMs: T0 + 8000,
      probes: [[T0 + 7000, (sim) => {
        resend = sim.controller('slot3').sender(S)!.resendQueueLength;
        current = sim.controller('slot4').receiver(S)!.complete;
      }]],
    });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(resend).toBeGreaterThan(10);
    expect(current).toBe(true);
    expect(roleAt(r, 'slot4', S, T0 + 8000)).toBe('standby.hot');
    expect(alarmRaises(r, 'SYNC_ACKS_LOST', T0, 'slot3', S).length).toBe(1);
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S14 delayed heartbeats: 250 ms (< D) and 1 s (> D) raise alarms at most, never a takeover', () => {
    const { report: r } = runScript({
      actions: [[T0, 'delay heartbeat lb1 250ms'], [T0 + 10_000, 'delay heartbeat lb1 1s'], [T0 + 20_000, 'restore heartbeat lb1']],
      runMs: T0 + 25_000,
    });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    // Phase 1 in steady state: no alarm on B.
    expect(alarmActiveAt(r, 'PEER_SILENT_BUT_HEALTHY', 'slot4', S, T0 + 5000)).toBe(false);
    // Phase 2 raises it.
    expect(alarmRaises(r, 'PEER_SILENT_BUT_HEALTHY', T0 + 10_000, 'slot4', S).length).toBeGreaterThan(0);
    expect(r.shares[S]!.roles).toEqual({ slot3: 'active', slot4: 'standby.hot' });
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S15 flapping link (200 ms up / 200 ms down for 30 s): no role change, alarms no faster than the flap, B hot once stable and resynced', () => {
    const { report: r } = runScript({
      actions: [[T0, 'flap heartbeat lb1 200ms'], [T0, 'flap sync lb1 200ms'], [T0 + 30_000, 'restore heartbeat lb1'], [T0 + 30_000, 'restore sync lb1']],
      runMs: T0 + 40_000,
    });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    const windows = 30_000 / 400;
    expect(alarmRaises(r, 'PEER_SILENT_BUT_HEALTHY', T0, 'slot4', S).length).toBeLessThanOrEqual(windows);
    expect(roleAt(r, 'slot4', S, T0 + 40_000)).toBe('standby.hot');
    expect(alarmActiveAt(r, 'PEER_SILENT_BUT_HEALTHY', 'slot4', S, T0 + 40_000)).toBe(false);
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S16 both boards power on together: A (home) active, never two; exactly one ACTIVE within T_settle + h; B ready then hot', () => {
    const { report: r } = runScript({
      options: { initial: { poweredOff: ['slot3', 'slot4'] } },
      actions: [[1000, 'power-on slot3'], [1000, 'power-on slot4']],
      runMs: 6000,
    });
    const aActive = activeSince(r, 'slot3', S, 1000)!;
    expect(aActive - 1000).toBeLessThanOrEqual(2000 + H);
    expect(rolesAfter(r, S, 1000).filter((e) => e.node === 'slot4').map((e) => e.to)).toEqual(['booting', 'arbitrating', 'standby.ready', 'standby.hot']);
    expect(r.shares[S]!.owner).toBe('slot3');
    expect(r.shares['lb1/slot4']!.owner).toBe('slot4');
    healthy(r);
  });

  it('S17 both boot with the heartbeat link down: hardware tie-break makes A active; B stays ready (no bulk without heartbeats), alarm', () => {
    const { report: r } = runScript({
      options: { initial: { poweredOff: ['slot3', 'slot4'], cut: ['heartbeat lb1'] } },
      actions: [[1000, 'power-on slot3'], [1000, 'power-on slot4']],
      runMs: 20_000,
    });
    expect(r.shares[S]!.owner).toBe('slot3');
    expect(r.shares[S]!.roles.slot4).toBe('standby.ready');
    expect(activeChangesAfter(r, S, 1500)).toBe(0);
    expect(alarmActiveAt(r, 'PEER_SILENT_BUT_HEALTHY', 'slot4', S, 20_000)).toBe(true);
    healthy(r);
  });

  it('S18 wall-clock steps (+1 h on A, −1 h on B) and NTP slew: no role change, no session lost or expired', () => {
    const { report: base } = runScript({ actions: [], runMs: T0 + 20_000 });
    const { report: r } = runScript({
      actions: [[T0, 'clock-jump slot3 +1h'], [T0 + 5000, 'clock-jump slot4 -1h'], [T0 + 10_000, 'ntp-slew slot3 500'], [T0 + 10_000, 'ntp-slew slot4 -500']],
      runMs: T0 + 20_000,
    });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(r.shares[S]!.roles).toEqual({ slot3: 'active', slot4: 'standby.hot' });
    expect(r.sessions.lost).toBe(0);
    // The same traffic as without the clock faults: nothing refused, nothing expired early.
    expect(r.sessions.refusedFlows).toBe(base.sessions.refusedFlows);
    expect(r.sessions.ended).toBe(base.sessions.ended);
    healthy(r);
  });

  it('S19 standby power cycle: A keeps lb1/slot3 (alarm, then clear); B absent → ready → hot; 0 lost on lb1/slot3', () => {
    const { report: r } = runScript({ actions: [[T0, 'power-off slot4'], [T0 + 60_000, 'power-on slot4']], runMs: T0 + 65_000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(alarmActiveAt(r, 'REDUNDANCY_LOST', 'slot3', S, T0 + 30_000)).toBe(true);
    expect(alarmActiveAt(r, 'REDUNDANCY_LOST', 'slot3', S, T0 + 65_000)).toBe(false);
    expect(roleAt(r, 'slot4', S, T0 + 30_000)).toBe('failed');
    const hot = rolesAfter(r, S, T0 + 60_000).find((e) => e.node === 'slot4' && e.to === 'standby.hot')!;
    expect(hot.t - (T0 + 60_000)).toBeLessThan(240_000);
    expect(lostAfter(r, S, T0)).toBe(0);
    // B's own share moved to its buddy while B was off (processor pairs are dual-active).
    expect(takeoversAfter(r, 'lb1/slot4', T0).map((t) => `${t.from}->${t.to}`)).toEqual(['slot4->slot3']);
    healthy(r);
  });

  it('S20 A fails while a rejoined B is still ready (bulk half done): B takes over within D + a, TAKEOVER_NOT_HOT; only undelivered sessions lost', () => {
    let delivered = 0;
    let live = 0;
    const { report: r } = runScript({
      options: { ha: { syncBulkBytesPerSec: 15_000 } },
      actions: [[T0 - 3000, 'power-off slot4'], [T0 - 1000, 'power-on slot4'], [T0 + 1000, 'crash slot3']],
      runMs: T0 + 4000,
      probes: [[T0 + 999, (sim) => {
        delivered = sim.controller('slot4').receiver(S)!.stats.records;
        live = sim.liveSessions(S);
        expect(sim.roleOf('slot4', S)).toBe('standby.ready');
      }]],
    });
    const t = onlyTakeover(r);
    expect(t.notHot).toBe(true);
    expect(t.forwardingAt - (T0 + 1000)).toBeLessThanOrEqual(D + A_COST);
    expect(delivered).toBeGreaterThan(0); // part of the bulk arrived …
    expect(t.loss.lost).toBeGreaterThan(0); // … the rest is lost
    expect(t.loss.lost).toBeLessThan(live);
    // B was recovering (a second fault): the oracle protected nothing it did not hold.
    expect(t.faultsAtTf).toBeGreaterThanOrEqual(2);
    expect(t.loss.lostProtected).toBe(0);
    healthy(r);
  });

  it('S21 uplink failure on A: A hands over cooperatively within 2h + a; 0 lost', () => {
    const { report: r } = runScript({ actions: [[T0, 'cut uplink slot3']], runMs: T0 + 5000 });
    const t = onlyTakeover(r);
    expect(t.kind).toBe('planned');
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(2 * H + A_COST);
    expect(t.loss.lost).toBe(0);
    expect(roleAt(r, 'slot3', S, T0 + 5000)).toBe('standby.hot');
    expect(alarmActiveAt(r, 'UPLINK_DOWN', 'slot3', S, T0 + 5000)).toBe(true);
    healthy(r);
  });

  it('S22 A\'s HEALTHY stuck low, heartbeats normal: no takeover, B raises HW_SW_DISAGREE', () => {
    const { report: r } = runScript({ actions: [[T0, 'stick-healthy slot3 low']], runMs: T0 + 5000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(alarmActiveAt(r, 'HW_SW_DISAGREE', 'slot4', S, T0 + 5000)).toBe(true);
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S23 stuck HEALTHY plus heartbeat partition, interlock on: the rule says take over, the interlock refuses; no role change', () => {
    const { report: r } = runScript({ actions: [[T0, 'stick-healthy slot3 low'], [T0 + 1000, 'cut heartbeat lb1']], runMs: T0 + 8000 });
    expect(activeChangesAfter(r, S, T0)).toBe(0);
    expect(r.shares[S]!.owner).toBe('slot3');
    expect(alarmActiveAt(r, 'PEER_SILENT_BUT_HEALTHY', 'slot4', S, T0 + 8000)).toBe(false); // HEALTHY reads low
    expect(r.sessions.lost).toBe(0);
    healthy(r);
  });

  it('S24 as S23 with the interlock off: two actives during the split only, single active within h of the heal, A demotes (lower epoch)', () => {
    const { report: r } = runScript({
      actions: [[T0 - 100, 'interlock off'], [T0, 'stick-healthy slot3 low'], [T0 + 1000, 'cut heartbeat lb1'], [T0 + 5000, 'restore heartbeat lb1']],
      runMs: T0 + 9000,
    });
    const episodes = r.timeline.filter((e) => e.type === 'double-active' && e.share === S);
    expect(episodes).toHaveLength(1);
    const ep = episodes[0] as { t: number; until: number };
    expect(ep.t).toBeGreaterThan(T0 + 1000);
    expect(ep.until - (T0 + 5000)).toBeLessThanOrEqual(H);
    expect(r.shares[S]!.owner).toBe('slot4');
    expect(r.shares[S]!.epochs.slot4).toBeGreaterThan(r.shares[S]!.epochs.slot3!);
    expect(rolesAfter(r, S, T0 + 5000).find((e) => e.node === 'slot3')!.to).toBe('standby.ready');
    expect(activeChangesAfter(r, S, T0)).toBe(2);
    // L = sessions A created during the split that B could not have: none established.
    expect(lostAfter(r, S, T0, 'lostEstablished')).toBe(0);
    expect(r.invariants.violations).toEqual([]); // I1 may fail only with the interlock off, as here
    healthy(r, true);
  });

  it('S25 blue/green upgrade: B upgraded and rejoins hot, planned switchovers both ways, traffic shifted 10 → 50 → 100 %; an incompatible version stays ready and is refused', () => {
    const t = 20_000;
    const { report: r } = runScript({
      actions: [
        [T0, 'shift lb1/slot4 0'], [T0 + 100, 'switchover lb1/slot4'], // drain B's share to A
        [T0 + 1000, 'upgrade slot4 1.1'],
        [t, 'switchover lb1/slot3'], // B (1.1) takes A's share
        [t + 1000, 'switchover lb1/slot4'], // and its own back
        [t + 2000, 'upgrade slot3 1.1'],
        [t + 10_000, 'switchover lb1/slot3'], // A back home, both on 1.1
        [t + 11_000, 'shift lb1/slot4 10'], [t + 16_000, 'shift lb1/slot4 50'], [t + 21_000, 'shift lb1/slot4 100'],
        [t + 24_000, 'switchover lb1/slot4'], // drain B before its next upgrade
        [t + 25_000, 'upgrade slot4 2.0'], // incompatible major
        [t + 30_000, 'switchover lb1/slot3'],
      ],
      runMs: t + 35_000,
    });
    const planned = r.takeovers.filter((x) => x.from !== null);
    expect(planned.every((x) => x.kind === 'planned')).toBe(true);
    expect(planned.map((x) => `${x.share}:${x.from}->${x.to}`)).toEqual([
      'lb1/slot4:slot4->slot3', 'lb1/slot3:slot3->slot4', 'lb1/slot4:slot3->slot4', 'lb1/slot3:slot4->slot3', 'lb1/slot4:slot4->slot3',
    ]);
    // Each upgraded board rejoined and became hot (same major) before it was switched to.
    for (const node of ['slot3', 'slot4']) {
      const hb = rolesAfter(r, S, T0).filter((e) => e.node === node).map((e) => e.to);
      expect(hb).toContain('resetting');
      expect(hb).toContain('standby.hot');
    }
    expect(r.sessions.lost).toBe(0);
    // The incompatible B (2.0) stays ready and the switchover to it is refused.
    expect(roleAt(r, 'slot4', S, t + 35_000)).toBe('standby.ready');
    const refused = r.timeline.find((e) => e.type === 'action' && e.text === 'switchover lb1/slot3' && e.t === t + 30_000)!;
    expect(refused).toMatchObject({ ok: false });
    expect((refused as { error: string }).error).toMatch(/incompatible_version/);
    expect(r.alarms.VERSION_MISMATCH).toBeGreaterThan(0);
    healthy(r);
  });

  it('S26 lossy sync link (5 % loss, 20 ms jitter) for 60 s, then A crashes: B active, N_est 0 (retransmissions)', () => {
    const { report: r } = runScript({
      actions: [[T0, 'lossy sync lb1 5%'], [T0, 'jitter sync lb1 20ms'], [T0 + 60_000, 'restore sync lb1'], [T0 + 61_000, 'crash slot3']],
      runMs: T0 + 64_000,
    });
    expect(r.sync.retransmits).toBeGreaterThan(0);
    const t = onlyTakeover(r);
    expect(t.forwardingAt - (T0 + 61_000)).toBeLessThanOrEqual(D + A_COST);
    expect(t.loss.lostEstablished).toBe(0);
    expect(t.loss.lagMs).toBe(0);
    healthy(r);
  });

  it('processor-board failure: slot3 fails, its share moves to its buddy slot4, which then owns both; no protected session lost', () => {
    const { report: r } = runScript({ actions: [[T0, 'fail slot3'], [T0 + 10_000, 'repair slot3']], runMs: T0 + 15_000 });
    const t = onlyTakeover(r);
    expect(t.forwardingAt - T0).toBeLessThanOrEqual(D + A_COST);
    expect(t.loss.lostProtected).toBe(0);
    expect(t.loss.lostEstablished).toBe(0);
    expect(r.shares[S]!.owner).toBe('slot4');
    expect(r.shares['lb1/slot4']!.owner).toBe('slot4');
    expect(roleAt(r, 'slot3', S, T0 + 5000)).toBe('failed');
    expect(roleAt(r, 'slot3', S, T0 + 15_000)).toBe('standby.hot'); // repaired: back as the buddy's standby, no preemption
    healthy(r);
  });

  it('shelf managers: a hung active ShMC is reset by its watchdog and the other takes over within W + h + a; a cut heartbeat link alone never does', () => {
    const { report: r } = runScript({ actions: [[T0, 'hang shmc-a'], [T0 + 20_000, 'cut heartbeat shmc']], runMs: T0 + 30_000 });
    const t = takeoversAfter(r, 'shmc', T0);
    expect(t.map((x) => `${x.from}->${x.to}`)).toEqual(['shmc-a->shmc-b']);
    expect(t[0]!.forwardingAt - T0).toBeLessThanOrEqual(W + H + A_COST);
    // After the cut the standby hears no heartbeats but its sync stream is intact: it stays hot, never active.
    expect(roleAt(r, 'shmc-a', 'shmc', T0 + 30_000)).toBe('standby.hot');
    expect(alarmActiveAt(r, 'PEER_SILENT_BUT_HEALTHY', 'shmc-a', 'shmc', T0 + 30_000)).toBe(true);
    healthy(r);
  });
});

describe('pair simulation properties', () => {
  it('is deterministic: the same seed and script give an identical report; another seed differs', () => {
    const script = (seed: number) => {
      const sim = createPairSim({ seed });
      sim.apply('crash slot3', 5000);
      sim.apply('lossy sync lb1 3%', 6000);
      sim.apply('hang shmc-a', 7000);
      sim.run(15_000);
      const json = JSON.stringify(sim.report());
      sim.dispose();
      return json;
    };
    const a = script(42);
    expect(script(42)).toBe(a);
    expect(script(43)).not.toBe(a);
  });

  it('the test-only switch that drops the interlock guard makes two owners reachable, and the audit reports it (2 actions)', () => {
    const script = { actions: [[T0, 'stick-healthy slot3 low'], [T0 + 1000, 'cut heartbeat lb1']] as Array<[number, string]>, runMs: T0 + 3000 };
    const { report: bad } = runScript({ ...script, options: { unsafeNoInterlockGuard: true } });
    expect(bad.invariants.violations.map((v) => v.invariant)).toContain('single-owner');
    expect(bad.doubleActive.episodes).toBeGreaterThan(0);
    const { report: good } = runScript(script); // S23: the guard holds
    expect(good.invariants.violations).toEqual([]);
  });

  it('runs through the wire codecs too (every heartbeat and sync datagram encoded and decoded)', () => {
    const { report: r } = runScript({ options: { wire: true }, actions: [[T0, 'crash slot3']], runMs: T0 + 3000 });
    const t = onlyTakeover(r);
    expect(t.loss.lostEstablished).toBe(0);
    healthy(r);
  });

  it('rejects unknown names and past times with a clear error, and records refusals at run time', () => {
    const sim = createPairSim({ seed: 1 });
    expect(() => sim.apply('crash slot9')).toThrow(/unknown node "slot9"/);
    expect(() => sim.apply('cut heartbeat lb7')).toThrow(/unknown pair or share "lb7"/);
    expect(() => sim.apply('shift shmc 10')).toThrow(/carries no traffic/);
    sim.apply('switchover lb1/slot3', 100); // nothing is active yet at 100 ms
    sim.run(1000);
    expect(() => sim.apply('crash slot3', 500)).toThrow(/in the past/);
    expect(sim.events.find((e) => e.type === 'action')).toMatchObject({ ok: false });
    sim.dispose();
  });

  it('blue/green shift: a share keeps the stated part of its new flows, its buddy takes the rest; established flows drain', () => {
    const sim = createPairSim({ seed: 5, pairs: [{ name: 'lb1', kind: 'processor', members: ['slot3', 'slot4'] }] });
    sim.run(60_000);
    const before = { a: sim.liveSessions('lb1/slot3'), b: sim.liveSessions('lb1/slot4') };
    sim.apply('shift lb1/slot4 0');
    sim.run(120_000);
    expect(sim.liveSessions('lb1/slot4')).toBeLessThan(before.b * 0.05);
    expect(sim.liveSessions('lb1/slot3') / before.a).toBeGreaterThan(1.7);
    sim.apply('shift lb1/slot4 50');
    sim.run(180_000);
    const ratio = sim.liveSessions('lb1/slot4') / sim.liveSessions('lb1/slot3');
    expect(ratio).toBeGreaterThan(0.25);
    expect(ratio).toBeLessThan(0.45); // 0.5 of B's flows vs 1.5 on A: 1/3
    expect(sim.report().sessions.lost).toBe(0);
    sim.dispose();
  });

  it('reports the sync volume, and the age filter saves what the duration distribution predicts', () => {
    const median = 5000;
    const sigma = 1.2;
    const { report: r } = runScript({ options: { pairs: [{ name: 'lb1', kind: 'processor', members: ['slot3', 'slot4'] }], traffic: { flowsPerSec: 500, durationMedianMs: median, durationSigma: sigma } }, actions: [], runMs: 120_000 });
    // Sessions shorter than T_s never sync: P(D < T_s) for a log-normal duration = Φ(ln(T_s / median) / σ).
    const z = Math.log(3000 / median) / sigma;
    const phi = 0.5 * (1 + erf(z / Math.SQRT2));
    expect(r.sync.ageFilterReduction).toBeGreaterThan(phi - 0.05);
    expect(r.sync.ageFilterReduction).toBeLessThan(phi + 0.05);
    expect(r.sync.filteredSessions / r.sessions.created).toBeCloseTo(phi, 1);
    expect(r.sync.bytes / r.sync.datagrams).toBeLessThanOrEqual(1472);
    expect(r.sync.incrementalSessions).toBeGreaterThan(0);
    expect(r.sync.deletes).toBeGreaterThan(0);
  });

  it('a crash is detected within 3 heartbeat intervals over many seeds (the README figure)', () => {
    let worst = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const { report: r } = runScript({ seed, options: { traffic: false }, actions: [[T0 + seed * 37, 'crash shmc-a']], runMs: T0 + 2000 });
      const t = takeoversAfter(r, 'shmc', T0)[0]!;
      worst = Math.max(worst, t.detectionIntervals);
    }
    expect(worst).toBeLessThanOrEqual(3);
    expect(worst).toBeGreaterThan(1.5);
  });
});

/** Error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7). */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}
