import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../board/common/random.ts';
import { FlowTuple } from '../../../../board/packet/flow-tuple.ts';
import { EcmpGroup } from '../../../../board/switch/ecmp-group.ts';
import { SwitchBoard } from '../../../../board/switch/switch-board.ts';
import { SyntheticFlows } from '../../../../board/switch/synthetic-flows.ts';
import { tupleFromText, type FlowText } from '../../../../board/switch/place-flow.ts';
import type { EcmpMember } from '../../../../board/switch/switch-config.ts';
import { fakePacket } from './fake-packet.ts';

/** The default shelf's shape: processor boards in slots 3–6 behind hub ports 3–6, buddies 3↔4, 5↔6. */
const MEMBERS: EcmpMember[] = [
  { port: 3, slot: 3, failoverPort: 4 },
  { port: 4, slot: 4, failoverPort: 3 },
  { port: 5, slot: 5, failoverPort: 6 },
  { port: 6, slot: 6, failoverPort: 5 },
];
const shelf = (symmetric = true) => {
  const group = new EcmpGroup({ mapping: 'resilient', buckets: 4096 }, MEMBERS);
  const ecmp = { symmetric };
  return { group, hub1: new SwitchBoard({ slot: 1, group, ecmp }), hub2: new SwitchBoard({ slot: 2, group, ecmp }) };
};
const reverse = (f: FlowText): FlowText => ({ src: f.dst, dst: f.src, sport: f.dport, dport: f.sport, proto: f.proto });
/** n distinct random TCP flows as text. */
function flows(n: number, seed = 5): FlowText[] {
  const gen = new SyntheticFlows(new SeededRandom(seed));
  const t = new FlowTuple();
  const ip = (a: Uint8Array) => `${a[0]}.${a[1]}.${a[2]}.${a[3]}`;
  return Array.from({ length: n }, () => {
    gen.next(t);
    return { src: ip(t.src), dst: ip(t.dst), sport: t.sport, dport: t.dport, proto: t.proto };
  });
}

describe('SwitchBoard.ingress', () => {
  it('forwards to the member the shared table names, with the slot behind it, and counts per port', () => {
    const { group, hub1 } = shelf();
    const fs = flows(200);
    for (const f of fs) {
      const d = hub1.ingress(fakePacket({ flow: f, origLen: 100 }), 1000);
      expect(d.forward).toBe(true);
      expect(d.port).toBe(group.select(d.hash));
      expect(d.slot).toBe(d.port);
      expect(d.bucket).toBe(d.hash & 4095);
    }
    const c = hub1.counters();
    expect(c.packets).toBe(200);
    expect(c.forwarded).toBe(200);
    expect(c.bytes).toBe(200 * 100);
    expect(c.flows).toBe(200);
    expect(c.ports.map((p) => p.port)).toEqual([3, 4, 5, 6]);
    expect(c.ports.reduce((s, p) => s + p.packets, 0)).toBe(200);
    expect(c.ports.reduce((s, p) => s + p.flows, 0)).toBe(200);
    expect(c.ports.every((p) => p.packets > 20 && p.lastPacketAt === 1000)).toBe(true);
  });

  it('reuses one decision object (no allocation per packet)', () => {
    const { hub1 } = shelf();
    const [a, b] = flows(2);
    expect(hub1.ingress(fakePacket({ flow: a }), 0)).toBe(hub1.ingress(fakePacket({ flow: b }), 0));
  });

  it('counts both directions of a flow as one flow, on one port (symmetric profile)', () => {
    const { hub1 } = shelf(true);
    for (const f of flows(50)) {
      const p1 = hub1.ingress(fakePacket({ flow: f }), 0).port;
      const p2 = hub1.ingress(fakePacket({ flow: reverse(f) }), 0).port;
      expect(p2).toBe(p1);
    }
    const c = hub1.counters();
    expect(c.packets).toBe(100);
    expect(c.flows).toBe(50);
    expect(c.ports.reduce((s, p) => s + p.flows, 0)).toBe(50);
  });

  it('both hubs send a flow to the same board, before and after a board goes down', () => {
    const { group, hub1, hub2 } = shelf();
    const fs = flows(300);
    const place = () => fs.map((f) => [hub1.ingress(fakePacket({ flow: f }), 0).port, hub2.ingress(fakePacket({ flow: f }), 0).port]);
    const before = place();
    expect(before.every(([a, b]) => a === b)).toBe(true);
    group.setUp(5, false); // board in slot 5 extracted: out of the group at once
    const after = place();
    expect(after.every(([a, b]) => a === b)).toBe(true);
    for (let i = 0; i < fs.length; i++) {
      // only flows of the failed board move, and they move to its buddy (port 6)
      if (before[i]![0] === 5) expect(after[i]![0]).toBe(6);
      else expect(after[i]![0]).toBe(before[i]![0]);
    }
  });

  it('a link down on one hub re-routes only that hub\'s packets, to the failover target', () => {
    const { hub1, hub2 } = shelf();
    const fs = flows(300);
    const before = fs.map((f) => hub1.ingress(fakePacket({ flow: f }), 0).port);
    hub1.setLink(3, false);
    for (let i = 0; i < fs.length; i++) {
      const d1 = hub1.ingress(fakePacket({ flow: fs[i]! }), 0);
      const d2 = hub2.ingress(fakePacket({ flow: fs[i]! }), 0);
      expect(d2.port).toBe(before[i]);
      expect(d2.rerouted).toBe(false);
      if (before[i] === 3) {
        expect(d1.port).toBe(4);
        expect(d1.rerouted).toBe(true);
      } else expect(d1.port).toBe(before[i]);
    }
    expect(hub1.counters().ports.find((p) => p.port === 3)).toMatchObject({ linkUp: false, memberUp: true });
  });

  it('when the failover target is unreachable too, spreads over the members reachable from this hub', () => {
    const { hub1 } = shelf();
    hub1.setLink(3, false);
    hub1.setLink(4, false);
    const seen = new Set<number>();
    for (const f of flows(400)) {
      const d = hub1.ingress(fakePacket({ flow: f }), 0);
      expect([5, 6]).toContain(d.port);
      seen.add(d.port);
    }
    expect(seen.size).toBe(2);
  });

  it('drops with a reason: no link, no member up, hub out of service', () => {
    const { group, hub1, hub2 } = shelf();
    const [f] = flows(1);
    for (const p of [3, 4, 5, 6]) hub1.setLink(p, false);
    expect(hub1.ingress(fakePacket({ flow: f }), 0)).toMatchObject({ forward: false, drop: 'no_link', port: -1 });
    for (const p of [3, 4, 5, 6]) group.setUp(p, false);
    expect(hub2.ingress(fakePacket({ flow: f }), 0)).toMatchObject({ forward: false, drop: 'no_member_up' });
    hub2.setActive(false);
    expect(hub2.ingress(fakePacket({ flow: f }), 0)).toMatchObject({ forward: false, drop: 'hub_down' });
    expect(hub1.counters().drops).toEqual({ no_member_up: 0, no_link: 1, hub_down: 0 });
    expect(hub2.counters().drops).toEqual({ no_member_up: 1, no_link: 0, hub_down: 1 });
  });

  it('forwards non-IP frames by their MACs and does not count them as flows', () => {
    const { hub1 } = shelf();
    const ports = new Set<number>();
    for (let i = 0; i < 64; i++) {
      const m = i.toString(16).padStart(2, '0');
      const d = hub1.ingress(fakePacket({ srcMac: `02:00:00:00:01:${m}`, dstMac: 'ff:ff:ff:ff:ff:ff' }), 0);
      expect(d.forward).toBe(true);
      ports.add(d.port);
    }
    expect(ports.size).toBeGreaterThan(1);
    expect(hub1.counters().flows).toBe(0);
  });

  it('resetCounters zeroes counters but keeps link state', () => {
    const { hub1 } = shelf();
    hub1.setLink(6, false);
    for (const f of flows(10)) hub1.ingress(fakePacket({ flow: f }), 0);
    hub1.resetCounters();
    const c = hub1.counters();
    expect([c.packets, c.bytes, c.flows, c.forwarded]).toEqual([0, 0, 0, 0]);
    expect(c.ports.every((p) => p.packets === 0 && p.flows === 0)).toBe(true);
    expect(hub1.linkUp(6)).toBe(false);
  });
});

