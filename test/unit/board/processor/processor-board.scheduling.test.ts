/**
 * Scheduler behaviours users trip over, on the board with real packets: `sh` with `sh-port`
 * spreads the clients behind one NAT address (without it they all land on one RS); `sh` without
 * `sh-fallback` gives no RS when the client's bucket is drained; `dynamic` weights combine the
 * configured weights with the load score; a persistence netmask (ipvsadm -M) keys templates by
 * the client's network, not its address.
 */
import { describe, expect, it } from 'vitest';
import { ProcessorBoard } from '../../../../board/processor/processor-board.ts';
import type { ProcessorEvent, Verdict } from '../../../../board/processor/processor-board.ts';
import { SYN, tcp, v4 } from '../../../support/processor-packets.ts';
import { config, servers, service } from '../../../support/processor-config.ts';

const VIP = '192.0.2.10';

function rsOf(v: Verdict): string {
  if (v.kind !== 'forward') throw new Error(`expected forward, got drop ${v.reason}`);
  return v.rs.name;
}

function spread(b: ProcessorBoard, client: string, n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const rs = rsOf(b.handle(tcp(client, 20000 + i, VIP, 80, SYN), i));
    m.set(rs, (m.get(rs) ?? 0) + 1);
  }
  return m;
}

describe('sh with sh-port', () => {
  it('1,000 clients behind one NAT address: one RS without sh-port, all 4 within ±40 % of 250 with it', () => {
    const plain = new ProcessorBoard(config([service({ scheduler: 'sh', pool: servers(4) })], {}, 5000), { slot: 3, startMs: 0 });
    expect(spread(plain, '203.0.113.7', 1000).size).toBe(1);
    const ported = new ProcessorBoard(config([service({ scheduler: 'sh', schedulerFlags: ['sh-port', 'sh-fallback'], pool: servers(4) })], {}, 5000), { slot: 3, startMs: 0 });
    const m = spread(ported, '203.0.113.7', 1000);
    expect(m.size).toBe(4);
    for (const n of m.values()) expect(Math.abs(n - 250)).toBeLessThan(100);
    // the same client port lands on the same RS again (a hash, not a rotation)
    const again = new ProcessorBoard(config([service({ scheduler: 'sh', schedulerFlags: ['sh-port'], pool: servers(4) })], {}, 5000), { slot: 3, startMs: 0 });
    expect(rsOf(again.handle(tcp('203.0.113.7', 20005, VIP, 80, SYN), 0))).toBe(rsOf(ported.handle(tcp('203.0.113.7', 20005, VIP, 80, SYN), 2000)));
  });
});

describe('sh-fallback', () => {
  it('a client whose RS is drained: another RS with sh-fallback, no RS (rs_down) without it', () => {
    const mk = (flags: Array<'sh-fallback' | 'sh-port'>) => new ProcessorBoard(config([service({ scheduler: 'sh', schedulerFlags: flags, pool: servers(3) })]), { slot: 3, startMs: 0 });
    const withFb = mk(['sh-fallback']);
    const without = mk([]);
    const first = rsOf(without.handle(tcp('10.0.0.1', 1000, VIP, 80, SYN), 0));
    expect(rsOf(withFb.handle(tcp('10.0.0.1', 1000, VIP, 80, SYN), 0))).toBe(first);
    withFb.setWeight('web', first, 0);
    without.setWeight('web', first, 0);
    const moved = rsOf(withFb.handle(tcp('10.0.0.1', 1001, VIP, 80, SYN), 1));
    expect(moved).not.toBe(first);
    const v = without.handle(tcp('10.0.0.1', 1001, VIP, 80, SYN), 1);
    expect(v.kind === 'drop' && v.reason).toBe('rs_down');
  });
  it('the YAML default (no scheduler_flags) keeps sh-fallback on', () => {
    const b = new ProcessorBoard(config([service({ scheduler: 'sh', pool: servers(3) })]), { slot: 3, startMs: 0 });
    const first = rsOf(b.handle(tcp('10.0.0.1', 1000, VIP, 80, SYN), 0));
    b.setWeight('web', first, 0);
    expect(rsOf(b.handle(tcp('10.0.0.1', 1001, VIP, 80, SYN), 1))).not.toBe(first);
  });
});

