/**
 * The traffic source: loops capture files through a data plane — as fast as possible (`replay`)
 * or paced (the `start` job: to capture time, or at a fixed packet rate) — shifting client ports
 * on every loop so each loop brings new conversations and every processor board stays busy.
 * Pure core: the bytes come from PacketFeeds (the I/O driver is chassis/io/capture-file.ts
 * `CaptureFileReader`, which streams a file through a fixed 1 MiB buffer; `MemoryFeed` below
 * serves a capture already in memory, e.g. the small bundled one), time from the caller.
 *
 * Time. Every packet gets a data-plane time in ms: the first packet of the run is at `startMs`;
 * later packets keep their capture spacing (timestamp − the file's first timestamp), clamped so
 * time never goes back (capture timestamps can jump backwards) and, when `maxGapMs` is set,
 * never leaps forward by more than that. Each file pass (every file of every loop) starts 1 ms
 * after the previous pass ended. Packets without a timestamp (pcapng Simple Packet Blocks) take
 * the previous packet's time.
 * Pacing (`pump(now)`): `asap` delivers everything at once (data time as above); `capture`
 * delivers each packet when the caller's clock reaches its data time; `rate` ignores capture
 * timestamps and spaces packets 1000/pps ms apart.
 *
 * Port shifting (loop L ≥ 1, 0-based; loop 0 is the capture as it is): the client port of every
 * TCP/UDP/SCTP conversation moves by a per-loop step, in the tuples and in the packet bytes
 * (checksums updated, bytes restored after delivery) — port-shift.ts has the rule.
 *
 * A loop in which no input delivers a packet (all missing, refused or empty) ends the run, also
 * with `loops: Infinity`: `isDone` becomes true and `pump` returns Infinity.
 *
 * Hot path: no allocation per packet (one reused parser, no closures created per packet).
 */
import type { CaptureFormat, CaptureHandler } from '../../board/packet/capture-reader.ts';
import { CaptureReader } from '../../board/packet/capture-reader.ts';
import type { CaptureRecord } from '../../board/packet/capture-record.ts';
import type { PacketView } from '../../board/packet/flow-tuple.ts';
import { PacketParser, type ParsedPacket } from '../../board/packet/parse.ts';
import { PortShift } from './port-shift.ts';

export { PORT_SHIFT_HIGH, PORT_SHIFT_LOW, shiftPort } from './port-shift.ts';

/** What the source delivers to (DataPlane implements it). */
export interface PacketSink {
  /** One packet at data-plane time `now` (ms). */
  deliver(pkt: PacketView, now: number): number;
}

/** A source of capture records: delivers records to the handler it was made with. */
export interface PacketFeed {
  /** Delivers records until the handler pauses (returns false) or the input ends.
   * @throws DecodeError for a refused, corrupt or cut-short capture (after every packet before the problem) */
  pump(): 'paused' | 'eof';
  /** Starts the input over (next loop). */
  rewind(): void;
  /** Releases the input (file descriptor). */
  close(): void;
  /** Bytes of the input consumed in this pass (for progress), if known. */
  readonly bytesRead?: number;
}

/** One input of a traffic source. */
export interface TrafficInput {
  /** Name for reports and errors (the path). */
  name: string;
  /** Size in bytes (for progress), if known. */
  size?: number;
  /** Opens the input for `handler` (called once, on first use).
   * @throws what opening throws (e.g. node:fs errors): reported as the input's error */
  open(handler: CaptureHandler): PacketFeed;
}

/** Pacing of a traffic source (see the module header). */
export type Pacing = { mode: 'asap' } | { mode: 'capture'; speed?: number } | { mode: 'rate'; pps: number };

/** Construction options of a TrafficSource. */
export interface TrafficSourceOptions {
  inputs: readonly TrafficInput[];
  sink: PacketSink;
  /** Passes over all inputs (default 1; Infinity loops for ever). */
  loops?: number;
  pacing?: Pacing;
  /** Data-plane time of the first packet, ms (default 0; `start` passes clock.now()). */
  startMs?: number;
  /** Whole milliseconds (default true in asap mode, false when paced): every data time is
   * rounded down to an integer, so in V8 it stays a small integer end to end and the per-packet
   * path allocates no heap number for it (until 2^30 ms ≈ 12 days of capture time). */
  integerTime?: boolean;
  /** Called once with the capture timestamp (ms since 1970, fractional) of the run's first
   * timestamped packet: data time `startMs` corresponds to it (a pcap writer adds the offset). */
  onOrigin?: (captureMs: number) => void;
  /** Longest forward step between two consecutive packets, ms (default: unlimited in asap mode,
   * 1000 in capture-paced mode so an idle stretch of the capture does not idle the shelf). */
  maxGapMs?: number;
  /** Shift client ports on loops ≥ 1 (default true). */
  shiftPorts?: boolean;
}