describe('SwitchBoard.lookup', () => {
  it('answers "where will this flow go?" like ingress, without counting', () => {
    const { hub1, hub2 } = shelf();
    for (const f of flows(50)) {
      const l = hub1.lookup(tupleFromText(f));
      const d = hub2.ingress(fakePacket({ flow: f }), 0);
      expect({ port: l.port, slot: l.slot, hash: l.hash }).toEqual({ port: d.port, slot: d.slot, hash: d.hash });
    }
    expect(hub1.counters().packets).toBe(0);
  });

  it('follows the configured hash profile', () => {
    const group = new EcmpGroup({ mapping: 'modulo', buckets: 4096 }, MEMBERS);
    const hub = new SwitchBoard({ slot: 1, group, ecmp: { hash: 'crc32', fields: 'l3' } });
    const f = tupleFromText({ src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 2 });
    const g = tupleFromText({ src: '10.0.0.1', dst: '10.0.0.2', sport: 3, dport: 4 });
    expect(hub.lookup(f).hash).toBe(hub.lookup(g).hash); // l3: ports ignored
    expect(hub.lookup(f).bucket).toBe(-1);
    expect(hub.config.mapping).toBe('modulo');
  });
});

describe('hash profile from the group', () => {
  it('hubs built without a profile take the group\'s configuration, so both hash alike', () => {
    const group = new EcmpGroup({ mapping: 'resilient', buckets: 256, hash: 'crc16', symmetric: true, fields: 'l3' }, MEMBERS);
    const hub1 = new SwitchBoard({ slot: 1, group });
    const hub2 = new SwitchBoard({ slot: 2, group });
    expect(hub1.config).toMatchObject({ hash: 'crc16', symmetric: true, fields: 'l3', buckets: 256 });
    const t = tupleFromText({ src: '10.9.8.7', dst: '10.0.0.1', sport: 1000, dport: 53, proto: 'udp' });
    expect(hub1.lookup(t).hash).toBe(hub2.lookup(t).hash);
    expect(hub1.lookup(t).hash).toBeLessThan(0x10000);
    const override = new SwitchBoard({ slot: 1, group, ecmp: { hash: 'crc32' } });
    expect(override.config.hash).toBe('crc32');
  });
});
