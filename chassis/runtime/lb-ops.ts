/**
 * The control-socket operations of `atcasim lb` (chassis/runtime/control-ops.ts for the protocol):
 *
 *   lb.apply  {"edits":[ServiceEdit…]}   → {"services":N}   one change made of the edits in order
 *                                          (chassis/model/service-table.ts), all or nothing; a
 *                                          malformed edit is refused naming its field
 *                                          (`lb.apply: edits[0].server: …`), a refused one of
 *                                          several as `edit K: <libipvs's words>` (K from 1)
 *   lb.list   {"slot"?:N}                → {size, services: LbService[]}: the boards' session
 *                                          capacity and the services in force with each RS's
 *                                          connection counters and --stats figures, summed over
 *                                          the processor boards (or those of board `slot`)
 *   lb.conns  {"slot"?:N,"max"?:N}        → the live sessions (ipvsadm -c), every board or one
 *   lb.zero   {"service"?:NAME}          → zeroes the --stats counters (ipvsadm -Z) of that
 *                                          service (a name or VIP, a string; "No such service"
 *                                          otherwise) or, without it, of every service
 *
 * A change is checked by the shelf YAML loader itself (the services written into the stored
 * shelf YAML and read back: the same refusals as `config check`, `file:line:column` inside the
 * message), then applied to every processor board at once (their standby sessions included,
 * DataPlane.applyServices) and stored in the database as the shelf in force, so a restart and
 * `atcasim config export` see it. The rule for `start --config FILE` stays the one of
 * docs/shelf.md: the given file replaces the stored shelf, run-time service changes included.
 */
import { ConfigError } from '../../board/common/errors.ts';
import type { VirtualServiceConfig } from '../../board/processor/processor-config.ts';
import { withServices } from '../config/services-yaml.ts';
import { printable } from '../config/yaml-reader.ts';
import { parseShelfConfig } from '../config/shelf-config.ts';
import type { ShelfConfig } from '../config/types.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import { checkServiceEdits, ServiceEditShapeError } from '../model/service-edit-check.ts';
import { applyServiceEdits, serverPort, ServiceEditError, type ServiceEdit } from '../model/service-table.ts';
import type { Store } from '../persistence/store.ts';
import type { ControlOps } from './control-ops.ts';

/** One RS in an `lb.list` answer. */
export interface LbServer {
  address: string;
  port: number;
  forwarding: string;
  weight: number;
  active: number;
  inactive: number;
  conns: number;
  inPackets: number;
  outPackets: number;
  inBytes: number;
  outBytes: number;
  /** Processor boards (of those asked) that hold this RS in their service table. */
  boards: number;
}

/** One service in an `lb.list` answer (its settings as configured, its RS). */
export interface LbService {
  name: string;
  protocol: string;
  vip: string;
  port: number;
  scheduler: string;
  schedulerFlags: string[];
  persistenceMs: number;
  persistenceNetmask: number | null;
  forwarding: string;
  clientAddress: string;
  health: VirtualServiceConfig['health'];
  servers: LbServer[];
}

/** What the ops need of the running shelf. */
export interface LbHost {
  config: ShelfConfig;
  dataPlane: DataPlane;
  store: Store;
  /** Wall-clock ms (the stored shelf's `stored_at`). */
  nowMs: () => number;
}

function edits(args: Readonly<Record<string, unknown>>): ServiceEdit[] {
  if (!Array.isArray(args.edits)) throw new TypeError('lb.apply: args.edits must be a list of edits');
  try {
    return checkServiceEdits(args.edits);
  } catch (e) {
    if (e instanceof ServiceEditShapeError) throw new TypeError(`lb.apply: ${e.message}`);
    throw e;
  }
}

function applied(services: readonly VirtualServiceConfig[], list: readonly ServiceEdit[]): VirtualServiceConfig[] {
  try {
    return applyServiceEdits(services, list);
  } catch (e) {
    if (e instanceof ServiceEditError && list.length > 1) throw new ServiceEditError(`edit ${e.index + 1}: ${e.message}`, e.index);
    throw e;
  }
}

