/**
 * The data plane skips its flow-set probe for a packet whose session carries the stamp of the
 * current routing (DataPlane.deliver). These tests run real captures through two identical data
 * planes, one of them with the shortcut switched off (every packet probes, as before the
 * shortcut existed), apply the same routing changes to both mid-run, and require every flow
 * count — total, per hub, per board, per hub port — to be equal.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PacketView } from '../../../../board/packet/flow-tuple.ts';
import { loadDefaultShelf } from '../../../../chassis/io/data-dir.ts';
import type { ShelfConfig } from '../../../../chassis/config/types.ts';
import type { DataPlane } from '../../../../chassis/dataplane/data-plane.ts';
import type { FlowStamps } from '../../../../chassis/dataplane/flow-stamps.ts';
import { memoryInput, TrafficSource, type PacketSink } from '../../../../chassis/dataplane/traffic.ts';
import { sharedCaptures } from '../../../support/shared.ts';
import { packet, ACK } from '../../../support/processor-packets.ts';
import { BUNDLED, makePlane } from './fixture.ts';

type Change = (dp: DataPlane) => void;

/** Every flow count of a stats snapshot, as one comparable object. */
function flowCounts(dp: DataPlane): unknown {
  const s = dp.stats(0);
  return {
    total: s.totals.flows,
    packets: s.totals.packets,
    hubs: s.hubs.map((h) => ({ slot: h.slot, flows: h.flows, ports: h.ports.map((p) => [p.port, p.flows, p.packets]) })),
    boards: s.boards.map((b) => [b.slot, b.flows, b.packets, b.sessions.created]),
  };
}

/** Replays `files` (loops × each) through a stamped and an unstamped plane, applying `changes`
 * (by packet index) to both; compares the counts after every change and at the end. */
function compare(files: string[], loops: number, changes: Map<number, Change>, config?: ShelfConfig, capacity = 8192): { packets: number; flows: number; stamped: number; stampedRef: number } {
  const a = makePlane({ sessionCapacity: capacity }, config ?? loadDefaultShelf()).dp;
  const b = makePlane({ sessionCapacity: capacity }, config ?? loadDefaultShelf()).dp;
  // the reference: no stamps, one probe per packet
  (b as unknown as { stampFlows: boolean }).stampFlows = false;
  let i = 0;
  const sink: PacketSink = {
    deliver(pkt: PacketView, now: number): number {
      const change = changes.get(i++);
      if (change) {
        expect(flowCounts(a)).toEqual(flowCounts(b));
        change(a);
        change(b);
      }
      const sa = a.deliver(pkt, now);
      const sb = b.deliver(pkt, now);
      expect(sa).toBe(sb);
      return sa;
    },
  };
  const src = new TrafficSource({ inputs: files.map((f) => memoryInput(f, readFileSync(f))), sink, loops });
  src.runAll();
  expect(flowCounts(a)).toEqual(flowCounts(b));
  const s = a.stats(0);
  return { packets: s.totals.packets, flows: s.totals.flows, stamped: stamped(a), stampedRef: stamped(b) };
}

/** Live sessions that carry a stamp, over all boards. */
function stamped(dp: DataPlane): number {
  const stamps = (dp as unknown as { stamps: FlowStamps[] }).stamps;
  let n = 0;
  dp.boards.forEach((board, bi) => board.table.forEach((e) => (n += stamps[bi]!.get(e) !== 0 ? 1 : 0)));
  return n;
}

/** Routing changes of every kind, spread over the first `n` packets. */
function allChanges(n: number): Map<number, Change> {
  const at = (f: number) => Math.floor(n * f);
  return new Map<number, Change>([
    [at(0.05), (dp) => dp.setInService(4, false)],
    [at(0.1), (dp) => dp.setInService(4, true)],
    [at(0.15), (dp) => dp.hub(1).setLink(5, false)],
    [at(0.2), (dp) => dp.hub(1).setLink(5, true)],
    [at(0.25), (dp) => dp.setInService(2, false)],
    [at(0.3), (dp) => dp.setInService(2, true)],
    [at(0.35), (dp) => dp.group.moveShare(3, 6)],
    [at(0.4), (dp) => dp.group.restoreShare(3)],
    [at(0.45), (dp) => dp.group.shift(5, 6, 0.5)],
    [at(0.5), (dp) => dp.group.shift(5, 6, 0)],
    [at(0.55), (dp) => dp.hub(2).setActive(false)],
    [at(0.6), (dp) => dp.hub(2).setActive(true)],
    [at(0.65), (dp) => dp.setInService(6, false)],
    [at(0.7), (dp) => dp.hub(1).setLink(3, false)],
    [at(0.75), (dp) => dp.setInService(6, true)],
    [at(0.8), (dp) => dp.hub(1).setLink(3, true)],
  ]);
}

