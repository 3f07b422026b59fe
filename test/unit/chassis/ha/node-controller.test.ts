/**
 * NodeController wired by hand, as the shelf (phase 2) will wire it: two ShMC nodes, one backplane,
 * heartbeat and sync links as direct calls, in-memory data planes and router, watchdogs — all on one
 * clock. Shows the wall-clock rule: a stall of the whole process is compensated (no failover), while
 * the same stall without compensation expires the watchdogs (the check can fail).
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../board/common/clock.ts';
import { CommandError } from '../../../../board/common/errors.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { Backplane } from '../../../../chassis/model/backplane.ts';
import { resolveHaConfig } from '../../../../chassis/config/ha.ts';
import { NodeController } from '../../../../chassis/ha/node-controller.ts';
import type { RoleChange, ShareRouter } from '../../../../chassis/ha/node-ports.ts';
import { StallCompensatedClock } from '../../../../board/common/stall-clock.ts';
import { IpmiWatchdog } from '../../../../chassis/model/ipmi-watchdog.ts';
import { LoopClock, MemoryTable } from '../../../support/ha-fakes.ts';

function shmcPair(clock: Clock) {
  const cfg = resolveHaConfig({});
  const bp = new Backplane(['shmc-a', 'shmc-b'], ['shmc']);
  const roles: RoleChange[] = [];
  const owner: Record<string, string> = {};
  const router: ShareRouter = { assign: (s, n) => (owner[s] = n), shift: () => {} };
  const nodes: Record<string, NodeController> = {};
  const tables: Record<string, MemoryTable> = {};
  const wds: Record<string, IpmiWatchdog> = {};
  for (const [name, peer] of [['shmc-a', 'shmc-b'], ['shmc-b', 'shmc-a']] as const) {
    tables[name] = new MemoryTable();
    wds[name] = new IpmiWatchdog(clock);
    nodes[name] = new NodeController({
      node: name, shares: [{ share: 'shmc', peer, home: name === 'shmc-a' }], version: { major: 1, minor: 0 }, cfg,
      control: clock, data: clock, hardware: clock, backplane: bp, watchdog: wds[name]!, router,
      dataPlane: () => tables[name]!,
      link: { sendHeartbeat: (hb) => clock.setTimeout(() => nodes[peer]!.receiveHeartbeat(hb), 0), sendSync: (s, d) => clock.setTimeout(() => nodes[peer]!.receiveSync(s, d), 0) },
      random: new SeededRandom(name === 'shmc-a' ? 1 : 2),
      observer: { roleChanged: (e) => roles.push(e) },
    });
  }
  return { nodes, tables, wds, roles, owner, bp };
}

describe('NodeController wired by hand (the shelf integration pattern)', () => {
  it('boots a ShMC pair to active + hot, syncs records, hands over on request and refuses a second switchover to a non-hot peer', () => {
    const clock = new LoopClock();
    const { nodes, tables, roles, owner } = shmcPair(clock);
    nodes['shmc-a']!.powerOn();
    nodes['shmc-b']!.powerOn();
    clock.advance(1000);
    expect(nodes['shmc-a']!.status()[0]).toMatchObject({ role: 'active', epoch: 1, owner: true });
    expect(nodes['shmc-b']!.status()[0]).toMatchObject({ role: 'standby.hot', peerRole: 'active' });
    expect(owner.shmc).toBe('shmc-a');
    tables['shmc-a']!.live.set('sel-1', { key: 'sel-1', createdAt: 0, sessions: 1, size: 16 });
    clock.advance(3500);
    expect(tables['shmc-b']!.standby.has('sel-1')).toBe(true);
    nodes['shmc-a']!.switchover('shmc');
    clock.advance(50);
    expect(owner.shmc).toBe('shmc-b');
    expect(nodes['shmc-b']!.status()[0]).toMatchObject({ role: 'active', epoch: 2 });
    expect(tables['shmc-b']!.live.has('sel-1')).toBe(true);
    expect(() => nodes['shmc-b']!.switchover('shmc')).toThrow(CommandError); // shmc-a is not hot yet
    expect(() => nodes['shmc-a']!.switchover('shmc')).toThrow(/not the active member/);
    expect(roles.filter((r) => r.to === 'active').map((r) => [r.node, r.activation])).toEqual([['shmc-a', 'boot'], ['shmc-b', 'planned']]);
    for (const n of Object.values(nodes)) n.dispose();
  });

  it('wall-clock mode: a 2 s stall of the whole process causes no failover when HA runs on StallCompensatedClock', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const { nodes, roles, wds } = shmcPair(clock);
    clock.onStall(() => Object.values(nodes).forEach((n) => n.rebase()));
    nodes['shmc-a']!.powerOn();
    nodes['shmc-b']!.powerOn();
    base.advance(2000);
    const before = roles.length;
    base.stall(2000);
    base.advance(3000);
    expect(clock.stalls).toBe(1);
    expect(roles.slice(before)).toEqual([]);
    expect(wds['shmc-a']!.expiries + wds['shmc-b']!.expiries).toBe(0);
    expect(nodes['shmc-a']!.status()[0]!.role).toBe('active');
    for (const n of Object.values(nodes)) n.dispose();
    clock.dispose();
  });

  it('without compensation the same global stall expires the watchdogs and disturbs the pair (the check can fail)', () => {
    const base = new LoopClock();
    const { nodes, roles, wds } = shmcPair(base);
    nodes['shmc-a']!.powerOn();
    nodes['shmc-b']!.powerOn();
    base.advance(2000);
    const before = roles.length;
    base.stall(2000);
    base.advance(3000);
    expect(wds['shmc-a']!.expiries + wds['shmc-b']!.expiries).toBeGreaterThan(0);
    expect(roles.slice(before).length).toBeGreaterThan(0);
    for (const n of Object.values(nodes)) n.dispose();
  });
});
