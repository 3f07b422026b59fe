/**
 * The traffic source (chassis/dataplane/traffic.ts): client-port shifting per loop (new
 * conversations every loop, both directions consistent, TCP/UDP checksums still valid, the
 * capture buffer restored), pacing to capture time and to a rate, time mapping, bad inputs, and
 * the flow counter against a plain key set.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SeededRandom } from '../../../../board/common/random.ts';
import { FlowTuple, type PacketView } from '../../../../board/packet/flow-tuple.ts';
import { FLOW_KEY_BYTES, writeFlowKey } from '../../../../board/switch/field-select.ts';
import { FlowCounter } from '../../../../chassis/dataplane/flow-counter.ts';
import { memoryInput, MemoryFeed, TrafficSource } from '../../../../chassis/dataplane/traffic.ts';
import { shared } from '../../../support/shared.ts';
import { BUNDLED, makePlane } from './fixture.ts';

const key = new Uint8Array(FLOW_KEY_BYTES);
function flowId(t: FlowTuple): string | null {
  const n = writeFlowKey(t, key);
  return n > 0 ? Buffer.from(key.subarray(0, n)).toString('hex') : null;
}

/** RFC 1071 checksum of an IPv4 TCP/UDP segment with its pseudo-header: 0 when valid. */
function l4ChecksumOk(pkt: PacketView): boolean | null {
  const t = pkt.outer;
  if (t.family !== 4 || (t.proto !== 6 && t.proto !== 17) || t.fragment) return null;
  const f = pkt.frame;
  const l4 = t.l4Offset;
  const len = t.ipLength - (l4 - t.l3Offset);
  if (l4 + len > f.length) return null; // not fully captured
  if (t.proto === 17 && f[l4 + 6] === 0 && f[l4 + 7] === 0) return null; // no UDP checksum
  let s = 0;
  for (let i = 0; i < 4; i += 2) s += ((t.src[i]! << 8) | t.src[i + 1]!) + ((t.dst[i]! << 8) | t.dst[i + 1]!);
  s += t.proto + len;
  for (let i = 0; i < len; i += 2) s += (f[l4 + i]! << 8) | (i + 1 < len ? f[l4 + i + 1]! : 0);
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s === 0xffff;
}

