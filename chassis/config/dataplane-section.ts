/**
 * The `dataplane` section of the shelf YAML → the switch boards' ECMP settings and the processor
 * boards' configuration: session table sizes, timeouts, virtual services with their real-server
 * pools and health checks, the ACL, midstream pickup and the hash seed.
 *
 * Sources: Maglev (NSDI 2016) §3.4 (a prime lookup-table size), RFC 2992 (ECMP), LVS/IPVS scheduler
 * names (rr, wrr, lc, wlc, sh).
 */
import { DEFAULT_ECMP, type EcmpConfig } from '../../board/switch/switch-config.ts';
import {
  DEFAULT_HEALTH,
  DEFAULT_SESSION_TABLE,
  DEFAULT_TIMEOUTS,
  type AclRuleConfig,
  type HealthCheckConfig,
  type ProcessorConfig,
  type RealServerConfig,
  type VirtualServiceConfig,
} from '../../board/processor/processor-config.ts';
import { FORWARDING_MODES } from '../../board/processor/forwarding/translation.ts';
import { isIpAddress, isIpv4 } from './ip-address.ts';
import { readBackGateway, type BackGatewayConfig } from './live-section.ts';
import type { Value } from './yaml-reader.ts';

function readPrefix(v: Value): string {
  const s = v.str();
  const [addr, len, more] = s.split('/');
  if (more !== undefined || !addr || !isIpAddress(addr)) v.fail(`"${s}" is not an IP address or prefix (e.g. 10.0.0.1, 0.0.0.0/0, ::/0)`);
  if (len !== undefined) {
    const max = isIpv4(addr) ? 32 : 128;
    if (!/^\d+$/.test(len) || Number(len) > max) v.fail(`prefix length in "${s}" must be 0..${max}`);
  }
  return s;
}

/**
 * Reads the `dataplane` section (absent: every default).
 * @param ecmpMemberCount the hubs' ECMP group size (one member per processor board, as
 *   ecmpMembers() builds it), which a resilient table must not have fewer buckets than
 * @throws ConfigError at the offending key
 */