/** One input's problem (reported once per input). */
export interface TrafficError {
  input: string;
  message: string;
  /** Packets of that input delivered in its first pass before the problem. */
  packetsBefore: number;
}

/** Counters of a traffic source. */
export interface TrafficCounters {
  packets: number;
  bytes: number;
  /** Completed passes over all inputs. */
  loopsDone: number;
  /** Loop in progress (0-based). */
  loop: number;
  done: boolean;
  /** Data-plane time of the last packet delivered, ms. */
  lastMs: number;
}

const HOLD_MAX = 1 << 18;
const T_LAST = 0;
const T_BASE = 1;
const T_FIRST = 2;
const T_PREV = 3;
/** Records delivered per pump slice in asap mode before control returns to the caller. */
const DEFAULT_SLICE = 65536;

/** Loops inputs through a sink; see the module header. */
export class TrafficSource implements CaptureHandler {
  readonly errors: TrafficError[] = [];
  /** Formats of the inputs, once recognised (by input index). */
  readonly formats: Array<CaptureFormat | null>;
  private readonly inputs: readonly TrafficInput[];
  private readonly sink: PacketSink;
  private readonly loops: number;
  private readonly pacing: Pacing;
  private readonly maxGap: number;
  private readonly shiftPorts: boolean;
  /** The port shift of the loop in progress (port-shift.ts). */
  private readonly portShift = new PortShift();
  private readonly parser = new PacketParser();
  private readonly feeds: Array<PacketFeed | null>;
  private readonly failed: Uint8Array;
  private readonly reported: Uint8Array;
  private readonly perInput: Float64Array;

  private cur = 0;
  private loop = 0;
  /** Packets delivered when the loop in progress started (a loop that delivers none ends the run). */
  private loopStartPackets = 0;
  private done = false;
  private passStarted = false;
  private packets = 0;
  private bytes = 0;
  private bytesDone = 0;
  /** Time state in a typed array (stores of doubles there never allocate): T_LAST data time of
   * the last packet; T_BASE data time at which the current pass started; T_FIRST the pass's first
   * capture timestamp (NaN until seen); T_PREV capture time of the previous packet (ms). */
  private readonly tm = new Float64Array(4);
  // pacing
  private limit = Infinity;
  private slice = DEFAULT_SLICE;
  private sliceLeft = DEFAULT_SLICE;
  private readonly rateStep: number;
  /** pacing.mode === 'rate' (the per-packet path compares no strings). */
  private readonly rateMode: boolean;
  private readonly speed: number;
  private readonly startMs: number;
  private readonly integerTime: boolean;
  private onOrigin: ((captureMs: number) => void) | null;
  // one held record (paced mode: the next packet is not yet due)
  private held = false;
  private heldDue = 0;
  private readonly holdBuf = new Uint8Array(HOLD_MAX);
  private heldLen = 0;
  private heldOrig = 0;
  private heldLink = 0;

  /** @throws RangeError for a bad loop count, pacing rate or gap */
  constructor(opts: TrafficSourceOptions) {
    this.inputs = opts.inputs;
    this.sink = opts.sink;
    this.loops = opts.loops ?? 1;
    if (!(this.loops >= 1) || (Number.isFinite(this.loops) && !Number.isInteger(this.loops))) {
      throw new RangeError(`loops must be a positive integer or Infinity, got ${this.loops}`);
    }
    this.pacing = opts.pacing ?? { mode: 'asap' };
    this.rateStep = this.pacing.mode === 'rate' ? 1000 / this.pacing.pps : 0;
    this.rateMode = this.pacing.mode === 'rate';
    if (this.pacing.mode === 'rate' && !(this.pacing.pps > 0 && Number.isFinite(this.pacing.pps))) {
      throw new RangeError(`rate must be > 0 packets/s, got ${this.pacing.pps}`);
    }
    this.speed = this.pacing.mode === 'capture' ? this.pacing.speed ?? 1 : 1;
    if (!(this.speed > 0)) throw new RangeError(`speed must be > 0, got ${this.speed}`);
    this.maxGap = opts.maxGapMs ?? (this.pacing.mode === 'capture' ? 1000 : Infinity);
    if (!(this.maxGap >= 0)) throw new RangeError(`maxGapMs must be ≥ 0, got ${this.maxGap}`);
    this.shiftPorts = opts.shiftPorts ?? true;
    this.startMs = opts.startMs ?? 0;
    this.integerTime = opts.integerTime ?? this.pacing.mode === 'asap';
    this.onOrigin = opts.onOrigin ?? null;
    this.tm[T_LAST] = this.startMs;
    this.tm[T_BASE] = this.startMs;
    this.tm[T_FIRST] = NaN;
    this.tm[T_PREV] = NaN;
    this.feeds = this.inputs.map(() => null);
    this.formats = this.inputs.map(() => null);
    this.failed = new Uint8Array(this.inputs.length);
    this.reported = new Uint8Array(this.inputs.length);
    this.perInput = new Float64Array(this.inputs.length);
    if (this.inputs.length === 0) this.done = true;
  }

