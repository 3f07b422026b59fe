/**
 * HA roles as the shelf shows them: the HA layer reports each node's role (per share for the
 * processor boards) with its epoch — display and audit only, never restored as authority. Each
 * change is persisted and logged as a SEL record of the controller's HA role sensor; when the active
 * ShMC changes, the shelf-manager address follows it.
 *
 * Sources: IPMI v2.0 Table 42-2 (availability offsets, reading type 0Ah); research/ha.md §5 (roles).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import type { HaRoleRecord } from '../../persistence/store.ts';
import { eventSensor } from '../../sensors/event-sensors.ts';
import type { SelEventInput } from '../../sensors/sel.ts';
import { READING_TYPE, SENSOR_TYPE } from '../../sensors/sensor-types.ts';
import { HA_ROLES, type HaRoleName } from '../events.ts';
import type { ShelfContext } from './context.ts';
import type { ShelfSel } from './sel.ts';

/** Role → availability offset (IPMI Table 42-2, type 0Ah) used in role-change SEL records. */
const ROLE_OFFSET: Readonly<Record<HaRoleName, number>> = {
  booting: 0x01,
  arbitrating: 0x01,
  active: 0x03,
  'standby.ready': 0x05,
  'standby.hot': 0x05,
  resetting: 0x02,
  failed: 0x04,
};

/** OEM code of a role record naming its share: the logical slot number of `lb1/slot3`, 0 for a node's own key. */
function shareCode(key: string): number {
  const m = /\/slot(\d+)$/.exec(key);
  return m ? Number(m[1]) & 0xff : 0;
}

/** Availability offset 06h "Transition to Degraded" (Table 42-2, type 0Ah): a planned switchover abandoned. */
const DEGRADED_OFFSET = 0x06;

/** Role commands (`shelf.roles`). */
export class ShelfRoles {
  /** @param activeShmcChanged called when a role change moved the shelf-manager address */
  constructor(
    private readonly ctx: ShelfContext,
    private readonly sel: ShelfSel,
    private readonly activeShmcChanged: () => void,
  ) {}

  /**
   * The HA layer reports a node's role (display and audit only: never restored as authority).
   * Persisted with its epoch, logged as a SEL record (sensor type 28h Management Subsystem Health
   * for ShMCs, 15h Module/Board for boards; availability offsets: active = "Transition to On Line",
   * standby = "Off Duty", booting/arbitrating = "In Test", resetting = "Power Off", failed =
   * "Off Line"). Event data 1 = A0h | offset: data 2 holds the previous state (b3:0 its offset, Fh
   * for none; b7:4 severity Fh, unspecified) and data 3 an OEM code naming the share — the logical
   * slot of the share's home board (`lb1/slot3` → 3), 0 for a ShMC (its pair has one share)
   * (IPMI v2.0 §29.7 Table 29-6). A change that keeps the availability state (standby.ready →
   * standby.hot, booting → arbitrating, a new epoch of the same role) is persisted and announced
   * but logs no SEL record: one record per state change of a share. When the active ShMC changes,
   * the shelf-manager address follows it.
   * @param opts.share the processor share the role is for (e.g. 'lb1/slot3'); default the node itself
   * @throws CommandError('unknown_fru' | 'bad_value')
   */
  set(node: FruRef, role: HaRoleName, epoch: number, opts: { share?: string } = {}): void {
    const { frus, clock, store } = this.ctx;
    const rt = frus.get(node);
    if (!(HA_ROLES as readonly string[]).includes(role)) throw new CommandError('bad_value', `"${role}" is not a role (${HA_ROLES.join(', ')})`);
    if (!Number.isInteger(epoch) || epoch < 0) throw new CommandError('bad_value', `epoch ${epoch} must be a non-negative integer`);
    const key = opts.share ?? rt.cfg.name;
    const previous = rt.roles.get(key);
    if (previous && previous.role === role && previous.epoch === epoch) return;
    const wasActive = frus.activeShmc();
    rt.roles.set(key, { role, epoch });
    const rec: HaRoleRecord = { key, node: rt.cfg.name, role, epoch, at: this.sel.time() };
    // the controller's HA role sensor (chassis/sensors/event-sensors.ts); a FRU kind HA pairs are not
    // made of has none, and its role records carry the reserved number FFh
    const roleSensor = eventSensor(rt.cfg, 'ha-role');
    const prevOffset = previous ? ROLE_OFFSET[previous.role] : 0x0f;
    const sel: SelEventInput = {
      generatorId: frus.generatorFor(rt),
      sensorType: roleSensor?.sensorType ?? (rt.cfg.kind === 'shmc' ? SENSOR_TYPE.managementSubsystemHealth : SENSOR_TYPE.moduleBoard),
      sensorNumber: roleSensor?.number ?? 0xff,
      eventDirType: READING_TYPE.availability,
      eventData: [0xa0 | ROLE_OFFSET[role], 0xf0 | prevOffset, shareCode(key)],
    };
    const sameState = prevOffset === ROLE_OFFSET[role];
    try {
      this.sel.commit([], sameState ? [] : [sel], [{ type: 'role', at: clock.now(), node: rt.cfg.name, key, role, ...(previous ? { previous: previous.role } : {}), epoch }], () =>
        store.putRole(rec),
      );
    } catch (e) {
      if (previous) rt.roles.set(key, previous);
      else rt.roles.delete(key);
      throw e;
    }
    if (rt.cfg.kind === 'shmc' && wasActive !== frus.activeShmc()) this.activeShmcChanged();
  }

  /**
   * The HA layer abandoned an accepted planned switchover on its timeout (the owner keeps the
   * share): a SEL record of the controller's HA role sensor, availability offset 06h "Transition to
   * Degraded" (IPMI v2.0 Table 42-2, type 0Ah); data 2 = `reasonCode` (1: the final sync was never
   * acknowledged, 2: the standby did not take the offered handover), data 3 = epoch mod 256.
   * Nothing else changes (the role stays active). @throws CommandError('unknown_fru' | 'bad_value')
   */
  handoverAborted(node: FruRef, reasonCode: 1 | 2, epoch: number): void {
    const { frus } = this.ctx;
    const rt = frus.get(node);
    if (!Number.isInteger(epoch) || epoch < 0) throw new CommandError('bad_value', `epoch ${epoch} must be a non-negative integer`);
    const roleSensor = eventSensor(rt.cfg, 'ha-role');
    this.sel.log({
      generatorId: frus.generatorFor(rt),
      sensorType: roleSensor?.sensorType ?? (rt.cfg.kind === 'shmc' ? SENSOR_TYPE.managementSubsystemHealth : SENSOR_TYPE.moduleBoard),
      sensorNumber: roleSensor?.number ?? 0xff,
      eventDirType: READING_TYPE.availability,
      eventData: [0xa0 | DEGRADED_OFFSET, reasonCode, epoch & 0xff],
    });
  }

  /** Current roles of a node (key → role, epoch). @throws CommandError('unknown_fru') */
  of(node: FruRef): Array<{ key: string; role: HaRoleName; epoch: number }> {
    return [...this.ctx.frus.get(node).roles].map(([key, v]) => ({ key, ...v }));
  }
}
