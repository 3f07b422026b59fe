import { describe, expect, it } from 'vitest';
import { ProcessorBoard, DROP_REASONS } from '../../../../board/processor/processor-board.ts';
import type { ProcessorEvent, Verdict } from '../../../../board/processor/processor-board.ts';
import { SessionState } from '../../../../board/processor/tcp-state.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { MaglevScheduler } from '../../../../board/processor/scheduler/maglev.ts';
import type { SessionRecord } from '../../../../board/processor/session-record.ts';
import {
  copySessionRecord, decodeSessionRecord, encodeSessionRecord, sessionRecordLength,
} from '../../../../board/processor/session-record.ts';
import { ACK, FIN, PSH, RST, SYN, packet, tcp, udp, v4 } from '../../../support/processor-packets.ts';
import type { TestPacket } from '../../../support/processor-packets.ts';
import { config, servers, service } from '../../../support/processor-config.ts';

const VIP = '192.0.2.10';

function rsOf(v: Verdict): string {
  if (v.kind !== 'forward') throw new Error(`expected forward, got drop ${v.reason}`);
  return v.rs.name;
}

/** Runs a client handshake; returns the RS name. */
function handshake(b: ProcessorBoard, client: string, port: number, now: number, vip = VIP): string {
  const rs = rsOf(b.handle(tcp(client, port, vip, 80, SYN), now));
  expect(rsOf(b.handle(tcp(vip, 80, client, port, SYN | ACK), now))).toBe(rs);
  expect(rsOf(b.handle(tcp(client, port, vip, 80, ACK), now))).toBe(rs);
  return rs;
}

describe('SYN flood (docs/processor.md "SYN floods": capacity 1000, 600 established, 10,000 spoofed SYNs, 50 real handshakes)', () => {
  it('keeps all 600 established sessions and completes all 50 real handshakes', () => {
    const b = new ProcessorBoard(config([service({ scheduler: 'wlc', pool: servers(4) })], { midstreamPickup: false }, 1000), { slot: 3, startMs: 0 });
    let now = 0;
    const established = new Map<string, string>();
    for (let i = 0; i < 600; i++) {
      const c = v4(0x0a000000 + i);
      established.set(c, handshake(b, c, 30000 + (i % 1000), now));
      now += 0.1;
    }
    expect(b.table.countInState(SessionState.ESTABLISHED)).toBe(600);

    // 50 real handshakes interleaved with the flood: real client k sends its SYN before spoofed
    // SYN number 200k+10; the server answers half-way and the client's ACK comes after
    // `delay` (1..100) more spoofed SYNs.
    const rnd = new SeededRandom(42);
    interface Real { client: string; port: number; synAt: number; delay: number; rs?: string; done: boolean }
    const reals: Real[] = Array.from({ length: 50 }, (_, k) => ({
      client: v4(0xac100000 + k), port: 50000 + k, synAt: 200 * k + 10, delay: k === 0 ? 100 : 1 + ((k * 37) % 100), done: false,
    }));
    const events = new Map<number, Array<() => void>>();
    const at = (i: number, f: () => void) => {
      if (!events.has(i)) events.set(i, []);
      events.get(i)!.push(f);
    };
    for (const r of reals) {
      at(r.synAt, () => {
        r.rs = rsOf(b.handle(tcp(r.client, r.port, VIP, 80, SYN), now));
      });
      at(r.synAt + Math.floor(r.delay / 2), () => {
        expect(rsOf(b.handle(tcp(VIP, 80, r.client, r.port, SYN | ACK), now))).toBe(r.rs);
      });
      at(r.synAt + r.delay, () => {
        const v = b.handle(tcp(r.client, r.port, VIP, 80, ACK), now);
        if (v.kind === 'forward' && v.rs.name === r.rs) r.done = true;
      });
    }
    let maxSize = 0;
    for (let i = 0; i < 10_000; i++) {
      for (const f of events.get(i) ?? []) f();
      const spoof = v4(0xc0000000 + rnd.u32() % 0x3fffffff);
      const v = b.handle(tcp(spoof, 1024 + rnd.int(60000), VIP, 80, SYN), now);
      expect(v.kind).toBe('forward'); // a flood SYN gets an entry by evicting another flood SYN
      maxSize = Math.max(maxSize, b.table.size);
      now += 0.05;
    }
    for (const f of events.get(10_000) ?? []) f();

    expect(maxSize).toBeLessThanOrEqual(1000);
    expect(reals.filter((r) => r.done).length).toBe(50);
    // every established session survived and still goes to its server
    for (const [c, rs] of established) {
      expect(rsOf(b.handle(tcp(c, 30000 + (Number(c.split('.')[3]) + 256 * Number(c.split('.')[2])) % 1000, VIP, 80, ACK | PSH, 100), now))).toBe(rs);
    }
    expect(b.table.countInState(SessionState.ESTABLISHED)).toBe(650);
    // only flood half-opens were evicted, and the table never refused anyone
    expect(b.table.evicted).toBe(b.table.evictedByState[SessionState.SYN_RECV]);
    expect(b.table.evicted).toBeGreaterThan(9000);
    expect(b.drops().table_full).toBe(0);
    // an ACK that finds no entry is dropped (strict mode)
    const stray = b.handle(tcp('203.0.113.99', 1234, VIP, 80, ACK), now);
    expect(stray.kind === 'drop' && stray.reason).toBe('no_session');
  });

  it('a pure LRU would not have survived: with no half-open entry left, new SYNs are refused (table_full)', () => {
    const b = new ProcessorBoard(config([service()], { midstreamPickup: false }, 20), { slot: 3, startMs: 0 });
    for (let i = 0; i < 20; i++) handshake(b, v4(0x0a000000 + i), 40000, i);
    const v = b.handle(tcp('10.9.9.9', 1, VIP, 80, SYN), 100);
    expect(v.kind === 'drop' && v.reason).toBe('table_full');
    expect(b.table.size).toBe(20);
  });
});

