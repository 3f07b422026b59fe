/**
 * The shelf YAML's `dataplane.services` written back from the configuration (the inverse of the
 * service reader in dataplane-section.ts): after a run-time change of the services
 * (`atcasim lb`) the shelf stores the shelf YAML with its new services, so a restart, `config
 * export` and `config check` all read the shelf now in force. Everything else of the document
 * (other sections, their comments) is kept as it was; the services are written out in full
 * (YAML anchors among them are expanded).
 */
import { parseDocument } from 'yaml';
import type { RealServerConfig, VirtualServiceConfig } from '../../board/processor/processor-config.ts';
import { formatDuration, parseDuration } from './duration.ts';

function dur(ms: number): string {
  const t = formatDuration(ms);
  return parseDuration(t) === ms ? t : `${ms}ms`;
}

function server(r: RealServerConfig): Record<string, unknown> {
  const o: Record<string, unknown> = {
    name: r.name,
    address: r.port === undefined ? r.address : r.address.includes(':') ? `[${r.address}]:${r.port}` : `${r.address}:${r.port}`,
    weight: r.weight,
  };
  if (r.forwarding !== undefined) o.forwarding = r.forwarding;
  if (r.sim !== undefined) {
    const sim: Record<string, unknown> = { ...r.sim };
    if (r.sim.down !== undefined) sim.down = r.sim.down.map((w) => ({ from: dur(w.from), to: dur(w.to) }));
    o.sim = sim;
  }
  return o;
}

/** One service as the YAML writes it (keys of docs/shelf.md, durations as text). */
export function serviceToYaml(s: VirtualServiceConfig): Record<string, unknown> {
  const o: Record<string, unknown> = { name: s.name, vip: s.vip, port: s.port, protocol: s.protocol, scheduler: s.scheduler };
  if (s.schedulerFlags !== undefined) o.scheduler_flags = [...s.schedulerFlags];
  o.persistence = dur(s.persistenceMs);
  if (s.persistenceNetmask !== undefined) o.persistence_netmask = s.persistenceNetmask;
  o.encapsulation = s.encapsulation;
  if (s.forwarding !== undefined) o.forwarding = s.forwarding;
  if (s.clientAddress !== undefined) o.client_address = s.clientAddress;
  if (s.maglevTableSize !== undefined) o.maglev_table_size = s.maglevTableSize;
  const h: Record<string, unknown> = { kind: s.health.kind, interval: dur(s.health.intervalMs), timeout: dur(s.health.timeoutMs), rise: s.health.rise, fall: s.health.fall };
  if (s.health.path !== undefined) h.path = s.health.path;
  o.health = h;
  o.alarm_below = s.alarmBelow;
  o.pool = s.pool.map(server);
  return o;
}

/**
 * `yaml` (a shelf YAML text) with its `dataplane.services` replaced by `services`.
 * @returns the new YAML text
 * @throws Error when `yaml` does not parse (the caller's stored text always does)
 */
export function withServices(yaml: string, services: readonly VirtualServiceConfig[]): string {
  const doc = parseDocument(yaml);
  if (doc.errors.length > 0) throw new Error(`shelf YAML: ${doc.errors[0]!.message}`);
  const node = doc.createNode(services.map(serviceToYaml), { aliasDuplicateObjects: false });
  doc.setIn(['dataplane', 'services'], node);
  return doc.toString({ lineWidth: 0 });
}
