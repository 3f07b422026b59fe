/**
 * Virtual services and the rule table: VIP:port:protocol → RS pool, scheduler, persistence
 * timeout and encapsulation (TGW's rule table keyed by VIP + VPORT; IPVS virtual services).
 *
 * A VIP may be a prefix ('10.0.0.0/8', '0.0.0.0/0', '::/0'): a wildcard VIP; '*' matches any
 * destination of either family (the default shelf's catch-all). Port 0 means any port and
 * protocol 'any' any protocol. The rule table is a ternary table (tcam/ternary-table.ts)
 * over (family, protocol, destination address, destination port) whose priority encodes
 * specificity, so a lookup returns the most specific service first: the longest VIP prefix,
 * then a specific port over any port, then a specific protocol over any; services equal in all
 * three keep configuration order (the first wins).
 * Packets without ports (other protocols, fragments) have port 0 and so match only any-port
 * services.
 */
import type { FlowTuple } from '../packet/flow-tuple.ts';
import type { ClientAddressMode } from './forwarding/client-address.ts';
import type { Encapsulation, HealthCheckConfig, Protocol, VirtualServiceConfig } from './processor-config.ts';
import { DEFAULT_HEALTH } from './processor-config.ts';
import { parsePrefix, word } from './ip-address.ts';
import { TernaryTable } from './tcam/ternary-table.ts';
import type { Scheduler } from './scheduler/scheduler.ts';
import type { RealServer } from './real-server.ts';

/** IP protocol numbers of the configuration's protocol names; −1 = any. */
export function protocolNumber(p: Protocol): number {
  switch (p) {
    case 'tcp': return 6;
    case 'udp': return 17;
    case 'sctp': return 132;
    case 'any': return -1;
    default: throw new TypeError(`unknown protocol '${String(p)}' (tcp, udp, sctp, any)`);
  }
}

/** A configured virtual service with its runtime parts (pool, scheduler, alarm state). */
export class VirtualService {
  readonly index: number;
  readonly name: string;
  /** VIP as configured ('10.0.0.1', '0.0.0.0/0'). */
  readonly vip: string;
  /** 4 or 6; 0 for the VIP '*' (any destination of either family). */
  readonly family: 0 | 4 | 6;
  readonly prefix: Uint8Array;
  readonly prefixLength: number;
  readonly port: number;
  /** IP protocol number, −1 = any. */
  readonly proto: number;
  readonly persistenceMs: number;
  /** Leading bits of the client address a persistence template is keyed by (ipvsadm -M). */
  readonly persistenceBits: number;
  readonly encapsulation: Encapsulation;
  /** Under `fullnat`: how the RS learns the client's address (forwarding/client-address.ts). */
  readonly clientAddress: ClientAddressMode;
  readonly health: HealthCheckConfig;
  readonly alarmBelow: number;
  readonly scheduler: Scheduler;
  readonly members: RealServer[];
  /** True while the pool's live share is below alarmBelow. */
  alarmRaised = false;

  /** @throws TypeError on a bad VIP, port, persistence timeout or threshold (message names the service) */
  constructor(index: number, cfg: VirtualServiceConfig, scheduler: Scheduler, members: RealServer[]) {
    const where = `virtual service '${cfg.name}'`;
    let p: { family: 0 | 4 | 6; bytes: Uint8Array; length: number };
    if (cfg.vip.trim() === '*') {
      p = { family: 0, bytes: new Uint8Array(16), length: 0 };
    } else {
      try {
        p = parsePrefix(cfg.vip);
      } catch (err) {
        throw new TypeError(`${where}: ${(err as Error).message}`);
      }
    }
    if (!Number.isInteger(cfg.port) || cfg.port < 0 || cfg.port > 65535) throw new TypeError(`${where}: port must be 0..65535`);
    if (!(cfg.persistenceMs >= 0)) throw new TypeError(`${where}: persistenceMs must be ≥ 0`);
    const full = p.family === 6 ? 128 : 32;
    const bits = cfg.persistenceNetmask ?? full;
    if (cfg.persistenceNetmask !== undefined && p.family === 0) throw new TypeError(`${where}: a persistence netmask needs a VIP of one family (not '*')`);
    if (!(Number.isInteger(bits) && bits >= 0 && bits <= full)) throw new TypeError(`${where}: persistence netmask must be a prefix length 0..${full}, got ${bits}`);
    const alarm = cfg.alarmBelow ?? 0.5;
    if (!(alarm >= 0 && alarm <= 1)) throw new TypeError(`${where}: alarmBelow must be in 0..1`);
    const names = new Set<string>();
    for (const m of members) {
      if (names.has(m.name)) throw new TypeError(`${where}: duplicate real server name '${m.name}'`);
      names.add(m.name);
    }
    this.index = index;
    this.name = cfg.name;
    this.vip = cfg.vip;
    this.family = p.family;
    this.prefix = p.bytes;
    this.prefixLength = p.length;
    this.port = cfg.port;
    this.proto = protocolNumber(cfg.protocol);
    this.persistenceMs = cfg.persistenceMs;
    this.persistenceBits = bits;
    this.encapsulation = cfg.encapsulation ?? 'ipip';
    this.clientAddress = cfg.clientAddress ?? 'none';
    if (this.encapsulation !== 'ipip' && this.encapsulation !== 'gre') throw new TypeError(`${where}: encapsulation must be ipip or gre`);
    this.health = { ...DEFAULT_HEALTH, ...cfg.health };
    this.alarmBelow = alarm;
    this.scheduler = scheduler;
    this.members = members;
  }
}

/** Key words of the rule table: [family << 8 | proto, dst words 0..3, dport]. */
const RULE_WORDS = 6;

/** Most-specific-first lookup of the virtual service a new connection belongs to. */
export class RuleTable {
  private readonly table: TernaryTable;
  private readonly key = new Uint32Array(RULE_WORDS);

  /** @throws TernaryTableFullError never in practice (capacity = number of services) */
  constructor(services: readonly VirtualService[]) {
    this.table = new TernaryTable(RULE_WORDS, Math.max(1, services.length));
    for (const s of services) {
      const value = [(s.family << 8) | (s.proto < 0 ? 0 : s.proto), 0, 0, 0, 0, s.port];
      const mask = [(s.family ? 0xff00 : 0) | (s.proto < 0 ? 0 : 0xff), 0, 0, 0, 0, s.port === 0 ? 0 : 0xffff];
      for (let w = 0; w < 4; w++) {
        const bits = Math.max(0, Math.min(32, s.prefixLength - 32 * w));
        mask[1 + w] = bits === 0 ? 0 : bits === 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
        value[1 + w] = word(s.prefix, w);
      }
      const priority = s.prefixLength * 4 + (s.port !== 0 ? 2 : 0) + (s.proto >= 0 ? 1 : 0);
      this.table.add(value, mask, priority, s.index);
    }
  }

  /**
   * The service for a packet's destination, or −1 (no rule). No allocation.
   * @param t the packet's IP header (its destination is the VIP of a new connection)
   */
  lookup(t: FlowTuple): number {
    const k = this.key;
    const dport = t.hashPorts ? t.dport : 0;
    k[0] = (t.family << 8) | (t.proto & 0xff);
    const d = t.dst;
    for (let w = 0; w < 4; w++) {
      const o = w << 2;
      k[1 + w] = ((d[o]! << 24) | (d[o + 1]! << 16) | (d[o + 2]! << 8) | d[o + 3]!) >>> 0;
    }
    k[5] = dport;
    const id = this.table.lookup(k);
    return id < 0 ? -1 : this.table.resultOf(id);
  }
}
