import { describe, expect, it } from 'vitest';
import { SessionTable, RemoveReason } from '../../../../../board/processor/tcam/session-table.ts';
import { SessionState, EF_FIN_CLIENT } from '../../../../../board/processor/tcp-state.ts';
import { SimClock } from '../../../../../board/common/sim-clock.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';
import { newSessionRecord } from '../../../../../board/processor/session-record.ts';
import { DEFAULT_TIMEOUTS } from '../../../../../board/processor/processor-config.ts';
import { tcp, udp, packet, v4, SYN, ACK, FIN, RST } from '../../../../support/processor-packets.ts';

const S = SessionState;

describe('SessionTable keys', () => {
  it('finds a conversation from both directions and tells the direction', () => {
    const t = new SessionTable({ capacity: 16 });
    const fwd = tcp('10.0.0.1', 40000, '192.0.2.10', 80, SYN);
    const rev = tcp('192.0.2.10', 80, '10.0.0.1', 40000, SYN | ACK);
    const h1 = t.loadKey(fwd.outer);
    expect(t.find()).toBe(-1);
    const e = t.insert(0, 0, 1, S.SYN_RECV);
    expect(e).toBeGreaterThanOrEqual(0);
    expect(t.find()).toBe(e);
    expect(t.isFromClient(e)).toBe(true);
    const h2 = t.loadKey(rev.outer);
    expect(h2).toBe(h1);
    expect(t.find()).toBe(e);
    expect(t.isFromClient(e)).toBe(false);
    // another port is another conversation
    t.loadKey(tcp('10.0.0.1', 40001, '192.0.2.10', 80, SYN).outer);
    expect(t.find()).toBe(-1);
    // same addresses/ports but UDP is another conversation
    t.loadKey(udp('10.0.0.1', 40000, '192.0.2.10', 80).outer);
    expect(t.find()).toBe(-1);
  });

  it('keys IPv6 conversations (side store) and reports them back as records', () => {
    const t = new SessionTable({ capacity: 8 });
    const p = tcp('2001:db8::1', 5000, '2001:db8::80', 443, SYN);
    t.loadKey(p.outer);
    const e = t.insert(1000, 2, 3, S.SYN_RECV);
    t.loadKey(tcp('2001:db8::80', 443, '2001:db8::1', 5000, ACK).outer);
    expect(t.find()).toBe(e);
    t.loadKey(tcp('2001:db8::2', 5000, '2001:db8::80', 443, SYN).outer);
    expect(t.find()).toBe(-1);
    expect(t.v6StoreBytes()).toBeGreaterThan(0);
    const r = t.readRecord(e, newSessionRecord());
    expect(r.family).toBe(6);
    expect(Array.from(r.client)).toEqual(Array.from(p.outer.src));
    expect(Array.from(r.server)).toEqual(Array.from(p.outer.dst));
    expect([r.clientPort, r.serverPort, r.service, r.rs, r.state, r.createdMs]).toEqual([5000, 443, 2, 3, S.SYN_RECV, 1000]);
  });

  it('keys fragments and other protocols by address pair and protocol', () => {
    const t = new SessionTable({ capacity: 8 });
    const icmp = packet({ src: '10.0.0.1', dst: '10.0.0.2', proto: 1, payload: 8 });
    t.loadKey(icmp.outer);
    const e = t.insert(0, 0, 0, S.OTHER_NEW);
    const back = packet({ src: '10.0.0.2', dst: '10.0.0.1', proto: 1, payload: 8 });
    t.loadKey(back.outer);
    expect(t.find()).toBe(e);
    const frag = udp('10.0.0.1', 53, '10.0.0.2', 53);
    frag.outer.fragment = true;
    t.loadKey(frag.outer);
    expect(t.find()).toBe(-1); // (src, dst, 17) is not (src, dst, 1)
    const e2 = t.insert(0, 0, 0, S.OTHER_NEW);
    const frag2 = packet({ src: '10.0.0.2', dst: '10.0.0.1', proto: 17 });
    frag2.outer.hasPorts = false;
    t.loadKey(frag2.outer);
    expect(t.find()).toBe(e2);
  });

  it('stays consistent under random inserts and removals (vs a reference map)', () => {
    const rnd = new SeededRandom(11);
    const t = new SessionTable({ capacity: 500 });
    const ref = new Map<string, number>();
    const keys: string[] = [];
    for (let step = 0; step < 8000; step++) {
      const n = rnd.int(800);
      const src = v4(0x0a000000 + n);
      const key = `${src}`;
      const p = tcp(src, 1000 + (n % 7), '192.0.2.1', 80, ACK);
      t.loadKey(p.outer);
      const e = t.find();
      expect(e >= 0).toBe(ref.has(key));
      if (e >= 0) {
        expect(t.rsOf(e)).toBe(ref.get(key));
        if (rnd.next() < 0.5) {
          t.remove(e, RemoveReason.DELETED);
          ref.delete(key);
        }
      } else if (t.size < t.capacity) {
        const ne = t.insert(step, 0, n % 50, S.ESTABLISHED);
        expect(ne).toBeGreaterThanOrEqual(0);
        ref.set(key, n % 50);
        keys.push(key);
      }
      expect(t.size).toBe(ref.size);
    }
  });
});

