/**
 * Capture reader + header parser benchmark (the data path needs millions of packets per
 * second from it), on ../shared/pcap/bench/loopback-mix.pcap (398 892 real packets, 47 MB):
 * - read only: CaptureFileReader (1 MiB fs.readSync chunks → push parser), empty callback;
 * - read + parse: the same plus PacketParser.parseAt on every record (the replay hot path);
 * - parse only: every frame parsed again from memory (the file's bytes in one buffer);
 * - read + parse + `fields` recorder: what `atcasim fields` pays per packet (allocates strings);
 * - garbage collections during read + parse (0 means the hot path allocates nothing per packet);
 * - the reference, measured in the same run: `tcpdump -r FILE -w /dev/null` (libpcap reads and
 *   writes every record, no dissection), its wall time and packets/s.
 *
 * Each figure is the best of 3 runs, in wall-clock time and in CPU time (user + system; steadier
 * on a shared machine). `benchPacket()` returns a flat record (pps = packets/s, ns = nanoseconds
 * per packet, ratio = atcasim read+parse pps / tcpdump pps) and prints a table.
 * Run alone: `node bin/run-ts.mjs bench/packet.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { CaptureReader } from '../board/packet/capture-reader.ts';
import type { CaptureRecord } from '../board/packet/capture-record.ts';
import { TextFieldRecorder } from '../board/packet/field-recorder.ts';
import { PacketParser } from '../board/packet/parse.ts';
import { CaptureFileReader } from '../chassis/io/capture-file.ts';
import { shared } from '../test/support/shared.ts';

const RUNS = 3;

interface Timing {
  /** Best wall-clock time of the runs, ms. */
  ms: number;
  /** Best CPU time (user + system) of the runs, ms: less sensitive to a busy machine. */
  cpuMs: number;
  packets: number;
}

function best(fn: () => number): Timing {
  let ms = Infinity;
  let cpuMs = Infinity;
  let packets = 0;
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    packets = fn();
    ms = Math.min(ms, performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpuMs = Math.min(cpuMs, (c.user + c.system) / 1000);
  }
  return { ms, cpuMs, packets };
}

function readFile(file: string, onPacket: (r: CaptureRecord) => void): number {
  let n = 0;
  const reader = new CaptureFileReader(file, {
    packet: (r) => {
      n++;
      onPacket(r);
    },
  });
  try {
    reader.pump();
  } finally {
    reader.close();
  }
  return n;
}

/** Counts garbage collections while `fn` runs. */
function gcCount(fn: () => void): Promise<number> {
  return new Promise((resolve) => {
    let count = 0;
    const obs = new PerformanceObserver((list) => {
      count += list.getEntries().length;
    });
    obs.observe({ entryTypes: ['gc'] });
    fn();
    // GC entries are delivered asynchronously.
    setImmediate(() => {
      obs.disconnect();
      resolve(count);
    });
  });
}

/**
 * Runs the packet benchmark. @returns figures keyed `packet.*` (pps, ns per packet, ms, counts).
 * @throws Error when ../shared/pcap/bench/loopback-mix.pcap is missing.
 */
