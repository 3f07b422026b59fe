/**
 * The shelf's data plane (chassis/dataplane/data-plane.ts) over the default shelf and real
 * captures: hub choice, a processor board leaving service (its flows move, the others' do not,
 * its sessions are counted lost), buddy failover, the HA handover hook, a hub leaving service
 * (traffic continues through the other hub with no session lost), flow counting against an
 * independent key set, RS table / session listing / weights / events, rate window.
 */
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { FLOW_KEY_BYTES, writeFlowKey } from '../../../../board/switch/field-select.ts';
import { formatRsTable, imbalance, symmetricHash } from '../../../../chassis/dataplane/data-plane.ts';
import { RateWindow } from '../../../../chassis/dataplane/rate-window.ts';
import { DATAPLANE_DROP_REASONS, type DataPlaneEvent } from '../../../../chassis/dataplane/types.ts';
import { shared } from '../../../support/shared.ts';
import { BUNDLED, makePlane, replayFile, tap } from './fixture.ts';

const key = new Uint8Array(FLOW_KEY_BYTES);
function flowId(t: Parameters<typeof writeFlowKey>[0]): string | null {
  const n = writeFlowKey(t, key);
  return n > 0 ? Buffer.from(key.subarray(0, n)).toString('hex') : null;
}

describe('DataPlane basics', () => {
  it('builds the default shelf: hubs 1-2, boards 3-6, one ECMP group, every board in service', () => {
    const { dp } = makePlane();
    expect(dp.hubSlots).toEqual([1, 2]);
    expect(dp.boardSlots).toEqual([3, 4, 5, 6]);
    expect(dp.hubs[0]!.group).toBe(dp.group);
    expect(dp.hubs[1]!.group).toBe(dp.group);
    for (const s of [1, 2, 3, 4, 5, 6]) expect(dp.isInService(s)).toBe(true);
    expect(dp.sessionCapacity).toBe(8192);
    const st = dp.stats(0);
    expect(Object.keys(st.drops)).toEqual([...DATAPLANE_DROP_REASONS]);
    expect(st.boards.map((b) => b.buckets)).toEqual([1024, 1024, 1024, 1024]);
  });

  it('counts every packet once and flows as distinct direction-insensitive keys (independent oracle)', () => {
    const { dp } = makePlane();
    const flows = new Set<string>();
    const perBoard = new Map<number, Set<string>>();
    const n = replayFile(shared('pcap', 'tcpreplay__test.pcap'), tap(dp, (_i, slot, pkt) => {
      const id = flowId(pkt.outer);
      if (id === null) return;
      flows.add(id);
      if (slot >= 0) {
        if (!perBoard.has(slot)) perBoard.set(slot, new Set());
        perBoard.get(slot)!.add(id);
      }
    }));
    const st = dp.stats(0);
    expect(st.totals.packets).toBe(n);
    expect(st.totals.flows).toBe(flows.size);
    for (const b of st.boards) expect(b.flows).toBe(perBoard.get(b.slot)?.size ?? 0);
    expect(st.hubs.reduce((s, h) => s + h.packets, 0)).toBe(n);
    expect(st.boards.reduce((s, b) => s + b.packets, 0)).toBe(n);
    expect(st.totals.forwarded + st.totals.dropped).toBe(n);
    // ports: per hub, flows by port add up to the hub's flows (no flow moved)
    for (const h of st.hubs) expect(h.ports.reduce((s, p) => s + p.flows, 0)).toBe(h.flows);
    expect(st.imbalance).toBeCloseTo(imbalance(st.boards.map((b) => b.flows)), 12);
  });

  it('both directions of a conversation enter the same hub (symmetric ingress hash)', () => {
    const { dp } = makePlane();
    const hubOf = new Map<string, number>();
    let before = [0, 0];
    replayFile(BUNDLED, tap(dp, (_i, _slot, pkt) => {
      const id = flowId(pkt.outer)!;
      const now = dp.hubs.map((h) => h.counters().packets);
      const hub = now[0]! > before[0]! ? 1 : 2;
      before = now;
      const seen = hubOf.get(id);
      if (seen === undefined) hubOf.set(id, hub);
      else expect(hub).toBe(seen);
    }));
    const st = dp.stats(0);
    // both hubs carry traffic
    expect(st.hubs[0]!.flows).toBeGreaterThan(st.totals.flows / 4);
    expect(st.hubs[1]!.flows).toBeGreaterThan(st.totals.flows / 4);
    expect(st.hubs[0]!.flows + st.hubs[1]!.flows).toBe(st.totals.flows);
  });

  it('a fixed ingress hub takes everything while in service, the other hub when it is not', () => {
    const { dp } = makePlane({ ingress: 2 });
    replayFile(shared('pcap', 'zeek__wikipedia.pcap'), dp);
    let st = dp.stats(0);
    expect(st.hubs[0]!.packets).toBe(0);
    expect(st.hubs[1]!.packets).toBe(st.totals.packets);
    dp.setInService(2, false);
    replayFile(shared('pcap', 'zeek__wikipedia.pcap'), dp);
    st = dp.stats(0);
    expect(st.hubs[0]!.packets).toBe(st.totals.packets / 2);
    expect(() => makePlane({ ingress: 4 })).toThrow(/not a hub/);
  });

  it('unknown slots are refused with CommandError(no_such_board)', () => {
    const { dp } = makePlane();
    expect(() => dp.setInService(9, false)).toThrow(CommandError);
    try {
      dp.setInService(9, false);
    } catch (e) {
      expect((e as CommandError).code).toBe('no_such_board');
    }
    expect(() => dp.board(1)).toThrow(/no processor board/);
    expect(() => dp.hub(3)).toThrow(/no hub board/);
  });

  it('symmetricHash is direction-insensitive and spreads', () => {
    const { dp } = makePlane();
    const seen = new Set<number>();
    replayFile(shared('pcap', 'zeek__wikipedia.pcap'), tap(dp, (_i, _s, pkt) => {
      const h = symmetricHash(pkt);
      expect(h).toBeGreaterThanOrEqual(0);
      expect(h).toBeLessThan(2 ** 30);
      const t = pkt.outer;
      if (t.family !== 0) {
        const s = Uint8Array.from(t.src);
        t.src.set(t.dst);
        t.dst.set(s);
        const sp = t.sport;
        t.sport = t.dport;
        t.dport = sp;
        expect(symmetricHash(pkt)).toBe(h);
        seen.add(h & 1);
      }
    }));
    expect(seen.size).toBe(2);
  });
});

