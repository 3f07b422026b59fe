/**
 * The neighbour table (board/packet/neighbour-table.ts) in simulated time: resolution with a
 * bounded queue and retries (RFC 4861 §7.2.2, MAX_MULTICAST_SOLICIT 3 every RetransTimer 1 s),
 * REACHABLE → STALE after 30 s by the clock alone, DELAY → PROBE → deletion (§7.3.3), the
 * update rules of §7.2.5 (S confirms, O clear does not replace), capacity and eviction.
 */
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { NeighbourState, NeighbourTable, type NeighbourIo } from '../../../../board/packet/neighbour-table.ts';
import { addr } from '../../../support/frames.ts';

function harness(opts = {}) {
  const clock = new SimClock();
  const log: string[] = [];
  const sent: Uint8Array[] = [];
  const drops: Record<string, number> = {};
  const io: NeighbourIo = {
    solicit: (f, a, mac) => log.push(`${clock.now()} solicit v${f} ${a[3]} ${mac === null ? 'multicast' : 'unicast'}`),
    transmit: (frame, len) => sent.push(frame.slice(0, len)),
    dropped: (reason, n) => {
      drops[reason] = (drops[reason] ?? 0) + n;
    },
  };
  return { clock, log, sent, drops, table: new NeighbourTable(clock, io, opts) };
}

const RS = addr('198.18.10.101');
const MAC1 = Uint8Array.from([2, 0, 0, 0, 1, 1]);
const MAC2 = Uint8Array.from([2, 0, 0, 0, 2, 2]);

describe('neighbour table', () => {
  it('queues while resolving, then sends the queue with the MAC written', () => {
    const h = harness();
    const f = new Uint8Array(60);
    expect(h.table.output(4, RS, f, 60)).toBe(false);
    expect(h.table.output(4, RS, f, 60)).toBe(false);
    expect(h.log).toEqual(['0 solicit v4 101 multicast']);
    h.clock.advance(500);
    h.table.learn(4, RS, MAC1, true);
    expect(h.sent.length).toBe(2);
    expect([...h.sent[0]!.subarray(0, 6)]).toEqual([...MAC1]);
    expect(h.table.lookup(4, RS)?.state).toBe(NeighbourState.REACHABLE);
    expect(h.table.output(4, RS, f, 60)).toBe(true);
    expect(h.sent.length).toBe(3);
  });
  it('gives up after 3 solicitations 1 s apart and drops the queue as neighbour_unresolved', () => {
    const h = harness({ queueLimit: 2 });
    const f = new Uint8Array(60);
    for (let i = 0; i < 3; i++) h.table.output(4, RS, f, 60);
    expect(h.drops.neighbour_queue_full).toBe(1);
    h.clock.advance(3500);
    expect(h.log).toEqual(['0 solicit v4 101 multicast', '1000 solicit v4 101 multicast', '2000 solicit v4 101 multicast']);
    expect(h.drops.neighbour_unresolved).toBe(2);
    expect(h.table.lookup(4, RS)).toBeNull();
    expect(h.table.stats.unresolved).toBe(1);
  });
  it('REACHABLE turns STALE after 30 s; use starts DELAY, then unicast PROBEs; silence deletes it', () => {
    const h = harness();
    h.table.learn(4, RS, MAC1, true);
    h.clock.advance(29_999);
    expect(h.table.lookup(4, RS)?.state).toBe(NeighbourState.REACHABLE);
    h.clock.advance(1);
    expect(h.table.lookup(4, RS)?.state).toBe(NeighbourState.STALE);
    const f = new Uint8Array(60);
    expect(h.table.output(4, RS, f, 60)).toBe(true);
    expect(h.table.lookup(4, RS)?.state).toBe(NeighbourState.DELAY);
    h.clock.advance(5000);
    expect(h.table.lookup(4, RS)?.state).toBe(NeighbourState.PROBE);
    expect(h.log.at(-1)).toBe('35000 solicit v4 101 unicast');
    expect(h.table.output(4, RS, f, 60)).toBe(true); // still usable while probing
    h.clock.advance(3000);
    expect(h.table.lookup(4, RS)).toBeNull();
  });
  it('a probe answered returns to REACHABLE', () => {
    const h = harness();
    h.table.learn(6, addr('fd00:a7ca:10::121'), MAC1, true);
    h.clock.advance(30_000);
    h.table.output(6, addr('fd00:a7ca:10::121'), new Uint8Array(60), 60);
    h.clock.advance(5000);
    h.table.learn(6, addr('fd00:a7ca:10::121'), MAC1, true);
    expect(h.table.lookup(6, addr('fd00:a7ca:10::121'))?.state).toBe(NeighbourState.REACHABLE);
    h.clock.advance(10_000);
    expect(h.table.size).toBe(1);
  });
  it('RFC 4861 §7.2.5: an unsolicited new MAC makes it STALE; O clear does not replace; no entry is created unasked', () => {
    const h = harness();
    h.table.learn(4, RS, MAC1, false);
    expect(h.table.size).toBe(0);
    h.table.learn(4, RS, MAC1, true);
    h.table.learn(4, RS, MAC2, true, false);
    expect([...h.table.lookup(4, RS)!.mac]).toEqual([...MAC1]);
    expect(h.table.lookup(4, RS)?.state).toBe(NeighbourState.STALE);
    h.table.learn(4, RS, MAC2, false, true);
    expect([...h.table.lookup(4, RS)!.mac]).toEqual([...MAC2]);
    expect(h.table.lookup(4, RS)?.state).toBe(NeighbourState.STALE);
  });
  it('a full table evicts the least recently used STALE entry, or refuses', () => {
    const h = harness({ capacity: 2 });
    h.table.learn(4, addr('10.0.0.1'), MAC1, true);
    h.table.learn(4, addr('10.0.0.2'), MAC1, true);
    expect(h.table.output(4, addr('10.0.0.3'), new Uint8Array(60), 60)).toBe(false);
    expect(h.drops.neighbour_table_full).toBe(1);
    h.clock.advance(30_000);
    h.table.output(4, addr('10.0.0.3'), new Uint8Array(60), 60);
    expect(h.table.size).toBe(2);
    expect(h.table.lookup(4, addr('10.0.0.3'))?.state).toBe(NeighbourState.INCOMPLETE);
  });
  it('entries() and import(): the buddy gets STALE copies', () => {
    const a = harness();
    a.table.learn(4, RS, MAC1, true);
    const b = harness();
    b.table.import(a.table.entries());
    expect(b.table.lookup(4, RS)?.state).toBe(NeighbourState.STALE);
    expect([...b.table.lookup(4, RS)!.mac]).toEqual([...MAC1]);
  });
});
