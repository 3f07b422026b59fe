/**
 * `atcasim lb` output in ipvsadm(8)'s layouts (pure): `-L -n` (with `--stats`, `--rate`, `-c`)
 * and `--save`'s rule lines, from the shelf's `lb.list` / `lb.conns` answers
 * (chassis/runtime/lb-ops.ts). Column widths are ipvsadm's printf formats. Forwarding names:
 * Route (dr), Tunnel (tunnel), Masq (nat), FullNat (fullnat, as DPVS's ipvsadm prints it).
 * Services ipvsadm cannot name (protocol `any`, a VIP prefix) are listed with protocol `ANY` /
 * their prefix and saved as a comment line only (-R cannot restore them).
 */
import type { SessionListing } from '../dataplane/types.ts';
import type { LbServer, LbService } from '../runtime/lb-ops.ts';

const FWD: Record<string, string> = { dr: 'Route', tunnel: 'Tunnel', nat: 'Masq', fullnat: 'FullNat' };
const FWD_OPT: Record<string, string> = { dr: '-g', tunnel: '-i', nat: '-m', fullnat: '--fullnat' };

function endpoint(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** An IPv4 netmask as dotted quad from its prefix length. */
function dotted(bits: number): string {
  const w = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return [w >>> 24, (w >>> 16) & 255, (w >>> 8) & 255, w & 255].join('.');
}

function expressible(s: LbService): boolean {
  return (s.protocol === 'tcp' || s.protocol === 'udp') && !s.vip.includes('/') && s.vip !== '*';
}

function serviceLine(s: LbService): string {
  const proto = s.protocol === 'any' ? 'ANY' : s.protocol.toUpperCase();
  let line = `${proto}  ${endpoint(s.vip, s.port)} ${s.scheduler}`;
  const flags = s.scheduler === 'sh' ? s.schedulerFlags : [];
  if (flags.length > 0) line += ` (${flags.join(',')})`;
  if (s.persistenceMs > 0) {
    line += ` persistent ${Math.round(s.persistenceMs / 1000)}`;
    if (s.persistenceNetmask !== null) line += ` mask ${s.vip.includes(':') ? s.persistenceNetmask : dotted(s.persistenceNetmask)}`;
  }
  if (s.clientAddress !== 'none') line += ` client-address ${s.clientAddress}`;
  return line;
}

/** `ipvsadm -L -n`. @param size the header's table size (the boards' session capacity) */
export function formatList(services: readonly LbService[], size: number): string {
  const out = [`IP Virtual Server version 1.2.1 (size=${size})`, 'Prot LocalAddress:Port Scheduler Flags', '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn'];
  for (const s of services) {
    out.push(serviceLine(s));
    for (const r of s.servers) {
      out.push(`  -> ${endpoint(r.address, r.port).padEnd(28)} ${(FWD[r.forwarding] ?? r.forwarding).padEnd(7)} ${String(r.weight).padEnd(6)} ${String(r.active).padEnd(10)} ${r.inactive}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** ipvsadm's compact numbers in --stats/--rate: K, M, G above 10^5 etc. (as print_largenum). */
export function largeNum(n: number): string {
  const v = Math.round(n);
  if (v < 100_000_000) return String(v);
  if (v < 100_000_000_000) return `${Math.round(v / 1000)}K`;
  if (v < 100_000_000_000_000) return `${Math.round(v / 1_000_000)}M`;
  return `${Math.round(v / 1_000_000_000)}G`;
}

function figures(cols: readonly number[]): string {
  return cols.map((c) => largeNum(c).padStart(8)).join(' ');
}

function totals(s: LbService): number[] {
  const t = [0, 0, 0, 0, 0];
  for (const r of s.servers) [r.conns, r.inPackets, r.outPackets, r.inBytes, r.outBytes].forEach((v, i) => (t[i]! += v));
  return t;
}

function serverFigures(r: LbServer): number[] {
  return [r.conns, r.inPackets, r.outPackets, r.inBytes, r.outBytes];
}

/** `ipvsadm -L -n --stats`, or `--rate` when `perSecond` gives the figures per second. */
export function formatStats(services: readonly LbService[], size: number, rate?: (key: string, cols: number[]) => number[]): string {
  const head = rate === undefined
    ? 'Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes'
    : 'Prot LocalAddress:Port                 CPS    InPPS   OutPPS    InBPS   OutBPS';
  const out = [`IP Virtual Server version 1.2.1 (size=${size})`, head, '  -> RemoteAddress:Port'];
  for (const s of services) {
    const proto = s.protocol === 'any' ? 'ANY' : s.protocol.toUpperCase();
    const key = `${proto}  ${endpoint(s.vip, s.port)}`;
    const t = rate ? rate(key, totals(s)) : totals(s);
    out.push(`${key.padEnd(33)} ${figures(t)}`);
    for (const r of s.servers) {
      const k = `${key}|${endpoint(r.address, r.port)}`;
      const f = rate ? rate(k, serverFigures(r)) : serverFigures(r);
      out.push(`  -> ${endpoint(r.address, r.port).padEnd(28)} ${figures(f)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** `ipvsadm -L -n -c`: one line per session (expire = time left before the idle timeout is not
 * tracked per entry here; the column shows the idle time instead, mm:ss). */
export function formatConns(conns: ReadonlyArray<SessionListing & { slot: number }>): string {
  const out = ['IPVS connection entries', 'pro expire state       source             virtual            destination'];
  for (const c of conns) {
    const idle = Math.floor(c.idleMs / 1000);
    const mmss = `${String(Math.floor(idle / 60)).padStart(2, '0')}:${String(idle % 60).padStart(2, '0')}`;
    out.push(`${c.protocol.toUpperCase().padEnd(3)} ${mmss}  ${c.state.padEnd(11)} ${c.client.padEnd(18)} ${c.server.padEnd(18)} ${c.rs}`);
  }
  return `${out.join('\n')}\n`;
}

function healthOptions(s: LbService): string {
  const h = s.health;
  let o = ` --health ${h.kind} --health-interval ${h.intervalMs}ms --health-timeout ${h.timeoutMs}ms --health-rise ${h.rise} --health-fall ${h.fall}`;
  if (h.path !== undefined) o += ` --health-path ${h.path}`;
  return o;
}

/** `ipvsadm -S -n`: the rules as -A/-a lines (atcasim-only settings as their long options). */
export function formatSave(services: readonly LbService[]): string {
  const out: string[] = [];
  for (const s of services) {
    if (!expressible(s)) {
      out.push(`# ${s.name}: ${s.protocol} ${s.vip}:${s.port} cannot be written in ipvsadm's format (kept in the shelf YAML)`);
      continue;
    }
    const svc = `${s.protocol === 'tcp' ? '-t' : '-u'} ${endpoint(s.vip, s.port)}`;
    let a = `-A ${svc} -s ${s.scheduler}`;
    if (s.scheduler === 'sh') a += ` -b ${s.schedulerFlags.length > 0 ? s.schedulerFlags.join(',') : 'none'}`;
    if (s.persistenceMs > 0) a += ` -p ${Math.round(s.persistenceMs / 1000)}`;
    if (s.persistenceNetmask !== null) a += ` -M ${s.vip.includes(':') ? s.persistenceNetmask : dotted(s.persistenceNetmask)}`;
    if (s.forwarding !== 'tunnel') a += ` --forwarding ${s.forwarding}`;
    if (s.clientAddress !== 'none') a += ` --client-address ${s.clientAddress}`;
    out.push(a + healthOptions(s));
    for (const r of s.servers) out.push(`-a ${svc} -r ${endpoint(r.address, r.port)} ${FWD_OPT[r.forwarding] ?? '-i'} -w ${r.weight}`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}
