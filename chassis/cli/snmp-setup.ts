/**
 * The SNMP part of `atcasim start` / `atcasim shelf` (docs/snmp.md): which port (`--snmp-port` over
 * the YAML's `snmp.port`; neither = no agent), the refusal of an agent nobody could read, and the
 * single-process composition — the SnmpFeed (chassis/snmp/feed.ts) following the Shelf's events into
 * the net-snmp agent (chassis/io/snmp-agent.ts). In split mode the split part serves it instead
 * (./split-setup.ts: the active ShMC's process runs the agent).
 */
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { ShelfConfig } from '../config/types.ts';
import { SnmpAgent } from '../io/snmp-agent.ts';
import type { Emulator } from '../runtime/emulator.ts';
import { engineIdOf } from '../snmp/engine-id.ts';
import { SnmpFeed } from '../snmp/feed.ts';

/** A running SNMP endpoint. */
export interface SnmpEndpoint {
  /** `host:port` (the ready line's `snmp`). */
  address: string;
  /** The engine ID in force (hex), for receivers of SNMPv3 notifications. */
  engineId: string;
  stop(): Promise<void>;
}

/**
 * The port the agent is to serve on, or undefined for none.
 * @returns a refusal message instead when an agent is asked for but the YAML lets nobody read it
 */
export function snmpPortOf(config: ShelfConfig, flag: number | undefined): { port?: number; refusal?: string } {
  const port = flag ?? config.snmp.port;
  if (port === undefined) return {};
  const s = config.snmp;
  if (s.communities.length === 0 && s.users.length === 0) {
    return { refusal: `${flag !== undefined ? '--snmp-port' : 'snmp.port'}: the shelf YAML's snmp section lists no communities and no users, so nobody could read the agent (add snmp.communities or snmp.users; docs/snmp.md)` };
  }
  return { port };
}

/**
 * Starts the agent on `port` and the feed that keeps it current.
 * @throws SnmpStartError (DES unavailable), the bind error (EADDRINUSE …)
 */
export async function startSnmpEndpoint(em: Emulator, port: number, clock: Clock, log: Logger): Promise<SnmpEndpoint> {
  const s = em.config.snmp;
  const engineId = engineIdOf(em.config);
  const agent = await SnmpAgent.start({ settings: s, engineId, bind: s.bind, port, clock, log: log.child({ module: 'snmp' }) });
  const feed = new SnmpFeed(em.shelf, clock, agent);
  const address = `${agent.address.address.includes(':') ? `[${agent.address.address}]` : agent.address.address}:${agent.address.port}`;
  log.info({ category: 'snmp', address, engine_id: engineId, communities: s.communities.length, users: s.users.length, receivers: s.notify.length }, `SNMP agent on ${address}`);
  return {
    address,
    engineId,
    stop: async () => {
      feed.stop();
      await agent.stop();
    },
  };
}
