/**
 * Samples the data plane's counters on the Clock (default once a second) and keeps a short
 * history of packets/s per board and for the shelf, for the TUI's sparklines and the headless
 * stats line. One `DataPlane.stats()` per sample (it allocates), so readers between samples share
 * the latest snapshot instead of each building their own. Pure core: time through the Clock.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import type { DataPlaneStats } from '../dataplane/types.ts';

/** Anything that reports DataPlaneStats (the DataPlane; a fake in tests). */
export interface StatsSource {
  stats(now?: number): DataPlaneStats;
}

/** Options of a TrafficMonitor. */
export interface TrafficMonitorOptions {
  /** Sampling period, ms [1000]. */
  sampleMs?: number;
  /** Samples kept per series [60]. */
  historyLength?: number;
}

/** Packets/s history of every board (hubs and processor boards) and of the whole shelf. */
export class TrafficMonitor {
  private latestStats: DataPlaneStats;
  private readonly series = new Map<number, number[]>();
  private readonly total: number[] = [];
  private timer: TimerId | undefined;
  private readonly sampleMs: number;
  private readonly historyLength: number;
  private count = 0;

  constructor(
    private readonly source: StatsSource,
    private readonly clock: Clock,
    opts: TrafficMonitorOptions = {},
  ) {
    this.sampleMs = opts.sampleMs ?? 1000;
    this.historyLength = opts.historyLength ?? 60;
    if (!(this.sampleMs > 0)) throw new TypeError(`sampleMs must be > 0, got ${this.sampleMs}`);
    this.latestStats = source.stats(clock.now());
  }

  /** Starts sampling (idempotent). */
  start(): void {
    if (this.timer !== undefined) return;
    const run = () => {
      this.sample();
      this.timer = this.clock.setTimeout(run, this.sampleMs);
    };
    this.timer = this.clock.setTimeout(run, this.sampleMs);
  }

  /** Stops sampling. */
  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Takes one sample now (also called by the timer). @returns the new stats */
  sample(): DataPlaneStats {
    const s = this.source.stats(this.clock.now());
    this.latestStats = s;
    this.count++;
    for (const b of [...s.hubs, ...s.boards]) {
      let h = this.series.get(b.slot);
      if (!h) this.series.set(b.slot, (h = []));
      push(h, b.pps, this.historyLength);
    }
    push(this.total, s.totals.pps, this.historyLength);
    return s;
  }

  /** The latest sample. */
  get latest(): DataPlaneStats {
    return this.latestStats;
  }

  /** Samples taken so far. */
  get samples(): number {
    return this.count;
  }

  /** Packets/s history per slot, oldest first. */
  history(): ReadonlyMap<number, readonly number[]> {
    return this.series;
  }

  /** Packets/s history of the whole shelf, oldest first. */
  totalHistory(): readonly number[] {
    return this.total;
  }
}

function push(a: number[], v: number, max: number): void {
  a.push(v);
  if (a.length > max) a.splice(0, a.length - max);
}
