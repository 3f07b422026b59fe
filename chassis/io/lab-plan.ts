/**
 * The plan of the live lab (`atcasim net up`), computed from a shelf YAML: which network
 * namespaces, links, addresses, routes and sysctls to make, which HTTP servers to start, and the
 * names of it all. Pure: no I/O (chassis/io/netns-lab.ts carries the plan out with iproute2).
 *
 * Topology, for prefix P (names fit Linux's 15-character interface names for a prefix of up to
 * 10 characters):
 *   P-client   eth0 — the client; default routes via the router.
 *   P-router   P-cl  (veth to the client)
 *              P-sN  a TAP per hub front port and per processor back port (N = the slot): the
 *                    appliance's side of each is what the emulator opens (netns P-router, ifname
 *                    P-sN); persistent, NO-CARRIER until the emulator holds it
 *              P-back  a bridge: the back-side segment (the processor TAPs, every RS link, and the
 *                    router's own back address)
 *              P-rI  veth to real server I
 *              routes: each VIP /32 (/128) over both hubs' front addresses (ECMP multipath,
 *                    L4 hash, dead next hops ignored when their link is down).
 *   P-rs-NAME  eth0 on the back segment; per mode (RFC-less but LVS-standard):
 *                    dr       the VIPs on lo, arp_ignore=1, arp_announce=2; default via the router
 *                    nat      default via the shelf's back gateway (replies return through it)
 *                    fullnat  default via the router (replies go to the board's local address)
 *              and an HTTP/1.1 server on each port its services use.
 */
import { addressText } from '../../board/packet/flow-tuple.ts';
import { parseAddress, parsePrefix, type ParsedPrefix } from '../../board/processor/ip-address.ts';

/** A one-line refusal of the lab's input (names the key or the thing). */
export class LabPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabPlanError';
  }
}

export type LabMode = 'tunnel' | 'dr' | 'nat' | 'fullnat';

/** One real server of the lab (a namespace), gathered over every service that lists it. */
export interface LabRealServer {
  name: string;
  netns: string;
  /** Router-side veth name. */
  link: string;
  /** Addresses with their prefix length on the back segment (CIDR text). */
  addresses: string[];
  /** 'nat' when any service forwards to it by nat (default route via the shelf), else the router. */
  route: 'router' | 'shelf';
  /** VIPs to put on lo (dr). */
  loopbackVips: string[];
  /** TCP ports its HTTP server listens on. */
  ports: number[];
  /** Endpoints as the services list them (ADDRESS:PORT). */
  endpoints: string[];
}

/** One service as the lab reports it. */
export interface LabService {
  name: string;
  /** ADDRESS:PORT ([v6]:PORT). */
  vip: string;
  forwarding: LabMode;
  rs: Array<{ name: string; endpoint: string; forwarding: LabMode; weight: number }>;
}

/** A port of the appliance in the lab. */
export interface LabPort {
  slot: number;
  side: 'front' | 'back';
  netns: string;
  ifname: string;
  mtu: number;
  /** The board's own addresses on that link (CIDR). */
  addresses: string[];
}

/** Everything `net up` makes. */
export interface LabPlan {
  prefix: string;
  namespaces: { client: string; router: string; rs: string[] };
  client: { ifname: string; link: string; address: string; address6: string; gateway: string; gateway6: string };
  /** Router addresses per router-side interface (CIDR). */
  router: Array<{ ifname: string; addresses: string[] }>;
  bridge: { ifname: string; mtu: number };
  ports: LabPort[];
  /** VIP host routes over the hubs: the next hops (one per hub, v4 and v6). */
  vipRoutes: Array<{ prefix: string; via: Array<{ gateway: string; dev: string }> }>;
  services: LabService[];
  realServers: LabRealServer[];
  /** The shelf's back gateway (what nat real servers route through). */
  backGateway: { address: string; address6: string };
  /** The router's back-side address (what dr and fullnat real servers route through). */
  routerBack: { address: string; address6: string };
}

