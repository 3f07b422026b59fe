/**
 * Processor-board benchmark (the targets of the README's "Performance" table; dataplane.md §3.2 B2,
 * §3.3 B3, §4.2, §4.3):
 * - session table at 1,500,000 entries, IPv4 and IPv6: bytes per entry (structural: typed-array
 *   bytes / capacity; measured: growth of process.memoryUsage().arrayBuffers while the table is
 *   built and filled), inserts/s (key load + miss + insert, as the board does for a new
 *   connection), lookups/s (key load + hit, random order) and hit updates/s (lookup + TCP state
 *   + LRU refresh + hot tier); target ≤ 64 bytes per IPv4 entry (Linux conntrack ≈ 300);
 * - SYN-flood insert rate into a full table (900k established + flood half-opens evicting each
 *   other), target ≥ 1M SYN/s (dataplane.md B3);
 * - reference measured in the same run: a JS Map with string keys doing the same inserts and
 *   lookups (what the typed-array table replaces), with its heap bytes per entry;
 * - ProcessorBoard.handle rate with 1,000,000 live sessions (pre-parsed packets, one reused view
 *   as the parser gives it), decide-only and with IPIP encapsulation into a counting sink, and
 *   the number of garbage collections during the run (0 = allocation-free hot path);
 * - maglev (M = 65537) fraction of table entries and of 1M random flows remapped when one of 8
 *   members is removed and when a 9th is added, next to the ideal 1/N (target ≤ 1.05 × ideal).
 *
 * `benchProcessor()` returns every figure as a flat record (dotted keys) and prints a table.
 * Run alone: `node bin/run-ts.mjs bench/processor.ts`.
 */
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SeededRandom } from '../board/common/random.ts';
import { FlowTuple, type PacketView } from '../board/packet/flow-tuple.ts';
import { SessionTable } from '../board/processor/tcam/session-table.ts';
import { SessionState } from '../board/processor/tcp-state.ts';
import { MaglevScheduler } from '../board/processor/scheduler/maglev.ts';
import type { PoolView } from '../board/processor/scheduler/scheduler.ts';
import { ProcessorBoard } from '../board/processor/processor-board.ts';
import { DEFAULT_HEALTH, DEFAULT_SESSION_TABLE, DEFAULT_TIMEOUTS } from '../board/processor/processor-config.ts';

const N = 1_500_000;
const SEED = 2024;

/** Seeded distinct IPv4 5-tuples: client address/port unique per index, 16 VIP:port pairs. */
function keysV4(n: number): { src: Uint32Array; dst: Uint32Array; ports: Uint32Array } {
  const rnd = new SeededRandom(SEED);
  const src = new Uint32Array(n);
  const dst = new Uint32Array(n);
  const ports = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    // distinct: index spread over 10.0.0.0/8 × ports (odd multiplier is a bijection mod 2^24)
    src[i] = (0x0a000000 | (Math.imul(i, 0x9e3779b1) & 0xffffff)) >>> 0;
    const v = rnd.int(16);
    dst[i] = (0xc0000200 + v) >>> 0;
    ports[i] = (((1024 + (i >>> 24) + rnd.int(60000)) << 16) | (80 + v)) >>> 0;
  }
  return { src, dst, ports };
}

function put32(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}

// A full GC before each memory reading, so buffers freed by an earlier phase do not blur it.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Memory after full GCs; ArrayBuffer backing stores are freed by a background task, so give it time. */
async function mem(): Promise<{ ab: number; heap: number; rss: number }> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((res) => setTimeout(res, 25));
  }
  const m = process.memoryUsage();
  return { ab: m.arrayBuffers, heap: m.heapUsed, rss: m.rss };
}

