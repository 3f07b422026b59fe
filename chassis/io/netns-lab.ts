/**
 * Carries out a live-lab plan (./lab-plan.ts) with iproute2, and takes a lab down again.
 *
 * `labUp`: one `ip -batch` for the namespaces, the veth pairs and the sysctls (`netns exec …
 * sysctl` lines), then one `ip -n NS -batch` per namespace for its links, addresses and routes —
 * a few processes for the whole lab instead of one per command — then the real servers' HTTP
 * servers (chassis/io/rs-http-server.mjs, detached, one per RS namespace), waited for until they
 * listen. Any failure takes down everything made so far (`labDown` of the prefix) before the
 * error is reported: nothing is left half-made. IPv6 addresses are added `nodad` so they are
 * usable at once.
 *
 * `labDown`: every namespace named `PREFIX-…`: its processes (`ip netns pids`) are stopped
 * (SIGTERM, then SIGKILL after 2 s), then the namespace is deleted, which deletes the veths,
 * TAPs and bridge inside it (none of the lab's interfaces is in the caller's namespace). The
 * lab's state folder (/run/atcasim/net/PREFIX: real-server logs, ready files) goes too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LabPlan } from './lab-plan.ts';

/** A failure of the lab's commands (one line: the command and what ip said). */
export class LabError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabError';
  }
}

const here = dirname(fileURLToPath(import.meta.url));
/** Where the lab keeps its real servers' logs (root only). */
export const LAB_STATE_ROOT = '/run/atcasim/net';

/** The state folder of lab `prefix`. */
export function labStateDir(prefix: string): string {
  return join(LAB_STATE_ROOT, prefix);
}

function ip(args: string[], input?: string): string {
  const r = spawnSync('ip', args, { input, encoding: 'utf8' });
  if (r.error) throw new LabError(`ip ${args.join(' ')}: ${r.error.message} (is iproute2 installed?)`);
  if (r.status !== 0) {
    const msg = `${r.stderr}`.trim().split('\n').filter((l) => l !== '').slice(0, 2).join('; ');
    throw new LabError(`ip ${args.join(' ')}: ${msg || `exit ${r.status}`}`);
  }
  return r.stdout;
}

/** Names of the network namespaces that exist now. */
export function listNamespaces(): string[] {
  return ip(['netns', 'list']).split('\n').map((l) => l.trim().split(/\s+/)[0]!).filter((n) => n !== '' && n !== undefined);
}

/** The lab namespaces of `prefix` that exist now. */
export function labNamespaces(prefix: string): string[] {
  return listNamespaces().filter((n) => n.startsWith(`${prefix}-`));
}

function globalBatch(p: LabPlan): string {
  const L: string[] = [];
  const all = [p.namespaces.client, p.namespaces.router, ...p.namespaces.rs];
  for (const ns of all) L.push(`netns add ${ns}`);
  for (const ns of all) {
    L.push(`netns exec ${ns} sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_ra=0 net.ipv6.conf.default.accept_ra=0`);
  }
  L.push(`link add ${p.client.link} netns ${p.namespaces.router} type veth peer name ${p.client.ifname} netns ${p.namespaces.client}`);
  for (const rs of p.realServers) L.push(`link add ${rs.link} netns ${p.namespaces.router} type veth peer name eth0 netns ${rs.netns}`);
  L.push(`netns exec ${p.namespaces.router} sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 `
    + 'net.ipv4.fib_multipath_hash_policy=1 net.ipv6.fib_multipath_hash_policy=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 '
    + 'net.ipv4.conf.all.ignore_routes_with_linkdown=1 net.ipv6.conf.all.ignore_routes_with_linkdown=1');
  for (const rs of p.realServers) {
    if (rs.loopbackVips.length > 0) L.push(`netns exec ${rs.netns} sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2`);
  }
  return `${L.join('\n')}\n`;
}

function addr(cidr: string, dev: string): string {
  return cidr.includes(':') ? `addr add ${cidr} dev ${dev} nodad` : `addr add ${cidr} dev ${dev}`;
}

function routerBatch(p: LabPlan): string {
  const L: string[] = ['link set lo up'];
  const br = p.bridge.ifname;
  L.push(`link add ${br} type bridge stp_state 0 forward_delay 0 mcast_snooping 0`);
  L.push(`link set ${br} mtu ${p.bridge.mtu} up`);
  for (const port of p.ports) {
    L.push(`tuntap add mode tap name ${port.ifname}`);
    L.push(`link set ${port.ifname} mtu ${port.mtu}`);
    if (port.side === 'back') L.push(`link set ${port.ifname} master ${br}`);
    L.push(`link set ${port.ifname} up`);
  }
  for (const rs of p.realServers) {
    L.push(`link set ${rs.link} mtu ${p.bridge.mtu} master ${br}`);
    L.push(`link set ${rs.link} up`);
  }
  L.push(`link set ${p.client.link} up`);
  for (const r of p.router) for (const a of r.addresses) L.push(addr(a, r.ifname));
  for (const v of p.vipRoutes) {
    L.push(`route add ${v.prefix} ${v.via.map((h) => `nexthop via ${h.gateway} dev ${h.dev} weight 1`).join(' ')}`);
  }
  return `${L.join('\n')}\n`;
}

function clientBatch(p: LabPlan): string {
  const c = p.client;
  return [
    'link set lo up', `link set ${c.ifname} up`, addr(c.address, c.ifname), addr(c.address6, c.ifname),
    `route add default via ${c.gateway}`, `route add ::/0 via ${c.gateway6}`, '',
  ].join('\n');
}

