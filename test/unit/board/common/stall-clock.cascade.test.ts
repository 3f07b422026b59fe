/**
 * The watchdog cascade of wall-clock mode (`atcasim start` on a loaded machine): long synchronous
 * blocks of the whole process — a 47k-session promotion, a TUI render of 300 ms, several resets run
 * back to back — that call the HA clock's now() many times while they run (logging, reading the HA
 * view's watchdog countdowns). Each call used to count as "the loop was seen running", so the block was
 * never recognised as a stall: HA time advanced by the whole block while no kick could run, and every
 * node's IPMI watchdog expired one after another. A stall of the whole process must never cause a
 * failover (docs/ha.md "Faults and what they do"); a hung node and a crash must still be detected in
 * their bounds.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../board/common/clock.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { Backplane } from '../../../../chassis/model/backplane.ts';
import { resolveHaConfig } from '../../../../chassis/config/ha.ts';
import { NodeClock } from '../../../../chassis/sim/node-clock.ts';
import { NodeController } from '../../../../chassis/ha/node-controller.ts';
import type { RoleChange, ShareRouter } from '../../../../chassis/ha/node-ports.ts';
import { StallCompensatedClock } from '../../../../board/common/stall-clock.ts';
import { IpmiWatchdog, firmwareWatchdogSettings } from '../../../../chassis/model/ipmi-watchdog.ts';
import { LoopClock, MemoryTable } from '../../../support/ha-fakes.ts';

describe('StallCompensatedClock: long blocks that read the clock are still stalls', () => {
  it('a 1.2 s TUI render that reads the watchdog countdown every 50 ms does not expire a kicked 1 s watchdog', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const wd = new IpmiWatchdog(clock);
    let expired = 0;
    wd.onExpire(() => expired++);
    wd.set(firmwareWatchdogSettings(1000));
    wd.kick();
    const kick = () => {
      wd.kick();
      clock.setTimeout(kick, 100);
    };
    clock.setTimeout(kick, 100);
    // The UI's refresh timer runs on the platform clock; each render reads the HA view.
    const render = () => {
      base.work(1200, 50, () => wd.remainingMs());
      base.setTimeout(render, 500);
    };
    base.setTimeout(render, 500);
    base.advance(10_000);
    expect(expired).toBe(0);
    expect(clock.stalls).toBeGreaterThanOrEqual(5);
    clock.dispose();
  });

  it('several heavy HA callbacks due together (promotions, resets: 4 × 300 ms, each calling now()) do not starve the watchdog', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const wd = new IpmiWatchdog(clock);
    let expired = 0;
    wd.onExpire(() => expired++);
    wd.set(firmwareWatchdogSettings(1000));
    wd.kick();
    const kick = () => {
      wd.kick();
      clock.setTimeout(kick, 100);
    };
    clock.setTimeout(kick, 100);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 4; i++) clock.setTimeout(() => base.work(300, 10, () => clock.now()), 1000 + round * 2000);
    }
    base.advance(16_000);
    expect(expired).toBe(0);
    expect(clock.stalls).toBe(5);
    clock.dispose();
  });

  it('now() never goes backwards inside or across a block, and short gaps keep real time', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const seen: number[] = [];
    base.setTimeout(() => base.work(2000, 7, () => seen.push(clock.now())), 100);
    base.setTimeout(() => base.work(200, 7, () => seen.push(clock.now())), 3000);
    base.advance(5000);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
    // The 2 s block counts at most globalStallMs; the 200 ms block (below the threshold) counts in full.
    expect(base.now() - clock.now()).toBeGreaterThanOrEqual(2000 - 250 - 1);
    expect(base.now() - clock.now()).toBeLessThanOrEqual(2000);
    const t0 = clock.now();
    base.advance(1000);
    expect(clock.now() - t0).toBe(1000);
    clock.dispose();
  });
});

/** Two pairs (a ShMC pair and a processor pair), each node with its own control and data NodeClocks over `clock`, as HaFabric wires them. */
function shelf(clock: Clock) {
  const cfg = resolveHaConfig({});
  const roles: RoleChange[] = [];
  const owner: Record<string, string> = {};
  const router: ShareRouter = { assign: (s, n) => (owner[s] = n), shift: () => {} };
  const nodes: Record<string, NodeController> = {};
  const wds: Record<string, IpmiWatchdog> = {};
  const clocks: Record<string, { control: NodeClock; data: NodeClock }> = {};
  const expiries: Array<{ node: string; at: number }> = [];
  for (const [pair, a, b] of [['shmc', 'shmc-a', 'shmc-b'], ['lb1', 'slot3', 'slot4']] as const) {
    const shares = pair === 'shmc' ? ['shmc'] : [`lb1/${a}`, `lb1/${b}`];
    const bp = new Backplane([a, b], shares);
    for (const [name, peer] of [[a, b], [b, a]] as const) {
      const control = new NodeClock(clock);
      const data = new NodeClock(clock);
      clocks[name] = { control, data };
      wds[name] = new IpmiWatchdog(clock);
      wds[name]!.onExpire((e) => expiries.push({ node: name, at: e.at }));
      const tables = new Map(shares.map((s) => [s, new MemoryTable()]));
      nodes[name] = new NodeController({
        node: name,
        shares: shares.map((s) => ({ share: s, peer, home: pair === 'shmc' ? name === a : s.endsWith(`/${name}`) })),
        version: { major: 1, minor: 0 }, cfg, control, data, hardware: clock, backplane: bp, watchdog: wds[name]!, router,
        dataPlane: (s) => tables.get(s)!,
        link: { sendHeartbeat: (hb) => clock.setTimeout(() => nodes[peer]!.receiveHeartbeat(hb), 0.1), sendSync: (s, d) => clock.setTimeout(() => nodes[peer]!.receiveSync(s, d), 0.1) },
        random: new SeededRandom(name.length * 31 + name.charCodeAt(name.length - 1)),
        observer: { roleChanged: (e) => roles.push(e) },
      });
    }
  }
  const all = () => Object.values(nodes);
  return { nodes, wds, roles, owner, clocks, expiries, all };
}

