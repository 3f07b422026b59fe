/**
 * Health checks of one service's pool (pure: no timers, no I/O). Every `intervalMs` (default
 * 5 s, the ATCA processor-card design; TGW probes every 5 s too) each RS is probed; `fall`
 * consecutive failures mark it down, `rise` consecutive successes mark it up again (HAProxy's
 * rise/fall; keepalived's retry). RS start up, as keepalived and HAProxy start them.
 *
 * - Simulated RS (the default): a probe fails while the RS's failure schedule (`sim.down`) or an
 *   injected failure (`setFailing`) says so; a success is known at once, a failure when the
 *   probe's timeout expires.
 * - Real RS (`address: 127.0.0.1:PORT`, kind tcp/http) go through the ProbePort; the outcome comes
 *   back as an event (`result`). A probe that never answers counts as failed after timeout + 1 s.
 *
 * `tick(now)` runs due probes and returns the next deadline; state changes go out through the
 * `onChange` callback.
 */
import type { HealthCheckConfig } from '../processor-config.ts';
import type { SimModel } from '../real-server.ts';
import { inDownWindow } from '../real-server.ts';
import type { ProbePort } from './probe-port.ts';

/** What the checker needs to know about one RS. */
export interface HealthTarget {
  /** Board-wide RS id (reported back in changes). */
  id: number;
  name: string;
  /** Probe for real through the ProbePort (needs host and port). */
  real: boolean;
  host: string;
  port: number | undefined;
  sim: SimModel;
}

/** A change of an RS's health state. */
export interface HealthChange {
  id: number;
  up: boolean;
  atMs: number;
  /** The last probe's outcome text ('probe failed 3 times: timeout'). */
  detail: string;
}

/** Options of a HealthChecker. */
export interface HealthCheckerOptions {
  config: HealthCheckConfig;
  targets: readonly HealthTarget[];
  /** Time the board started (ms): the failure schedule counts from here; first probes at start + interval. */
  startMs: number;
  probe?: ProbePort | null;
  onChange: (c: HealthChange) => void;
}

/** Rise/fall health checker for one pool. */
export class HealthChecker {
  readonly config: HealthCheckConfig;
  private readonly targets: readonly HealthTarget[];
  private startMs: number;
  private readonly probePort: ProbePort | null;
  private readonly onChange: (c: HealthChange) => void;
  private readonly up: Uint8Array;
  private readonly okRun: Int32Array;
  private readonly failRun: Int32Array;
  private readonly nextProbe: Float64Array;
  private readonly pendingAt: Float64Array;
  private readonly pendingOk: Uint8Array;
  private readonly inFlightUntil: Float64Array;
  private readonly seq: Int32Array;
  private readonly failing: Uint8Array;
  private readonly lastDetail: string[];
  private lastNow: number;
  /** Probes started (simulated and real). */
  probes = 0;

  /** @throws TypeError on a non-positive interval, negative timeout or rise/fall < 1 */
  constructor(opts: HealthCheckerOptions) {
    const c = opts.config;
    if (!(c.intervalMs > 0)) throw new TypeError(`health interval must be > 0 ms, got ${c.intervalMs}`);
    if (!(c.timeoutMs >= 0)) throw new TypeError(`health timeout must be ≥ 0 ms, got ${c.timeoutMs}`);
    if (!(Number.isInteger(c.rise) && c.rise >= 1 && Number.isInteger(c.fall) && c.fall >= 1)) {
      throw new TypeError(`health rise/fall must be integers ≥ 1, got ${c.rise}/${c.fall}`);
    }
    this.config = c;
    this.targets = opts.targets;
    this.startMs = opts.startMs;
    this.lastNow = opts.startMs;
    this.probePort = opts.probe ?? null;
    this.onChange = opts.onChange;
    const n = opts.targets.length;
    this.up = new Uint8Array(n).fill(1);
    this.okRun = new Int32Array(n);
    this.failRun = new Int32Array(n);
    this.nextProbe = new Float64Array(n).fill(opts.startMs + c.intervalMs);
    this.pendingAt = new Float64Array(n).fill(Infinity);
    this.pendingOk = new Uint8Array(n);
    this.inFlightUntil = new Float64Array(n).fill(Infinity);
    this.seq = new Int32Array(n);
    this.failing = new Uint8Array(n);
    this.lastDetail = new Array<string>(n).fill('');
  }