describe('weight 0 drains (dataplane.md T1)', () => {
  it('keeps the open connection, and a reused client port goes elsewhere', () => {
    const b = new ProcessorBoard(config([service({ scheduler: 'rr', pool: servers(3) })]), { slot: 3, startMs: 0 });
    const c = '10.0.0.1';
    const x = handshake(b, c, 40000, 0);
    b.setWeight('web', x, 0);
    // (a) packets of the open connection still go to X
    expect(rsOf(b.handle(tcp(c, 40000, VIP, 80, ACK | PSH, 100), 10))).toBe(x);
    expect(rsOf(b.handle(tcp(VIP, 80, c, 40000, ACK, 1000), 11))).toBe(x);
    // new clients never land on X
    for (let i = 0; i < 12; i++) expect(handshake(b, v4(0x0a000100 + i), 40000, 20)).not.toBe(x);
    // (b) the client closes (FIN/ACK both ways: TIME_WAIT as the LB sees it) …
    rsOf(b.handle(tcp(c, 40000, VIP, 80, FIN | ACK), 30));
    rsOf(b.handle(tcp(VIP, 80, c, 40000, FIN | ACK), 31));
    rsOf(b.handle(tcp(c, 40000, VIP, 80, ACK), 32));
    b.table.loadKey(tcp(c, 40000, VIP, 80, ACK).outer);
    expect(b.table.stateOf(b.table.find())).toBe(SessionState.TIME_WAIT);
    // … and opens a new connection from the same port within 1 s: scheduled away from X, not dropped
    const y = rsOf(b.handle(tcp(c, 40000, VIP, 80, SYN), 500));
    expect(y).not.toBe(x);
    expect(b.reused).toBe(1);
    const xs = b.stats().services[0]!.rs.find((r) => r.name === x)!;
    expect(xs.active + xs.inactive).toBe(0); // X reached 0 sessions
  });

  it('a reused port whose old session is still ESTABLISHED on a drained RS is rescheduled too', () => {
    const b = new ProcessorBoard(config([service({ scheduler: 'wlc' })]), { slot: 3, startMs: 0 });
    const x = handshake(b, '10.0.0.2', 41000, 0);
    b.setWeight('web', x, 0);
    expect(rsOf(b.handle(tcp('10.0.0.2', 41000, VIP, 80, SYN), 5))).not.toBe(x);
  });
});

