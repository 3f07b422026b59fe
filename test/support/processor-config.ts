/**
 * Test support: small processor configurations.
 */
import type { ProcessorConfig, RealServerConfig, VirtualServiceConfig } from '../../board/processor/processor-config.ts';
import { DEFAULT_HEALTH, DEFAULT_SESSION_TABLE, DEFAULT_TIMEOUTS } from '../../board/processor/processor-config.ts';

/** `n` simulated real servers rs0.. at 10.1.0.1.. with weight 1. */
export function servers(n: number, prefix = 'rs'): RealServerConfig[] {
  return Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, address: `10.1.0.${i + 1}`, weight: 1 }));
}

/** A service with defaults: VIP 192.0.2.10:80/tcp, wrr, no persistence, IPIP. */
export function service(over: Partial<VirtualServiceConfig> = {}): VirtualServiceConfig {
  return {
    name: 'web',
    vip: '192.0.2.10',
    port: 80,
    protocol: 'tcp',
    scheduler: 'wrr',
    persistenceMs: 0,
    encapsulation: 'ipip',
    pool: servers(3),
    health: { ...DEFAULT_HEALTH },
    alarmBelow: 0.5,
    ...over,
  };
}

/** A board configuration with small tables. */
export function config(services: VirtualServiceConfig[], over: Partial<ProcessorConfig> = {}, capacity = 1000): ProcessorConfig {
  return {
    sessions: { ...DEFAULT_SESSION_TABLE, capacity, hotCapacity: Math.min(64, capacity) },
    timeouts: { ...DEFAULT_TIMEOUTS },
    services,
    acl: [],
    ...over,
  };
}