describe('a processor board leaving service', () => {
  function run(opts: { buddyFailover?: boolean; handover?: (slot: number) => number } = {}) {
    const { dp } = makePlane({ ...(opts.buddyFailover ? { buddyFailover: true } : {}), ...(opts.handover ? { handover: opts.handover } : {}) });
    const events: DataPlaneEvent[] = [];
    dp.on('board.service', (e) => events.push(e));
    const boardOf = new Map<string, number>();
    const moved = new Map<string, number>();
    let heldBefore = -1;
    let lost = -1;
    let cut = -1;
    const FAIL_AT = 10_000;
    replayFile(BUNDLED, tap(dp, (i, slot, pkt) => {
      const id = flowId(pkt.outer)!;
      if (i < FAIL_AT) {
        if (!boardOf.has(id)) boardOf.set(id, slot);
      } else {
        expect(slot).not.toBe(3);
        const was = boardOf.get(id);
        if (was !== undefined && was !== 3) expect(slot, 'a flow of another board moved').toBe(was);
        if (was === 3) moved.set(id, slot);
      }
      if (i === FAIL_AT - 1) {
        heldBefore = dp.board(3).table.size;
        cut = dp.stats(0).boards[0]!.packets;
        lost = dp.setInService(3, false).sessionsLost;
      }
    }));
    return { dp, events, moved, heldBefore, lost, cut };
  }

  it('leaves the ECMP group at once: its flows move to the others, no other flow moves, its sessions are lost', () => {
    const { dp, events, moved, heldBefore, lost, cut } = run();
    expect(heldBefore).toBeGreaterThan(0);
    expect(lost).toBe(heldBefore);
    expect(dp.group.isUp(3)).toBe(false);
    const st = dp.stats(0);
    const b3 = st.boards[0]!;
    expect(b3.inService).toBe(false);
    expect(b3.packets).toBe(cut);
    expect(b3.sessions.active).toBe(0);
    expect(b3.sessions.lost).toBe(heldBefore);
    expect(b3.buckets).toBe(0);
    expect(st.totals.sessions.lost).toBe(heldBefore);
    expect(st.drops.no_member_up).toBe(0);
    // its flows that went on after the cut were spread over the three others
    expect(moved.size).toBeGreaterThan(10);
    expect(new Set(moved.values())).toEqual(new Set([4, 5, 6]));
    expect(events).toEqual([expect.objectContaining({ type: 'board.service', slot: 3, kind: 'processor', inService: false, sessionsLost: heldBefore, bucketsMoved: 1024 })]);
    // back in service: its buckets return
    expect(dp.setInService(3, true).sessionsLost).toBe(0);
    expect(dp.stats(0).boards[0]!.buckets).toBe(1024);
    expect(dp.setInService(3, true).sessionsLost).toBe(0);
  });

  it('with buddy failover its buckets all go to its HA buddy (lb1: slot3 -> slot4)', () => {
    const { moved } = run({ buddyFailover: true });
    expect(moved.size).toBeGreaterThan(10);
    expect(new Set(moved.values())).toEqual(new Set([4]));
  });

  it('the handover hook reduces the sessions counted lost', () => {
    const { heldBefore, lost } = run({ handover: () => 5 });
    expect(lost).toBe(heldBefore - 5);
  });
});

