import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../../board/common/random.ts';
import { captureLogger } from '../../../../board/common/logger.ts';
import { EcmpGroup } from '../../../../board/switch/ecmp-group.ts';
import type { EcmpMember } from '../../../../board/switch/switch-config.ts';

const B = 4096;
/** Ports 1..n behind slots 3..n+2. */
const members = (n: number, buddies = false): EcmpMember[] =>
  Array.from({ length: n }, (_, i) => {
    const m: EcmpMember = { port: i + 1, slot: i + 3 };
    if (buddies) m.failoverPort = i % 2 === 0 ? i + 2 : i; // 1↔2, 3↔4, …
    return m;
  });
const resilient = (n: number, buddies = false) => new EcmpGroup({ mapping: 'resilient', buckets: B }, members(n, buddies));
const counts = (t: Int32Array) => {
  const m = new Map<number, number>();
  for (const p of t) m.set(p, (m.get(p) ?? 0) + 1);
  return m;
};
/** Indexes where two tables differ. */
const diff = (a: Int32Array, b: Int32Array) => [...a.keys()].filter((i) => a[i] !== b[i]);

describe('resilient mapping', () => {
  it('gives each of 8 members 512 of 4096 buckets, the same table for any member order', () => {
    const g = resilient(8);
    expect([...counts(g.table()).values()]).toEqual(Array(8).fill(512));
    const shuffled = members(8).reverse();
    const g2 = new EcmpGroup({ mapping: 'resilient', buckets: B }, shuffled);
    expect(g2.table()).toEqual(g.table());
    expect(g.shares().map((s) => s.fraction)).toEqual(Array(8).fill(1 / 8));
  });

  it('member down: exactly its buckets move, spread evenly over the other 7', () => {
    const g = resilient(8);
    const before = g.table();
    const moved = g.setUp(4, false);
    const after = g.table();
    const changed = diff(before, after);
    expect(moved).toBe(512);
    expect(changed.length).toBe(512);
    expect(changed.every((i) => before[i] === 4)).toBe(true);
    expect(after.includes(4)).toBe(false);
    const got = counts(Int32Array.from(changed, (i) => after[i]!));
    expect(got.size).toBe(7);
    for (const c of got.values()) expect([73, 74]).toContain(c);
    // select follows the table
    for (let h = 0; h < B; h++) expect(g.select(h)).toBe(after[h]);
  });

  it('member back up: its original buckets return, nothing else moves', () => {
    const g = resilient(8);
    const original = g.table();
    g.setUp(4, false);
    g.setUp(6, false);
    expect(g.setUp(4, true)).toBe(512);
    g.setUp(6, true);
    expect(g.table()).toEqual(original);
  });

  it('removing a member from the configuration moves exactly its buckets', () => {
    const g = resilient(8);
    const before = g.table();
    g.removeMember(5);
    const changed = diff(before, g.table());
    expect(changed.length).toBe(512);
    expect(changed.every((i) => before[i] === 5)).toBe(true);
    const shares = [...counts(g.table()).values()];
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    // the share (home) went with the serving buckets: the removed member's home is gone
    expect([...g.homeTable()].includes(5)).toBe(false);
  });

  it('removing a member that was down moves nothing more (its buckets were already spread)', () => {
    const g = resilient(8);
    g.setUp(5, false);
    const spread = g.table();
    expect(g.removeMember(5)).toBe(0);
    expect(g.table()).toEqual(spread);
  });

  it('adding a 9th member moves ~1/9 of the buckets, all to the new member, evenly from the others', () => {
    const g = resilient(8);
    const before = g.table();
    const moved = g.addMember({ port: 9, slot: 11 });
    const after = g.table();
    const changed = diff(before, after);
    expect(moved).toBe(changed.length);
    expect(changed.length).toBe(Math.floor(B / 9)); // 455
    expect(Math.abs(changed.length / B - 1 / 9)).toBeLessThan(1 / B);
    expect(changed.every((i) => after[i] === 9)).toBe(true);
    const taken = counts(Int32Array.from(changed, (i) => before[i]!));
    expect(taken.size).toBe(8);
    for (const c of taken.values()) expect([56, 57]).toContain(c);
    const shares = [...counts(after).values()];
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
  });

  it('a member added down takes its share only when it comes up', () => {
    const g = resilient(8);
    const before = g.table();
    expect(g.addMember({ port: 9, slot: 11 }, false)).toBe(0);
    expect(g.table()).toEqual(before);
    expect(g.setUp(9, true)).toBe(455);
  });

  it('a failover target takes all of its buddy\'s buckets; restore gives them back', () => {
    const g = resilient(8, true);
    const original = g.table();
    const moved = g.setUp(3, false);
    const after = g.table();
    const changed = diff(original, after);
    expect(moved).toBe(512);
    expect(changed.every((i) => original[i] === 3 && after[i] === 4)).toBe(true);
    expect(counts(after).get(4)).toBe(1024);
    g.setUp(3, true);
    expect(g.table()).toEqual(original);
  });

  it('when the failover target is down too, the buckets are spread', () => {
    const g = resilient(8, true);
    const original = g.table();
    g.setUp(4, false); // 4's buckets → 3
    expect(counts(g.table()).get(3)).toBe(1024);
    g.setUp(3, false); // now 3 and 4 both down: 1024 buckets spread over 6
    const t = g.table();
    expect(t.includes(3) || t.includes(4)).toBe(false);
    const c = [...counts(t).values()];
    expect(Math.max(...c) - Math.min(...c)).toBeLessThanOrEqual(1);
    g.setUp(3, true);
    g.setUp(4, true);
    expect(g.table()).toEqual(original);
  });

  it('moveShare keeps a share on the buddy until restoreShare (HA failback after resync)', () => {
    const g = resilient(8, true);
    const original = g.table();
    const share3 = g.homeBuckets(3);
    expect(share3.length).toBe(512);
    g.setUp(3, false);
    g.moveShare(3, 4);
    expect(g.setUp(3, true)).toBe(0); // the board is back, but the share stays on its buddy
    expect(share3.every((b) => g.table()[b] === 4)).toBe(true);
    expect(g.restoreShare(3)).toBe(512);
    expect(g.table()).toEqual(original);
  });

  it('shift moves an absolute fraction of a share, monotonic, reversible', () => {
    const g = resilient(8, true);
    const original = g.table();
    const share = g.homeBuckets(1);
    expect(g.shift(1, 2, 0.1)).toBe(Math.round(0.1 * 512)); // 51
    const at10 = share.filter((b) => g.table()[b] === 2);
    expect(at10).toEqual(share.slice(0, 51));
    expect(g.shift(1, 2, 0.5)).toBe(256 - 51);
    const at50 = share.filter((b) => g.table()[b] === 2);
    expect(at50.slice(0, 51)).toEqual(at10);
    expect(g.shift(1, 2, 0.5)).toBe(0); // idempotent
    expect(g.shift(1, 2, 1)).toBe(256);
    expect(g.shares().find((s) => s.port === 1)!.buckets).toBe(0);
    // nothing outside share 1 moved at any step
    expect(diff(original, g.table()).every((i) => original[i] === 1)).toBe(true);
    g.shift(1, 2, 0);
    expect(g.table()).toEqual(original);
    expect(() => g.shift(1, 2, 1.5)).toThrow(/0\.\.1/);
  });

  it('moveBuckets moves exactly the named buckets', () => {
    const g = resilient(8);
    const before = g.table();
    const pick = [0, 1, 2, 4095].filter((b) => before[b] !== 7);
    expect(g.moveBuckets(pick, 7)).toBe(pick.length);
    expect(diff(before, g.table())).toEqual(pick);
    expect(() => g.moveBuckets([4096], 7)).toThrow(/outside 0..4095/);
    expect(() => g.moveBuckets([0], 42)).toThrow(/not a member/);
  });

  it('with every member down selects -1; the first one up gets every bucket', () => {
    const g = resilient(3);
    for (const p of [1, 2, 3]) g.setUp(p, false);
    expect(g.select(12345)).toBe(-1);
    expect(g.upCount).toBe(0);
    g.setUp(2, true);
    expect([...counts(g.table()).entries()]).toEqual([[2, B]]);
  });

  it('works with a bucket count that is not a power of two', () => {
    const g = new EcmpGroup({ mapping: 'resilient', buckets: 1000 }, members(3));
    expect(g.bucketOf(1001)).toBe(1);
    expect(g.select(0xffffffff)).toBe(g.table()[0xffffffff % 1000]);
  });

  it('is deterministic: the same calls give the same table', () => {
    const run = () => {
      const g = resilient(8, true);
      g.setUp(2, false);
      g.addMember({ port: 9, slot: 11 });
      g.setUp(5, false);
      g.removeMember(7);
      g.setUp(2, true);
      return g.table();
    };
    expect(run()).toEqual(run());
  });

  it('logs membership changes', () => {
    const log = captureLogger();
    const g = new EcmpGroup({ mapping: 'resilient', buckets: 64 }, members(2), { log });
    g.setUp(1, false);
    expect(log.records.at(-1)!.obj).toMatchObject({ category: 'ecmp-member-down', port: 1, moved: 32 });
  });
});

