/**
 * SYNC_ACKS_LOST (ha.md S13: the owner's resend queue grows because the standby's ACKs do not come
 * back) must be raised only when acknowledgements really stop coming — not at every periodic full
 * resync (R = 240 s) of a healthy pair, whose burst of datagrams after a quiet spell (nothing to
 * acknowledge, so no ACKs) used to look like "no ACK for longer than T_stale". Runs the pair
 * simulation in simulated time over three or more full-resync periods, with a one-way loss of the
 * ACKs (B → A) as the control.
 */
import { describe, expect, it } from 'vitest';
import type { PairSim } from '../../../../chassis/sim/pair-sim.ts';
import { alarmRaises, runScript } from '../../../support/pair-sim.ts';

const R = 240_000;
const T_STALE = 1000;

type Probe = [number, (sim: PairSim) => void];

/** Full resyncs the owner of `share` has started so far. */
function fullResyncs(sim: PairSim, owner: string, share: string): number {
  return sim.controller(owner).sender(share)?.stats.fullResyncs ?? 0;
}

describe('SYNC_ACKS_LOST at full resyncs', () => {
  it('a healthy pair with idle shares raises no SYNC_ACKS_LOST over 3 full resync periods (R = 240 s)', () => {
    const seen: number[] = [];
    const { report: r } = runScript({
      options: { traffic: false },
      actions: [],
      runMs: 3 * R + 10_000,
      probes: [[3 * R + 5000, (sim) => seen.push(fullResyncs(sim, 'shmc-a', 'shmc'), fullResyncs(sim, 'slot3', 'lb1/slot3'))]],
    });
    // the periodic resyncs did run (each one is a burst of datagrams after a spell without ACKs)
    expect(seen).toEqual([3, 3]);
    expect(r.shares['shmc']!.owner).toBe('shmc-a');
    expect(alarmRaises(r, 'SYNC_ACKS_LOST', 0)).toEqual([]);
  });

  it('with sessions and a short resync period (R = 20 s, 4 periods) the bulk of each resync raises nothing either', () => {
    const probes: Probe[] = [];
    let resyncs = 0;
    probes.push([85_000, (sim) => (resyncs = fullResyncs(sim, 'slot3', 'lb1/slot3'))]);
    const { report: r } = runScript({
      options: { ha: { syncFullResyncMs: 20_000 } },
      actions: [],
      runMs: 90_000,
      probes,
    });
    expect(resyncs).toBe(4);
    expect(r.sync.bulkSessions).toBeGreaterThan(0);
    expect(alarmRaises(r, 'SYNC_ACKS_LOST', 0)).toEqual([]);
  });

  it('control: ACKs lost one way (B → A) on the idle ShMC share just before a resync: raised T_stale after the burst, not at it', () => {
    const cutAt = 3 * R - 5000;
    const { report: r } = runScript({
      options: { traffic: false },
      actions: [[cutAt, 'cut sync shmc one-way shmc-b->shmc-a']],
      runMs: 3 * R + 10_000,
    });
    const raises = alarmRaises(r, 'SYNC_ACKS_LOST', 0, 'shmc-a', 'shmc');
    expect(raises.length).toBe(1);
    // the third resync starts at 3R (+ boot offset); the alarm comes T_stale after it, within a data tick
    expect(raises[0]!.t).toBeGreaterThan(3 * R + T_STALE);
    expect(raises[0]!.t).toBeLessThanOrEqual(3 * R + T_STALE + 500);
    expect(alarmRaises(r, 'SYNC_ACKS_LOST', 0).filter((e) => e.t < cutAt)).toEqual([]);
  });

  it('control: ha.md S13 with sessions (ACKs B → A lost after 3 healthy resync periods): raised within T_stale + 1 s, once', () => {
    const T0 = 3 * R + 10_000;
    const { report: r } = runScript({
      actions: [[T0, 'cut heartbeat lb1 one-way slot4->slot3'], [T0, 'cut sync lb1 one-way slot4->slot3']],
      runMs: T0 + 8000,
    });
    const raises = alarmRaises(r, 'SYNC_ACKS_LOST', 0, 'slot3', 'lb1/slot3');
    expect(raises.length).toBe(1);
    expect(raises[0]!.t).toBeGreaterThan(T0);
    expect(raises[0]!.t - T0).toBeLessThanOrEqual(T_STALE + 1000);
    expect(alarmRaises(r, 'SYNC_ACKS_LOST', 0).filter((e) => e.t < T0)).toEqual([]);
  });
});