describe('mid-stream pickup policy', () => {
  it('picks up a connection from a non-SYN segment by default, drops it in strict mode', () => {
    const loose = new ProcessorBoard(config([service()]), { slot: 3, startMs: 0 });
    const v = loose.handle(tcp('10.0.0.1', 1000, VIP, 80, ACK | PSH, 10), 0);
    expect(v.kind).toBe('forward');
    expect(v.kind === 'forward' && v.newSession).toBe(true);
    expect(loose.table.countInState(SessionState.ESTABLISHED)).toBe(1);
    const strict = new ProcessorBoard(config([service()], { midstreamPickup: false }), { slot: 3, startMs: 0 });
    const d = strict.handle(tcp('10.0.0.1', 1000, VIP, 80, ACK | PSH, 10), 0);
    expect(d.kind === 'drop' && d.reason).toBe('no_session');
    expect(strict.drops().no_session).toBe(1);
    // RST, FIN and SYN+ACK without a session are not connection openers either
    for (const f of [RST, FIN | ACK, SYN | ACK]) {
      const r = strict.handle(tcp('10.0.0.1', 1001, VIP, 80, f), 1);
      expect(r.kind === 'drop' && r.reason).toBe('no_session');
    }
  });
});

describe('rules, ACL, drops', () => {
  it('looks up the most specific service first', () => {
    const b = new ProcessorBoard(config([
      service({ name: 'any4', vip: '0.0.0.0/0', port: 0, protocol: 'any', pool: servers(1, 'w') }),
      service({ name: 'net', vip: '192.0.2.0/24', port: 0, protocol: 'any', pool: servers(1, 'n') }),
      service({ name: 'host-any', vip: VIP, port: 0, protocol: 'tcp', pool: servers(1, 'h') }),
      service({ name: 'host-80', vip: VIP, port: 80, protocol: 'tcp', pool: servers(1, 'p') }),
      service({ name: 'dns', vip: VIP, port: 53, protocol: 'udp', pool: servers(1, 'd') }),
    ]), { slot: 3, startMs: 0 });
    const svc = (v: Verdict) => (v.kind === 'forward' ? v.service.name : v.reason);
    expect(svc(b.handle(tcp('10.0.0.1', 1, VIP, 80, SYN), 0))).toBe('host-80');
    expect(svc(b.handle(tcp('10.0.0.1', 1, VIP, 443, SYN), 0))).toBe('host-any');
    expect(svc(b.handle(udp('10.0.0.1', 1, VIP, 53), 0))).toBe('dns');
    expect(svc(b.handle(udp('10.0.0.1', 1, VIP, 54), 0))).toBe('net');
    expect(svc(b.handle(tcp('10.0.0.1', 1, '192.0.2.99', 80, SYN), 0))).toBe('net');
    expect(svc(b.handle(tcp('10.0.0.1', 1, '198.51.100.1', 80, SYN), 0))).toBe('any4');
    expect(svc(b.handle(packet({ src: '10.0.0.1', dst: VIP, proto: 1, payload: 8 }), 0))).toBe('net');
    expect(svc(b.handle(tcp('2001:db8::1', 1, '2001:db8::10', 80, SYN), 0))).toBe('no_rule');
  });

  it('drops by ACL (ternary, priority) on new connections only', () => {
    const b = new ProcessorBoard(config([service()], {
      acl: [
        { src: '198.51.100.0/24', priority: 10, action: 'drop' },
        { src: '198.51.100.7/32', priority: 20, action: 'permit' },
      ],
    }), { slot: 3, startMs: 0 });
    const d = b.handle(tcp('198.51.100.1', 1, VIP, 80, SYN), 0);
    expect(d.kind === 'drop' && d.reason).toBe('acl');
    expect(b.handle(tcp('198.51.100.7', 1, VIP, 80, SYN), 0).kind).toBe('forward');
    // a session that exists before a blacklist entry keeps working
    handshake(b, '203.0.113.5', 5, 1);
    const id = b.addAclRule({ src: '203.0.113.0/24', priority: 5, action: 'drop' });
    expect(b.handle(tcp('203.0.113.5', 5, VIP, 80, ACK), 2).kind).toBe('forward');
    expect(b.handle(tcp('203.0.113.6', 5, VIP, 80, SYN), 2).kind).toBe('drop');
    b.removeAclRule(id);
    expect(b.handle(tcp('203.0.113.6', 5, VIP, 80, SYN), 3).kind).toBe('forward');
  });

  it("'*' matches any destination of either family, after more specific services", () => {
    const b = new ProcessorBoard(config([
      service({ name: 'all', vip: '*', port: 0, protocol: 'any', pool: servers(1, 'a') }),
      service({ name: 'web', pool: servers(1, 'w') }),
    ]), { slot: 3, startMs: 0 });
    const svc = (v: Verdict) => (v.kind === 'forward' ? v.service.name : v.reason);
    expect(svc(b.handle(tcp('10.0.0.1', 1, VIP, 80, SYN), 0))).toBe('web');
    expect(svc(b.handle(tcp('10.0.0.1', 1, '198.51.100.1', 80, SYN), 0))).toBe('all');
    expect(svc(b.handle(udp('2001:db8::1', 1, '2001:db8::2', 53), 0))).toBe('all');
  });

  it('relays an ICMP error quoting a session to that session\'s RS', () => {
    const b = new ProcessorBoard(config([service({ pool: servers(4), scheduler: 'rr' }), service({ name: 'icmp', vip: '0.0.0.0/0', port: 0, protocol: 'any', pool: servers(1, 'other') })]), { slot: 3, startMs: 0 });
    handshake(b, '10.0.0.1', 1000, 0);
    const x = handshake(b, '10.0.0.2', 2000, 0);
    const err = packet({ src: '203.0.113.1', dst: VIP, proto: 1, payload: 36 });
    err.icmpError = true;
    const q = err.quoted;
    q.copyFrom(tcp(VIP, 80, '10.0.0.2', 2000, ACK).outer);
    const v = b.handle(err, 1);
    expect(rsOf(v)).toBe(x);
    expect(v.kind === 'forward' && v.newSession).toBe(false);
    q.copyFrom(tcp(VIP, 80, '10.0.0.9', 9, ACK).outer); // no such session: an ordinary packet
    expect(rsOf(b.handle(err, 2))).toBe('other0');
  });

  it('counts parse errors and non-IP frames, with every drop key present', () => {
    const b = new ProcessorBoard(config([service()]), { slot: 3, startMs: 0 });
    const bad = tcp('10.0.0.1', 1, VIP, 80, SYN);
    bad.malformed = true;
    bad.outer.hasPorts = false; // the malformation hid the ports
    expect(b.handle(bad, 0).kind).toBe('drop');
    const deep = tcp('10.0.0.1', 1, VIP, 80, SYN);
    deep.malformed = true; // e.g. a bad TCP option: the 5-tuple is fine, forwarded as captured
    expect(b.handle(deep, 0).kind).toBe('forward');
    const arp = tcp('10.0.0.1', 1, VIP, 80, SYN);
    arp.outer.reset();
    expect(b.handle(arp, 0).kind).toBe('drop');
    const d = b.drops();
    expect(Object.keys(d)).toEqual([...DROP_REASONS]);
    expect([d.parse_error, d.not_ip]).toEqual([1, 1]);
    expect(b.packets).toBe(3);
  });
});