export async function benchPacket(file = shared('pcap', 'bench', 'loopback-mix.pcap')): Promise<Record<string, number>> {
  if (!existsSync(file)) throw new Error(`benchmark capture not found: ${file}`);
  const parser = new PacketParser();
  let sink = 0;

  const read = best(() => readFile(file, (r) => (sink += r.caplen)));
  const readParse = best(() =>
    readFile(file, (r) => {
      const v = parser.parseAt(r.buf, r.offset, r.caplen, r.linkType, r.origLen);
      sink += v.outer.sport;
    }),
  );

  // Parse only: records located once, frames parsed from the in-memory file.
  // a plain Uint8Array view (a Buffer is a subclass: mixing both makes the byte loads polymorphic)
  const fileBuf = readFileSync(file);
  const bytes = new Uint8Array(fileBuf.buffer, fileBuf.byteOffset, fileBuf.length);
  const offs: number[] = [];
  const lens: number[] = [];
  const origs: number[] = [];
  let link = 1;
  const collector = new CaptureReader({
    packet: (r) => {
      offs.push(r.offset);
      lens.push(r.caplen);
      origs.push(r.origLen);
      link = r.linkType;
    },
  });
  collector.push(bytes);
  collector.end();
  const n = offs.length;
  const parseOnly = best(() => {
    for (let i = 0; i < n; i++) sink += parser.parseAt(bytes, offs[i]!, lens[i]!, link, origs[i]!).outer.dport;
    return n;
  });

  const rec = new TextFieldRecorder();
  const withFields = best(() =>
    readFile(file, (r) => {
      rec.clear();
      parser.parseAt(r.buf, r.offset, r.caplen, r.linkType, r.origLen, rec);
      sink += rec.values[0]!.length;
    }),
  );

  const gcs = await gcCount(() => {
    readFile(file, (r) => {
      sink += parser.parseAt(r.buf, r.offset, r.caplen, r.linkType, r.origLen).outer.proto;
    });
  });

  // Reference: tcpdump reading (and re-writing) the same file; wall time, and CPU time from
  // bash's `times` (children's user + system seconds).
  let tcpdumpMs = Infinity;
  let tcpdumpCpuMs = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    let out: string;
    try {
      out = execFileSync('bash', ['-c', 'tcpdump -r "$1" -w /dev/null 2>/dev/null; times', 'bench', file], { encoding: 'utf8' });
    } catch {
      break;
    }
    tcpdumpMs = Math.min(tcpdumpMs, performance.now() - t0);
    const m = /\n(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(out);
    if (m) tcpdumpCpuMs = Math.min(tcpdumpCpuMs, (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000);
  }

  const pps = (x: Timing) => Math.round((x.packets / x.ms) * 1000);
  const cpuPps = (x: Timing) => Math.round((x.packets / x.cpuMs) * 1000);
  const ns = (x: Timing) => Math.round(((x.ms * 1e6) / x.packets) * 10) / 10;
  const cpuNs = (x: Timing) => Math.round(((x.cpuMs * 1e6) / x.packets) * 10) / 10;
  const r2 = (v: number) => Math.round(v * 100) / 100;
  const tcpdumpPps = (readParse.packets / tcpdumpMs) * 1000;
  const tcpdumpCpuPps = (readParse.packets / tcpdumpCpuMs) * 1000;
  const out: Record<string, number> = {
    'packet.packets': readParse.packets,
    'packet.read_pps': pps(read),
    'packet.read_ns_per_packet': ns(read),
    'packet.read_parse_pps': pps(readParse),
    'packet.read_parse_ns_per_packet': ns(readParse),
    'packet.read_parse_cpu_pps': cpuPps(readParse),
    'packet.read_parse_cpu_ns_per_packet': cpuNs(readParse),
    'packet.parse_only_pps': pps(parseOnly),
    'packet.parse_only_ns_per_packet': ns(parseOnly),
    'packet.parse_only_cpu_ns_per_packet': cpuNs(parseOnly),
    'packet.read_parse_fields_pps': pps(withFields),
    'packet.gc_during_read_parse': gcs,
    'packet.tcpdump_ms': r2(tcpdumpMs),
    'packet.tcpdump_cpu_ms': r2(tcpdumpCpuMs),
    'packet.tcpdump_pps': Math.round(tcpdumpPps),
    'packet.tcpdump_cpu_pps': Math.round(tcpdumpCpuPps),
    'packet.read_parse_vs_tcpdump_ratio': r2(pps(readParse) / tcpdumpPps),
    'packet.read_parse_vs_tcpdump_cpu_ratio': r2(cpuPps(readParse) / tcpdumpCpuPps),
  };
  if (sink === 0.5) console.log(sink); // keep the work observable
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await benchPacket();
  for (const [k, v] of Object.entries(r)) console.log(`${k.padEnd(40)} ${v}`);
}