describe('SessionTable aging and TCP states', () => {
  it('moves through IPVS-like states with their timeouts (SimClock)', () => {
    const clock = new SimClock();
    const t = new SessionTable({ capacity: 64, timeouts: { tcpSynRecv: 60_000, tcpEstablished: 900_000, tcpFinWait: 120_000, tcpClose: 10_000, tcpTimeWait: 120_000 } });
    const c2s = (f: number) => tcp('10.0.0.1', 40000, '192.0.2.10', 80, f);
    const s2c = (f: number) => tcp('192.0.2.10', 80, '10.0.0.1', 40000, f);
    t.loadKey(c2s(SYN).outer);
    const e = t.insert(clock.now(), 0, 0, S.SYN_RECV);
    const step = (p: ReturnType<typeof c2s>) => {
      clock.advance(10);
      t.loadKey(p.outer);
      const x = t.find();
      expect(x).toBe(e);
      return t.applyPacket(x, p.outer.tcpFlags, t.isFromClient(x), clock.now());
    };
    expect(step(s2c(SYN | ACK))).toBe(S.SYN_RECV);
    expect(t.rsInactive[0]).toBe(1);
    expect(step(c2s(ACK))).toBe(S.ESTABLISHED);
    expect([t.rsActive[0], t.rsInactive[0]]).toEqual([1, 0]);
    expect(step(c2s(ACK | 0x08))).toBe(S.ESTABLISHED);
    expect(step(c2s(FIN | ACK))).toBe(S.FIN_WAIT);
    expect(t.flagsOf(e) & EF_FIN_CLIENT).toBeTruthy();
    expect([t.rsActive[0], t.rsInactive[0]]).toEqual([0, 1]);
    expect(step(s2c(ACK))).toBe(S.FIN_WAIT);
    expect(step(s2c(FIN | ACK))).toBe(S.TIME_WAIT);
    // TIME_WAIT lives 120 s from its last packet
    const last = clock.now();
    expect(t.sweep(clock.now())).toBe(last + 120_000);
    clock.advance(119_999);
    t.sweep(clock.now());
    expect(t.size).toBe(1);
    clock.advance(1);
    t.sweep(clock.now());
    expect(t.size).toBe(0);
    expect(t.expired).toBe(1);
    expect([t.rsActive[0], t.rsInactive[0]]).toEqual([0, 0]);
  });

  it('expires each state after its own timeout and RST closes', () => {
    const clock = new SimClock(5_000);
    const t = new SessionTable({ capacity: 64 });
    const mk = (i: number, state: number) => {
      t.loadKey(tcp(v4(0x0a000001 + i), 1000, '192.0.2.10', 80, SYN).outer);
      return t.insert(clock.now(), 0, 0, state);
    };
    const syn = mk(1, S.SYN_RECV);
    const est = mk(2, S.ESTABLISHED);
    t.loadKey(udp('10.0.0.9', 53, '192.0.2.53', 53).outer);
    const u = t.insert(clock.now(), 0, 0, S.UDP_NEW);
    const rst = mk(3, S.ESTABLISHED);
    t.loadKey(tcp(v4(0x0a000004), 1000, '192.0.2.10', 80, RST).outer);
    expect(t.applyPacket(rst, RST, true, clock.now())).toBe(S.CLOSE);
    const alive = (e: number) => t.stateOf(e) !== S.FREE;
    clock.advance(DEFAULT_TIMEOUTS.tcpClose);
    t.sweep(clock.now());
    expect([alive(syn), alive(est), alive(u), alive(rst)]).toEqual([true, true, true, false]);
    clock.advance(DEFAULT_TIMEOUTS.tcpSynRecv - DEFAULT_TIMEOUTS.tcpClose);
    t.sweep(clock.now());
    expect([alive(syn), alive(est), alive(u)]).toEqual([false, true, true]);
    clock.advance(DEFAULT_TIMEOUTS.udp - DEFAULT_TIMEOUTS.tcpSynRecv);
    t.sweep(clock.now());
    expect([alive(est), alive(u)]).toEqual([true, false]);
    const next = t.sweep(clock.now());
    expect(next).toBe(5_000 + DEFAULT_TIMEOUTS.tcpEstablished);
  });

  it('refreshing an entry postpones its expiry (LRU order within a state)', () => {
    const t = new SessionTable({ capacity: 8, timeouts: { udp: 1000 } });
    const a = udp('10.0.0.1', 1, '10.0.0.2', 2);
    const b = udp('10.0.0.3', 1, '10.0.0.2', 2);
    t.loadKey(a.outer);
    const ea = t.insert(0, 0, 0, S.UDP_NEW);
    t.loadKey(b.outer);
    const eb = t.insert(100, 0, 0, S.UDP_NEW);
    t.loadKey(a.outer);
    t.applyPacket(ea, -1, true, 900);
    // within the last-seen granularity (timeout/64 = 15 ms here) a hit does not move the entry
    t.applyPacket(ea, -1, true, 914);
    expect(t.lastSeenOf(ea)).toBe(900);
    t.applyPacket(ea, -1, true, 915);
    expect(t.lastSeenOf(ea)).toBe(915);
    expect(t.hitsOf(ea)).toBe(3);
    expect(t.sweep(1050)).toBe(1100); // b (seen 100) is next, a was refreshed at 915
    expect(t.stateOf(ea)).toBe(S.UDP_NEW);
    t.sweep(1100);
    expect(t.stateOf(eb)).toBe(S.FREE);
    expect(t.stateOf(ea)).toBe(S.UDP_NEW);
  });

  it('a reply confirms a UDP session (no longer half-open)', () => {
    const t = new SessionTable({ capacity: 8 });
    t.loadKey(udp('10.0.0.1', 1, '10.0.0.2', 2).outer);
    const e = t.insert(0, 0, 0, S.UDP_NEW);
    t.loadKey(udp('10.0.0.2', 2, '10.0.0.1', 1).outer);
    expect(t.applyPacket(e, -1, t.isFromClient(e), 1)).toBe(S.UDP);
  });

  it('survives clock jumps of months (captures from different years) and ignores time going back', () => {
    const t = new SessionTable({ capacity: 8 });
    t.loadKey(udp('10.0.0.1', 1, '10.0.0.2', 2).outer);
    const a = t.insert(1_000, 0, 0, S.UDP);
    const day = 86_400_000;
    t.loadKey(udp('10.0.0.3', 1, '10.0.0.2', 2).outer);
    const b = t.insert(400 * day, 0, 0, S.UDP); // 400 days later: the table rebases
    expect(t.createdOf(b)).toBe(400 * day);
    expect(t.stateOf(a)).toBe(S.UDP);
    t.sweep(400 * day);
    expect(t.stateOf(a)).toBe(S.FREE); // long expired
    expect(t.stateOf(b)).toBe(S.UDP);
    t.loadKey(udp('10.0.0.3', 1, '10.0.0.2', 2).outer);
    t.applyPacket(b, -1, true, 5); // a packet stamped in the past counts as "now"
    expect(t.lastSeenOf(b)).toBe(400 * day);
    expect(t.sweep(400 * day + DEFAULT_TIMEOUTS.udp)).toBe(Infinity);
  });

  it('sweeps with bounded work per call', () => {
    const t = new SessionTable({ capacity: 100, timeouts: { udp: 10 } });
    for (let i = 0; i < 100; i++) {
      t.loadKey(udp(v4(0x0a000000 + i), 1, '10.1.0.1', 2).outer);
      t.insert(0, 0, 0, S.UDP);
    }
    expect(t.sweep(1000, 30)).toBe(1000); // more work left: call again now
    expect(t.size).toBe(70);
    t.sweep(1000, 30);
    t.sweep(1000, 30);
    expect(t.sweep(1000, 30)).toBe(Infinity);
    expect(t.size).toBe(0);
  });
});