describe('a hub leaving service', () => {
  it('traffic continues through the other hub: every packet reaches the same board, no session lost', () => {
    const base = makePlane().dp;
    const ref: number[] = [];
    replayFile(BUNDLED, tap(base, (_i, slot) => ref.push(slot)));
    const { dp } = makePlane();
    let lost = -1;
    replayFile(BUNDLED, tap(dp, (i, slot) => {
      expect(slot).toBe(ref[i]);
      if (i === 7000) lost = dp.setInService(1, false).sessionsLost;
    }));
    expect(lost).toBe(0);
    const a = base.stats(0);
    const b = dp.stats(0);
    expect(b.totals.sessions.created).toBe(a.totals.sessions.created);
    expect(b.totals.sessions.active).toBe(a.totals.sessions.active);
    expect(b.totals.flows).toBe(a.totals.flows);
    expect(b.totals.dropped).toBe(0);
    expect(b.hubs[0]!.inService).toBe(false);
    expect(b.hubs[1]!.packets).toBeGreaterThan(a.hubs[1]!.packets);
    expect(b.hubs[0]!.packets + b.hubs[1]!.packets).toBe(b.totals.packets);
  });

  it('with no hub in service every packet is dropped as hub_down', () => {
    const { dp } = makePlane({ initiallyOutOfService: [1, 2] });
    const n = replayFile(shared('pcap', 'zeek__tcp.pcap'), dp);
    const st = dp.stats(0);
    expect(st.drops.hub_down).toBe(n);
    expect(st.totals.dropped).toBe(n);
    expect(st.boards.every((b) => b.packets === 0)).toBe(true);
    expect(st.totals.flows).toBe(1);
  });

  it('with no processor board in service the hubs drop as no_member_up', () => {
    const { dp } = makePlane({ initiallyOutOfService: [3, 4, 5, 6] });
    const n = replayFile(shared('pcap', 'zeek__tcp.pcap'), dp);
    expect(dp.stats(0).drops.no_member_up).toBe(n);
  });
});