async function benchTable(family: 4 | 6, r: Record<string, number>): Promise<void> {
  const k = keysV4(N);
  const s = new Uint8Array(16);
  const d = new Uint8Array(16);
  const load = (t: SessionTable, i: number) => {
    if (family === 4) {
      put32(s, 0, k.src[i]!);
      put32(d, 0, k.dst[i]!);
    } else {
      put32(s, 0, 0x20010db8);
      put32(s, 12, k.src[i]!);
      put32(d, 0, 0x20010db8);
      put32(d, 4, 0xffff);
      put32(d, 12, k.dst[i]!);
    }
    return t.loadKeyRaw(family === 6, s, d, k.ports[i]! >>> 16, k.ports[i]! & 0xffff, 6, true);
  };
  const m0 = await mem();
  const t = new SessionTable({ capacity: N, hotCapacity: DEFAULT_SESSION_TABLE.hotCapacity, promoteAfterHits: 8, maxRealServers: 64 });
  let t0 = performance.now();
  for (let i = 0; i < N; i++) {
    load(t, i);
    if (t.find() < 0) t.insert(i * 1e-3, 0, i & 63, SessionState.ESTABLISHED);
  }
  const insertMs = performance.now() - t0;
  const m1 = await mem();
  if (t.size !== N) throw new Error(`bench: expected ${N} entries, got ${t.size}`);
  const p = `session.ipv${family}`;
  r[`${p}.entries`] = t.size;
  r[`${p}.inserts_per_s`] = N / (insertMs / 1000);
  r[`${p}.bytes_per_entry`] = t.memoryBytes() / N;
  r[`${p}.bytes_per_entry_measured`] = (m1.ab - m0.ab) / N;
  r[`${p}.rss_bytes_per_entry`] = (m1.rss - m0.rss) / N;
  if (family === 6) r[`${p}.side_store_bytes_per_entry`] = t.v6StoreBytes() / N;

  const rnd = new SeededRandom(SEED + 1);
  const order = new Uint32Array(2 * N);
  for (let i = 0; i < order.length; i++) order[i] = rnd.int(N);
  let found = 0;
  t0 = performance.now();
  for (let j = 0; j < order.length; j++) {
    load(t, order[j]!);
    if (t.find() >= 0) found++;
  }
  const lookupMs = performance.now() - t0;
  if (found !== order.length) throw new Error('bench: lookups missed');
  r[`${p}.lookups_per_s`] = order.length / (lookupMs / 1000);

  t0 = performance.now();
  for (let j = 0; j < order.length; j++) {
    load(t, order[j]!);
    const e = t.find();
    t.applyPacket(e, 0x10, true, 2000 + j * 1e-4);
  }
  r[`${p}.hit_updates_per_s`] = order.length / ((performance.now() - t0) / 1000);
  r[`${p}.hot_hit_ratio`] = t.hotHitRatio;
}

function benchFlood(r: Record<string, number>): void {
  const t = new SessionTable({ capacity: N, maxRealServers: 8 });
  const s = new Uint8Array(16);
  const d = new Uint8Array(16);
  put32(d, 0, 0xc0000201);
  for (let i = 0; i < 0.6 * N; i++) {
    put32(s, 0, (0x0a000000 + i) >>> 0);
    t.loadKeyRaw(false, s, d, 40000, 80, 6, true);
    t.insert(0, 0, i & 7, SessionState.ESTABLISHED);
  }
  const rnd = new SeededRandom(SEED + 2);
  const FLOOD = 3_000_000;
  const addr = new Uint32Array(FLOOD);
  for (let i = 0; i < FLOOD; i++) addr[i] = (0xc6000000 | rnd.u32() >>> 8) >>> 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let refused = 0;
  for (let i = 0; i < FLOOD; i++) {
    put32(s, 0, addr[i]!);
    t.loadKeyRaw(false, s, d, 1024 + (i & 0xffff), 80, 6, true);
    if (t.find() < 0 && t.insert(1 + i * 1e-4, 0, i & 7, SessionState.SYN_RECV) < 0) refused++;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  r['session.flood.syn_inserts_per_s'] = FLOOD / (ms / 1000);
  r['session.flood.syn_inserts_per_s_cpu'] = FLOOD / ((cpu.user + cpu.system) / 1e6);
  r['session.flood.established_kept'] = t.countInState(SessionState.ESTABLISHED) / (0.6 * N);
  r['session.flood.refused'] = refused;
}

async function benchMapReference(r: Record<string, number>): Promise<void> {
  const k = keysV4(N);
  const key = (i: number) => `${k.src[i]}|${k.dst[i]}|${k.ports[i]}|6`;
  const m0 = await mem();
  const map = new Map<string, number>();
  let t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const s = key(i);
    if (!map.has(s)) map.set(s, i & 63);
  }
  const insertMs = performance.now() - t0;
  const m1 = await mem();
  r['reference.map_string.inserts_per_s'] = N / (insertMs / 1000);
  r['reference.map_string.heap_bytes_per_entry'] = (m1.heap - m0.heap) / N;
  const rnd = new SeededRandom(SEED + 1);
  let found = 0;
  const L = 2 * N;
  t0 = performance.now();
  for (let j = 0; j < L; j++) if (map.get(key(rnd.int(N))) !== undefined) found++;
  if (found !== L) throw new Error('bench: map lookups missed');
  r['reference.map_string.lookups_per_s'] = L / ((performance.now() - t0) / 1000);
}

/** A PacketView the bench rewrites in place (as the parser fills its one reused view). */
class BenchPacket implements PacketView {
  frame = new Uint8Array(54);
  origLen = 54;
  linkType = 1;
  ethOffset = 0;
  vlanCount = 0;
  vlanIds = new Uint16Array(2);
  outer = new FlowTuple();
  inner = this.outer;
  tunnelDepth = 0;
  icmpError = false;
  quoted = new FlowTuple();
  malformed = false;
}

