/**
 * Switch-board benchmark (the targets of the README's "Performance" table; dataplane.md §3.1 B1 and
 * §3.2 B2):
 * - load imbalance (max/mean flows per port) for each hash over 2..16 ports with 1,000,000 seeded
 *   random 5-tuples, with `modulo` and with the 4096-bucket `resilient` table, next to the
 *   statistical floor 1 + 3·√(N/F);
 * - fraction of flows remapped when one of 8 members is removed and when a 9th is added, for
 *   modulo and resilient, next to the ideal 1/N (maglev lives in board/processor; the lead adds it);
 * - hash throughput (hashes/s) per algorithm on 13-byte IPv4 5-tuple keys (12 for Toeplitz), with
 *   node:zlib's native crc32 on the same keys as the reference measured in the same run;
 * - SwitchBoard.ingress rate (packets/s) on pre-parsed packets (1024 distinct flows cycled, so
 *   the packet views stay in cache as the parser's single reused view does), flow counting on and
 *   off, and the number of garbage collections during 10M packets (0 = allocation-free).
 *
 * `benchSwitch()` returns every figure as a flat record (keys documented inline) and prints a
 * table. Run alone: `node bin/run-ts.mjs bench/switch.ts`.
 */
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { SeededRandom } from '../board/common/random.ts';
import { FlowTuple, type PacketView } from '../board/packet/flow-tuple.ts';
import { EcmpGroup } from '../board/switch/ecmp-group.ts';
import { FieldSelector } from '../board/switch/field-select.ts';
import { crc16ccitt, crc32, createHash, HASH_ALGORITHMS, pearson16, ToeplitzHasher } from '../board/switch/hash/index.ts';
import { SwitchBoard } from '../board/switch/switch-board.ts';
import { SyntheticFlows } from '../board/switch/synthetic-flows.ts';
import { DEFAULT_ECMP, type EcmpMember, type HashAlgorithmName } from '../board/switch/switch-config.ts';

const FLOWS = 1_000_000;
const SEED = 2024;
const BUCKETS = 4096;
const MIN_N = 2;
const MAX_N = 16;

const membersOf = (n: number): EcmpMember[] => Array.from({ length: n }, (_, i) => ({ port: i + 1, slot: i + 3 }));

/** Hash values of the FLOWS seeded tuples under the default l3l4 profile. */
function flowHashes(name: HashAlgorithmName): Uint32Array {
  const algo = createHash(name, DEFAULT_ECMP.toeplitzKey);
  const sel = new FieldSelector({ fields: 'l3l4', symmetric: false, tunnel: 'outer', layout: algo.layout });
  const gen = new SyntheticFlows(new SeededRandom(SEED));
  const t = new FlowTuple();
  const out = new Uint32Array(FLOWS);
  for (let i = 0; i < FLOWS; i++) out[i] = algo.hash(sel.buf, sel.selectTuple(gen.next(t)));
  return out;
}

function mapAll(g: EcmpGroup, hashes: Uint32Array): Int32Array {
  const out = new Int32Array(hashes.length);
  for (let i = 0; i < hashes.length; i++) out[i] = g.select(hashes[i]!);
  return out;
}

function maxOverMean(ports: Int32Array, n: number): number {
  const load = new Float64Array(1024);
  for (let i = 0; i < ports.length; i++) load[ports[i]!]!++;
  let max = 0;
  for (const l of load) max = Math.max(max, l);
  return max / (ports.length / n);
}

function movedFraction(a: Int32Array, b: Int32Array): number {
  let moved = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) moved++;
  return moved / a.length;
}

/** Runs `fn(iterations)` until ~`ms` have passed; returns operations per second. */
function rate(fn: (iters: number) => void, itersPerCall: number, ms = 400): number {
  fn(itersPerCall); // warm-up
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    fn(itersPerCall);
    calls++;
    t = performance.now();
  }
  return (calls * itersPerCall) / ((t - t0) / 1000);
}

/** Prebuilt hash keys: `count` keys of `len` bytes each, for the throughput runs. */
function keys(layout: 'standard' | 'rss', count: number): { buf: Uint8Array; len: number } {
  const sel = new FieldSelector({ fields: 'l3l4', symmetric: false, tunnel: 'outer', layout });
  const gen = new SyntheticFlows(new SeededRandom(SEED + 1));
  const t = new FlowTuple();
  const len = layout === 'rss' ? 12 : 13;
  const buf = new Uint8Array(count * len);
  for (let i = 0; i < count; i++) {
    sel.selectTuple(gen.next(t));
    buf.set(sel.buf.subarray(0, len), i * len);
  }
  return { buf, len };
}

function fakePackets(count: number): PacketView[] {
  const gen = new SyntheticFlows(new SeededRandom(SEED + 2));
  const frame = new Uint8Array(64);
  const out: PacketView[] = [];
  for (let i = 0; i < count; i++) {
    const t = new FlowTuple();
    gen.next(t);
    out.push({
      frame, origLen: 64, linkType: 1, ethOffset: 0, vlanCount: 0, vlanIds: new Uint16Array(2),
      outer: t, inner: t, tunnelDepth: 0, icmpError: false, quoted: new FlowTuple(), malformed: false,
    });
  }
  return out;
}