describe('SessionTable SYN-flood policy', () => {
  it('a full table evicts the LRU half-open entry, never an established one', () => {
    const t = new SessionTable({ capacity: 10 });
    for (let i = 0; i < 6; i++) {
      t.loadKey(tcp(v4(0x0a000000 + i), 1000, '192.0.2.1', 80, ACK).outer);
      t.insert(i, 0, 0, S.ESTABLISHED);
    }
    const halfOpen: number[] = [];
    for (let i = 0; i < 4; i++) {
      t.loadKey(tcp(v4(0x0b000000 + i), 1000, '192.0.2.1', 80, SYN).outer);
      halfOpen.push(t.insert(10 + i, 0, 0, S.SYN_RECV));
    }
    expect(t.size).toBe(10);
    // a new connection evicts the oldest SYN_RECV (seen at 10)
    t.loadKey(tcp('172.16.0.1', 1, '192.0.2.1', 80, SYN).outer);
    const e = t.insert(20, 0, 0, S.SYN_RECV);
    expect(e).toBe(halfOpen[0]); // the freed entry is reused
    expect(t.evicted).toBe(1);
    expect(t.evictedByState[S.SYN_RECV]).toBe(1);
    expect(t.countInState(S.ESTABLISHED)).toBe(6);
    // fill the half-open part with established entries: now nothing is evictable
    for (let i = 0; i < 4; i++) {
      t.loadKey(tcp(v4(0x0c000000 + i), 1000, '192.0.2.1', 80, SYN).outer);
      const x = t.insert(30, 0, 0, S.SYN_RECV);
      t.applyPacket(x, ACK, true, 31);
    }
    expect(t.countInState(S.ESTABLISHED)).toBe(10);
    t.loadKey(tcp('172.16.0.2', 1, '192.0.2.1', 80, SYN).outer);
    expect(t.insert(40, 0, 0, S.SYN_RECV)).toBe(-1);
    expect(t.fullRefusals).toBe(1);
    expect(t.size).toBe(10);
  });

  it('a full table reclaims an expired entry before evicting anything', () => {
    const t = new SessionTable({ capacity: 2, timeouts: { tcpEstablished: 100 } });
    t.loadKey(tcp('10.0.0.1', 1, '10.0.0.9', 80, ACK).outer);
    t.insert(0, 0, 0, S.ESTABLISHED);
    t.loadKey(tcp('10.0.0.2', 1, '10.0.0.9', 80, SYN).outer);
    const syn = t.insert(150, 0, 0, S.SYN_RECV);
    t.loadKey(tcp('10.0.0.3', 1, '10.0.0.9', 80, SYN).outer);
    expect(t.insert(200, 0, 0, S.SYN_RECV)).toBeGreaterThanOrEqual(0);
    expect(t.expired).toBe(1);
    expect(t.evicted).toBe(0);
    expect(t.stateOf(syn)).toBe(S.SYN_RECV);
  });
});