describe('modulo mapping', () => {
  const hashes = (() => {
    const r = new SeededRandom(21);
    return Uint32Array.from({ length: 100_000 }, () => r.u32());
  })();
  const map = (g: EcmpGroup) => Int32Array.from(hashes, (h) => g.select(h));

  it('maps hash mod N over the members up, sorted by port', () => {
    const g = new EcmpGroup({ mapping: 'modulo', buckets: B }, members(8));
    expect(g.select(0)).toBe(1);
    expect(g.select(7)).toBe(8);
    expect(g.select(0xffffffff)).toBe(1 + (0xffffffff % 8));
    g.setUp(1, false);
    expect(g.select(0)).toBe(2);
  });

  it('removing 1 of 8 remaps about (N-1)/N of the flows; adding a 9th about N/(N+1)', () => {
    const g = new EcmpGroup({ mapping: 'modulo', buckets: B }, members(8));
    const before = map(g);
    g.setUp(4, false);
    const removed = diff(before, map(g)).length / hashes.length;
    expect(Math.abs(removed - 7 / 8)).toBeLessThan(0.01);
    g.setUp(4, true);
    g.addMember({ port: 9, slot: 11 });
    const added = diff(before, map(g)).length / hashes.length;
    expect(Math.abs(added - 8 / 9)).toBeLessThan(0.01);
  });

  it('refuses table operations', () => {
    const g = new EcmpGroup({ mapping: 'modulo', buckets: B }, members(2, true));
    expect(() => g.table()).toThrow(/needs the resilient mapping/);
    expect(() => g.shift(1, 2, 0.5)).toThrow(expect.objectContaining({ code: 'not_resilient' }));
    expect(g.bucketOf(5)).toBe(-1);
    expect(g.shares().map((s) => s.fraction)).toEqual([0.5, 0.5]);
  });
});