describe('DataPlane flow counts with session stamps', () => {
  it('equal one probe per packet on the bundled capture, two loops, through every kind of routing change', () => {
    const r = compare([BUNDLED], 2, allChanges(40_000));
    expect(r.packets).toBe(40_000);
    expect(r.flows).toBeGreaterThan(1000);
    // the shortcut was in use (live sessions stamped), the reference never stamps
    expect(r.stamped).toBeGreaterThan(100);
    expect(r.stampedRef).toBe(0);
  });

  it('equal one probe per packet on every shared capture (tunnels, ICMP errors, fragments, IPv6, non-IP)', () => {
    const files = sharedCaptures().filter((f) => !/invalid-version|empty\.pcapng/.test(f));
    const r = compare(files, 2, allChanges(3000));
    expect(r.packets).toBeGreaterThan(3000);
  });

  it('equal one probe per packet with tiny session tables (evictions, reused entries)', () => {
    const r = compare([BUNDLED], 2, allChanges(40_000), undefined, 64);
    expect(r.stamped).toBeGreaterThan(0);
  });

  it('equal one probe per packet when the hash is not symmetric (no stamps used)', () => {
    const cfg = loadDefaultShelf();
    const asym: ShelfConfig = { ...cfg, dataplane: { ...cfg.dataplane, ecmp: { ...cfg.dataplane.ecmp, symmetric: false } } };
    const r = compare([BUNDLED], 1, allChanges(20_000), asym);
    expect(r.stamped).toBe(0);
  });
});

/**
 * Long-lived conversations (every one has packets in every phase, both directions): a change
 * moves some of them elsewhere, the revert brings them back to boards that still hold their
 * sessions — exactly where a stale stamp would hide a count. One run per kind of change.
 */
describe('DataPlane flow counts with session stamps, per kind of routing change', () => {
  const flows = Array.from({ length: 300 }, (_, k) => {
    const c = `10.${(k >> 8) & 255}.${k & 255}.${(k * 7) & 255}`;
    const sport = 20000 + k;
    return k % 3 === 2
      ? [packet({ src: c, dst: '192.0.2.53', proto: 17, sport, dport: 53 }), packet({ src: '192.0.2.53', dst: c, proto: 17, sport: 53, dport: sport })]
      : [packet({ src: c, dst: '192.0.2.80', sport, dport: 80, flags: ACK }), packet({ src: '192.0.2.80', dst: c, sport: 80, dport: sport, flags: ACK })];
  });
  const kinds: Array<[string, Change, Change]> = [
    ['a processor board out of service and back', (dp) => dp.setInService(4, false), (dp) => dp.setInService(4, true)],
    ['a hub link down and up', (dp) => dp.hub(1).setLink(5, false), (dp) => dp.hub(1).setLink(5, true)],
    ['a hub out of service and back (data plane)', (dp) => dp.setInService(2, false), (dp) => dp.setInService(2, true)],
    ['a hub inactive and back (the hub alone)', (dp) => dp.hub(2).setActive(false), (dp) => dp.hub(2).setActive(true)],
    ['a share moved to its buddy and back', (dp) => dp.group.moveShare(3, 4), (dp) => dp.group.restoreShare(3)],
    ['half a share shifted and back', (dp) => dp.group.shift(5, 6, 0.5), (dp) => dp.group.shift(5, 6, 0)],
  ];
  for (const [name, change, revert] of kinds) {
    it(name, () => {
      const a = makePlane({}).dp;
      const b = makePlane({}).dp;
      (b as unknown as { stampFlows: boolean }).stampFlows = false;
      let now = 0;
      const round = () => {
        for (const pair of flows) {
          for (const p of pair) {
            expect(a.deliver(p, now)).toBe(b.deliver(p, now));
          }
        }
        now += 10;
      };
      for (let r = 0; r < 3; r++) round();
      for (const step of [change, revert, change, revert]) {
        step(a);
        step(b);
        for (let r = 0; r < 3; r++) round();
        expect(flowCounts(a)).toEqual(flowCounts(b));
      }
      expect(stamped(a)).toBeGreaterThan(100);
    });
  }
});
