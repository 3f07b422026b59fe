/**
 * Run-time changes of a board's services (ProcessorBoard.applyServices, service-set.ts): sessions
 * survive and keep their RS; a deleted RS drains (its sessions go on, new ones avoid it, a later
 * change drops it once idle); a deleted service with sessions keeps them but takes no new
 * connection; the buddy's standby table is remapped the same way; a bad change changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { ProcessorBoard } from '../../../../board/processor/processor-board.ts';
import type { Verdict } from '../../../../board/processor/processor-board.ts';
import type { VirtualServiceConfig } from '../../../../board/processor/processor-config.ts';
import { ACK, SYN, tcp, v4 } from '../../../support/processor-packets.ts';
import { config, servers, service } from '../../../support/processor-config.ts';

const VIP = '192.0.2.10';

function rsOf(v: Verdict): string {
  if (v.kind !== 'forward') throw new Error(`expected forward, got drop ${v.reason}`);
  return v.rs.name;
}

function connect(b: ProcessorBoard, i: number, now: number, vip = VIP): string {
  const c = v4(0x0a000000 + i);
  const rs = rsOf(b.handle(tcp(c, 1000 + i, vip, 80, SYN), now));
  b.handle(tcp(vip, 80, c, 1000 + i, SYN | ACK), now);
  b.handle(tcp(c, 1000 + i, vip, 80, ACK), now);
  return rs;
}

describe('applyServices', () => {
  it('adds a service and RS; existing sessions keep their RS across the change', () => {
    const web = service({ scheduler: 'rr', pool: servers(2) });
    const b = new ProcessorBoard(config([web]), { slot: 3, startMs: 0 });
    const pinned = Array.from({ length: 10 }, (_, i) => connect(b, i, 1));
    const dns: VirtualServiceConfig = service({ name: 'dns', vip: '192.0.2.53', port: 80, scheduler: 'wrr', pool: [{ name: 'd0', address: '10.2.0.1', weight: 1 }] });
    // the new service comes first, so every id moves
    b.applyServices([dns, { ...web, pool: [...web.pool, { name: 'rs9', address: '10.1.0.9', weight: 1 }] }]);
    expect(b.services.map((s) => s.name)).toEqual(['dns', 'web']);
    for (let i = 0; i < 10; i++) expect(rsOf(b.handle(tcp(v4(0x0a000000 + i), 1000 + i, VIP, 80, ACK), 2))).toBe(pinned[i]);
    expect(rsOf(b.handle(tcp('10.9.0.1', 5, '192.0.2.53', 80, SYN), 3))).toBe('d0');
    const fresh = new Set(Array.from({ length: 6 }, (_, i) => connect(b, 100 + i, 4)));
    expect(fresh).toEqual(new Set(['rs0', 'rs1', 'rs9']));
    const st = b.stats().services.find((s) => s.name === 'web')!;
    expect(st.rs.reduce((n, r) => n + r.active, 0)).toBe(16);
  });

  it('a deleted RS drains: its sessions go on, new connections avoid it, an idle one is dropped later', () => {
    const web = service({ scheduler: 'rr', pool: servers(3) });
    const b = new ProcessorBoard(config([web]), { slot: 3, startMs: 0 });
    const pinned = Array.from({ length: 9 }, (_, i) => connect(b, i, 1));
    expect(pinned.filter((r) => r === 'rs1').length).toBe(3);
    b.applyServices([{ ...web, pool: web.pool.filter((r) => r.name !== 'rs1') }]);
    for (let i = 0; i < 9; i++) expect(rsOf(b.handle(tcp(v4(0x0a000000 + i), 1000 + i, VIP, 80, ACK), 2))).toBe(pinned[i]);
    for (let i = 0; i < 20; i++) expect(connect(b, 200 + i, 3)).not.toBe('rs1');
    const id = b.realServers.find((r) => r.name === 'rs1')!.id;
    expect(b.isDraining(id)).toBe(true);
    // its sessions end (RST from the clients), then the next change drops it
    for (let i = 0; i < 9; i++) if (pinned[i] === 'rs1') b.handle(tcp(v4(0x0a000000 + i), 1000 + i, VIP, 80, 0x04), 4);
    b.tick(20_000);
    b.applyServices([{ ...web, pool: web.pool.filter((r) => r.name !== 'rs1') }]);
    expect(b.realServers.map((r) => r.name)).toEqual(['rs0', 'rs2']);
  });

  it('a deleted service keeps its sessions without a VIP rule; the standby table is remapped too', () => {
    const web = service({ scheduler: 'rr', pool: servers(2) });
    const other = service({ name: 'other', vip: '192.0.2.20', pool: servers(1, 'o') });
    const a = new ProcessorBoard(config([web, other]), { slot: 3, startMs: 0 });
    const buddy = new ProcessorBoard(config([web, other]), { slot: 4, startMs: 0 });
    const pinned = Array.from({ length: 4 }, (_, i) => connect(a, i, 1));
    connect(a, 50, 1, '192.0.2.20');
    a.forEachSession((r) => buddy.importSession('lb1/slot3', r, 2));
    for (const bd of [a, buddy]) bd.applyServices([other]);
    for (let i = 0; i < 4; i++) expect(rsOf(a.handle(tcp(v4(0x0a000000 + i), 1000 + i, VIP, 80, ACK), 3))).toBe(pinned[i]);
    const v = a.handle(tcp('10.8.0.1', 7, VIP, 80, SYN), 3);
    expect(v.kind === 'drop' && v.reason).toBe('no_rule');
    // the buddy promotes the synced sessions onto the renumbered RS
    expect(buddy.promote('lb1/slot3', 4).promoted).toBe(5);
    for (let i = 0; i < 4; i++) expect(rsOf(buddy.handle(tcp(v4(0x0a000000 + i), 1000 + i, VIP, 80, ACK), 5))).toBe(pinned[i]);
    expect(rsOf(buddy.handle(tcp(v4(0x0a000000 + 50), 1050, '192.0.2.20', 80, ACK), 5))).toBe('o0');
    let n = 0;
    buddy.forEachSession((r) => {
      if (buddy.realServers[r.rs]!.name.startsWith('rs')) n++;
    });
    expect(n).toBe(4);
  });

  it('an invalid change is refused with its reason and leaves the board as it was', () => {
    const web = service({ scheduler: 'rr', pool: servers(2) });
    const b = new ProcessorBoard(config([web]), { slot: 3, startMs: 0 });
    connect(b, 1, 1);
    expect(() => b.applyServices([{ ...web, pool: [{ name: 'bad', address: '10.0.0.300', weight: 1 }] }])).toThrow(/real server 'bad'/);
    expect(b.realServers.map((r) => r.name)).toEqual(['rs0', 'rs1']);
    expect(b.table.size).toBe(1);
  });
});