describe('validation', () => {
  it('rejects bad configurations with clear errors', () => {
    expect(() => new EcmpGroup({ mapping: 'hash' as never, buckets: 8 })).toThrow(/unknown ECMP mapping/);
    expect(() => new EcmpGroup({ mapping: 'resilient', buckets: 0 })).toThrow(/1\.\.1048576/);
    expect(() => new EcmpGroup({ mapping: 'resilient', buckets: 8 }, [{ port: 1, slot: 3 }, { port: 1, slot: 4 }])).toThrow(/duplicate/);
    expect(() => new EcmpGroup({ mapping: 'resilient', buckets: 8 }, [{ port: 1, slot: 3, failoverPort: 2 }])).toThrow(/not a member/);
    expect(() => new EcmpGroup({ mapping: 'resilient', buckets: 8 }, [{ port: 1, slot: 3, failoverPort: 1 }])).toThrow(/itself/);
    expect(() => new EcmpGroup({ mapping: 'resilient', buckets: 8 }, [{ port: 0, slot: 3 }])).toThrow(/1\.\.1023/);
    const g = resilient(2);
    expect(() => g.setUp(9, false)).toThrow(expect.objectContaining({ code: 'no_such_member' }));
    expect(() => g.addMember({ port: 1, slot: 3 })).toThrow(expect.objectContaining({ code: 'member_exists' }));
  });
});