describe('health, RS down and alarms', () => {
  it('marks an RS down after `fall` failed probes, raises and clears the pool alarm', () => {
    const events: ProcessorEvent[] = [];
    const pool = servers(2);
    pool[1]!.sim = { down: [{ from: 10_000, to: 40_000 }] };
    const b = new ProcessorBoard(config([service({ scheduler: 'rr', pool, alarmBelow: 0.6 })]), {
      slot: 3, startMs: 0, onEvent: (e) => events.push(e),
    });
    const clock = new SimClock();
    for (let t = 0; t <= 60_000; t += 500) {
      clock.runUntil(t);
      b.tick(clock.now());
    }
    // probes every 5 s fail at 10, 15, 20 s; each failure is known at its 1 s timeout → down at 21 s.
    // From 40 s they succeed (40, 45 s) → rise 2 → up at 45 s.
    expect(events.map((e) => `${e.type}@${e.atMs}`)).toEqual([
      'rs.down@21000', 'pool.alarm.raised@21000', 'rs.up@45000', 'pool.alarm.cleared@45000',
    ]);
    const raised = events[1] as Extract<ProcessorEvent, { type: 'pool.alarm.raised' | 'pool.alarm.cleared' }>;
    expect(raised.liveShare).toBe(0.5);
  });

  it('sends no new connection to a down RS; its TCP sessions are dropped, UDP ones rescheduled', () => {
    const b = new ProcessorBoard(config([
      service({ scheduler: 'rr', pool: servers(2) }),
      service({ name: 'dns', port: 53, protocol: 'udp', scheduler: 'rr', pool: servers(2, 'd') }),
    ]), { slot: 3, startMs: 0 });
    const t0 = handshake(b, '10.0.0.1', 1, 0);
    const t1 = handshake(b, '10.0.0.2', 1, 0);
    const u0 = rsOf(b.handle(udp('10.0.0.1', 5353, VIP, 53), 0));
    const u1 = rsOf(b.handle(udp('10.0.0.2', 5353, VIP, 53), 0));
    expect(new Set([t0, t1])).toEqual(new Set(['rs0', 'rs1']));
    expect(new Set([u0, u1])).toEqual(new Set(['d0', 'd1']));
    b.setFailing('web', 'rs1', true);
    b.setFailing('dns', 'd1', true);
    b.tick(16_000); // probes at 5, 10, 15 s fail → down at 16 s
    expect(b.isUp('web', 'rs1')).toBe(false);
    const c1 = t0 === 'rs1' ? '10.0.0.1' : '10.0.0.2';
    const d = b.handle(tcp(c1, 1, VIP, 80, ACK), 16_001);
    expect(d.kind === 'drop' && d.reason).toBe('rs_down');
    const uc = u0 === 'd1' ? '10.0.0.1' : '10.0.0.2';
    expect(rsOf(b.handle(udp(uc, 5353, VIP, 53), 16_002))).toBe('d0');
    for (let i = 0; i < 5; i++) expect(handshake(b, v4(0x0a000a00 + i), 2, 16_003)).toBe('rs0');
    b.setFailing('web', 'rs0', true);
    b.tick(31_000);
    const none = b.handle(tcp('10.0.0.99', 2, VIP, 80, SYN), 31_001);
    expect(none.kind === 'drop' && none.reason).toBe('rs_down');
  });

  it('dynamic: weights follow the load score of the simulated servers', () => {
    const events: ProcessorEvent[] = [];
    const pool = servers(2);
    pool[0]!.sim = { cpu: 0.1, mem: 0.1 };
    pool[1]!.sim = { cpu: 0.8, mem: 0.5 };
    const b = new ProcessorBoard(config([service({ scheduler: 'dynamic', pool })]), { slot: 3, onEvent: (e) => events.push(e) });
    b.handle(tcp('10.0.0.1', 1, VIP, 80, SYN), 0);
    const w = events.find((e) => e.type === 'weights.changed') as Extract<ProcessorEvent, { type: 'weights.changed' }>;
    // scores 1/(0.07+0.02) = 11.1 and 1/(0.56+0.1) = 1.52 → 100 and 14
    expect(w.weights).toEqual({ rs0: 100, rs1: 14 });
    const n = { rs0: 0, rs1: 0 } as Record<string, number>;
    for (let i = 0; i < 114; i++) n[rsOf(b.handle(tcp(v4(0x0b000000 + i), 1, VIP, 80, SYN), 1))]!++;
    expect(n).toEqual({ rs0: 100, rs1: 14 });
  });
});