describe('TrafficSource loops', () => {
  it('each loop brings new conversations, both directions shifted alike, checksums kept valid, buffer restored', () => {
    const file = shared('pcap', 'zeek__wikipedia.pcap');
    const bytes = readFileSync(file);
    const copy = Uint8Array.from(bytes);
    const perLoop: Array<Set<string>> = [new Set(), new Set(), new Set()];
    let loop = 0;
    let last = -1;
    let checked = 0;
    const src = new TrafficSource({
      inputs: [memoryInput(file, bytes)],
      loops: 3,
      sink: {
        deliver(pkt, now) {
          expect(now).toBeGreaterThanOrEqual(last);
          last = now;
          loop = src.counters().loop;
          const id = flowId(pkt.outer);
          if (id) perLoop[loop]!.add(id);
          const ok = l4ChecksumOk(pkt);
          if (ok !== null) {
            expect(ok, `checksum in loop ${loop}`).toBe(true);
            checked++;
          }
          return 0;
        },
      },
    });
    src.runAll();
    expect(src.isDone).toBe(true);
    expect(src.counters()).toMatchObject({ packets: 3 * 136, loopsDone: 3, done: true });
    expect(checked).toBeGreaterThan(100);
    // the same number of conversations per loop, and (for ported ones) all new
    expect(perLoop[1]!.size).toBe(perLoop[0]!.size);
    expect(perLoop[2]!.size).toBe(perLoop[0]!.size);
    const inter = [...perLoop[1]!].filter((x) => perLoop[0]!.has(x) || perLoop[2]!.has(x));
    expect(inter).toEqual([]);
    expect(Buffer.compare(Buffer.from(bytes), Buffer.from(copy))).toBe(0);
  });

  it('looping the bundled capture keeps every board busy and counts new flows per loop', () => {
    const { dp } = makePlane({ sessionCapacity: 32768 });
    const src = new TrafficSource({ inputs: [memoryInput('bundled', readFileSync(BUNDLED))], sink: dp, loops: 3 });
    src.runAll();
    const st = dp.stats(0);
    expect(st.totals.packets).toBe(60_000);
    expect(st.totals.flows).toBeGreaterThan(2.5 * 2575);
    for (const b of st.boards) expect(b.flows).toBeGreaterThan(st.totals.flows / 5);
    expect(st.imbalance).toBeLessThan(1.1);
  });

  it('time: capture spacing from startMs, whole ms in asap mode, passes 1 ms apart, origin reported', () => {
    const file = shared('pcap', 'zeek__tcp.pcap');
    const times: number[] = [];
    let origin = NaN;
    const src = new TrafficSource({
      inputs: [memoryInput(file, readFileSync(file))], loops: 2, startMs: 100,
      onOrigin: (ms) => (origin = ms),
      sink: { deliver: (_p, now) => (times.push(now), 0) },
    });
    src.runAll();
    expect(times).toHaveLength(24);
    expect(times[0]).toBe(100);
    for (const t of times) expect(Number.isInteger(t)).toBe(true);
    // the second pass starts 1 ms after the first ended (whole ms: 1 or 2 later), same spacing
    expect([1, 2]).toContain(times[12]! - times[11]!);
    for (let i = 1; i < 12; i++) expect(Math.abs(times[12 + i]! - times[12]! - (times[i]! - times[0]!))).toBeLessThanOrEqual(1);
    expect(origin).toBeGreaterThan(1e12);
  });

  it('paced to capture time: pump(now) delivers what is due and returns the next due time', () => {
    const file = shared('pcap', 'tcpreplay__test.pcap');
    const bytes = readFileSync(file);
    const all: number[] = [];
    new TrafficSource({ inputs: [memoryInput(file, bytes)], pacing: { mode: 'capture' }, startMs: 5000, sink: { deliver: (_p, t) => (all.push(t), 0) } }).pump(Infinity);
    expect(all.length).toBe(179);
    const got: number[] = [];
    const src = new TrafficSource({ inputs: [memoryInput(file, bytes)], pacing: { mode: 'capture' }, startMs: 5000, sink: { deliver: (_p, t) => (got.push(t), 0) } });
    let now = 5000;
    let calls = 0;
    while (!src.isDone && calls < 10_000) {
      const next = src.pump(now);
      calls++;
      for (const t of got) expect(t).toBeLessThanOrEqual(now);
      if (!Number.isFinite(next)) break;
      expect(next).toBeGreaterThanOrEqual(now);
      now = next;
    }
    expect(got).toEqual(all);
    expect(src.isDone).toBe(true);
    // gaps longer than maxGapMs (1 s by default when paced) are shortened
    for (let i = 1; i < all.length; i++) expect(all[i]! - all[i - 1]!).toBeLessThanOrEqual(1000);
  });

  it('paced at a rate: packets 1000/pps ms apart, whatever their timestamps; budget respected', () => {
    const file = shared('pcap', 'zeek__wikipedia.pcap');
    const got: number[] = [];
    const src = new TrafficSource({ inputs: [memoryInput(file, readFileSync(file))], loops: Infinity, pacing: { mode: 'rate', pps: 200 }, startMs: 0, sink: { deliver: (_p, t) => (got.push(t), 0) } });
    expect(src.pump(0)).toBe(5);
    expect(got).toEqual([0]);
    expect(src.pump(1000)).toBe(1005);
    expect(got).toHaveLength(201);
    expect(got[200]).toBeCloseTo(1000, 6);
    // looping for ever: 136 packets per pass, still going
    expect(src.pump(10_000, 100)).toBe(10_000);
    expect(got).toHaveLength(301);
    expect(src.counters().loop).toBeGreaterThanOrEqual(2);
    expect(src.isDone).toBe(false);
    expect(() => new TrafficSource({ inputs: [], sink: { deliver: () => 0 }, pacing: { mode: 'rate', pps: 0 } })).toThrow(RangeError);
  });
});