describe('reports, weights and events', () => {
  it('rsTable is ipvsadm-like and setWeight 0 drains an RS on every board', () => {
    const { dp } = makePlane();
    dp.setWeight('any-ipv4', 'rs1', 0);
    replayFile(BUNDLED, dp);
    for (const slot of dp.boardSlots) {
      const t = dp.rsTable(slot);
      expect(t.services.map((s) => s.name)).toEqual(['any-ipv4', 'any-ipv6']);
      const v4 = t.services[0]!;
      expect(v4).toMatchObject({ protocol: 'ANY', vip: '0.0.0.0/0', port: 0, scheduler: 'dynamic', alarm: false, liveShare: 1 });
      const rs1 = v4.realServers[0]!;
      expect(rs1).toMatchObject({ name: 'rs1', address: '10.200.0.1', weight: 0, effectiveWeight: 0, active: 0, inactive: 0, health: 'up', packets: 0, forward: 'GRE' });
      expect(v4.realServers.slice(1).reduce((s, r) => s + r.active + r.inactive, 0)).toBeGreaterThan(0);
    }
    const text = formatRsTable(dp.rsTable(3));
    expect(text).toContain('Prot LocalAddress:Port Scheduler Flags');
    expect(text).toMatch(/^ANY {2}0\.0\.0\.0\/0:0 dynamic$/m);
    // ipvsadm -Ln's columns (Forward Weight ActiveConn InActConn), then effective weight and health apart
    expect(text).toMatch(/^ {2}-> RemoteAddress:Port {11}Forward Weight ActiveConn InActConn$/m);
    expect(text).toMatch(/^ {2}-> 10\.200\.0\.1 {19}GRE {5}0 {6}0 {10}0$/m);
    expect(text).toMatch(/^ {2}-> 10\.200\.0\.1 +0 +up$/m);
    expect(() => dp.setWeight('any-ipv4', 'nope', 1)).toThrow(CommandError);
    expect(() => dp.setWeight('any-ipv4', 'rs1', -1)).toThrow(/weight/);
  });

  it('sessions(slot, n) lists live sessions for a console', () => {
    const { dp } = makePlane();
    replayFile(shared('pcap', 'zeek__wikipedia.pcap'), dp);
    const all = dp.boardSlots.flatMap((s) => dp.sessions(s, 1000, 1e9));
    expect(all.length).toBe(dp.stats(0).totals.sessions.active);
    const few = dp.sessions(dp.boardSlots.find((s) => dp.board(s).table.size > 2)!, 2, 1e9);
    expect(few).toHaveLength(2);
    for (const s of all) {
      expect(['tcp', 'udp']).toContain(s.protocol);
      expect(s.client).toMatch(/^(\d+\.){3}\d+:\d+$|^\[[0-9a-f:]+\]:\d+$/);
      expect(s.service).toMatch(/^any-ipv[46]$/);
      expect(s.rs).toMatch(/^rs[1-8]$/);
      expect(s.ageMs).toBeGreaterThanOrEqual(s.idleMs);
    }
    expect(dp.sessions(3, 0)).toEqual([]);
  });

  it('RS health failures surface as typed rs.down and pool.alarm.raised events; listeners unsubscribe', () => {
    const { dp } = makePlane();
    const alarms: Array<{ slot: number; service: string; liveShare: number }> = [];
    const downs: string[] = [];
    const off = dp.on('pool.alarm.raised', (e) => alarms.push({ slot: e.slot, service: e.service, liveShare: e.liveShare }));
    dp.on('rs.down', (e) => downs.push(`${e.slot}/${e.rs}`));
    dp.tick(0);
    const b = dp.board(5);
    for (const rs of ['rs1', 'rs2', 'rs3', 'rs4', 'rs5']) b.setFailing('any-ipv4', rs, true);
    for (let t = 0; t <= 30_000; t += 500) dp.tick(t);
    expect(downs.sort()).toEqual(['5/rs1', '5/rs2', '5/rs3', '5/rs4', '5/rs5']);
    expect(alarms).toEqual([{ slot: 5, service: 'any-ipv4', liveShare: 3 / 8 }]);
    expect(dp.stats(30_000).boards[2]!.alarms).toEqual(['any-ipv4']);
    expect(dp.rsTable(5).services[0]!.alarm).toBe(true);
    off();
    dp.board(6).setFailing('any-ipv4', 'rs1', true);
    for (const rs of ['rs2', 'rs3', 'rs4', 'rs5']) dp.board(6).setFailing('any-ipv4', rs, true);
    for (let t = 30_000; t <= 60_000; t += 500) dp.tick(t);
    expect(alarms).toHaveLength(1);
    expect(downs).toHaveLength(10);
  });

  it('packets/s over the sliding window, from the times given', () => {
    // the bundled capture spans 113 ms of capture time: a 40 ms window
    const W = 40;
    const { dp } = makePlane({ rateWindowMs: W });
    const times: number[] = [];
    replayFile(BUNDLED, tap(dp, (_i, _s, _p, now) => {
      times.push(now);
      dp.tick(now);
    }));
    const end = times[times.length - 1]!;
    const perSecond = (times.filter((t) => t > end - W).length * 1000) / W;
    expect(perSecond).toBeGreaterThan(10_000);
    const st = dp.stats(end);
    expect(st.totals.pps / perSecond).toBeGreaterThan(0.85);
    expect(st.totals.pps / perSecond).toBeLessThan(1.15);
    expect(st.boards.reduce((s, b) => s + b.pps, 0)).toBeCloseTo(st.totals.pps, 3);
    expect(st.hubs.reduce((s, h) => s + h.pps, 0)).toBeCloseTo(st.totals.pps, 3);
    expect(st.totals.bps).toBeGreaterThan(st.totals.pps);
    // a window later without packets the rate is 0
    dp.tick(end + 30);
    expect(dp.stats(end + W + 30).totals.pps).toBe(0);
  });

  it('RateWindow: rate over the oldest sample inside the window', () => {
    const w = new RateWindow(1, 1000);
    let v = 0;
    for (let t = 0; t <= 3000; t += 10) {
      v += 20;
      if (w.due(t)) {
        w.begin(t)[0] = v;
        w.commit();
      }
    }
    expect(w.rate(0, 3000, v)).toBeCloseTo(2000, 6);
    for (let t = 3010; t <= 4100; t += 10) {
      if (w.due(t)) {
        w.begin(t)[0] = v;
        w.commit();
      }
    }
    expect(w.rate(0, 4100, v)).toBe(0);
    expect(() => new RateWindow(1, 0)).toThrow(RangeError);
  });

  it('imbalance is max/mean', () => {
    expect(imbalance([1, 1, 1, 1])).toBe(1);
    expect(imbalance([4, 0, 0, 0])).toBe(4);
    expect(imbalance([])).toBe(0);
    expect(imbalance([0, 0])).toBe(0);
  });
});
