/**
 * Real servers (RS) of the processor board: identity, address, configured weight, and the
 * simulated server model used when the RS is not a real process (the default).
 *
 * Simulated model (deterministic, driven by the connections the board has pinned to the RS):
 *   util  = (active + inactive / 4) / capacity                  (inactive connections cost less)
 *   CPU   = min(1, cpu0 + (1 − cpu0) · min(1, util))
 *   MEM   = min(1, mem0 + (1 − mem0) · min(1, util) / 2)        (memory grows at half the rate)
 *   Q     = min(1, q0 + max(0, util − 1))                       (the queue builds past capacity)
 * with cpu0/mem0/q0 the configured baselines (default 0.2 / 0.3 / 0) and capacity default 10,000.
 * These feed the load score of the `dynamic` scheduler (scheduler/load-score.ts). A failure
 * schedule (`sim.down`: intervals in ms since the board started) makes probes fail.
 */
import type { HealthKind, RealServerConfig } from './processor-config.ts';
import { parseEndpoint } from './ip-address.ts';

/** Simulated RS parameters with defaults applied. */
export interface SimModel {
  capacity: number;
  cpu: number;
  mem: number;
  queue: number;
  down: ReadonlyArray<{ from: number; to: number }>;
}

/** Utilisations in 0..1 reported by a (simulated) RS. */
export interface LoadSample {
  cpu: number;
  mem: number;
  queue: number;
}

/** One RS of one service's pool (an RS listed in two services is two RealServers, as in IPVS). */
export class RealServer {
  /** Board-wide RS index (services in configuration order, pool members in order). */
  readonly id: number;
  /** Index of the service whose pool holds this RS. */
  readonly service: number;
  readonly name: string;
  /** Stable identity used by hashing schedulers (maglev): `name@address`, independent of list order. */
  readonly key: string;
  readonly family: 4 | 6;
  /** 16-byte address (IPv4 in bytes 0..3): the outer destination of tunnelled packets. */
  readonly address: Uint8Array;
  /** Port written in the address (`127.0.0.1:8080`) or `port`; a port makes tcp/http probes real. */
  readonly port: number | undefined;
  /** True when health checks probe this RS for real: a port (written in the address or given as
   * `port`) and health kind tcp or http, or any kind for a live member (`dr`/`nat`/`fullnat`,
   * probed over the board's back link). */
  readonly real: boolean;
  /** Configured weight 0..65535 (0 = drain). */
  weight: number;
  readonly sim: SimModel;
  /** Synthetic MAC of the RS (locally administered, 02:a7:ca:xx:xx:xx from the id). */
  readonly mac: Uint8Array;

  /**
   * @throws TypeError on a bad address, weight or simulation parameter (message names the RS)
   */
  constructor(id: number, service: number, cfg: RealServerConfig, kind: HealthKind, live = false) {
    const where = `real server '${cfg.name}'`;
    if (!cfg.name) throw new TypeError('real server without a name');
    let ep;
    try {
      ep = parseEndpoint(cfg.address);
    } catch (err) {
      throw new TypeError(`${where}: ${(err as Error).message}`);
    }
    const w = cfg.weight ?? 1;
    if (!Number.isInteger(w) || w < 0 || w > 65535) throw new TypeError(`${where}: weight must be an integer 0..65535, got ${w}`);
    this.id = id;
    this.service = service;
    this.name = cfg.name;
    this.family = ep.family;
    this.address = ep.bytes;
    this.port = ep.port ?? cfg.port;
    if (this.port !== undefined && !(Number.isInteger(this.port) && this.port >= 1 && this.port <= 65535)) {
      throw new TypeError(`${where}: port must be 1..65535, got ${this.port}`);
    }
    this.key = `${cfg.name}@${cfg.address}`;
    this.real = this.port !== undefined && (live || kind === 'tcp' || kind === 'http');
    this.weight = w;
    const s = cfg.sim ?? {};
    const unit = (v: number | undefined, d: number, f: string): number => {
      const x = v ?? d;
      if (!(x >= 0 && x <= 1)) throw new TypeError(`${where}: sim.${f} must be in 0..1, got ${x}`);
      return x;
    };
    const capacity = s.capacity ?? 10_000;
    if (!(capacity > 0)) throw new TypeError(`${where}: sim.capacity must be > 0`);
    for (const iv of s.down ?? []) {
      if (!(iv.to > iv.from)) throw new TypeError(`${where}: sim.down interval must have to > from`);
    }
    this.sim = {
      capacity,
      cpu: unit(s.cpu, 0.2, 'cpu'),
      mem: unit(s.mem, 0.3, 'mem'),
      queue: unit(s.queue, 0, 'queue'),
      down: (s.down ?? []).map((iv) => ({ from: iv.from, to: iv.to })),
    };
    this.mac = Uint8Array.of(0x02, 0xa7, 0xca, (id >> 16) & 0xff, (id >> 8) & 0xff, id & 0xff);
  }
}

/** Simulated utilisations of an RS holding `active`/`inactive` connections (see file header). */
export function simulatedLoad(sim: SimModel, active: number, inactive: number): LoadSample {
  const util = (active + inactive / 4) / sim.capacity;
  const u = Math.min(1, util);
  return {
    cpu: Math.min(1, sim.cpu + (1 - sim.cpu) * u),
    mem: Math.min(1, sim.mem + ((1 - sim.mem) * u) / 2),
    queue: Math.min(1, sim.queue + Math.max(0, util - 1)),
  };
}

/** True when the failure schedule says the simulated RS is down `sinceStartMs` after start. */
export function inDownWindow(sim: SimModel, sinceStartMs: number): boolean {
  for (const iv of sim.down) if (sinceStartMs >= iv.from && sinceStartMs < iv.to) return true;
  return false;
}
