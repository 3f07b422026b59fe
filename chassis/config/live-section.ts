/**
 * The live-mode keys of the shelf YAML (docs/live.md): the hubs' `front_port`, the processor
 * boards' `back_port` (with the board's full-NAT local address pool), `dataplane.back_gateway`,
 * and the cross-checks between them and the services (an RS outside every back-side subnet, a
 * local address that is a VIP). Forwarding modes per service and per member are read with the
 * services (dataplane-section.ts). Pure: no I/O.
 */
import { addressText } from '../../board/packet/flow-tuple.ts';
import { parseAddress, parsePrefix, type ParsedPrefix } from '../../board/processor/ip-address.ts';
import type { ForwardingMode, VirtualServiceConfig } from '../../board/processor/processor-config.ts';
import { isIpAddress, isIpv4 } from './ip-address.ts';
import type { MapReader, Value } from './yaml-reader.ts';

/** A board's port on a live link. Addresses are CIDR text (`198.18.1.2/24`). */
export interface LivePortConfig {
  address?: string;
  address6?: string;
  /** Next hop towards the client side (hubs) or the default route (processor boards). */
  gateway?: string;
  gateway6?: string;
  /** Link MTU in bytes (IP datagram size), 1280..9000, default 1500. */
  mtu: number;
  /** Interface the emulator opens (default `PREFIX-sSLOT`, as `atcasim net up` names it). */
  ifname?: string;
  /** Network namespace of the interface (default `PREFIX-router`). */
  netns?: string;
}

/** A processor board's back-side port: its subnet, and the full-NAT local address pool. */
export interface BackPortConfig extends LivePortConfig {
  /** Local addresses (IPv4/IPv6 text) SNAT uses under `fullnat`. */
  localAddresses: string[];
  /** First and last local port handed out (default 1024-65535). */
  localPortMin: number;
  localPortMax: number;
}

/** The shelf's own address on the back side (the default route of `nat` real servers). */
export interface BackGatewayConfig {
  address?: string;
  address6?: string;
}

const PORT_KEYS = ['address', 'address6', 'gateway', 'gateway6', 'mtu', 'ifname', 'netns'];

function readCidr(v: Value, family: 4 | 6): string {
  const s = v.str();
  const [addr, len, more] = s.split('/');
  if (more !== undefined || !addr || !isIpAddress(addr) || len === undefined) v.fail(`"${s}" is not an address with its prefix length (ADDRESS/LENGTH, e.g. 198.18.1.2/24)`);
  if (isIpv4(addr) !== (family === 4)) v.fail(`"${s}" is not an IPv${family} address`);
  const max = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(len) || Number(len) > max) v.fail(`prefix length in "${s}" must be 0..${max}`);
  return s;
}

function readHost(v: Value, family: 4 | 6): string {
  const s = v.str();
  if (!isIpAddress(s) || isIpv4(s) !== (family === 4)) v.fail(`"${s}" is not an IPv${family} address`);
  return s;
}

function readPortCommon(m: MapReader): LivePortConfig {
  const p: LivePortConfig = { mtu: m.opt('mtu')?.int({ min: 1280, max: 9000 }) ?? 1500 };
  const a = m.opt('address');
  if (a) p.address = readCidr(a, 4);
  const a6 = m.opt('address6');
  if (a6) p.address6 = readCidr(a6, 6);
  const g = m.opt('gateway');
  if (g) p.gateway = readHost(g, 4);
  const g6 = m.opt('gateway6');
  if (g6) p.gateway6 = readHost(g6, 6);
  const i = m.opt('ifname');
  if (i) p.ifname = i.str({ pattern: /^[A-Za-z0-9_.-]{1,15}$/, hint: '1-15 letters, digits, _ . - (a Linux interface name)' });
  const n = m.opt('netns');
  if (n) p.netns = n.str({ pattern: /^[A-Za-z0-9_.-]{1,64}$/, hint: 'an `ip netns` name' });
  if (!p.address && !p.address6) m.req('address').fail('a live port needs an address or address6');
  for (const [gw, cidr, key] of [[p.gateway, p.address, 'gateway'], [p.gateway6, p.address6, 'gateway6']] as const) {
    if (gw === undefined) continue;
    if (cidr === undefined || !inSubnet(parsePrefix(cidr), gw)) m.req(key).fail(`${gw} is outside the port's subnet ${cidr ?? '(none)'}`);
  }
  return p;
}

/** Reads a hub's `front_port`. @throws ConfigError at the offending key */
export function readFrontPort(v: Value): LivePortConfig {
  const m = v.map();
  const p = readPortCommon(m);
  m.done(PORT_KEYS);
  return p;
}