async function benchBoard(r: Record<string, number>): Promise<void> {
  const SESS = 1_000_000;
  const cfg = {
    sessions: { ...DEFAULT_SESSION_TABLE, capacity: N },
    timeouts: { ...DEFAULT_TIMEOUTS },
    acl: [],
    services: [{
      name: 'any', vip: '0.0.0.0/0', port: 0, protocol: 'any' as const, scheduler: 'wlc' as const, persistenceMs: 0,
      encapsulation: 'ipip' as const, alarmBelow: 0.5, health: { ...DEFAULT_HEALTH },
      pool: Array.from({ length: 8 }, (_, i) => ({ name: `rs${i}`, address: `10.1.0.${i + 1}`, weight: 1 })),
    }],
  };
  let emitted = 0;
  const boards = [
    ['decide', new ProcessorBoard(cfg, { slot: 3, startMs: 0 })],
    ['ipip', new ProcessorBoard(cfg, { slot: 4, startMs: 0, emit: { emit: (_b, n) => { emitted += n; } } })],
  ] as const;
  const pk = new BenchPacket();
  const f = pk.frame;
  f.set([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0, 0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6], 0);
  const t = pk.outer;
  t.family = 4;
  t.proto = 6;
  t.hasPorts = true;
  t.l3Offset = 14;
  t.l4Offset = 34;
  t.ipLength = 40;
  t.dport = 80;
  const rnd = new SeededRandom(SEED + 3);
  const srcs = new Uint32Array(SESS);
  const sports = new Uint16Array(SESS);
  for (let i = 0; i < SESS; i++) {
    srcs[i] = (0x0a000000 | (Math.imul(i, 0x9e3779b1) & 0xffffff)) >>> 0;
    sports[i] = 1024 + rnd.int(60000);
  }
  const set = (i: number, flags: number) => {
    const a = srcs[i]!;
    t.src[0] = a >>> 24;
    t.src[1] = (a >>> 16) & 0xff;
    t.src[2] = (a >>> 8) & 0xff;
    t.src[3] = a & 0xff;
    f.set(t.src.subarray(0, 4), 26);
    t.sport = sports[i]!;
    t.tcpFlags = flags;
  };
  t.dst.set([192, 0, 2, 10]);
  f.set([192, 0, 2, 10], 30);
  for (const [name, b] of boards) {
    for (let i = 0; i < SESS; i++) {
      set(i, 0x02);
      b.handle(pk, 0);
      set(i, 0x10);
      b.handle(pk, 0);
    }
    const order = new Uint32Array(4_000_000);
    for (let j = 0; j < order.length; j++) order[j] = rnd.int(SESS);
    let gcs = 0;
    const obs = new PerformanceObserver((list) => {
      gcs += list.getEntries().length;
    });
    obs.observe({ entryTypes: ['gc'] });
    const fwd0 = b.forwarded;
    const t0 = performance.now();
    for (let j = 0; j < order.length; j++) {
      set(order[j]!, 0x18);
      b.handle(pk, 1 + j * 1e-5);
    }
    const ms = performance.now() - t0;
    await new Promise((res) => setImmediate(res));
    obs.disconnect();
    if (b.forwarded - fwd0 !== order.length) throw new Error('bench: board dropped packets');
    r[`board.${name}.sessions`] = b.table.size;
    r[`board.${name}.pps`] = order.length / (ms / 1000);
    r[`board.${name}.ns_per_packet`] = (ms * 1e6) / order.length;
    r[`board.${name}.gc_events_per_4M`] = gcs;
  }
  if (emitted === 0) throw new Error('bench: nothing emitted');
}

function benchMaglev(r: Record<string, number>): void {
  const pool = (n: number): PoolView => ({
    size: n,
    ids: Int32Array.from({ length: n }, (_, i) => i),
    keys: Array.from({ length: n }, (_, i) => `rs${i}@10.1.0.${i + 1}`),
    weight: new Int32Array(n).fill(1),
    up: new Uint8Array(n).fill(1),
    active: new Int32Array(n),
    inactive: new Int32Array(n),
  });
  const build = (p: PoolView) => {
    const m = new MaglevScheduler(65537);
    m.rebuild(p);
    return m.table.slice();
  };
  const eight = build(pool(8));
  const seven = pool(8);
  seven.up[3] = 0;
  const removed = build(seven);
  const nine = build(pool(9));
  const rnd = new SeededRandom(SEED + 4);
  const flows = new Uint32Array(1_000_000);
  for (let i = 0; i < flows.length; i++) flows[i] = rnd.u32();
  const frac = (a: Int32Array, b: Int32Array) => {
    let moved = 0;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) moved++;
    return moved / a.length;
  };
  const flowFrac = (a: Int32Array, b: Int32Array) => {
    let moved = 0;
    for (const h of flows) if (a[h % 65537] !== b[h % 65537]) moved++;
    return moved / flows.length;
  };
  r['maglev.remove.table_fraction'] = frac(eight, removed);
  r['maglev.remove.flow_fraction'] = flowFrac(eight, removed);
  r['maglev.remove.ideal'] = 1 / 8;
  r['maglev.remove.over_ideal'] = r['maglev.remove.flow_fraction']! / (1 / 8);
  r['maglev.add.table_fraction'] = frac(eight, nine);
  r['maglev.add.flow_fraction'] = flowFrac(eight, nine);
  r['maglev.add.ideal'] = 1 / 9;
  r['maglev.add.over_ideal'] = r['maglev.add.flow_fraction']! / (1 / 9);
  const counts = new Float64Array(8);
  for (const x of eight) counts[x]!++;
  r['maglev.structural_max_over_mean'] = Math.max(...counts) / (65537 / 8);
}

