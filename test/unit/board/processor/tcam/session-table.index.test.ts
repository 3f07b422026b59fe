/**
 * The session table's index under deletion: backward-shift deletion driven by the probe distance
 * stored in each index word (including distances that saturate the 5-bit field), checked against
 * a plain Map model, and loadKeyI32 against loadKey.
 */
import { describe, expect, it } from 'vitest';
import { SessionTable, RemoveReason } from '../../../../../board/processor/tcam/session-table.ts';
import { SessionState } from '../../../../../board/processor/tcp-state.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';
import { tcp, SYN } from '../../../../support/processor-packets.ts';

const src = new Uint8Array(16);
const dst = new Uint8Array(16);

function put32(b: Uint8Array, v: number): void {
  b[0] = v >>> 24;
  b[1] = (v >>> 16) & 0xff;
  b[2] = (v >>> 8) & 0xff;
  b[3] = v & 0xff;
}

/** Loads the key of flow `k` (client 10.x.y.z:k&0xffff → 192.0.2.1:80). */
function load(t: SessionTable, k: number): number {
  put32(src, (0x0a000000 | (k >>> 4)) >>> 0);
  put32(dst, 0xc0000201);
  return t.loadKeyRaw(false, src, dst, 1024 + (k & 15), 80, 6, true);
}

/** Checks that exactly the keys of `live` are found, each at its entry. */
function check(t: SessionTable, live: Map<number, number>, universe: Iterable<number>): void {
  for (const k of universe) {
    load(t, k);
    expect(t.find()).toBe(live.get(k) ?? -1);
  }
  expect(t.size).toBe(live.size);
}

describe('SessionTable index', () => {
  it('loadKeyI32 loads the same key as loadKey and returns its hash as int32', () => {
    const t = new SessionTable({ capacity: 64 });
    for (let i = 0; i < 200; i++) {
      const p = tcp(`10.0.${i >> 8}.${i & 255}`, 1024 + i * 131, '192.0.2.10', 80, SYN);
      const u = t.loadKey(p.outer);
      const s = t.loadKeyI32(p.outer);
      expect(s).toBe(u | 0);
      expect(s >>> 0).toBe(u);
      expect(t.keyHash).toBe(u);
    }
  });

  it('loads an IPv4 tuple (its fast path) exactly as loadKeyRaw loads the same fields', () => {
    const t = new SessionTable({ capacity: 64 });
    const rnd = new SeededRandom(5);
    const addr = () => (rnd.int(3) === 0 ? '10.0.0.1' : `${rnd.int(256)}.${rnd.int(256)}.${rnd.int(256)}.${rnd.int(256)}`);
    for (let i = 0; i < 3000; i++) {
      const sport = rnd.int(3) === 0 ? 80 : rnd.int(65536);
      const dport = rnd.int(3) === 0 ? 80 : rnd.int(65536);
      const p = tcp(addr(), sport, addr(), dport, SYN);
      const o = p.outer;
      o.fragment = rnd.int(4) === 0;
      if (rnd.int(4) === 0) {
        o.hasPorts = false;
        o.proto = 1 + rnd.int(250);
      }
      const hp = o.hasPorts && !o.fragment;
      const viaTuple = t.loadKey(o);
      const e1 = t.find();
      const viaRaw = t.loadKeyRaw(false, o.src, o.dst, hp ? o.sport : 0, hp ? o.dport : 0, o.proto, hp);
      expect(viaTuple).toBe(viaRaw);
      expect(t.find()).toBe(e1);
      if (e1 < 0 && t.size < 64) t.insert(i, 0, 0, SessionState.ESTABLISHED);
    }
  });

  it('keeps every key findable through random inserts and removals (Map model)', () => {
    const cap = 2000;
    const t = new SessionTable({ capacity: cap });
    const rnd = new SeededRandom(7);
    const live = new Map<number, number>();
    const universe = Array.from({ length: 6000 }, (_, i) => i);
    for (let step = 0; step < 40_000; step++) {
      const k = universe[rnd.int(universe.length)]!;
      load(t, k);
      const e = t.find();
      expect(e).toBe(live.get(k) ?? -1);
      if (e >= 0) {
        if (rnd.int(3) > 0) {
          t.remove(e, RemoveReason.DELETED);
          live.delete(k);
        }
      } else if (t.size < cap) {
        live.set(k, t.insert(step, 0, 0, SessionState.ESTABLISHED));
      }
      if (step % 5000 === 0) check(t, live, universe);
    }
    check(t, live, universe);
  });

  it('handles clusters longer than the stored distance can say (saturated words)', () => {
    // 48 entries → a 64-slot index: keys chosen to share one home slot make a cluster of 45 with
    // distances 0..44, beyond the 5-bit field's 31.
    const t = new SessionTable({ capacity: 48 });
    const probe = new SessionTable({ capacity: 48 });
    const mask = 63;
    const home = load(probe, 0) & mask;
    const same: number[] = [];
    const other: number[] = [];
    for (let k = 0; same.length < 45 || other.length < 3; k++) {
      if ((load(probe, k) & mask) === home) {
        if (same.length < 45) same.push(k);
      } else if (other.length < 3) other.push(k);
    }
    const keys = [...same, ...other];
    const rnd = new SeededRandom(11);
    for (let round = 0; round < 20; round++) {
      const live = new Map<number, number>();
      for (const k of keys) {
        load(t, k);
        expect(t.find()).toBe(-1);
        live.set(k, t.insert(round, 0, 0, SessionState.SYN_RECV));
      }
      check(t, live, keys);
      // remove in random order, checking every key after each removal
      const order = keys.slice();
      for (let i = order.length - 1; i > 0; i--) {
        const j = rnd.int(i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      for (const k of order) {
        t.remove(live.get(k)!, RemoveReason.DELETED);
        live.delete(k);
        check(t, live, keys);
      }
    }
  });

  it('keeps established sessions through a SYN flood on a full table, every flood key findable until evicted', () => {
    const cap = 3000;
    const t = new SessionTable({ capacity: cap });
    for (let i = 0; i < 1800; i++) {
      load(t, i);
      t.insert(0, 0, 0, SessionState.ESTABLISHED);
    }
    const rnd = new SeededRandom(3);
    const recent: number[] = [];
    for (let i = 0; i < 30_000; i++) {
      const k = 100_000 + rnd.int(1 << 22);
      load(t, k);
      if (t.find() >= 0) continue;
      expect(t.insert(1 + i, 0, 0, SessionState.SYN_RECV)).toBeGreaterThanOrEqual(0);
      recent.push(k);
      if (recent.length > 1000) recent.shift();
    }
    expect(t.size).toBe(cap);
    expect(t.countInState(SessionState.ESTABLISHED)).toBe(1800);
    for (let i = 0; i < 1800; i++) {
      load(t, i);
      expect(t.find()).toBeGreaterThanOrEqual(0);
    }
    // the newest half-open entries are still there (1200 half-open slots, the last 1000 inserted)
    for (const k of recent) {
      load(t, k);
      expect(t.find()).toBeGreaterThanOrEqual(0);
    }
  });
});
