/**
 * The ProbePort: how the pure health checker asks the outside world to probe a real server
 * (chassis/io/health-probe.ts implements it with node:net / node:http). The board calls
 * `probe(request, done)`; the adapter calls `done` once, later, with the outcome — an event
 * coming back, never a blocking call. Simulated RS never reach the port.
 */
import type { HealthKind } from '../processor-config.ts';

/** One probe to run. */
export interface ProbeRequest {
  /** tcp: connect and close (TGW's half-handshake probe in spirit); http: GET `path`, 2xx/3xx = up. */
  kind: HealthKind;
  /** IPv4/IPv6 address text of the RS. */
  host: string;
  port: number;
  /** HTTP path, default '/'. */
  path: string;
  /** Give up after this many ms (the probe then fails). */
  timeoutMs: number;
}

/** Outcome of one probe. `detail` is short human text ('connected', 'HTTP 503', 'ECONNREFUSED', 'timeout'). */
export interface ProbeResult {
  ok: boolean;
  detail: string;
}

/** The port the board calls for real probes. */
export interface ProbePort {
  /** Starts a probe; calls `done` exactly once with the outcome (asynchronously). Never throws. */
  probe(req: ProbeRequest, done: (result: ProbeResult) => void): void;
}
