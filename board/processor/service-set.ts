/**
 * The parts of a processor board that follow from its virtual services: the services and their
 * real servers (board-wide RS ids), the effective weights and health bits the schedulers read,
 * the rule table, the pool views and the health checkers. The board builds one at start and a
 * new one on every run-time change of its services (`ProcessorBoard.applyServices`).
 *
 * A run-time change keeps the sessions (they are remapped to the new ids, see `planRemap`). An RS
 * or a service that the change deletes while sessions still use it stays on the board as a
 * *draining* member or service: weight 0 (no new connections), no VIP rule for a draining
 * service, so its sessions end by themselves (as IPVS keeps a deleted destination for the
 * connections that reference it); a later change drops it once it has no session.
 */
import { addressText } from '../packet/flow-tuple.ts';
import type { RealServerConfig, VirtualServiceConfig } from './processor-config.ts';
import { RealServer } from './real-server.ts';
import { createScheduler } from './scheduler/index.ts';
import type { PoolView } from './scheduler/scheduler.ts';
import { HealthChecker, type HealthChange } from './health/health-check.ts';
import type { ProbePort } from './health/probe-port.ts';
import { RuleTable, VirtualService } from './vip.ts';

/** A service as the board installs it: configured, or draining (deleted, sessions left). */
export interface InstalledService extends VirtualServiceConfig {
  draining?: boolean;
  pool: Array<RealServerConfig & { draining?: boolean }>;
}

/** What a board derives from its services. */
export interface ServiceSet {
  services: VirtualService[];
  realServers: RealServer[];
  /** Draining flags by service index and by RS id. */
  drainingService: boolean[];
  drainingRs: Uint8Array;
  weight: Int32Array;
  up: Uint8Array;
  rsPackets: Float64Array;
  /** ipvsadm --stats per RS id: [conns, in packets, out packets, in bytes, out bytes] × RS. */
  rsStats: Float64Array;
  rules: RuleTable;
  pools: PoolView[];
  checkers: HealthChecker[];
  nextDynamicAt: Float64Array;
}

/** What building a set needs from the board. */
export interface ServiceSetDeps {
  /** The session table's per-RS counters (the pools' active/inactive views). */
  active: Int32Array;
  inactive: Int32Array;
  startMs: number;
  probe: ProbePort | null;
  onHealth: (si: number, c: HealthChange) => void;
}

/** The identity of a service across changes: protocol, VIP and port (as ipvsadm names it). */
export function serviceKey(s: Pick<VirtualServiceConfig, 'protocol' | 'vip' | 'port'>): string {
  return `${s.protocol}|${s.vip}|${s.port}`;
}

/**
 * Builds the set for `cfgs`.
 * @throws TypeError / RangeError on an invalid service or RS (message names it), too many
 *   services or RS (65535 each), or more RS than the session table counts (`deps.active.length`)
 */
export function buildServiceSet(cfgs: readonly InstalledService[], deps: ServiceSetDeps): ServiceSet {
  if (cfgs.length > 0xffff) throw new RangeError('at most 65535 virtual services per board');
  const rs: RealServer[] = [];
  const draining: number[] = [];
  const services: VirtualService[] = [];
  cfgs.forEach((sc, si) => {
    const kind = sc.health?.kind ?? 'icmp';
    const members = sc.pool.map((rc) => {
      const r = new RealServer(rs.length, si, rc, kind, (rc.forwarding ?? sc.forwarding ?? 'tunnel') !== 'tunnel');
      if (rc.draining === true || sc.draining === true) draining.push(r.id);
      rs.push(r);
      return r;
    });
    const sched = createScheduler(sc.scheduler, { maglevTableSize: sc.maglevTableSize, flags: sc.schedulerFlags });
    services.push(new VirtualService(si, sc, sched, members));
  });
  if (rs.length > 0xffff || rs.length > deps.active.length) throw new RangeError(`at most ${Math.min(0xffff, deps.active.length)} real servers per board`);
  const weight = Int32Array.from(rs, (r) => r.weight);
  const drainingRs = new Uint8Array(rs.length);
  for (const id of draining) {
    drainingRs[id] = 1;
    weight[id] = 0;
    rs[id]!.weight = 0;
  }
  const up = new Uint8Array(rs.length).fill(1);
  const pools: PoolView[] = services.map((s) => ({
    size: s.members.length,
    ids: Int32Array.from(s.members, (m) => m.id),
    keys: s.members.map((m) => m.key),
    weight,
    up,
    active: deps.active,
    inactive: deps.inactive,
  }));
  const checkers = services.map((s, si) => new HealthChecker({
    config: s.health,
    targets: s.members.map((m) => ({
      id: m.id, name: m.name, real: m.real, host: addressText(m.family, m.address), port: m.port, sim: m.sim,
    })),
    startMs: deps.startMs,
    probe: deps.probe,
    onChange: (c) => deps.onHealth(si, c),
  }));
  services.forEach((s, si) => s.scheduler.rebuild(pools[si]!));
  return {
    services, realServers: rs, drainingService: cfgs.map((c) => c.draining === true), drainingRs,
    weight, up, rsPackets: new Float64Array(rs.length), rsStats: new Float64Array(rs.length * 5),
    rules: new RuleTable(services.filter((_, si) => cfgs[si]!.draining !== true)),
    pools, checkers, nextDynamicAt: new Float64Array(services.length).fill(Infinity),
  };
}

/**
 * The services to install for a change to `wanted`: `wanted` as given, plus whatever of the old
 * set still has sessions (`sessions(rsId) > 0`) but is gone from `wanted` — draining.
 */
export function withDraining(old: ServiceSet, oldCfgs: readonly InstalledService[], wanted: readonly VirtualServiceConfig[], sessions: (rsId: number) => number): InstalledService[] {
  const out: InstalledService[] = wanted.map((s) => ({ ...s, pool: s.pool.map((r) => ({ ...r })) }));
  const byKey = new Map(out.map((s, i) => [serviceKey(s), i]));
  oldCfgs.forEach((sc, si) => {
    const busy = old.services[si]!.members.filter((m) => sessions(m.id) > 0);
    if (busy.length === 0) return;
    const at = byKey.get(serviceKey(sc));
    if (at === undefined) {
      const pool = sc.pool.filter((r) => busy.some((m) => m.name === r.name)).map((r) => ({ ...r, draining: true }));
      byKey.set(serviceKey(sc), out.length);
      out.push({ ...sc, draining: true, pool });
      return;
    }
    const target = out[at]!;
    for (const m of busy) {
      if (target.pool.some((r) => r.name === m.name)) continue;
      const rc = sc.pool.find((r) => r.name === m.name)!;
      target.pool.push({ ...rc, draining: true });
    }
  });
  return out;
}

/**
 * Id maps from the old set to the new one: RS by (service key, RS name), services by key;
 * −1 where the old one has no counterpart (it had no session, or the caller would have kept it).
 */
export function idMaps(old: ServiceSet, oldCfgs: readonly InstalledService[], next: ServiceSet, nextCfgs: readonly InstalledService[]): { rs: Int32Array; services: Int32Array } {
  const svcAt = new Map(nextCfgs.map((s, i) => [serviceKey(s), i]));
  const services = Int32Array.from(oldCfgs, (s) => svcAt.get(serviceKey(s)) ?? -1);
  const rs = new Int32Array(Math.max(1, old.realServers.length)).fill(-1);
  for (const r of old.realServers) {
    const si = services[r.service]!;
    if (si < 0) continue;
    const m = next.services[si]!.members.find((x) => x.name === r.name);
    if (m) rs[r.id] = m.id;
  }
  return { rs, services };
}