/** The lab's own addresses (not in the shelf YAML): the client link. */
export const CLIENT_PLAN = {
  address: '198.18.0.2/24', gateway: '198.18.0.1', routerAddress: '198.18.0.1/24',
  address6: 'fd00:a7ca::2/64', gateway6: 'fd00:a7ca::1', routerAddress6: 'fd00:a7ca::1/64',
} as const;

/** Longest prefix: "P-back" and "P-s14" must fit 15 characters. */
export const MAX_PREFIX = 10;

/**
 * Checks a lab prefix.
 * @throws LabPlanError unless 1–10 characters, a lower-case letter then letters and digits
 */
export function checkPrefix(prefix: string): void {
  if (!/^[a-z][a-z0-9]{0,9}$/.test(prefix)) {
    throw new LabPlanError(`bad --prefix '${prefix}': 1-${MAX_PREFIX} characters, a lower-case letter then letters or digits (interface names are limited to 15 characters)`);
  }
}

type Obj = Record<string, unknown>;

function obj(v: unknown, path: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new LabPlanError(`${path}: a mapping is needed`);
  return v as Obj;
}

function str(o: Obj, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v.trim() === '') throw new LabPlanError(`${path}.${key}: a text value is needed`);
  return v.trim();
}

function cidr(text: string, path: string): ParsedPrefix & { host: Uint8Array; text: string } {
  if (!text.includes('/')) throw new LabPlanError(`${path}: '${text}' needs a prefix length (ADDRESS/LENGTH)`);
  try {
    const host = parseAddress(text.slice(0, text.indexOf('/'))).bytes;
    return { ...parsePrefix(text), host, text };
  } catch (err) {
    throw new LabPlanError(`${path}: ${(err as Error).message}`);
  }
}

function inPrefix(p: ParsedPrefix, family: 4 | 6, a: Uint8Array): boolean {
  if (p.family !== family) return false;
  for (let bit = 0; bit < p.length; bit++) {
    const m = 0x80 >> (bit & 7);
    if ((a[bit >> 3]! & m) !== (p.bytes[bit >> 3]! & m)) return false;
  }
  return true;
}

function endpoint(text: string, path: string): { family: 4 | 6; bytes: Uint8Array; host: string; port: number | undefined } {
  const t = text.trim();
  let host = t;
  let port: number | undefined;
  if (t.startsWith('[')) {
    const close = t.indexOf(']');
    host = t.slice(1, close);
    if (t.slice(close + 1).startsWith(':')) port = Number(t.slice(close + 2));
  } else if (!t.includes('::') && t.split(':').length === 2) {
    host = t.slice(0, t.indexOf(':'));
    port = Number(t.slice(t.indexOf(':') + 1));
  }
  try {
    const a = parseAddress(host);
    return { family: a.family, bytes: a.bytes, host, port };
  } catch (err) {
    throw new LabPlanError(`${path}: ${(err as Error).message}`);
  }
}

