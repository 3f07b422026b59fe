/**
 * `atcasim replay FILE... [--config shelf.yaml] [--json] [--out out.pcap] [--loop N]
 *  [--session-capacity N] [--ingress hash|slotN] [--no-progress]`:
 * runs captures as fast as possible through a shelf's data plane (both hubs, the shared ECMP
 * table, every processor board) and reports packets, bytes, flows, per-board and per-port packet
 * and flow counts with max/mean imbalance, sessions, drops by reason and throughput. docs/replay.md
 * documents every flag and JSON field.
 *
 * Exit status: 0 when every file was read completely (malformed packets are data, not errors);
 * 2 for a usage error, a bad shelf file, an output file that cannot be written, or any input that
 * is missing, not a capture, refused or cut short — the packets before the problem are still
 * replayed and reported, the problem is one line on stderr (`atcasim replay: FILE: message`),
 * never a stack trace. When no input could be opened as a capture at all (missing, a directory,
 * not a capture), no report is printed: only the errors.
 */
import type { Command } from 'commander';
import { statSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import { CommandError, ConfigError, DecodeError } from '../../board/common/errors.ts';
import { nullLogger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { SimClock } from '../../board/common/sim-clock.ts';
import type { ShelfConfig } from '../config/types.ts';
import { DataPlane } from '../dataplane/data-plane.ts';
import { buildReplayReport, formatReplayReport, type ReplayReport } from '../dataplane/replay-report.ts';
import { TrafficSource, type TrafficInput } from '../dataplane/traffic.ts';
import { CaptureFileReader } from '../io/capture-file.ts';
import { loadDefaultShelf } from '../io/data-dir.ts';
import { fileErrorText, loadShelfConfigFile } from './read-file.ts';
import { PcapFileWriter } from '../io/pcap-out.ts';
import type { CliContext } from './context.ts';
import { seededCryptoRandom } from '../platform.ts';

/** Session-table capacity per board when replaying the built-in default shelf (its 1.5M per
 * board would allocate ~72 MB of entries per board up front). */
export const REPLAY_DEFAULT_SESSION_CAPACITY = 262_144;

/** Options of a replay run (the CLI flags, parsed). */
export interface ReplayOptions {
  files: string[];
  /** Shelf YAML; default the built-in shelf. */
  config?: string;
  /** Passes over the files (default 1). */
  loops?: number;
  /** Write what the boards emit to this pcap file. */
  out?: string;
  /** Per-board session capacity; default the shelf file's value with --config, else 262,144. */
  sessionCapacity?: number;
  /** Ingress hub policy: 'hash' (default) or a hub slot number. */
  ingress?: 'hash' | number;
  /** Called between slices of packets (progress). */
  onProgress?: (done: number, total: number, packets: number) => void;
}

/** What a run returns: the report, and the input problems (one line each). */
export interface ReplayResult {
  report: ReplayReport;
  errors: string[];
  dataPlane: DataPlane;
  /** False when no input could be opened as a capture at all (each is missing, a directory, not
   * a capture): the report is then all zeros and the CLI prints only the errors. */
  anyInputOpened: boolean;
}

/** One-line description of an input error (no stack); node:fs errors worded by read-file.ts. */
export function describeInputError(e: unknown): string {
  if (e instanceof DecodeError || e instanceof ConfigError || e instanceof CommandError) return e.message;
  return fileErrorText(e, 'capture file');
}

/**
 * Runs a replay.
 * @throws ConfigError for a bad shelf file; CommandError('bad_option') for bad options; node:fs
 *   errors when --out cannot be created. Input-file problems are not thrown: they are in `errors`.
 */
export function runReplay(o: ReplayOptions): ReplayResult {
  const loops = o.loops ?? 1;
  if (!Number.isInteger(loops) || loops < 1) throw new CommandError('bad_option', `--loop must be a positive integer, got ${loops}`);
  const shelf: ShelfConfig = o.config !== undefined ? loadShelfConfigFile(o.config).config : loadDefaultShelf();
  const capacity = o.sessionCapacity ?? (o.config !== undefined ? shelf.dataplane.processor.sessions.capacity : REPLAY_DEFAULT_SESSION_CAPACITY);
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > 1 << 26) {
    throw new CommandError('bad_option', `--session-capacity must be an integer in 1..${1 << 26}, got ${capacity}`);
  }
  let writer: PcapFileWriter | null = null;
  if (o.out !== undefined) {
    try {
      writer = new PcapFileWriter(o.out);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'cannot create it: its folder does not exist' : code === 'EISDIR' ? 'is a directory' : describeInputError(e);
      throw new CommandError('out_file', `--out ${o.out}: ${why}`);
    }
  }
  try {
    // Replay runs in capture time: the data plane's clock is the packets' own timestamps.
    const clock = new SimClock();
    const dp = new DataPlane({
      config: shelf,
      platform: { clock, log: nullLogger, random: new SeededRandom(1), cryptoRandom: seededCryptoRandom(new SeededRandom(1)) },
      sessionCapacity: capacity,
      emit: writer ?? undefined,
      ingress: o.ingress ?? 'hash',
    });
    const inputs: TrafficInput[] = o.files.map((f) => ({
      name: f,
      size: fileSize(f),
      open: (h) => {
        try {
          // A directory opens on Linux and fails only at the first read (raw EISDIR): refused here.
          if (statSync(f).isDirectory()) throw Object.assign(new Error(`${f} is a directory`), { code: 'EISDIR' });
          return new CaptureFileReader(f, h);
        } catch (e) {
          throw new Error(describeInputError(e));
        }
      },
    }));
    // Data time starts at 0 (whole ms, see TrafficSource.integerTime); --out adds the capture's
    // first timestamp back so the written frames carry capture times.
    const src = new TrafficSource({
      inputs, sink: dp, loops, pacing: { mode: 'asap' }, startMs: 0,
      onOrigin: (ms) => {
        if (writer) writer.offsetMs = ms;
      },
    });
    const total = src.totalBytes;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    while (src.runSlice(1 << 16)) o.onProgress?.(src.progressBytes, total, src.counters().packets);
    const elapsedNs = Number(process.hrtime.bigint() - t0);
    const cpu = process.cpuUsage(c0);
    src.close();
    o.onProgress?.(total, total, src.counters().packets);
    writer?.close();
    const stats = dp.stats(src.counters().lastMs);
    const report = buildReplayReport({
      files: o.files.map((f, i) => ({ file: f, format: src.formats[i] ?? null, error: src.errors.find((e) => e.input === f)?.message ?? null })),
      loops,
      sessionCapacity: capacity,
      stats,
      elapsedMs: elapsedNs / 1e6,
      cpuMs: (cpu.user + cpu.system) / 1000,
      out: writer ? { file: writer.path, frames: writer.frames } : null,
    });
    return { report, errors: src.errors.map((e) => `${e.input}: ${e.message}`), dataPlane: dp, anyInputOpened: src.formats.some((f) => f !== null) };
  } finally {
    writer?.close();
  }
}

function fileSize(f: string): number | undefined {
  try {
    return statSync(f).size;
  } catch {
    return undefined;
  }
}

function intOption(name: string, v: string): number {
  if (!/^[0-9]+$/.test(v)) throw new CommandError('bad_option', `${name}: '${v}' is not a positive integer`);
  return Number(v);
}

/** Registers `replay` on the CLI root. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('replay')
    .description('run pcap/pcapng captures through the shelf data plane (hubs, ECMP, processor boards) and report')
    .argument('<files...>', 'capture files (pcap or pcapng, detected by magic number)')
    .option('--config <file>', 'shelf YAML (default: the built-in shelf)')
    .option('--json', 'print one JSON object instead of the text report')
    .option('--out <file>', 'write the frames the boards emit (GRE/IPIP to the RS, replies) to this pcap file')
    .option('--loop <n>', 'replay the files N times, shifting client ports on each loop', '1')
    .option('--session-capacity <n>', `session-table entries per processor board (default: the --config value, or ${REPLAY_DEFAULT_SESSION_CAPACITY} for the built-in shelf)`)
    .option('--ingress <hub>', "ingress hub: 'hash' (spread by a symmetric flow hash) or slotN (that hub while in service)", 'hash')
    .option('--no-progress', 'no progress bar (it is shown on a TTY for runs longer than a second)')
    .action((files: string[], opts: { config?: string; json?: boolean; out?: string; loop: string; sessionCapacity?: string; ingress: string; progress: boolean }) => {
      const err = (msg: string) => ctx.stderr.write(`atcasim replay: ${msg}\n`);
      let bar: SingleBar | null = null;
      let result: ReplayResult;
      try {
        const loops = intOption('--loop', opts.loop);
        const sessionCapacity = opts.sessionCapacity !== undefined ? intOption('--session-capacity', opts.sessionCapacity) : undefined;
        let ingress: 'hash' | number = 'hash';
        if (opts.ingress !== 'hash') {
          const m = /^slot([0-9]+)$/.exec(opts.ingress);
          if (!m) throw new CommandError('bad_option', `--ingress: expected 'hash' or slotN, got '${opts.ingress}'`);
          ingress = Number(m[1]);
        }
        const tty = opts.progress && (ctx.stderr as NodeJS.WriteStream).isTTY === true;
        const started = process.hrtime.bigint();
        result = runReplay({
          files, config: opts.config, loops, out: opts.out, sessionCapacity, ingress,
          onProgress: tty
            ? (done, total, packets) => {
              if (!bar) {
                if (Number(process.hrtime.bigint() - started) < 1e9) return;
                bar = new SingleBar({
                  stream: ctx.stderr as NodeJS.WriteStream,
                  format: 'replay [{bar}] {percentage}% | {packets} packets | ETA {eta}s',
                  hideCursor: true,
                  clearOnComplete: true,
                });
                bar.start(Number.isFinite(total) ? total : 1, 0, { packets: 0 });
              }
              bar.update(Number.isFinite(total) ? Math.min(done, total) : 0, { packets });
            }
            : undefined,
        });
      } catch (e) {
        (bar as SingleBar | null)?.stop();
        if (e instanceof TypeError || e instanceof RangeError) err(e.message);
        else err(describeInputError(e));
        ctx.setExit(2);
        return;
      }
      (bar as SingleBar | null)?.stop();
      // Nothing could be read at all: the errors alone (an all-zero report would only hide them).
      if (result.anyInputOpened || result.errors.length === 0) ctx.stdout.write(opts.json ? `${JSON.stringify(result.report)}\n` : formatReplayReport(result.report));
      for (const m of result.errors) err(m);
      if (result.errors.length > 0) ctx.setExit(2);
    });
}