describe('TrafficSource bad inputs', () => {
  it('a truncated capture: packets before the cut are delivered on every loop, the error reported once', () => {
    const file = shared('pcap', 'zeek__tcp.pcap');
    const b = readFileSync(file);
    const cut = b.subarray(0, b.length - 10);
    let n = 0;
    const src = new TrafficSource({ inputs: [memoryInput('cut.pcap', cut), memoryInput('ok.pcap', b)], loops: 2, sink: { deliver: () => (n++, 0) } });
    src.runAll();
    expect(n).toBe(2 * (11 + 12));
    expect(src.errors).toEqual([{ input: 'cut.pcap', message: expect.stringMatching(/^pcap: record at offset \d+: cut short/), packetsBefore: 11 }]);
    expect(src.formats).toEqual(['pcap', 'pcap']);
  });

  it('an input that cannot be opened is reported and skipped', () => {
    const file = shared('pcap', 'zeek__tcp.pcap');
    let n = 0;
    const src = new TrafficSource({
      inputs: [{ name: 'missing', open: () => { throw new Error('no such file'); } }, memoryInput(file, readFileSync(file))],
      loops: 3,
      sink: { deliver: () => (n++, 0) },
    });
    src.runAll();
    expect(n).toBe(36);
    expect(src.errors).toEqual([{ input: 'missing', message: 'no such file', packetsBefore: 0 }]);
  });

  it('not a capture: reported, nothing delivered', () => {
    const src = new TrafficSource({ inputs: [memoryInput('junk', new Uint8Array(100).fill(7))], sink: { deliver: () => 0 } });
    src.runAll();
    expect(src.counters().packets).toBe(0);
    expect(src.errors[0]!.message).toMatch(/magic/);
  });

  it('MemoryFeed rewinds to the start', () => {
    const file = shared('pcap', 'zeek__tcp.pcap');
    let n = 0;
    const feed = new MemoryFeed(readFileSync(file), { packet: () => void n++ });
    expect(feed.pump()).toBe('eof');
    feed.rewind();
    expect(feed.pump()).toBe('eof');
    expect(n).toBe(24);
  });
});

describe('FlowCounter', () => {
  it('counts distinct direction-insensitive conversations like a set of canonical keys', () => {
    const rnd = new SeededRandom(42);
    const fc = new FlowCounter(1024);
    const ref = new Set<string>();
    const t = new FlowTuple();
    for (let i = 0; i < 60_000; i++) {
      t.reset();
      t.family = rnd.next() < 0.3 ? 6 : 4;
      const n = t.family === 4 ? 4 : 16;
      // few distinct addresses and ports so conversations repeat, in both directions
      for (let j = 0; j < n; j++) {
        t.src[j] = j === n - 1 ? Math.floor(rnd.next() * 6) : 10;
        t.dst[j] = j === n - 1 ? Math.floor(rnd.next() * 6) : 10;
      }
      const r = rnd.next();
      t.proto = r < 0.45 ? 6 : r < 0.9 ? 17 : 1;
      t.hasPorts = t.proto !== 1;
      t.fragment = t.hasPorts && rnd.next() < 0.05;
      if (t.hasPorts) {
        t.sport = 1000 + Math.floor(rnd.next() * 40);
        t.dport = 1000 + Math.floor(rnd.next() * 40);
      }
      const id = flowId(t)!;
      const isNew = !ref.has(id);
      ref.add(id);
      expect(fc.record(t, 1) === -1).toBe(isNew);
    }
    expect(fc.size).toBe(ref.size);
    expect(ref.size).toBeGreaterThan(5000);
    t.reset();
    expect(fc.record(t, 1)).toBe(-2);
  });
});

describe('TrafficSource that has nothing to deliver', () => {
  it('an endless source whose inputs hold no packet stops instead of spinning', () => {
    const empty = readFileSync(shared('pcap', 'tcpdump__empty.pcapng'));
    const src = new TrafficSource({ inputs: [memoryInput('empty', empty), memoryInput('junk', new Uint8Array(64))], loops: Infinity, pacing: { mode: 'rate', pps: 1000 }, sink: { deliver: () => 0 } });
    expect(src.pump(1e9)).toBe(Infinity);
    expect(src.isDone).toBe(true);
    expect(src.counters()).toMatchObject({ packets: 0, loopsDone: 1 });
    expect(src.errors.map((e) => e.input)).toEqual(['junk']);
  });
});