describe('SessionTable hot tier', () => {
  it('promotes entries by hits and reports the hot hit ratio', () => {
    const t = new SessionTable({ capacity: 100, hotCapacity: 2, promoteAfterHits: 3 });
    const pk = (i: number) => udp(v4(0x0a000000 + i), 1, '10.9.9.9', 53);
    const es = [0, 1, 2].map((i) => {
      t.loadKey(pk(i).outer);
      return t.insert(0, 0, 0, S.UDP);
    });
    const hitN = (i: number, n: number) => {
      for (let k = 0; k < n; k++) {
        t.loadKey(pk(i).outer);
        t.applyPacket(t.find(), -1, true, 1);
      }
    };
    hitN(0, 2);
    expect(t.isHot(es[0]!)).toBe(false);
    hitN(0, 1); // third hit → promoted
    expect(t.isHot(es[0]!)).toBe(true);
    hitN(0, 5); // 5 hot hits
    expect([t.hotHits, t.coldHits]).toEqual([5, 3]);
    expect(t.hotHitRatio).toBeCloseTo(5 / 8, 12);
    hitN(1, 3);
    expect(t.hotSize).toBe(2);
    // a third hot candidate: the CLOCK hand demotes one not referenced since it passed
    hitN(2, 3);
    expect(t.hotSize).toBe(2);
    expect(t.isHot(es[2]!)).toBe(true);
    expect(t.demotions).toBe(1);
    expect([t.isHot(es[0]!), t.isHot(es[1]!)].filter(Boolean).length).toBe(1);
    // removing a hot entry frees its slot
    t.remove(es[2]!, RemoveReason.DELETED);
    expect(t.hotSize).toBe(1);
  });
});

