/**
 * Fan trays' fan levels: the shelf manager (or the tray itself, under local control) sets a level;
 * the tray's fan speed sensors follow (speed = nominal × level / normal level), and crossing their
 * thresholds is logged like any other reading.
 *
 * Sources: PICMG 3.0 Get Fan Speed Properties, Set/Get Fan Level (2Ch/14h–16h); research/ipmi.md §C.
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import type { ShelfContext } from './context.ts';
import type { FruRuntime } from './frus.ts';
import type { ShelfSel } from './sel.ts';
import type { ShelfSensors } from './sensors.ts';

/** Fan commands (`shelf.fans`). */
export class ShelfFans {
  constructor(
    private readonly ctx: ShelfContext,
    private readonly sel: ShelfSel,
    private readonly sensors: ShelfSensors,
  ) {}

  /** Get Fan Speed Properties (PICMG 2Ch/14h). @throws CommandError('unsupported') for a FRU without fans */
  properties(ref: FruRef): { minLevel: number; maxLevel: number; normalLevel: number; localControl: boolean } {
    const rt = this.ctx.frus.get(ref);
    if (!rt.cfg.fan) throw new CommandError('unsupported', `${rt.cfg.name} has no fans`);
    return { ...rt.cfg.fan, localControl: true };
  }

  /** Get Fan Level (PICMG 2Ch/16h). @throws CommandError('unsupported') for a FRU without fans */
  level(ref: FruRef): { level: number; local: boolean } {
    const rt = this.ctx.frus.get(ref);
    if (!rt.cfg.fan || !rt.fan) throw new CommandError('unsupported', `${rt.cfg.name} has no fans`);
    return { level: rt.fan.level, local: rt.fan.local };
  }

  /**
   * Set Fan Level (PICMG 2Ch/15h): the fan speed sensors follow (speed = nominal × level / normal
   * level), which may cross their thresholds. @throws CommandError('unsupported' | 'out_of_range' | 'not_present')
   */
  setLevel(ref: FruRef, level: number, localControl?: boolean): void {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const f = rt.cfg.fan;
    if (!f || !rt.fan) throw new CommandError('unsupported', `${rt.cfg.name} has no fans`);
    if (!Number.isInteger(level) || level < f.minLevel || level > f.maxLevel) throw new CommandError('out_of_range', `fan level ${level} out of range ${f.minLevel}..${f.maxLevel}`);
    rt.fan.level = level;
    if (localControl !== undefined) rt.fan.local = localControl;
    this.sel.commit([rt], [], [{ type: 'fan.level', at: this.ctx.clock.now(), fru: rt.cfg.name, level, local: rt.fan.local }]);
    this.applySpeed(rt, true);
  }

  /** Sets the tray's fan speed sensors from its level; `log` = crossings logged (false at boot). */
  applySpeed(rt: FruRuntime, log: boolean): void {
    const f = rt.cfg.fan!;
    const level = rt.fan!.level;
    for (const s of rt.sensors.thresholds.values()) {
      if (s.def.sensorType !== 0x04) continue;
      const v = f.normalLevel > 0 ? (s.def.nominal * level) / f.normalLevel : s.def.nominal;
      const evs = s.setValue(v);
      if (log) this.sensors.changed(rt, s, evs);
    }
  }
}