export function readDataplane(v: Value | undefined, ecmpMemberCount: number): { ecmp: EcmpConfig; processor: ProcessorConfig; backGateway?: BackGatewayConfig } {
  const ecmp: EcmpConfig = { ...DEFAULT_ECMP };
  const processor: ProcessorConfig = { sessions: { ...DEFAULT_SESSION_TABLE }, timeouts: { ...DEFAULT_TIMEOUTS }, services: [], acl: [] };
  if (!v) return { ecmp, processor };
  const m = v.map();
  const eV = m.opt('ecmp');
  if (eV) {
    const e = eV.map();
    ecmp.fields = e.opt('fields')?.oneOf(['l2', 'l3', 'l3l4'] as const) ?? ecmp.fields;
    ecmp.hash = e.opt('hash')?.oneOf(['pearson', 'crc32', 'crc16', 'toeplitz'] as const) ?? ecmp.hash;
    ecmp.symmetric = e.opt('symmetric')?.bool() ?? ecmp.symmetric;
    ecmp.mapping = e.opt('mapping')?.oneOf(['modulo', 'resilient'] as const) ?? ecmp.mapping;
    const bV = e.opt('buckets');
    ecmp.buckets = bV?.int({ min: 1, max: 1 << 20 }) ?? ecmp.buckets;
    if (ecmp.mapping === 'resilient' && ecmp.buckets < ecmpMemberCount) {
      // fewer buckets than members leaves a board without any share of the traffic
      (bV ?? eV).fail(`${ecmp.buckets} buckets cannot give each of the ${ecmpMemberCount} ECMP members (one per processor board) a share; give at least ${ecmpMemberCount}`);
    }
    ecmp.tunnel = e.opt('tunnel')?.oneOf(['outer', 'inner'] as const) ?? ecmp.tunnel;
    const kV = e.opt('toeplitz_key');
    if (kV) ecmp.toeplitzKey = kV.str({ pattern: /^[0-9a-fA-F]{80}$/, hint: '40 bytes as 80 hex digits' }).toLowerCase();
    e.done(['fields', 'hash', 'symmetric', 'mapping', 'buckets', 'tunnel', 'toeplitz_key']);
  }
  const sV = m.opt('sessions');
  if (sV) {
    const s = sV.map();
    const t = processor.sessions;
    t.capacity = s.opt('capacity')?.int({ min: 1, max: 100_000_000 }) ?? t.capacity;
    t.hotCapacity = s.opt('hot_capacity')?.int({ min: 0, max: 100_000_000 }) ?? Math.min(t.hotCapacity, t.capacity);
    t.promoteAfterHits = s.opt('promote_after_hits')?.int({ min: 1, max: 1_000_000 }) ?? t.promoteAfterHits;
    t.aclCapacity = s.opt('acl_capacity')?.int({ min: 1, max: 1_000_000 }) ?? t.aclCapacity;
    t.persistenceCapacity = s.opt('persistence_capacity')?.int({ min: 1, max: 100_000_000 }) ?? t.persistenceCapacity;
    if (t.hotCapacity > t.capacity) s.req('hot_capacity').fail(`must not exceed capacity (${t.capacity})`);
    s.done(['capacity', 'hot_capacity', 'promote_after_hits', 'acl_capacity', 'persistence_capacity']);
  }
  const tV = m.opt('timeouts');
  if (tV) {
    const t = tV.map();
    const o = processor.timeouts;
    const d = (k: string, cur: number) => t.opt(k)?.duration({ min: 1 }) ?? cur;
    o.tcpSynRecv = d('tcp_syn_recv', o.tcpSynRecv);
    o.tcpEstablished = d('tcp_established', o.tcpEstablished);
    o.tcpFinWait = d('tcp_fin_wait', o.tcpFinWait);
    o.tcpClose = d('tcp_close', o.tcpClose);
    o.udp = d('udp', o.udp);
    o.other = d('other', o.other);
    o.tcpTimeWait = d('tcp_time_wait', o.tcpTimeWait ?? DEFAULT_TIMEOUTS.tcpTimeWait!);
    t.done(['tcp_syn_recv', 'tcp_established', 'tcp_fin_wait', 'tcp_close', 'udp', 'other', 'tcp_time_wait']);
  }
  const svcV = m.opt('services');
  if (svcV) {
    const names = new Set<string>();
    for (const item of svcV.list()) {
      const svc = readService(item);
      if (names.has(svc.name)) item.map().req('name').fail(`service name "${svc.name}" is used twice`);
      names.add(svc.name);
      processor.services.push(svc);
    }
  }
  const aclV = m.opt('acl');
  if (aclV) {
    const rules = aclV.list();
    if (rules.length > processor.sessions.aclCapacity) aclV.fail(`${rules.length} rules exceed acl_capacity ${processor.sessions.aclCapacity}`);
    for (const item of rules) processor.acl.push(readAcl(item));
  }
  const mp = m.opt('midstream_pickup');
  if (mp) processor.midstreamPickup = mp.bool();
  const hs = m.opt('hash_seed');
  if (hs) processor.hashSeed = hs.int({ min: 0, max: 0xffffffff, hex: true });
  const bg = m.opt('back_gateway');
  m.done(['ecmp', 'sessions', 'timeouts', 'services', 'acl', 'midstream_pickup', 'hash_seed', 'back_gateway']);
  return bg ? { ecmp, processor, backGateway: readBackGateway(bg) } : { ecmp, processor };
}

function readService(item: Value): VirtualServiceConfig {
  const m = item.map();
  const svc: VirtualServiceConfig = {
    name: m.req('name').str({ min: 1, max: 64 }),
    vip: readPrefix(m.req('vip')),
    port: m.opt('port')?.int({ min: 0, max: 65535 }) ?? 0,
    protocol: m.opt('protocol')?.oneOf(['tcp', 'udp', 'sctp', 'any'] as const) ?? 'any',
    scheduler: m.opt('scheduler')?.oneOf(['rr', 'wrr', 'lc', 'wlc', 'sh', 'maglev', 'dynamic'] as const) ?? 'wrr',
    persistenceMs: m.opt('persistence')?.duration({ min: 0 }) ?? 0,
    encapsulation: m.opt('encapsulation')?.oneOf(['ipip', 'gre'] as const) ?? 'gre',
    forwarding: m.opt('forwarding')?.oneOf(FORWARDING_MODES) ?? 'tunnel',
    pool: [],
    health: { ...DEFAULT_HEALTH },
    alarmBelow: m.opt('alarm_below')?.num({ min: 0, max: 1 }) ?? 0.5,
  };
  const mt = m.opt('maglev_table_size');
  if (mt) {
    const n = mt.int({ min: 3, max: 10_000_019 });
    if (!isPrime(n)) mt.fail(`${n} is not a prime (Maglev needs a prime table size, e.g. 65537)`);
    svc.maglevTableSize = n;
  }
  const hV = m.opt('health');
  if (hV) svc.health = readHealth(hV);
  const poolV = m.req('pool');
  const names = new Set<string>();
  for (const rv of poolV.list()) {
    const rs = readRealServer(rv);
    if (names.has(rs.name)) rv.map().req('name').fail(`real server name "${rs.name}" is used twice in this pool`);
    names.add(rs.name);
    svc.pool.push(rs);
  }
  if (svc.pool.length === 0) poolV.fail('a virtual service needs at least one real server');
  m.done(['name', 'vip', 'port', 'protocol', 'scheduler', 'persistence', 'encapsulation', 'forwarding', 'maglev_table_size', 'health', 'pool', 'alarm_below']);
  return svc;
}