describe('SessionTable records', () => {
  it('upserts records (HA import) keeping times, and deletes them', () => {
    const src = new SessionTable({ capacity: 8 });
    src.loadKey(tcp('10.0.0.1', 40000, '192.0.2.10', 80, SYN).outer);
    const e = src.insert(1_000, 4, 7, S.ESTABLISHED);
    src.loadKey(tcp('10.0.0.1', 40000, '192.0.2.10', 80, ACK).outer);
    src.applyPacket(e, ACK, true, 2_500);
    const rec = src.readRecord(e, newSessionRecord());
    expect([rec.createdMs, rec.lastSeenMs]).toEqual([1_000, 2_500]);

    const dst = new SessionTable({ capacity: 8 });
    const d = dst.upsertRecord(rec, 3_000);
    expect(d).toBeGreaterThanOrEqual(0);
    expect([dst.createdOf(d), dst.lastSeenOf(d), dst.rsOf(d), dst.serviceOf(d), dst.stateOf(d)]).toEqual([1_000, 2_500, 7, 4, S.ESTABLISHED]);
    dst.loadKey(tcp('192.0.2.10', 80, '10.0.0.1', 40000, ACK).outer);
    expect(dst.find()).toBe(d);
    expect(dst.isFromClient(d)).toBe(false);
    expect(dst.rsActive[7]).toBe(1);
    expect(dst.deleteRecord(rec)).toBe(true);
    expect(dst.size).toBe(0);
    expect(dst.rsActive[7]).toBe(0);
    expect(() => dst.upsertRecord({ ...rec, state: 0 }, 0)).toThrow(RangeError);
  });

  it('calls onCreate for every entry (re)used for a new session: insert and upsertRecord, not hits', () => {
    const t = new SessionTable({ capacity: 2 });
    const created: number[] = [];
    t.onCreate = (e) => created.push(e);
    t.loadKey(tcp('10.0.0.1', 40000, '192.0.2.10', 80, SYN).outer);
    const a = t.insert(1_000, 0, 0, S.SYN_RECV);
    t.applyPacket(a, ACK, true, 1_001);
    const rec = t.readRecord(a, newSessionRecord());
    t.remove(a, RemoveReason.DELETED);
    const b = t.upsertRecord(rec, 1_002);
    // the freed entry is reused, and the hook says so again
    expect(b).toBe(a);
    t.loadKey(tcp('10.0.0.2', 40001, '192.0.2.10', 80, SYN).outer);
    const c = t.insert(1_003, 0, 0, S.SYN_RECV);
    expect(created).toEqual([a, b, c]);
  });

  it('reports its memory: about 53.6 bytes per IPv4 entry', () => {
    const t = new SessionTable({ capacity: 1_500_000, maxRealServers: 1 });
    const per = t.memoryBytes() / t.capacity;
    expect(per).toBeLessThanOrEqual(64);
    expect(per).toBeGreaterThan(48);
  });

  it('rejects bad sizes', () => {
    expect(() => new SessionTable({ capacity: 0 })).toThrow(RangeError);
    expect(() => new SessionTable({ capacity: 10, hotCapacity: 11 })).toThrow(/hot tier/);
  });
});