/** Runs the processor-board benchmark; returns the figures (dotted keys) and prints a table. */
export async function benchProcessor(): Promise<Record<string, number>> {
  const r: Record<string, number> = {};
  await benchTable(4, r);
  await benchTable(6, r);
  benchFlood(r);
  await benchMapReference(r);
  await benchBoard(r);
  benchMaglev(r);
  printTable(r);
  return r;
}

function printTable(r: Record<string, number>): void {
  const M = (x: number | undefined) => `${((x ?? 0) / 1e6).toFixed(2)} M/s`;
  const B = (x: number | undefined) => `${(x ?? 0).toFixed(1)} B`;
  const pc = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(2)}%`;
  const ref = r['reference.map_string.inserts_per_s'] ?? 1;
  const refL = r['reference.map_string.lookups_per_s'] ?? 1;
  const L: string[] = [];
  L.push(`Processor board: session table at ${N.toLocaleString('en')} entries (target ≤ 64 B per IPv4 entry; Linux conntrack ≈ 300 B)`);
  L.push(`${''.padEnd(26)}${'bytes/entry'.padStart(12)}${'measured'.padStart(10)}${'inserts'.padStart(12)}${'lookups'.padStart(12)}${'hit+update'.padStart(12)}`);
  for (const f of [4, 6]) {
    const p = `session.ipv${f}`;
    L.push(`${`typed-array table IPv${f}`.padEnd(26)}${B(r[`${p}.bytes_per_entry`]).padStart(12)}${B(r[`${p}.bytes_per_entry_measured`]).padStart(10)}${M(r[`${p}.inserts_per_s`]).padStart(12)}${M(r[`${p}.lookups_per_s`]).padStart(12)}${M(r[`${p}.hit_updates_per_s`]).padStart(12)}`);
  }
  L.push(`${'reference Map<string>'.padEnd(26)}${B(r['reference.map_string.heap_bytes_per_entry']).padStart(12)}${'(heap)'.padStart(10)}${M(ref).padStart(12)}${M(refL).padStart(12)}`);
  L.push(`  ratio to reference: inserts ×${((r['session.ipv4.inserts_per_s'] ?? 0) / ref).toFixed(2)}, lookups ×${((r['session.ipv4.lookups_per_s'] ?? 0) / refL).toFixed(2)} (IPv4); IPv6 side store ${B(r['session.ipv6.side_store_bytes_per_entry'])}/entry`);
  L.push(`SYN flood into a full table (900k established + half-opens): ${M(r['session.flood.syn_inserts_per_s'])} wall, ${M(r['session.flood.syn_inserts_per_s_cpu'])} of CPU time (target ≥ 1 M/s), established kept ${pc(r['session.flood.established_kept'])}, refused ${r['session.flood.refused']}`);
  for (const n of ['decide', 'ipip']) {
    L.push(`ProcessorBoard.handle, ${r[`board.${n}.sessions`]?.toLocaleString('en')} sessions, ${n.padEnd(6)}: ${M(r[`board.${n}.pps`])}  ${(r[`board.${n}.ns_per_packet`] ?? 0).toFixed(1)} ns/packet, ${r[`board.${n}.gc_events_per_4M`]} GCs in 4M packets`);
  }
  L.push(`Maglev M=65537, 8 members (structural max/mean ${(r['maglev.structural_max_over_mean'] ?? 0).toFixed(4)}); target ≤ 1.05 × ideal`);
  for (const c of ['remove', 'add']) {
    L.push(`  ${(c === 'remove' ? 'remove 1 of 8' : 'add a 9th').padEnd(14)} table ${pc(r[`maglev.${c}.table_fraction`])}  flows ${pc(r[`maglev.${c}.flow_fraction`])}  ideal ${pc(r[`maglev.${c}.ideal`])}  ×${(r[`maglev.${c}.over_ideal`] ?? 0).toFixed(3)}`);
  }
  process.stdout.write(`${L.join('\n')}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchProcessor();
}