/**
 * Runs the switch-board benchmark. Keys of the result:
 * - `imbalance.<hash>.<modulo|resilient>.n<N>`: max/mean flows per port, N = 2..16;
 *   `imbalance.floor.n<N>`: 1 + 3·√(N/F); `structural.resilient.n<N>`: max/mean buckets per member
 * - `remap.<remove|add>.<modulo|resilient|ideal>`: fraction of flows moved (8 members; remove port 4,
 *   or add a 9th), `remap.<remove|add>.resilient_over_ideal`, `remap.remove.resilient.imbalance_after`
 * - `throughput.<hash>`: hashes/s; `throughput.reference.zlib_crc32`: node:zlib crc32 calls/s on the
 *   same keys; `throughput.<hash>.ratio_to_reference`
 * - `ingress.pps`, `ingress.ns_per_packet`: SwitchBoard.ingress (pearson, resilient, 8 ports, flow
 *   counting on); `ingress.no_flow_count.*` the same without; `ingress.gc_events_per_10M`
 */
export async function benchSwitch(): Promise<Record<string, number>> {
  const r: Record<string, number> = {};
  const hashes = new Map<HashAlgorithmName, Uint32Array>();
  for (const name of HASH_ALGORITHMS) hashes.set(name, flowHashes(name));

  // B1: imbalance over 2..16 ports
  for (let n = MIN_N; n <= MAX_N; n++) {
    r[`imbalance.floor.n${n}`] = 1 + 3 * Math.sqrt(n / FLOWS);
    const res = new EcmpGroup({ mapping: 'resilient', buckets: BUCKETS }, membersOf(n));
    const share = res.shares().map((s) => s.buckets);
    r[`structural.resilient.n${n}`] = Math.max(...share) / (BUCKETS / n);
    const mod = new EcmpGroup({ mapping: 'modulo', buckets: BUCKETS }, membersOf(n));
    for (const name of HASH_ALGORITHMS) {
      const h = hashes.get(name)!;
      r[`imbalance.${name}.modulo.n${n}`] = maxOverMean(mapAll(mod, h), n);
      r[`imbalance.${name}.resilient.n${n}`] = maxOverMean(mapAll(res, h), n);
    }
  }

  // B2: remap with 8 members (default hash), remove port 4 / add a 9th
  const h = hashes.get(DEFAULT_ECMP.hash)!;
  for (const mapping of ['modulo', 'resilient'] as const) {
    const g = new EcmpGroup({ mapping, buckets: BUCKETS }, membersOf(8));
    const before = mapAll(g, h);
    g.setUp(4, false);
    const removed = mapAll(g, h);
    r[`remap.remove.${mapping}`] = movedFraction(before, removed);
    if (mapping === 'resilient') r['remap.remove.resilient.imbalance_after'] = maxOverMean(removed, 7);
    g.setUp(4, true);
    g.addMember({ port: 9, slot: 11 });
    r[`remap.add.${mapping}`] = movedFraction(before, mapAll(g, h));
  }
  r['remap.remove.ideal'] = 1 / 8;
  r['remap.add.ideal'] = 1 / 9;
  r['remap.remove.resilient_over_ideal'] = r['remap.remove.resilient']! / r['remap.remove.ideal']!;
  r['remap.add.resilient_over_ideal'] = r['remap.add.resilient']! / r['remap.add.ideal']!;

  // Throughput: one literal loop per function, so each call site stays monomorphic.
  const COUNT = 1024;
  const std = keys('standard', COUNT);
  const rss = keys('rss', COUNT);
  const sv = Array.from({ length: COUNT }, (_, i) => std.buf.subarray(i * std.len, (i + 1) * std.len));
  const rv = Array.from({ length: COUNT }, (_, i) => rss.buf.subarray(i * rss.len, (i + 1) * rss.len));
  const tz = new ToeplitzHasher(DEFAULT_ECMP.toeplitzKey);
  let sink = 0;
  const M = COUNT - 1;
  const ITERS = 1 << 16;
  r['throughput.reference.zlib_crc32'] = rate((n) => {
    for (let i = 0; i < n; i++) sink ^= zlibCrc32(sv[i & M]!);
  }, ITERS);
  r['throughput.pearson'] = rate((n) => {
    for (let i = 0; i < n; i++) sink ^= pearson16(sv[i & M]!, 13);
  }, ITERS);
  r['throughput.crc32'] = rate((n) => {
    for (let i = 0; i < n; i++) sink ^= crc32(sv[i & M]!, 13);
  }, ITERS);
  r['throughput.crc16'] = rate((n) => {
    for (let i = 0; i < n; i++) sink ^= crc16ccitt(sv[i & M]!, 13);
  }, ITERS);
  r['throughput.toeplitz'] = rate((n) => {
    for (let i = 0; i < n; i++) sink ^= tz.hash(rv[i & M]!, 12);
  }, ITERS);
  for (const name of HASH_ALGORITHMS) {
    r[`throughput.${name}.ratio_to_reference`] = r[`throughput.${name}`]! / r['throughput.reference.zlib_crc32']!;
  }

  // SwitchBoard.ingress
  const PKTS = 1024;
  const pkts = fakePackets(PKTS);
  for (const countFlows of [true, false]) {
    const hub = new SwitchBoard({ slot: 1, group: new EcmpGroup({ mapping: 'resilient', buckets: BUCKETS }, membersOf(8)), countFlows });
    const key = countFlows ? 'ingress' : 'ingress.no_flow_count';
    r[`${key}.pps`] = rate((iters) => {
      for (let i = 0; i < iters; i++) sink ^= hub.ingress(pkts[i & (PKTS - 1)]!, 0).port;
    }, ITERS);
    r[`${key}.ns_per_packet`] = 1e9 / r[`${key}.pps`]!;
    if (countFlows) {
      let gcs = 0;
      const obs = new PerformanceObserver((list) => {
        gcs += list.getEntries().length;
      });
      obs.observe({ entryTypes: ['gc'] });
      for (let i = 0; i < 10_000_000; i++) sink ^= hub.ingress(pkts[i & (PKTS - 1)]!, 0).port;
      await new Promise((res) => setImmediate(res));
      obs.disconnect();
      r['ingress.gc_events_per_10M'] = gcs;
    }
  }
  if (sink === 0.5) console.log(sink); // keep the loops observable

  printTable(r);
  return r;
}

