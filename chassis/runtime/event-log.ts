/**
 * Logs what happens in a running emulator as structured events (the headless mode's JSON lines;
 * the log file in TUI mode): hot-swap transitions, SEL records with their text, faults, service
 * changes and sessions lost, HA role changes, SEL overflow, RS health and pool alarms. Every
 * line has an `event` field; the rest are snake_case fields. Other shelf events go to `debug`.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { DataPlaneEvent } from '../dataplane/types.ts';
import { plannedOutWord } from '../model/out-of-service.ts';
import type { Emulator } from './emulator.ts';

type RsEvent = Extract<DataPlaneEvent, { detail: string }>;
type PoolEvent = Extract<DataPlaneEvent, { liveShare: number }>;

/**
 * Subscribes to a data-plane event whose type shares its variant with another (`rs.down` and
 * `rs.up` are one variant of DataPlaneEvent, so `DataPlaneEventOf<'rs.down'>` is `never`):
 * the listener gets the variant's type.
 */
function onVariant<E extends DataPlaneEvent>(em: Emulator, type: E['type'], fn: (e: E) => void): () => void {
  return em.dataPlane.on(type, fn as never);
}

/** Subscribes the logger to the emulator's events. @returns a function that unsubscribes */
export function logEmulatorEvents(em: Emulator, log: Logger): () => void {
  const l = log.child({ module: 'chassis.events' });
  const offs: Array<() => void> = [];
  offs.push(
    em.shelf.onAny((e) => {
      switch (e.type) {
        case 'hotswap':
          l.info({ event: 'hotswap', fru: e.fru, from: `M${e.from}`, to: `M${e.to}`, cause: e.cause }, `${e.fru} M${e.from} -> M${e.to}`);
          return;
        case 'sel.added': {
          const f = em.events.entryOf(e.record);
          l.info({ event: 'sel', record_id: f.recordId, source: f.source, text: f.text }, f.text);
          return;
        }
        case 'sel.full':
          l.warn({ event: 'sel_full' }, 'SEL full: record not logged (overflow flag set)');
          return;
        case 'fault':
          l.warn({ event: 'fault', fru: e.fru, fault: e.fault, active: e.active }, `${e.fru} ${e.fault} fault ${e.active ? 'injected' : 'repaired'}`);
          return;
        case 'service':
          l.info({ event: 'service', fru: e.fru, slot: e.slot, in_service: e.inService, sessions_lost: e.sessionsLost }, `${e.fru} ${e.inService ? 'in' : 'out of'} service`);
          return;
        case 'role': {
          // a member whose board left on purpose is `failed` to the HA layer, but not failed: say off/out
          const f = e.role === 'failed' ? em.shelf.snapshot().frus.find((x) => x.name === e.node) : undefined;
          const word = f ? plannedOutWord(f.state, f.lastCause) : undefined;
          const text = word === 'off' ? 'off (planned, out of service)' : word === 'out' ? 'out (not in the shelf)' : e.role;
          l.info({ event: 'role', node: e.node, key: e.key, role: e.role, ...(word ? { service: word } : {}), previous: e.previous ?? null, epoch: e.epoch }, `${e.key}: ${e.node} ${text}`);
          return;
        }
        default:
          l.debug({ event: 'chassis', ...e }, e.type);
      }
    }),
  );
  offs.push(onVariant<RsEvent>(em, 'rs.down', (e) => l.warn({ event: 'rs_down', slot: e.slot, service: e.service, rs: e.rs, detail: e.detail }, `slot${e.slot} ${e.service}/${e.rs} down`)));
  offs.push(onVariant<RsEvent>(em, 'rs.up', (e) => l.info({ event: 'rs_up', slot: e.slot, service: e.service, rs: e.rs }, `slot${e.slot} ${e.service}/${e.rs} up`)));
  offs.push(
    onVariant<PoolEvent>(em, 'pool.alarm.raised', (e) =>
      l.warn({ event: 'pool_alarm', slot: e.slot, service: e.service, live_share: e.liveShare, raised: true }, `slot${e.slot} ${e.service}: pool alarm`),
    ),
  );
  offs.push(
    onVariant<PoolEvent>(em, 'pool.alarm.cleared', (e) =>
      l.info({ event: 'pool_alarm', slot: e.slot, service: e.service, live_share: e.liveShare, raised: false }, `slot${e.slot} ${e.service}: pool alarm cleared`),
    ),
  );
  return () => {
    for (const o of offs) o();
  };
}