/**
 * Registers the lb ops on `ops`.
 * @throws TypeError when a name is already registered
 */
export function registerLbOps(ops: ControlOps, host: LbHost): void {
  const services = host.config.dataplane.processor.services;
  ops.register('lb.apply', (args) => {
    const next = applied(services, edits(args));
    const stored = host.store.getConfig();
    if (stored === undefined) throw new Error('lb.apply: the database holds no shelf');
    const yaml = withServices(stored.yaml, next);
    let checked: VirtualServiceConfig[];
    try {
      checked = parseShelfConfig(yaml, 'the changed shelf').dataplane.processor.services;
    } catch (e) {
      if (e instanceof ConfigError) throw new TypeError(e.message);
      throw e;
    }
    host.dataPlane.applyServices(checked);
    services.splice(0, services.length, ...checked);
    host.store.putConfig({ yaml, source: stored.source.endsWith(' + atcasim lb') ? stored.source : `${stored.source} + atcasim lb`, storedAt: host.nowMs() });
    return { services: services.length };
  });
  ops.register('lb.list', (args) => ({ size: host.dataPlane.sessionCapacity, services: list(host, services, slotArg(args)) }));
  ops.register('lb.conns', (args) => {
    const max = typeof args.max === 'number' ? args.max : 10_000;
    const slots = slotArg(args) ?? host.dataPlane.boardSlots;
    return slots.flatMap((s) => host.dataPlane.sessions(s, max).map((c) => ({ slot: s, ...c })));
  });
  ops.register('lb.zero', (args) => {
    if (args.service !== undefined && typeof args.service !== 'string') throw new TypeError('lb.zero: args.service must be a service name (a string)');
    const svc = args.service as string | undefined;
    if (svc !== undefined && !services.some((s) => s.name === svc || s.vip === svc)) throw new TypeError(`lb.zero: No such service "${printable(svc)}"`);
    for (const s of host.dataPlane.boardSlots) host.dataPlane.board(s).zeroStats(svc);
    return null;
  });
}

function slotArg(args: Readonly<Record<string, unknown>>): number[] | undefined {
  if (args.slot === undefined) return undefined;
  if (typeof args.slot !== 'number' || !Number.isInteger(args.slot)) throw new TypeError('lb: args.slot must be a slot number');
  return [args.slot];
}

function list(host: LbHost, services: readonly VirtualServiceConfig[], slots?: number[]): LbService[] {
  const dp = host.dataPlane;
  const boards = (slots ?? dp.boardSlots).map((s) => dp.board(s).stats());
  return services.map((s) => ({
    name: s.name, protocol: s.protocol, vip: s.vip, port: s.port, scheduler: s.scheduler,
    schedulerFlags: s.schedulerFlags ?? (s.scheduler === 'sh' ? ['sh-fallback'] : []),
    persistenceMs: s.persistenceMs, persistenceNetmask: s.persistenceNetmask ?? null,
    forwarding: s.forwarding ?? 'tunnel', clientAddress: s.clientAddress ?? 'none', health: s.health,
    servers: s.pool.map((r) => {
      const out: LbServer = {
        address: r.address, port: serverPort(s, r), forwarding: r.forwarding ?? s.forwarding ?? 'tunnel', weight: r.weight,
        active: 0, inactive: 0, conns: 0, inPackets: 0, outPackets: 0, inBytes: 0, outBytes: 0, boards: 0,
      };
      for (const b of boards) {
        const bs = b.services.find((x) => x.name === s.name);
        const st = bs?.rs.find((x) => x.name === r.name);
        if (!st) continue;
        out.boards++;
        out.active += st.active;
        out.inactive += st.inactive;
        out.conns += st.conns;
        out.inPackets += st.inPackets;
        out.outPackets += st.outPackets;
        out.inBytes += st.inBytes;
        out.outBytes += st.outBytes;
      }
      return out;
    }),
  }));
}