/** Reads a processor board's `back_port`. @throws ConfigError at the offending key */
export function readBackPort(v: Value): BackPortConfig {
  const m = v.map();
  const p: BackPortConfig = { ...readPortCommon(m), localAddresses: [], localPortMin: 1024, localPortMax: 65535 };
  const la = m.opt('local_addresses');
  if (la) {
    const seen = new Set<string>();
    for (const item of la.list()) {
      const s = item.str();
      if (!isIpAddress(s)) item.fail(`"${s}" is not an IP address`);
      const key = canonical(s);
      if (seen.has(key)) item.fail(`local address ${s} is listed twice`);
      seen.add(key);
      const net = isIpv4(s) ? p.address : p.address6;
      if (net === undefined || !inSubnet(parsePrefix(net), s)) item.fail(`local address ${s} is outside the port's subnet ${net ?? '(none)'}`);
      p.localAddresses.push(s);
    }
  }
  const lp = m.opt('local_ports');
  if (lp) {
    const s = lp.str();
    const r = /^(\d{1,5})-(\d{1,5})$/.exec(s);
    const lo = r ? Number(r[1]) : NaN;
    const hi = r ? Number(r[2]) : NaN;
    if (!r || lo < 1 || hi > 65535 || lo > hi) lp.fail(`"${s}" is not a port range FIRST-LAST within 1-65535`);
    p.localPortMin = lo;
    p.localPortMax = hi;
  }
  m.done([...PORT_KEYS, 'local_addresses', 'local_ports']);
  return p;
}

/** Reads `dataplane.back_gateway`. @throws ConfigError at the offending key */
export function readBackGateway(v: Value): BackGatewayConfig {
  const m = v.map();
  const g: BackGatewayConfig = {};
  const a = m.opt('address');
  if (a) g.address = readHost(a, 4);
  const a6 = m.opt('address6');
  if (a6) g.address6 = readHost(a6, 6);
  m.done(['address', 'address6']);
  return g;
}

/** Canonical text of an address (so two spellings of one IPv6 address compare equal). */
export function canonical(text: string): string {
  const a = parseAddress(text);
  return `${a.family}/${Array.from(a.bytes.subarray(0, a.family === 4 ? 4 : 16)).join('.')}`;
}

/** True when address `text` lies in `net`. */
export function inSubnet(net: ParsedPrefix, text: string): boolean {
  const a = parseAddress(text);
  if (a.family !== net.family) return false;
  for (let bit = 0; bit < net.length; bit++) {
    const mask = 0x80 >> (bit & 7);
    if ((a.bytes[bit >> 3]! & mask) !== (net.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** A member's mode: its own, else its service's, else tunnel. */
export function memberMode(svc: VirtualServiceConfig, k: number): ForwardingMode {
  return svc.pool[k]?.forwarding ?? svc.forwarding ?? 'tunnel';
}

/** Where a cross-check failed: service index, member index (−1: the service), local address text. */
export type LiveCheckFailure =
  | { kind: 'rs-outside'; service: number; member: number; message: string }
  | { kind: 'local-is-vip'; slot: number; address: string; message: string };

/**
 * Cross-checks the live keys against the services. Only when some processor board has a
 * `back_port` (a shelf without live ports is not checked).
 * @returns the first failure, or null
 */
export function checkLive(services: readonly VirtualServiceConfig[], backPorts: ReadonlyArray<{ slot: number; port: BackPortConfig }>): LiveCheckFailure | null {
  if (backPorts.length === 0) return null;
  const nets: ParsedPrefix[] = [];
  for (const b of backPorts) {
    if (b.port.address) nets.push(parsePrefix(b.port.address));
    if (b.port.address6) nets.push(parsePrefix(b.port.address6));
  }
  const netText = [...new Set(backPorts.flatMap((b) => [b.port.address, b.port.address6].filter((x): x is string => x !== undefined).map(networkText)))].join(', ');
  for (let si = 0; si < services.length; si++) {
    const svc = services[si]!;
    for (let k = 0; k < svc.pool.length; k++) {
      const mode = memberMode(svc, k);
      if (mode === 'tunnel') continue;
      const rs = svc.pool[k]!;
      if (!nets.some((n) => inSubnet(n, rs.address))) {
        return { kind: 'rs-outside', service: si, member: k, message: `real server ${rs.name} (${rs.address}) of service '${svc.name}' is outside every back-side subnet (${netText}); ${mode} needs it on the boards' back-side link` };
      }
    }
  }
  for (const b of backPorts) {
    for (const a of b.port.localAddresses) {
      for (const svc of services) {
        const hit = svc.vip.includes('/') ? inSubnet(parsePrefix(svc.vip), a) : canonical(svc.vip) === canonical(a);
        if (hit) return { kind: 'local-is-vip', slot: b.slot, address: a, message: `local address ${a} of slot${b.slot} overlaps the VIP ${svc.vip} of service '${svc.name}' (a full-NAT pool must not overlap a VIP)` };
      }
    }
  }
  return null;
}

function networkText(cidr: string): string {
  const p = parsePrefix(cidr);
  return `${addressText(p.family, p.bytes)}/${p.length}`;
}