  /** Counters (fresh object). */
  counters(): TrafficCounters {
    return { packets: this.packets, bytes: this.bytes, loopsDone: this.loop, loop: this.loop, done: this.done, lastMs: this.tm[T_LAST]! };
  }

  /** True once every loop of every input has been delivered. */
  get isDone(): boolean {
    return this.done;
  }

  /** Bytes of input consumed so far over all passes (for a progress bar). */
  get progressBytes(): number {
    const f = this.done ? null : this.feeds[this.cur];
    return this.bytesDone + (f?.bytesRead ?? 0);
  }

  /** Total bytes the run will read (sum of the inputs' sizes × loops), or NaN when unknown or endless. */
  get totalBytes(): number {
    let s = 0;
    for (const i of this.inputs) {
      if (i.size === undefined) return NaN;
      s += i.size;
    }
    return Number.isFinite(this.loops) ? s * this.loops : NaN;
  }

  /**
   * asap mode: delivers up to about `maxPackets` packets (default 65,536) and returns, so a
   * caller can update a progress bar between slices.
   * @returns true while there is more to deliver
   */
  runSlice(maxPackets = DEFAULT_SLICE): boolean {
    this.limit = Infinity;
    this.slice = Math.max(1, maxPackets);
    this.sliceLeft = this.slice;
    this.step();
    return !this.done;
  }

  /** asap mode: delivers everything. */
  runAll(): void {
    while (this.runSlice(1 << 20));
  }

  /**
   * Paced modes: delivers every packet due at or before `now` (data time = the caller's clock),
   * at most `budget` packets (default 65,536, so one call never blocks an event loop for long).
   * @returns the time the next packet is due (ms; `now` when the budget ran out; Infinity when done)
   */
  pump(now: number, budget = DEFAULT_SLICE): number {
    this.limit = now;
    this.slice = Math.max(1, budget);
    this.sliceLeft = this.slice;
    if (this.held) {
      if (this.heldDue > now) return this.heldDue;
      this.held = false;
      this.parser.parseAt(this.holdBuf, 0, this.heldLen, this.heldLink, this.heldOrig);
      this.deliverParsed(this.parser.result, this.heldDue);
      if (--this.sliceLeft <= 0) return this.done ? Infinity : now;
    }
    this.step();
    if (this.done) return Infinity;
    if (this.held) return this.heldDue;
    return now;
  }

  /** Closes every input. */
  close(): void {
    for (const f of this.feeds) f?.close();
    this.feeds.fill(null);
  }

  // ---------------------------------------------------------------- internals

  private step(): void {
    while (!this.done) {
      const i = this.cur;
      let feed = this.feeds[i];
      if (this.failed[i] === 0 && !feed) {
        try {
          feed = this.inputs[i]!.open(this);
          this.feeds[i] = feed;
        } catch (e) {
          this.failed[i] = 1;
          this.report(i, e);
        }
      }
      if (this.failed[i] === 1 || !feed) {
        this.nextInput();
        continue;
      }
      if (!this.passStarted) this.beginPass();
      let r: 'paused' | 'eof';
      try {
        r = feed.pump();
        if (this.formats[i] === null) this.formats[i] = this.formatOf(feed);
      } catch (e) {
        if (this.formats[i] === null) this.formats[i] = this.formatOf(feed);
        this.report(i, e);
        r = 'eof';
      }
      if (r === 'paused') return;
      this.bytesDone += feed.bytesRead ?? 0;
      this.nextInput();
    }
  }

  private formatOf(feed: PacketFeed): CaptureFormat | null {
    const c = (feed as { capture?: CaptureReader }).capture;
    return c?.format ?? null;
  }

  private beginPass(): void {
    this.passStarted = true;
    this.tm[T_BASE] = this.packets === 0 ? this.startMs : this.tm[T_LAST]! + 1;
    this.tm[T_FIRST] = NaN;
    this.tm[T_PREV] = NaN;
  }

  private nextInput(): void {
    this.passStarted = false;
    this.cur++;
    if (this.cur >= this.inputs.length) {
      this.cur = 0;
      this.loop++;
      // Every input failed or held no packet in a whole loop: later loops would deliver nothing
      // either, so an endless source stops instead of spinning.
      if (this.loop >= this.loops || this.packets === this.loopStartPackets) {
        this.done = true;
        return;
      }
      this.loopStartPackets = this.packets;
      this.portShift.setLoop(this.loop);
    }
    // A feed opened in an earlier pass starts this one from the beginning.
    const next = this.feeds[this.cur];
    if (next) {
      try {
        next.rewind();
      } catch (e) {
        this.failed[this.cur] = 1;
        this.report(this.cur, e);
      }
    }
  }