function rsBatch(p: LabPlan, rs: LabPlan['realServers'][number]): string {
  const L = ['link set lo up', `link set eth0 mtu ${p.bridge.mtu} up`];
  for (const a of rs.addresses) L.push(addr(a, 'eth0'));
  for (const v of rs.loopbackVips) L.push(addr(v, 'lo'));
  const v4 = rs.addresses.some((a) => !a.includes(':'));
  const v6 = rs.addresses.some((a) => a.includes(':'));
  const gw = rs.route === 'shelf' ? p.backGateway : { address: p.routerBack.address.split('/')[0]!, address6: p.routerBack.address6.split('/')[0]! };
  if (v4) L.push(`route add default via ${gw.address}`);
  if (v6) L.push(`route add ::/0 via ${gw.address6}`);
  return `${L.join('\n')}\n`;
}

/** Stops the processes inside `ns` (SIGTERM, SIGKILL after `graceMs`). */
function stopProcesses(ns: string, graceMs: number): void {
  const pids = (): number[] => {
    try {
      return ip(['netns', 'pids', ns]).split('\n').map((l) => Number(l.trim())).filter((n) => Number.isInteger(n) && n > 0);
    } catch {
      return [];
    }
  };
  const first = pids();
  for (const pid of first) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch { /* already gone */ }
  }
  if (first.length === 0) return;
  const until = Date.now() + graceMs;
  while (Date.now() < until && pids().length > 0) spawnSync('sleep', ['0.05']);
  for (const pid of pids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* already gone */ }
  }
}

/**
 * Removes every namespace of lab `prefix` (and what is inside) and its state folder.
 * @returns the namespaces removed
 * @throws LabError when a namespace cannot be deleted
 */
export function labDown(prefix: string): string[] {
  const nss = labNamespaces(prefix);
  for (const ns of nss) stopProcesses(ns, 2000);
  if (nss.length > 0) ip(['-batch', '-'], `${nss.map((n) => `netns del ${n}`).join('\n')}\n`);
  rmSync(labStateDir(prefix), { recursive: true, force: true });
  return nss;
}

/** What `labUp` reports: the real servers' log files by RS name. */
export interface LabUpResult {
  logs: Record<string, string>;
}

function startServers(p: LabPlan, dir: string, timeoutMs: number): Record<string, string> {
  const script = join(here, 'rs-http-server.mjs');
  const logs: Record<string, string> = {};
  for (const rs of p.realServers) {
    const log = join(dir, `${rs.name}.log`);
    const ready = join(dir, `${rs.name}.ready`);
    logs[rs.name] = log;
    const child = spawn('ip', ['netns', 'exec', rs.netns, process.execPath, script, '--name', rs.name, '--port', rs.ports.join(','), '--log', log, '--ready', ready], {
      detached: true, stdio: 'ignore',
    });
    child.unref();
  }
  const until = Date.now() + timeoutMs;
  for (;;) {
    const missing = p.realServers.filter((rs) => !existsSync(join(dir, `${rs.name}.ready`)));
    if (missing.length === 0) return logs;
    if (Date.now() > until) throw new LabError(`real server ${missing[0]!.name}: its HTTP server did not start within ${timeoutMs} ms`);
    spawnSync('sleep', ['0.05']);
  }
}

/**
 * Waits until the back-side bridge has carrier (its ports reach the forwarding state a moment
 * after they are added) and so the kernel has installed its IPv6 prefix route; before that the
 * router cannot reach the real servers over IPv6.
 */
function waitForBridge(p: LabPlan, timeoutMs: number): void {
  const until = Date.now() + timeoutMs;
  const prefix6 = p.routerBack.address6;
  for (;;) {
    const link = ip(['-n', p.namespaces.router, 'link', 'show', 'dev', p.bridge.ifname]);
    const routes = ip(['-n', p.namespaces.router, '-6', 'route', 'show', 'dev', p.bridge.ifname]);
    if (link.includes('LOWER_UP') && routes.split('\n').some((l) => l !== '' && !l.startsWith('fe80'))) return;
    if (Date.now() > until) throw new LabError(`bridge ${p.bridge.ifname}: no carrier and no IPv6 route for ${prefix6} within ${timeoutMs} ms`);
    spawnSync('sleep', ['0.05']);
  }
}

/**
 * Makes lab `p`.
 * @throws LabError (one line) when a namespace of the lab exists already or a command fails —
 *   after removing whatever was made
 */
export function labUp(p: LabPlan, serverTimeoutMs = 15_000): LabUpResult {
  const existing = listNamespaces();
  const all = [p.namespaces.client, p.namespaces.router, ...p.namespaces.rs];
  const clash = all.find((n) => existing.includes(n)) ?? existing.find((n) => n.startsWith(`${p.prefix}-`));
  if (clash !== undefined) throw new LabError(`network namespace ${clash} exists already (another lab with prefix ${p.prefix}? remove it with: atcasim net down --prefix ${p.prefix})`);
  const dir = labStateDir(p.prefix);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    ip(['-batch', '-'], globalBatch(p));
    ip(['-n', p.namespaces.router, '-batch', '-'], routerBatch(p));
    ip(['-n', p.namespaces.client, '-batch', '-'], clientBatch(p));
    for (const rs of p.realServers) ip(['-n', rs.netns, '-batch', '-'], rsBatch(p, rs));
    waitForBridge(p, 5000);
    return { logs: startServers(p, dir, serverTimeoutMs) };
  } catch (err) {
    try {
      labDown(p.prefix);
    } catch { /* report the first failure */ }
    throw err instanceof LabError ? err : new LabError((err as Error).message);
  }
}

/** Reads a real server's log (one JSON object per request). */
export function readRsLog(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}