function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let i = 2; i * i <= n; i++) if (n % i === 0) return false;
  return true;
}

function readHealth(v: Value): HealthCheckConfig {
  const m = v.map();
  const h: HealthCheckConfig = {
    kind: m.opt('kind')?.oneOf(['icmp', 'tcp', 'http', 'udp'] as const) ?? DEFAULT_HEALTH.kind,
    intervalMs: m.opt('interval')?.duration({ min: 10 }) ?? DEFAULT_HEALTH.intervalMs,
    timeoutMs: m.opt('timeout')?.duration({ min: 1 }) ?? DEFAULT_HEALTH.timeoutMs,
    rise: m.opt('rise')?.int({ min: 1, max: 100 }) ?? DEFAULT_HEALTH.rise,
    fall: m.opt('fall')?.int({ min: 1, max: 100 }) ?? DEFAULT_HEALTH.fall,
  };
  const p = m.opt('path');
  if (p) h.path = p.str({ pattern: /^\//, hint: 'an HTTP path starting with /' });
  else if (h.kind === 'http') h.path = '/';
  m.done(['kind', 'interval', 'timeout', 'rise', 'fall', 'path']);
  return h;
}

function readRealServer(v: Value): RealServerConfig {
  const m = v.map();
  const aV = m.req('address');
  const text = aV.str();
  let address = text;
  let port: number | undefined;
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  const v4 = /^([^:]+):(\d+)$/.exec(text);
  if (v6) {
    address = v6[1]!;
    port = Number(v6[2]);
  } else if (v4) {
    address = v4[1]!;
    port = Number(v4[2]);
  }
  if (!isIpAddress(address)) aV.fail(`"${text}" is not an address (a.b.c.d, a.b.c.d:PORT, IPv6, or [IPv6]:PORT)`);
  if (port !== undefined && (port < 1 || port > 65535)) aV.fail(`port ${port} out of range 1..65535`);
  const rs: RealServerConfig = {
    name: m.req('name').str({ min: 1, max: 64 }),
    address,
    weight: m.opt('weight')?.int({ min: 0, max: 65535 }) ?? 1,
  };
  if (port !== undefined) rs.port = port;
  const fV = m.opt('forwarding');
  if (fV) rs.forwarding = fV.oneOf(FORWARDING_MODES);
  const sV = m.opt('sim');
  if (sV) {
    const s = sV.map();
    const sim: NonNullable<RealServerConfig['sim']> = {};
    const c = s.opt('capacity')?.int({ min: 1, max: 100_000_000 });
    if (c !== undefined) sim.capacity = c;
    for (const k of ['cpu', 'mem', 'queue'] as const) {
      const x = s.opt(k)?.num({ min: 0, max: 1 });
      if (x !== undefined) sim[k] = x;
    }
    const dV = s.opt('down');
    if (dV) {
      sim.down = dV.list().map((w) => {
        const wm = w.map();
        const from = wm.req('from').duration({ min: 0 });
        const toV = wm.req('to');
        const to = toV.duration({ min: 0 });
        if (to <= from) toV.fail('must be later than from');
        wm.done(['from', 'to']);
        return { from, to };
      });
    }
    s.done(['capacity', 'cpu', 'mem', 'queue', 'down']);
    rs.sim = sim;
  }
  m.done(['name', 'address', 'weight', 'forwarding', 'sim']);
  return rs;
}

function readAcl(v: Value): AclRuleConfig {
  const m = v.map();
  const r: AclRuleConfig = {
    priority: m.req('priority').int({ min: 0, max: 1_000_000 }),
    action: m.req('action').oneOf(['drop', 'permit'] as const),
  };
  const src = m.opt('src');
  if (src) r.src = readPrefix(src);
  const dst = m.opt('dst');
  if (dst) r.dst = readPrefix(dst);
  const p = m.opt('protocol');
  if (p) r.protocol = p.oneOf(['tcp', 'udp', 'sctp', 'any'] as const);
  const dp = m.opt('dport');
  if (dp) r.dport = dp.int({ min: 0, max: 65535 });
  m.done(['src', 'dst', 'protocol', 'dport', 'priority', 'action']);
  return r;
}