describe('maglev: removing 1 of 8 servers', () => {
  it('moves no flow of the other servers that has a session', () => {
    const b = new ProcessorBoard(config([service({ scheduler: 'maglev', pool: servers(8), port: 0, protocol: 'any' })], {}, 10_000), { slot: 3, startMs: 0 });
    const flows: Array<{ p: TestPacket; rs: string }> = [];
    for (let i = 0; i < 4000; i++) {
      const p = udp(v4(0x0a000000 + i * 7), 1024 + (i % 5000), VIP, 53);
      flows.push({ p, rs: rsOf(b.handle(p, 0)) });
    }
    const victim = 'rs3';
    b.setWeight('web', victim, 0);
    let movedOthers = 0;
    for (const f of flows) {
      const now = rsOf(b.handle(f.p, 1));
      if (f.rs !== victim && now !== f.rs) movedOthers++;
      if (f.rs === victim) expect(now).toBe(victim); // drained, not broken
    }
    expect(movedOthers).toBe(0);
    // stateless view: the table itself moves only the victim's entries plus a little collateral
    const m = b.services[0]!.scheduler as MaglevScheduler;
    expect(Array.from(m.table)).not.toContain(3);
  });
});

describe('persistence', () => {
  it('pins a client to its RS for the persistence timeout', () => {
    const b = new ProcessorBoard(config([service({ scheduler: 'rr', persistenceMs: 10_000, pool: servers(3) })]), { slot: 3, startMs: 0 });
    const first = handshake(b, '10.0.0.1', 1000, 0);
    for (let p = 1001; p < 1006; p++) expect(handshake(b, '10.0.0.1', p, 100)).toBe(first);
    const others = new Set([1, 2, 3, 4, 5, 6].map((i) => handshake(b, v4(0x0a000100 + i), 1000, 200)));
    expect(others.size).toBe(3);
    // after the timeout without a new connection, rr may pick another server
    const picks = new Set([0, 1, 2].map((k) => handshake(b, '10.0.0.1', 2000 + k, 20_000 + k * 20_000)));
    expect(picks.size).toBeGreaterThan(1);
  });
});