describe('dynamic: configured weights and the load score together', () => {
  it('equal load, weights 3:1 → effective 100:33 and the split 3:1 (it was 1:1, the weights ignored)', () => {
    const events: ProcessorEvent[] = [];
    const pool = servers(2);
    pool[0]!.weight = 3;
    pool[1]!.weight = 1;
    for (const p of pool) p.sim = { cpu: 0.3, mem: 0.3 };
    const b = new ProcessorBoard(config([service({ scheduler: 'dynamic', pool })]), { slot: 3, onEvent: (e) => events.push(e) });
    b.handle(tcp('10.0.0.1', 1, VIP, 80, SYN), 0);
    const w = events.find((e) => e.type === 'weights.changed') as Extract<ProcessorEvent, { type: 'weights.changed' }>;
    expect(w.weights).toEqual({ rs0: 100, rs1: 33 });
    const n: Record<string, number> = { rs0: 0, rs1: 0 };
    for (let i = 0; i < 133; i++) n[rsOf(b.handle(tcp(v4(0x0b000000 + i), 1, VIP, 80, SYN), 1))]!++;
    expect(n).toEqual({ rs0: 100, rs1: 33 });
  });
  it('weight 2 on the loaded server: 2 × 1.52 against 1 × 11.1 → 27 : 100', () => {
    const events: ProcessorEvent[] = [];
    const pool = servers(2);
    pool[0]!.sim = { cpu: 0.1, mem: 0.1 };
    pool[1]!.sim = { cpu: 0.8, mem: 0.5 };
    pool[1]!.weight = 2;
    const b = new ProcessorBoard(config([service({ scheduler: 'dynamic', pool })]), { slot: 3, onEvent: (e) => events.push(e) });
    b.handle(tcp('10.0.0.1', 1, VIP, 80, SYN), 0);
    const w = events.find((e) => e.type === 'weights.changed') as Extract<ProcessorEvent, { type: 'weights.changed' }>;
    // scores 1/0.09 = 11.11 and 1/0.66 = 1.515; weighted 11.11 and 3.03 → 100 and 27
    expect(w.weights).toEqual({ rs0: 100, rs1: 27 });
  });
});

describe('persistence netmask (ipvsadm -M)', () => {
  it('-M 255.255.255.0: clients of one /24 share a template; another /24 does not', () => {
    const b = new ProcessorBoard(config([service({ scheduler: 'rr', persistenceMs: 60_000, persistenceNetmask: 24, pool: servers(3) })]), { slot: 3, startMs: 0 });
    const first = rsOf(b.handle(tcp('198.51.100.1', 1000, VIP, 80, SYN), 0));
    for (let h = 2; h < 40; h++) expect(rsOf(b.handle(tcp(`198.51.100.${h}`, 1000, VIP, 80, SYN), h))).toBe(first);
    const others = new Set([1, 2, 3].map((k) => rsOf(b.handle(tcp(`198.51.${101 + k}.1`, 1000, VIP, 80, SYN), 100 + k))));
    expect(others.size).toBeGreaterThan(1);
    // without the netmask each address has its own template: rr spreads the /24 over all 3
    const plain = new ProcessorBoard(config([service({ scheduler: 'rr', persistenceMs: 60_000, pool: servers(3) })]), { slot: 3, startMs: 0 });
    expect(new Set([1, 2, 3].map((h) => rsOf(plain.handle(tcp(`198.51.100.${h}`, 1000, VIP, 80, SYN), h)))).size).toBe(3);
  });
  it('a netmask with a "*" VIP or beyond the family is refused', () => {
    expect(() => new ProcessorBoard(config([service({ vip: '*', persistenceNetmask: 24 })]), { slot: 3 })).toThrow(/needs a VIP of one family/);
    expect(() => new ProcessorBoard(config([service({ persistenceNetmask: 33 })]), { slot: 3 })).toThrow(/prefix length 0..32, got 33/);
  });
});
