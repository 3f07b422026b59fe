/**
 * Configuration of the processor boards' stateful stage, as the shelf YAML's `dataplane` section
 * gives it (parsed and validated by chassis/config; defaults below). Durations in ms.
 */

import type { ForwardingMode } from './forwarding/translation.ts';

export type SchedulerName = 'rr' | 'wrr' | 'lc' | 'wlc' | 'sh' | 'maglev' | 'dynamic';
export type Protocol = 'tcp' | 'udp' | 'sctp' | 'any';
export type Encapsulation = 'ipip' | 'gre';
export type HealthKind = 'icmp' | 'tcp' | 'http' | 'udp';
export type { ForwardingMode } from './forwarding/translation.ts';

/** A real server. `address` 'a.b.c.d' or IPv6 text; with a port ('127.0.0.1:8080') and kind
 * tcp/http it is probed for real, otherwise it is simulated. */
export interface RealServerConfig {
  name: string;
  address: string;
  port?: number;
  /** IPVS-style weight, 0..65535; 0 = drain. Default 1. */
  weight: number;
  /** This member's forwarding mode, overriding its service's (live mode; see forwarding/translation.ts). */
  forwarding?: ForwardingMode;
  /** Simulated RS model (ignored for real ones). */
  sim?: {
    /** Connections it can hold before its queue builds, default 10000. */
    capacity?: number;
    /** Baseline utilisations in 0..1, default 0.2 / 0.3 / 0. */
    cpu?: number;
    mem?: number;
    queue?: number;
    /** Failure schedule: intervals (ms since start) during which probes fail. */
    down?: Array<{ from: number; to: number }>;
  };
}

export interface HealthCheckConfig {
  kind: HealthKind;
  /** Probe interval, default 5000 ms (the ATCA processor-card design). */
  intervalMs: number;
  /** Probe timeout, default 1000 ms. */
  timeoutMs: number;
  /** Consecutive successes to mark up (default 2) / failures to mark down (default 3). */
  rise: number;
  fall: number;
  /** HTTP path for kind http, default '/'. */
  path?: string;
}

/** A virtual service: VIP:port:protocol → RS pool. */
export interface VirtualServiceConfig {
  name: string;
  /** Address or prefix ('10.0.0.1', '0.0.0.0/0', '::/0'); a prefix makes a wildcard VIP. */
  vip: string;
  /** Port, or 0 for any port. */
  port: number;
  protocol: Protocol;
  scheduler: SchedulerName;
  /** Persistence (client → RS stickiness) timeout, 0 = off. */
  persistenceMs: number;
  encapsulation: Encapsulation;
  /** Maglev table size (prime), default 65537. */
  maglevTableSize?: number;
  pool: RealServerConfig[];
  /** How packets reach the pool (default 'tunnel': IPIP/GRE as `encapsulation` says). */
  forwarding?: ForwardingMode;
  health: HealthCheckConfig;
  /** Raise an alarm when the live share of the pool's weight falls below this (0..1), default 0.5. */
  alarmBelow: number;
}

/** A ternary ACL rule: value/mask over (src, dst, proto, sport, dport); first match by priority wins. */
export interface AclRuleConfig {
  /** Source prefix, e.g. '198.51.100.0/24'; omitted = any. */
  src?: string;
  dst?: string;
  protocol?: Protocol;
  dport?: number;
  /** Higher wins. */
  priority: number;
  action: 'drop' | 'permit';
}

export interface SessionTableConfig {
  /** Exact-match entries per board, default 1,500,000 (XLR-class card with TCAM extension). */
  capacity: number;
  /** Entries in the on-chip (hot) tier, default 65,536. */
  hotCapacity: number;
  /** Hits after which an entry is promoted to the hot tier, default 8. */
  promoteAfterHits: number;
  /** Ternary (ACL) table capacity, default 4096. */
  aclCapacity: number;
  /** Persistence (client → RS stickiness) entries per board, default 262,144. Optional. */
  persistenceCapacity?: number;
}

/** IPVS-like timeouts (ms). Defaults: SYN_RECV 60 s, ESTABLISHED 900 s, FIN_WAIT 120 s,
 * CLOSE 10 s, UDP 300 s, other IP protocols 60 s (ipvsadm --set defaults are 900/120/300). */
export interface TimeoutConfig {
  tcpSynRecv: number;
  tcpEstablished: number;
  tcpFinWait: number;
  tcpClose: number;
  udp: number;
  other: number;
  /** TCP TIME_WAIT (both sides sent FIN), default 120 s as IPVS. Optional. */
  tcpTimeWait?: number;
}

export interface ProcessorConfig {
  sessions: SessionTableConfig;
  timeouts: TimeoutConfig;
  services: VirtualServiceConfig[];
  acl: AclRuleConfig[];
  /** What a TCP segment other than a SYN does when it finds no session. true (default): the
   * session is picked up mid-stream (replayed real captures usually start mid-connection);
   * false: strict mode, the segment is dropped with reason `no_session` (SYN-flood defence). */
  midstreamPickup?: boolean;
  /** Outer source address of IPIP/GRE tunnels to the RS, default 10.255.0.<slot> /
   * fd00:a7ca::<slot>. */
  tunnelSourceV4?: string;
  tunnelSourceV6?: string;
  /** Seed of the session/flow hash (both boards of an HA pair must use the same), default 0x9e3779b9. */
  hashSeed?: number;
}

export const DEFAULT_SESSION_TABLE: Readonly<SessionTableConfig> = {
  capacity: 1_500_000,
  hotCapacity: 65_536,
  promoteAfterHits: 8,
  aclCapacity: 4096,
  persistenceCapacity: 262_144,
};

export const DEFAULT_TIMEOUTS: Readonly<TimeoutConfig> = {
  tcpSynRecv: 60_000,
  tcpEstablished: 900_000,
  tcpFinWait: 120_000,
  tcpClose: 10_000,
  udp: 300_000,
  other: 60_000,
  tcpTimeWait: 120_000,
};

export const DEFAULT_HEALTH: Readonly<HealthCheckConfig> = {
  kind: 'icmp',
  intervalMs: 5000,
  timeoutMs: 1000,
  rise: 2,
  fall: 3,
};