function hostPort(host: string, family: 4 | 6, port: number): string {
  return family === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

function mode(v: unknown, path: string, dflt: LabMode): LabMode {
  if (v === undefined) return dflt;
  if (v === 'tunnel' || v === 'dr' || v === 'nat' || v === 'fullnat') return v;
  throw new LabPlanError(`${path}: forwarding must be tunnel, dr, nat or fullnat, got '${String(v)}'`);
}

function mtu(v: unknown, path: string): number {
  if (v === undefined) return 1500;
  if (!Number.isInteger(v) || (v as number) < 1280 || (v as number) > 9000) throw new LabPlanError(`${path}.mtu: an MTU of 1280..9000 bytes is needed`);
  return v as number;
}

/** The hubs' front ports and the processor boards' back ports of `boards` (the YAML's `boards` map). */
function planPorts(boards: Record<string, unknown>, prefix: string) {
  const ports: LabPort[] = [];
  const hubs: Array<{ slot: number; ifname: string; gw: string; gw6: string; addr: string; addr6: string; cidr: string; cidr6: string }> = [];
  const backPrefixes: ParsedPrefix[] = [];
  const locals: Array<{ text: string; family: 4 | 6; bytes: Uint8Array; where: string }> = [];
  let routerBack: { address: string; address6: string } | null = null;
  let backMtu = 1500;
  for (const [name, raw] of Object.entries(boards)) {
    const m = /^slot(\d+)$/.exec(name);
    if (m === null) continue;
    const slot = Number(m[1]);
    const b = obj(raw, `boards.${name}`);
    const path = `boards.${name}`;
    const ifname = `${prefix}-s${slot}`;
    if (b.type === 'hub') {
      const fp = obj(b.front_port, `${path}.front_port`);
      const a4 = cidr(str(fp, 'address', `${path}.front_port`), `${path}.front_port.address`);
      const a6 = cidr(str(fp, 'address6', `${path}.front_port`), `${path}.front_port.address6`);
      const gw = str(fp, 'gateway', `${path}.front_port`);
      const gw6 = str(fp, 'gateway6', `${path}.front_port`);
      if (!inPrefix(a4, 4, parseAddress(gw).bytes)) throw new LabPlanError(`${path}.front_port.gateway: ${gw} is outside ${a4.text}`);
      if (!inPrefix(a6, 6, parseAddress(gw6).bytes)) throw new LabPlanError(`${path}.front_port.gateway6: ${gw6} is outside ${a6.text}`);
      ports.push({ slot, side: 'front', netns: `${prefix}-router`, ifname, mtu: mtu(fp.mtu, `${path}.front_port`), addresses: [a4.text, a6.text] });
      hubs.push({ slot, ifname, gw, gw6, addr: a4.text.split('/')[0]!, addr6: a6.text.split('/')[0]!, cidr: `${gw}/${a4.length}`, cidr6: `${gw6}/${a6.length}` });
    } else if (b.type === 'processor') {
      if (b.back_port === undefined) continue;
      const bp = obj(b.back_port, `${path}.back_port`);
      const a4 = cidr(str(bp, 'address', `${path}.back_port`), `${path}.back_port.address`);
      const a6 = cidr(str(bp, 'address6', `${path}.back_port`), `${path}.back_port.address6`);
      backPrefixes.push(a4, a6);
      backMtu = mtu(bp.mtu, `${path}.back_port`);
      ports.push({ slot, side: 'back', netns: `${prefix}-router`, ifname, mtu: backMtu, addresses: [a4.text, a6.text] });
      const gw = str(bp, 'gateway', `${path}.back_port`);
      const gw6 = str(bp, 'gateway6', `${path}.back_port`);
      if (!inPrefix(a4, 4, parseAddress(gw).bytes)) throw new LabPlanError(`${path}.back_port.gateway: ${gw} is outside ${a4.text}`);
      routerBack ??= { address: `${gw}/${a4.length}`, address6: `${gw6}/${a6.length}` };
      const la = bp.local_addresses;
      if (la !== undefined) {
        if (!Array.isArray(la)) throw new LabPlanError(`${path}.back_port.local_addresses: a list is needed`);
        for (const t of la) {
          const e = endpoint(String(t), `${path}.back_port.local_addresses`);
          locals.push({ text: String(t), family: e.family, bytes: e.bytes, where: `${path}.back_port.local_addresses` });
        }
      }
    }
  }
  return { ports, hubs, backPrefixes, locals, routerBack: routerBack as { address: string; address6: string } | null, backMtu };
}

/** The services of `dp` (the YAML's `dataplane`) and the real servers they name, checked against the back-side subnets. */
function planServices(dp: Record<string, unknown>, prefix: string, backPrefixes: readonly ParsedPrefix[]) {
  const services: LabService[] = [];
  const rsByName = new Map<string, LabRealServer & { modes: Set<LabMode> }>();
  const vipSet = new Map<string, { family: 4 | 6; service: string; host: string }>();
  const list = dp.services;
  if (!Array.isArray(list)) throw new LabPlanError('dataplane.services: a list is needed');
  list.forEach((rawSvc, i) => {
    const path = `dataplane.services[${i}]`;
    const s = obj(rawSvc, path);
    const sname = str(s, 'name', path);
    const vipText = String(s.vip ?? '');
    const vip = endpoint(vipText, `${path}.vip`);
    if (vipText.includes('/')) throw new LabPlanError(`${path}.vip: the live lab needs a concrete VIP, not the prefix '${vipText}'`);
    const port = Number(s.port ?? 0);
    const fwd = mode(s.forwarding, `${path}.forwarding`, 'tunnel');
    vipSet.set(`${vip.family}/${addrOf(vip.family, vip.bytes)}`, { family: vip.family, service: sname, host: vip.host });
    const svc: LabService = { name: sname, vip: hostPort(vip.host, vip.family, port), forwarding: fwd, rs: [] };
    const pool = s.pool;
    if (!Array.isArray(pool)) throw new LabPlanError(`${path}.pool: a list is needed`);
    pool.forEach((rawRs, j) => {
      const rpath = `${path}.pool[${j}]`;
      const r = obj(rawRs, rpath);
      const rname = str(r, 'name', rpath);
      if (!/^[a-z0-9][a-z0-9-]{0,30}$/i.test(rname)) throw new LabPlanError(`${rpath}.name: '${rname}' must be letters, digits and '-' (it names a network namespace)`);
      const ep = endpoint(str(r, 'address', rpath), `${rpath}.address`);
      const rmode = mode(r.forwarding, `${rpath}.forwarding`, fwd);
      const rport = ep.port ?? (typeof r.port === 'number' ? r.port : port);
      if (!(Number.isInteger(rport) && rport >= 1 && rport <= 65535)) throw new LabPlanError(`${rpath}: real server ${rname} needs a port 1..65535 (ADDRESS:PORT, or the service's port), got ${rport}`);
      if (rmode === 'dr' && rport !== port) throw new LabPlanError(`${rpath}.address: a dr real server must listen on the VIP's port ${port}, not ${rport}`);
      if (rmode === 'tunnel') throw new LabPlanError(`${rpath}: tunnel forwarding cannot be terminated in this lab (the kernel has no IPIP/GRE devices): use dr, nat or fullnat`);
      const net = backPrefixes.find((p) => inPrefix(p, ep.family, ep.bytes));
      if (net === undefined) throw new LabPlanError(`${rpath}.address: real server ${rname} (${ep.host}) is outside every back-side subnet (${backPrefixes.map((p) => `${addrText(p)}/${p.length}`).join(', ')})`);
      let rs = rsByName.get(rname);
      if (rs === undefined) {
        rs = { name: rname, netns: `${prefix}-rs-${rname.toLowerCase()}`, link: `${prefix}-r${rsByName.size + 1}`, addresses: [], route: 'router', loopbackVips: [], ports: [], endpoints: [], modes: new Set() };
        rsByName.set(rname, rs);
      }
      const withLen = `${ep.host}/${net.length}`;
      if (!rs.addresses.includes(withLen)) rs.addresses.push(withLen);
      rs.modes.add(rmode);
      if (rmode === 'nat') rs.route = 'shelf';
      if (rmode === 'dr') {
        const v = `${vip.host}/${vip.family === 6 ? 128 : 32}`;
        if (!rs.loopbackVips.includes(v)) rs.loopbackVips.push(v);
      }
      if (!rs.ports.includes(rport)) rs.ports.push(rport);
      const epText = hostPort(ep.host, ep.family, rport);
      if (!rs.endpoints.includes(epText)) rs.endpoints.push(epText);
      svc.rs.push({ name: rname, endpoint: epText, forwarding: rmode, weight: Number(r.weight ?? 1) });
    });
    services.push(svc);
  });
  return { services, rsByName, vipSet };
}

/**
 * The lab for `shelf` (the parsed YAML of a live shelf) under `prefix`.
 * @throws LabPlanError (one line, naming the key or the thing) on a bad prefix, a hub or board
 *   without its port, an RS outside every back-side subnet, a local address that is a VIP, an RS
 *   whose services need different default routes, a name that does not fit
 */
export function planLab(shelf: unknown, prefix: string): LabPlan {
  checkPrefix(prefix);
  const root = obj(shelf, '(document)');
  const boards = obj(root.boards, 'boards');
  const dp = obj(root.dataplane, 'dataplane');
  const { ports, hubs, backPrefixes, locals, routerBack, backMtu } = planPorts(boards, prefix);
  if (hubs.length === 0) throw new LabPlanError('boards: no hub with a front_port (the client reaches the shelf through the hubs)');
  if (routerBack === null) throw new LabPlanError('boards: no processor board with a back_port (the real servers sit behind them)');
  const bg = obj(dp.back_gateway, 'dataplane.back_gateway');
  const backGateway = { address: str(bg, 'address', 'dataplane.back_gateway'), address6: str(bg, 'address6', 'dataplane.back_gateway') };

  const { services, rsByName, vipSet } = planServices(dp, prefix, backPrefixes);
  for (const rs of rsByName.values()) {
    if (rs.modes.has('nat') && rs.modes.has('dr')) throw new LabPlanError(`real server ${rs.name}: nat needs its default route via the shelf, dr via the router; give it one of the two`);
    if (rs.link.length > 15) throw new LabPlanError(`real server ${rs.name}: too many real servers for prefix ${prefix} (interface ${rs.link} is longer than 15 characters)`);
  }
  for (const l of locals) {
    for (const [k, v] of vipSet) {
      if (k === `${l.family}/${addrOf(l.family, l.bytes)}`) throw new LabPlanError(`${l.where}: local address ${l.text} is the VIP of service '${v.service}'`);
    }
  }
  const client = {
    ifname: 'eth0', link: `${prefix}-cl`, address: CLIENT_PLAN.address, address6: CLIENT_PLAN.address6,
    gateway: CLIENT_PLAN.gateway, gateway6: CLIENT_PLAN.gateway6,
  };
  const router = [
    { ifname: client.link, addresses: [CLIENT_PLAN.routerAddress, CLIENT_PLAN.routerAddress6] },
    ...hubs.map((h) => ({ ifname: h.ifname, addresses: [h.cidr, h.cidr6] })),
    { ifname: `${prefix}-back`, addresses: [routerBack.address, routerBack.address6] },
  ];
  const vipRoutes: LabPlan['vipRoutes'] = [];
  for (const v of vipSet.values()) {
    vipRoutes.push({
      prefix: `${v.host}/${v.family === 6 ? 128 : 32}`,
      via: hubs.map((h) => ({ gateway: v.family === 6 ? h.addr6 : h.addr, dev: h.ifname })),
    });
  }
  const realServers = [...rsByName.values()].map(({ modes: _m, ...r }) => r);
  return {
    prefix,
    namespaces: { client: `${prefix}-client`, router: `${prefix}-router`, rs: realServers.map((r) => r.netns) },
    client, router, bridge: { ifname: `${prefix}-back`, mtu: backMtu }, ports, vipRoutes, services, realServers,
    backGateway, routerBack,
  };
}

function addrText(p: ParsedPrefix): string {
  return addressText(p.family, p.bytes);
}

/** Canonical text of an address (IPv6 fully expanded, so two spellings compare equal). */
function addrOf(family: 4 | 6, b: Uint8Array): string {
  if (family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const w: string[] = [];
  for (let i = 0; i < 16; i += 2) w.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  return w.join(':');
}