describe('HA hooks', () => {
  it('syncs sessions as records, imports them on the buddy and promotes them on takeover', () => {
    const cfg = config([service({ scheduler: 'wlc', pool: servers(4) })], { midstreamPickup: false });
    const removed: string[] = [];
    const a = new ProcessorBoard(cfg, { slot: 3, startMs: 0, onSessionRemoved: (r, why) => removed.push(`${r.clientPort}:${why}`) });
    const b = new ProcessorBoard(cfg, { slot: 4, startMs: 0 });
    const pinned = new Map<number, string>();
    for (let i = 0; i < 40; i++) pinned.set(20000 + i, handshake(a, v4(0x0a000000 + i), 20000 + i, i * 100));
    a.handle(tcp('10.9.9.9', 9, VIP, 80, SYN), 4_000); // a young half-open session
    // export sessions older than T_s = 3 s at t = 5 s, through the wire codec
    const now = 5_000;
    const buf = new Uint8Array(1500);
    let off = 0;
    let n = 0;
    a.forEachSession((rec) => {
      if (now - rec.createdMs < 3_000) return;
      off = encodeSessionRecord(rec, buf, off, now);
      n++;
    });
    expect(n).toBe(21); // created at 0, 100, … 2000 ms
    expect(off).toBe(n * 28);
    for (let p = 0; p < off;) {
      const { value, end } = decodeSessionRecord(buf, p, now + 2); // the buddy's clock
      expect(b.importSession('lb1/slot3', value, now + 2)).toBe(true);
      p = end;
    }
    expect(b.standbySize('lb1/slot3')).toBe(21);
    // before takeover the standby sessions are not live: strict mode drops their packets
    const early = b.handle(tcp(v4(0x0a000000), 20000, VIP, 80, ACK), 6_000);
    expect(early.kind === 'drop' && early.reason).toBe('no_session');
    expect(b.promote('lb1/slot3', 6_000)).toEqual({ promoted: 21, dropped: 0 });
    for (let i = 0; i <= 20; i++) {
      expect(rsOf(b.handle(tcp(v4(0x0a000000 + i), 20000 + i, VIP, 80, ACK | PSH, 50), 6_100))).toBe(pinned.get(20000 + i));
    }
    // a session the old active created after the last sync is lost (counted by the HA layer)
    const lost = b.handle(tcp(v4(0x0a000000 + 30), 20030, VIP, 80, ACK), 6_200);
    expect(lost.kind).toBe('drop');
    // delete notifications: the young half-open session expires on the old active after 60 s
    a.tick(64_001);
    expect(removed).toContain('9:expired');
  });

  it('rejects records for unknown services/RS', () => {
    const b = new ProcessorBoard(config([service()]), { slot: 4, startMs: 0 });
    const a = new ProcessorBoard(config([service()]), { slot: 3, startMs: 0 });
    handshake(a, '10.0.0.1', 1, 0);
    let rec: SessionRecord | undefined;
    a.forEachSession((r) => (rec = copySessionRecord(r)));
    expect(sessionRecordLength(rec!)).toBe(28);
    expect(b.importSession('x', { ...rec!, rs: 99 }, 0)).toBe(false);
    expect(b.importSession('x', { ...rec!, service: 1 }, 0)).toBe(false);
    expect(b.importSession('x', rec!, 0)).toBe(true);
    b.discardStandby('x');
    expect(b.standbySize('x')).toBe(0);
  });
});

describe('counters', () => {
  it('counts packets, bytes, flows, per-RS connections and the hot hit ratio', () => {
    const b = new ProcessorBoard(config([service({ pool: servers(2) })], {
      sessions: { capacity: 100, hotCapacity: 4, promoteAfterHits: 2, aclCapacity: 16 },
    }), { slot: 5, startMs: 0 });
    handshake(b, '10.0.0.1', 1, 0);
    handshake(b, '10.0.0.2', 1, 0);
    for (let i = 0; i < 10; i++) b.handle(tcp('10.0.0.1', 1, VIP, 80, ACK | PSH, 100), 1);
    const s = b.stats();
    expect(s.packets).toBe(16);
    expect(s.flows).toBe(2);
    expect(s.sessions.active).toBe(2);
    expect(s.sessions.byState.ESTABLISHED).toBe(2);
    expect(s.services[0]!.rs.map((r) => r.active)).toEqual([1, 1]);
    expect(s.bytes).toBe(6 * 54 + 10 * 154);
    // 2 cold hits per connection before promotion (SYN+ACK, ACK), then 10 hot hits for 10.0.0.1
    expect(s.hot.hits).toBe(10);
    expect(s.hot.ratio).toBeCloseTo(10 / 14, 12);
  });
});