  private report(i: number, e: unknown): void {
    if (this.reported[i] === 1) return;
    this.reported[i] = 1;
    const message = e instanceof Error ? e.message : String(e);
    this.errors.push({ input: this.inputs[i]!.name, message, packetsBefore: this.perInput[i]! });
  }

  /** CaptureHandler: one record from the current feed. */
  packet(rec: CaptureRecord): boolean {
    const due = this.timeOf(rec);
    if (due > this.limit) {
      // Not yet due (paced mode): keep a copy and pause the feed.
      const n = Math.min(rec.caplen, HOLD_MAX);
      this.holdBuf.set(rec.buf.subarray(rec.offset, rec.offset + n), 0);
      this.heldLen = n;
      this.heldOrig = rec.origLen;
      this.heldLink = rec.linkType;
      this.heldDue = due;
      this.held = true;
      this.tm[T_LAST] = due;
      return false;
    }
    const p = this.parser.parseAt(rec.buf, rec.offset, rec.caplen, rec.linkType, rec.origLen);
    this.deliverParsed(p, due);
    return --this.sliceLeft > 0;
  }

  /** The data time of a record (advances the pass clock). */
  private timeOf(rec: CaptureRecord): number {
    const tm = this.tm;
    const last = tm[T_LAST]!;
    let t: number;
    if (this.rateMode) {
      t = this.packets === 0 && !this.held ? this.startMs : last + this.rateStep;
    } else if (rec.hasTimestamp === false) {
      t = last;
    } else {
      const ts = rec.tsSec * 1000 + rec.tsNsec / 1e6;
      if (tm[T_FIRST]! !== tm[T_FIRST]!) {
        if (this.onOrigin !== null) {
          const f = this.onOrigin;
          this.onOrigin = null;
          f(ts - (last - this.startMs));
        }
        tm[T_FIRST] = ts;
        tm[T_PREV] = ts;
        t = tm[T_BASE]!;
      } else {
        let dt = ts - tm[T_PREV]!;
        if (this.speed !== 1) dt /= this.speed;
        if (!(dt > 0)) dt = 0;
        else if (dt > this.maxGap) dt = this.maxGap;
        tm[T_PREV] = ts;
        t = last + dt;
      }
    }
    if (t < last) t = last;
    tm[T_LAST] = t;
    return this.integerTime === true ? Math.floor(t) : t;
  }

  private deliverParsed(p: ParsedPacket, now: number): void {
    this.packets++;
    this.bytes += p.origLen;
    this.perInput[this.cur]!++;
    // Booleans read from objects are compared with true/false: TurboFan then compares one word,
    // where a bare test compiles V8's whole ToBoolean (strings, heap numbers, BigInts…).
    if (this.loop > 0 && this.shiftPorts === true) {
      const ps = this.portShift;
      if (p.outer.family !== 0 && p.outer.hasPorts === true) {
        ps.deliver(p, now, this.sink);
        return;
      }
      if (p.icmpError === true && p.quoted.hasPorts === true) ps.shiftTuple(p.quoted);
    }
    this.sink.deliver(p, now);
  }
}

/**
 * A PacketFeed over a capture held in memory (a small bundled capture, or test data): pushes the
 * bytes through a CaptureReader; rewinding starts a new reader over the same bytes.
 */
export class MemoryFeed implements PacketFeed {
  private reader: CaptureReader;
  private pos = 0;
  private ended = false;

  /** @param bytes the whole capture file; `handler` receives its records */
  constructor(private readonly bytes: Uint8Array, private readonly handler: CaptureHandler) {
    this.reader = new CaptureReader(handler);
  }

  /** The push parser of the current pass. */
  get capture(): CaptureReader {
    return this.reader;
  }

  get bytesRead(): number {
    return this.pos;
  }

  pump(): 'paused' | 'eof' {
    if (this.ended) return 'eof';
    const r = this.reader;
    if (r.isPaused) r.resume();
    this.pos = r.push(this.bytes, this.pos, this.bytes.length);
    if (r.isPaused) return 'paused';
    this.pos = this.bytes.length;
    this.ended = true;
    r.end();
    return 'eof';
  }

  rewind(): void {
    this.reader = new CaptureReader(this.handler);
    this.pos = 0;
    this.ended = false;
  }

  close(): void {}
}

/** A TrafficInput over an in-memory capture. */
export function memoryInput(name: string, bytes: Uint8Array): TrafficInput {
  return { name, size: bytes.length, open: (h) => new MemoryFeed(bytes, h) };
}