  /** Restarts the schedule from `startMs` (the board's first `now` when it was not given one):
   * the failure schedule counts from here and the first probes run at startMs + interval. */
  restart(startMs: number): void {
    this.startMs = startMs;
    this.lastNow = startMs;
    this.nextProbe.fill(startMs + this.config.intervalMs);
  }

  /** True when target k (position in `targets`) is up. */
  isUp(k: number): boolean {
    return this.up[k] === 1;
  }

  /** Makes target k's simulated probes fail (true) or follow its schedule again (false). */
  setFailing(k: number, failing: boolean): void {
    this.failing[k] = failing ? 1 : 0;
  }

  /**
   * Runs the probes due at `now` and applies results whose time has come.
   * @returns the next deadline (ms)
   */
  tick(now: number): number {
    if (now > this.lastNow) this.lastNow = now;
    const iv = this.config.intervalMs;
    // After a long gap (a replay's timestamps jumping ahead) only the last few probes matter.
    const keep = iv * (Math.max(this.config.rise, this.config.fall) + 1);
    let next = Infinity;
    for (let k = 0; k < this.targets.length; k++) {
      if (this.pendingAt[k]! <= now) this.settlePending(k);
      if (this.inFlightUntil[k]! <= now) {
        this.inFlightUntil[k] = Infinity;
        this.seq[k]!++;
        this.apply(k, false, now, 'no answer');
      }
      if (this.nextProbe[k]! < now - keep) this.nextProbe[k] = now - keep + ((this.nextProbe[k]! - now) % iv + iv) % iv;
      while (this.nextProbe[k]! <= now) {
        const t = this.nextProbe[k]!;
        this.nextProbe[k] = t + iv;
        this.probeOnce(k, t, now);
      }
      next = Math.min(next, this.nextProbe[k]!, this.pendingAt[k]!, this.inFlightUntil[k]!);
    }
    return next;
  }

  /**
   * Result of a real probe (called from the ProbePort's callback, through the board).
   * @param k target position; `seq` the probe's sequence (stale answers are ignored)
   */
  result(k: number, seq: number, ok: boolean, detail: string, now: number): void {
    if (seq !== this.seq[k] || this.inFlightUntil[k] === Infinity) return;
    this.inFlightUntil[k] = Infinity;
    this.apply(k, ok, Math.max(now, this.lastNow), detail);
  }

  private probeOnce(k: number, t: number, now: number): void {
    const tg = this.targets[k]!;
    this.probes++;
    if (tg.real && this.probePort && tg.port !== undefined) {
      if (this.inFlightUntil[k] !== Infinity) return; // the previous probe is still out
      const s = ++this.seq[k]!;
      this.inFlightUntil[k] = t + this.config.timeoutMs + 1000;
      this.probePort.probe(
        { kind: this.config.kind, host: tg.host, port: tg.port, path: this.config.path ?? '/', timeoutMs: this.config.timeoutMs },
        (r) => this.result(k, s, r.ok, r.detail, this.lastNow),
      );
      return;
    }
    if (this.pendingAt[k] !== Infinity) this.settlePending(k);
    const ok = this.failing[k] === 0 && !inDownWindow(tg.sim, t - this.startMs);
    const at = ok ? t : t + this.config.timeoutMs;
    if (at <= now) this.apply(k, ok, at, ok ? 'ok' : this.failing[k] ? 'injected failure' : 'scheduled outage');
    else {
      this.pendingAt[k] = at;
      this.pendingOk[k] = ok ? 1 : 0;
    }
  }

  private settlePending(k: number): void {
    const at = this.pendingAt[k]!;
    this.pendingAt[k] = Infinity;
    const ok = this.pendingOk[k] === 1;
    this.apply(k, ok, at, ok ? 'ok' : this.failing[k] ? 'injected failure' : 'scheduled outage');
  }

  private apply(k: number, ok: boolean, at: number, detail: string): void {
    this.lastDetail[k] = detail;
    if (ok) {
      this.failRun[k] = 0;
      this.okRun[k]!++;
      if (this.up[k] === 0 && this.okRun[k]! >= this.config.rise) {
        this.up[k] = 1;
        this.onChange({ id: this.targets[k]!.id, up: true, atMs: at, detail: `probe ok ${this.okRun[k]} times` });
      }
    } else {
      this.okRun[k] = 0;
      this.failRun[k]!++;
      if (this.up[k] === 1 && this.failRun[k]! >= this.config.fall) {
        this.up[k] = 0;
        this.onChange({ id: this.targets[k]!.id, up: false, atMs: at, detail: `probe failed ${this.failRun[k]} times: ${detail}` });
      }
    }
  }
}