function printTable(r: Record<string, number>): void {
  const f3 = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(4));
  const lines: string[] = [];
  lines.push(`Switch board: ECMP load max/mean, ${FLOWS.toLocaleString('en')} seeded 5-tuples (target ≤ 1.01 at 8 ports)`);
  const ns = Array.from({ length: MAX_N - MIN_N + 1 }, (_, i) => i + MIN_N);
  lines.push(['hash/mapping'.padEnd(22), ...ns.map((n) => `N=${n}`.padStart(7))].join(''));
  for (const name of HASH_ALGORITHMS) {
    for (const m of ['modulo', 'resilient']) {
      lines.push([`${name}/${m}`.padEnd(22), ...ns.map((n) => f3(r[`imbalance.${name}.${m}.n${n}`]).padStart(7))].join(''));
    }
  }
  lines.push(['noise floor'.padEnd(22), ...ns.map((n) => f3(r[`imbalance.floor.n${n}`]).padStart(7))].join(''));
  lines.push(['resilient structural'.padEnd(22), ...ns.map((n) => f3(r[`structural.resilient.n${n}`]).padStart(7))].join(''));
  lines.push('');
  lines.push(`Flows remapped, 8 members, hash ${DEFAULT_ECMP.hash} (target resilient ≤ 1.05 × ideal)`);
  lines.push(`${'change'.padEnd(22)}${'modulo'.padStart(10)}${'resilient'.padStart(11)}${'ideal'.padStart(9)}${'res/ideal'.padStart(11)}`);
  for (const c of ['remove', 'add']) {
    const pc = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(2)}%`;
    lines.push(`${(c === 'remove' ? 'remove 1 of 8' : 'add a 9th').padEnd(22)}${pc(r[`remap.${c}.modulo`]).padStart(10)}${pc(r[`remap.${c}.resilient`]).padStart(11)}${pc(r[`remap.${c}.ideal`]).padStart(9)}${f3(r[`remap.${c}.resilient_over_ideal`]).padStart(11)}`);
  }
  lines.push(`resilient max/mean after removal (7 members): ${f3(r['remap.remove.resilient.imbalance_after'])}`);
  lines.push('');
  lines.push('Hash throughput (13-byte IPv4 5-tuple keys; Toeplitz 12), reference = node:zlib crc32 on the same keys');
  const mh = (x: number | undefined) => `${((x ?? 0) / 1e6).toFixed(1)} M/s`;
  lines.push(`${'reference zlib.crc32'.padEnd(22)}${mh(r['throughput.reference.zlib_crc32']).padStart(12)}`);
  for (const name of HASH_ALGORITHMS) {
    lines.push(`${name.padEnd(22)}${mh(r[`throughput.${name}`]).padStart(12)}   ×${(r[`throughput.${name}.ratio_to_reference`] ?? 0).toFixed(2)} vs reference`);
  }
  lines.push(`${'SwitchBoard.ingress'.padEnd(22)}${mh(r['ingress.pps']).padStart(12)}   ${(r['ingress.ns_per_packet'] ?? 0).toFixed(1)} ns/packet (pearson, resilient, 8 ports, flow counting on; ${r['ingress.gc_events_per_10M']} GCs in 10M packets)`);
  lines.push(`${'  without flow count'.padEnd(22)}${mh(r['ingress.no_flow_count.pps']).padStart(12)}   ${(r['ingress.no_flow_count.ns_per_packet'] ?? 0).toFixed(1)} ns/packet`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchSwitch();
}