describe('wall-clock shelf under load: no watchdog cascade, faults still detected', () => {
  it('back-to-back heavy blocks that call into HA (the `x slot3` cascade) expire no watchdog and change no role', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const s = shelf(clock);
    clock.onStall(() => s.all().forEach((n) => n.rebase()));
    for (const n of s.all()) n.powerOn();
    base.advance(4000);
    expect(s.owner.shmc).toBe('shmc-a');
    const before = s.roles.length;
    // A TUI refresh (300 ms render reading every node's status) and a 47k-session promotion
    // (logging through the HA clock) alternate with only short healthy turns between them.
    const render = () => base.work(300, 20, () => s.all().forEach((n) => n.status()));
    const promote = () => base.work(700, 5, () => clock.now());
    for (let i = 0; i < 6; i++) {
      base.setTimeout(render, 1);
      clock.setTimeout(promote, 0);
      base.advance(30);
    }
    base.advance(3000);
    expect(s.expiries).toEqual([]);
    expect(s.roles.slice(before)).toEqual([]);
    for (const n of s.all()) n.dispose();
    clock.dispose();
  });

  it('a hung node (its software stopped, the process loaded but running) is still reset by its watchdog within W + 1 kick interval', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const s = shelf(clock);
    clock.onStall(() => s.all().forEach((n) => n.rebase()));
    for (const n of s.all()) n.powerOn();
    base.advance(4000);
    // Loaded: 200 ms renders (below the stall threshold) every 250 ms, reading the HA view.
    let rendering = true;
    const render = () => {
      if (!rendering) return;
      base.work(200, 20, () => s.all().forEach((n) => n.status()));
      base.setTimeout(render, 50);
    };
    base.setTimeout(render, 0);
    base.advance(500);
    const hungAt = clock.now();
    s.clocks['slot4']!.control.freeze();
    s.clocks['slot4']!.data.freeze();
    base.advance(3000);
    rendering = false;
    const slot4 = s.expiries.filter((e) => e.node === 'slot4');
    expect(slot4).toHaveLength(1);
    expect(slot4[0]!.at - hungAt).toBeLessThanOrEqual(1000 + 100);
    expect(s.expiries.filter((e) => e.node !== 'slot4')).toEqual([]);
    for (const n of s.all()) n.dispose();
    clock.dispose();
  });

  it('a hang during a global stall is still detected: the stall does not count, the hang does', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const s = shelf(clock);
    clock.onStall(() => s.all().forEach((n) => n.rebase()));
    for (const n of s.all()) n.powerOn();
    base.advance(4000);
    const hungAt = clock.now();
    s.clocks['shmc-a']!.control.freeze();
    s.clocks['shmc-a']!.data.freeze();
    base.setTimeout(() => base.work(1500, 10, () => clock.now()), 10);
    base.advance(3000);
    const a = s.expiries.filter((e) => e.node === 'shmc-a');
    expect(a).toHaveLength(1);
    expect(a[0]!.at - hungAt).toBeLessThanOrEqual(1000 + 100);
    expect(s.expiries.filter((e) => e.node !== 'shmc-a')).toEqual([]);
    base.advance(2000);
    expect(s.owner.shmc).toBe('shmc-b');
    for (const n of s.all()) n.dispose();
    clock.dispose();
  });

  it('a crash of the active member is taken over within 3 heartbeat intervals on the compensated clock', () => {
    const base = new LoopClock();
    const clock = new StallCompensatedClock(base, 250);
    const s = shelf(clock);
    clock.onStall(() => s.all().forEach((n) => n.rebase()));
    for (const n of s.all()) n.powerOn();
    base.advance(4000);
    expect(s.owner.shmc).toBe('shmc-a');
    const before = s.roles.length;
    const crashAt = clock.now();
    s.nodes['shmc-a']!.hardwareReset('crash');
    base.advance(1000);
    const took = s.roles.slice(before).find((r) => r.node === 'shmc-b' && r.to === 'active');
    expect(took).toBeDefined();
    expect(took!.at - crashAt).toBeLessThanOrEqual(3 * 100);
    for (const n of s.all()) n.dispose();
    clock.dispose();
  });
});
