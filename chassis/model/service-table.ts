/**
 * The shelf's virtual-service table as an operator edits it at run time (`atcasim lb`, in
 * ipvsadm(8)'s terms): add, edit and delete a virtual service (-A/-E/-D) and a real server
 * (-a/-e/-d), or clear them all (-C). Pure: a list of services in, a new list out (the input is
 * never changed); the running shelf applies the result to every processor board and stores it
 * (chassis/runtime/lb-ops.ts).
 *
 * Identities, as ipvsadm's: a service is (protocol, VIP, port) — `-t 10.0.0.1:80` is TCP — and a
 * real server is its address and port within the service (its port defaults to the service's).
 * Services and RS made here are named after them (`tcp-10.0.0.1-80`, `10.1.0.1:80`); services of
 * the shelf YAML keep their names. Refusals use libipvs's words (ipvs_strerror): "Service already
 * exists", "No such service", "Service not defined", "Destination already exists", "No such
 * destination".
 *
 * Defaults of a new service, as ipvsadm's: scheduler `wlc`, no persistence (`-p` alone is 300 s,
 * the CLI's business), netmask the whole address; and the shelf's own: encapsulation `gre`, ICMP
 * health checks every 5 s, alarm below 0.5. A service on port 0 (every port) must be persistent,
 * as ipvsadm demands: "Zero port specified for non-persistent service". A new RS has weight 1 and, without a forwarding
 * option, forwards as its service does (ipvsadm would default to -g).
 */
import { DEFAULT_HEALTH, type HealthCheckConfig, type RealServerConfig, type SchedulerFlag, type SchedulerName, type VirtualServiceConfig } from '../../board/processor/processor-config.ts';
import type { ClientAddressMode } from '../../board/processor/forwarding/client-address.ts';
import type { ForwardingMode } from '../../board/processor/forwarding/translation.ts';
import { parseAddress } from '../../board/processor/ip-address.ts';

/** A service as ipvsadm names it. */
export interface ServiceRef {
  protocol: 'tcp' | 'udp' | 'sctp';
  vip: string;
  port: number;
}

/** The settings -A sets and -E changes (absent = keep, or the default for -A). */
export interface ServiceSettings {
  scheduler?: SchedulerName;
  schedulerFlags?: SchedulerFlag[];
  /** 0 = off. */
  persistenceMs?: number;
  persistenceNetmask?: number;
  forwarding?: ForwardingMode;
  clientAddress?: ClientAddressMode;
  health?: Partial<HealthCheckConfig>;
}

/** A real server as -a/-e/-d name it, with what -a sets and -e changes. */
export interface ServerSettings {
  address: string;
  /** Default: the service's port. */
  port?: number;
  weight?: number;
  forwarding?: ForwardingMode;
}

/** One edit. */
export type ServiceEdit =
  | { op: 'add-service'; service: ServiceRef; settings?: ServiceSettings }
  | { op: 'edit-service'; service: ServiceRef; settings: ServiceSettings }
  | { op: 'delete-service'; service: ServiceRef }
  | { op: 'add-server'; service: ServiceRef; server: ServerSettings }
  | { op: 'edit-server'; service: ServiceRef; server: ServerSettings }
  | { op: 'delete-server'; service: ServiceRef; server: ServerSettings }
  | { op: 'clear' };

/** A refused edit; the message is ipvsadm's, `index` the refused edit's place in the list (0-based). */
export class ServiceEditError extends Error {
  constructor(
    message: string,
    readonly index = 0,
  ) {
    super(message);
    this.name = 'ServiceEditError';
  }
}

/** Canonical text of an address (IPv6 compressed the way parseAddress reads it back). */
function canon(address: string): string {
  try {
    const a = parseAddress(address);
    if (a.family === 4) return Array.from(a.bytes.subarray(0, 4)).join('.');
    const words: string[] = [];
    for (let i = 0; i < 16; i += 2) words.push(((a.bytes[i]! << 8) | a.bytes[i + 1]!).toString(16));
    return words.join(':');
  } catch {
    return address.trim().toLowerCase();
  }
}

/** True when service `s` is the one `ref` names. */
export function isService(s: VirtualServiceConfig, ref: ServiceRef): boolean {
  return s.protocol === ref.protocol && s.port === ref.port && canon(s.vip) === canon(ref.vip);
}

/** The RS port of `r` in service `s` (its own, or the service's, as IPVS). */
export function serverPort(s: VirtualServiceConfig, r: RealServerConfig): number {
  return r.port ?? s.port;
}

function isServer(s: VirtualServiceConfig, r: RealServerConfig, want: ServerSettings): boolean {
  return canon(r.address) === canon(want.address) && serverPort(s, r) === (want.port ?? s.port);
}

/** `ADDR:PORT`, `[v6]:PORT`. */
export function endpointText(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function settle(s: VirtualServiceConfig, set: ServiceSettings): void {
  if (set.scheduler !== undefined) s.scheduler = set.scheduler;
  if (set.schedulerFlags !== undefined) s.schedulerFlags = [...set.schedulerFlags];
  if (set.persistenceMs !== undefined) s.persistenceMs = set.persistenceMs;
  if (set.persistenceNetmask !== undefined) s.persistenceNetmask = set.persistenceNetmask;
  if (set.forwarding !== undefined) s.forwarding = set.forwarding;
  if (set.clientAddress !== undefined) s.clientAddress = set.clientAddress;
  if (set.health !== undefined) s.health = { ...s.health, ...set.health };
}

function copy(s: VirtualServiceConfig): VirtualServiceConfig {
  return { ...s, pool: s.pool.map((r) => ({ ...r })), health: { ...s.health }, ...(s.schedulerFlags ? { schedulerFlags: [...s.schedulerFlags] } : {}) };
}

/**
 * Applies `edits` in order to `services`.
 * @returns the new list (fresh objects; `services` unchanged)
 * @throws ServiceEditError with ipvsadm's words and the edit's index when an edit does not fit
 *   (nothing is returned)
 */
export function applyServiceEdits(services: readonly VirtualServiceConfig[], edits: readonly ServiceEdit[]): VirtualServiceConfig[] {
  let out = services.map(copy);
  edits.forEach((e, i) => {
    try {
      out = applyOne(out, e);
    } catch (err) {
      if (err instanceof ServiceEditError) throw new ServiceEditError(err.message, i);
      throw err;
    }
  });
  return out;
}

function checkZeroPort(s: VirtualServiceConfig): void {
  if (s.port === 0 && s.persistenceMs <= 0) throw new ServiceEditError('Zero port specified for non-persistent service');
}

/** One edit on `out` (changed in place, or a new list for -C). */
function applyOne(out: VirtualServiceConfig[], e: ServiceEdit): VirtualServiceConfig[] {
  if (e.op === 'clear') return [];
  const at = out.findIndex((s) => isService(s, e.service));
  if (e.op === 'add-service') {
    if (at >= 0) throw new ServiceEditError('Service already exists');
    const s: VirtualServiceConfig = {
      name: `${e.service.protocol}-${e.service.vip}-${e.service.port}`, vip: e.service.vip, port: e.service.port,
      protocol: e.service.protocol, scheduler: 'wlc', persistenceMs: 0, encapsulation: 'gre', pool: [],
      health: { ...DEFAULT_HEALTH }, alarmBelow: 0.5,
    };
    settle(s, e.settings ?? {});
    checkZeroPort(s);
    out.push(s);
    return out;
  }
  if (at < 0) throw new ServiceEditError(e.op === 'edit-service' || e.op === 'delete-service' ? 'No such service' : 'Service not defined');
  const svc = out[at]!;
  switch (e.op) {
    case 'edit-service':
      settle(svc, e.settings);
      checkZeroPort(svc);
      break;
    case 'delete-service':
      out.splice(at, 1);
      break;
    case 'add-server': {
      if (svc.pool.some((r) => isServer(svc, r, e.server))) throw new ServiceEditError('Destination already exists');
      const port = e.server.port ?? svc.port;
      const r: RealServerConfig = { name: endpointText(canonText(e.server.address), port), address: e.server.address, weight: e.server.weight ?? 1 };
      if (e.server.port !== undefined) r.port = e.server.port;
      if (e.server.forwarding !== undefined) r.forwarding = e.server.forwarding;
      svc.pool.push(r);
      break;
    }
    case 'edit-server': {
      const r = svc.pool.find((x) => isServer(svc, x, e.server));
      if (!r) throw new ServiceEditError('No such destination');
      if (e.server.weight !== undefined) r.weight = e.server.weight;
      if (e.server.forwarding !== undefined) r.forwarding = e.server.forwarding;
      break;
    }
    case 'delete-server': {
      const i = svc.pool.findIndex((x) => isServer(svc, x, e.server));
      if (i < 0) throw new ServiceEditError('No such destination');
      svc.pool.splice(i, 1);
      break;
    }
  }
  return out;
}

function canonText(address: string): string {
  return address.includes(':') ? address.toLowerCase() : canon(address);
}
