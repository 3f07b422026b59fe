/**
 * Power levels and the shelf's power budget: the PEMs in M4 without a fault supply it; every FRU
 * draws the watts of its present level. Before a FRU leaves M2 the shelf manager negotiates (as
 * Compute Power Properties + Set Power Level do): the highest level ≤ the desired one that the
 * remaining budget covers; a FRU that not even level 1 fits waits in M2, with an
 * `activation.waiting` event (reason power_budget, W needed and available). PEMs are always granted.
 *
 * Sources: PICMG 3.0 §3.9 (power management; Compute Power Properties, Set/Get Power Level:
 * 2Ch/10h–12h).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import { drawAt, powerLevelInfo, type PowerLevelInfo, type PowerLevelType } from '../power.ts';
import type { ShelfContext } from './context.ts';
import type { FruRuntime } from './frus.ts';
import type { ShelfSel } from './sel.ts';

/** Power commands and the budget (`shelf.power`). */
export class ShelfPower {
  constructor(
    private readonly ctx: ShelfContext,
    private readonly sel: ShelfSel,
  ) {}

  /** Power budget of the shelf: capacity of the PEMs in M4 without a fault (W); Infinity without PEMs. */
  budgetW(): number {
    const pems = this.ctx.frus.ofKind('pem');
    if (pems.length === 0) return Infinity;
    return pems.filter((r) => r.hs.context.state === 4 && r.faults.size === 0).reduce((n, r) => n + (r.cfg.capacityW ?? 0), 0);
  }

  /** Power drawn at the present levels (W), leaving out `except`. */
  usedW(except?: FruRuntime): number {
    return this.ctx.frus.all.filter((r) => r !== except).reduce((n, r) => n + drawAt(r.cfg.power, r.power.level), 0);
  }

  /**
   * Compute Power Properties + Set Power Level as the shelf manager does before M2 → M3: sets the
   * granted level (announced as `power.level`). @returns false (announced as `activation.waiting`)
   * when the budget does not cover level 1
   */
  negotiate(rt: FruRuntime): boolean {
    if (rt.cfg.kind === 'pem') {
      rt.power.level = rt.power.desired;
      return true;
    }
    const now = this.ctx.clock.now();
    const available = this.budgetW() - this.usedW(rt);
    for (let level = rt.power.desired; level >= 1; level--) {
      const w = drawAt(rt.cfg.power, level);
      if (w <= available) {
        rt.power.level = level;
        this.ctx.events.emit({ type: 'power.level', at: now, fru: rt.cfg.name, level, watts: w });
        return true;
      }
    }
    this.ctx.events.emit({ type: 'activation.waiting', at: now, fru: rt.cfg.name, reason: 'power_budget', neededW: drawAt(rt.cfg.power, 1), availableW: Math.max(0, available) });
    return false;
  }

  /** Compute Power Properties (PICMG 2Ch/10h): slots spanned and IPMC location. @throws CommandError('not_present') */
  computeProperties(ref: FruRef): { spannedSlots: number; ipmcLocation: number } {
    this.ctx.frus.requirePresent(this.ctx.frus.get(ref));
    return { spannedSlots: 1, ipmcLocation: 0 };
  }

  /** Get Power Level (PICMG 2Ch/12h). */
  level(ref: FruRef, type: PowerLevelType = 'steady'): PowerLevelInfo {
    const rt = this.ctx.frus.get(ref);
    return powerLevelInfo({ ...rt.cfg.power, desiredLevel: rt.power.desired }, rt.power.level, type);
  }

  /**
   * Set Power Level (PICMG 2Ch/11h). `level` 0 powers the payload off (an active FRU deactivates:
   * → M6 → M1); 1..n sets the present level within the power budget; 'no-change' (FFh) keeps it.
   * `copyDesired` copies the desired level to the present level.
   * @throws CommandError('out_of_range' | 'power_budget' | 'not_present')
   */
  setLevel(ref: FruRef, level: number | 'no-change', copyDesired = false): { level: number; watts: number } {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    frus.requirePresent(rt);
    const p = rt.power;
    const n = rt.cfg.power.levelsW.length;
    let target = level === 'no-change' ? p.level : level;
    if (copyDesired) target = p.desired;
    if (!Number.isInteger(target) || target < 0 || target > n) throw new CommandError('out_of_range', `power level ${target} out of range 0..${n}`);
    const s = rt.hs.context.state;
    if (target === 0) {
      if (s >= 3 && s <= 5) frus.dispatch(rt, 'shm.deactivate');
      return { level: p.level, watts: drawAt(rt.cfg.power, p.level) };
    }
    const w = drawAt(rt.cfg.power, target);
    if (p.level > 0 || s === 2 || s === 3 || s === 4) {
      if (w > this.budgetW() - this.usedW(rt)) throw new CommandError('power_budget', `${w} W for ${rt.cfg.name} exceeds the remaining power budget`);
      p.level = target;
    } else {
      // Inactive FRU: the level becomes the desired one for its next activation.
      p.desired = target;
    }
    this.sel.commit([rt], [], [{ type: 'power.level', at: this.ctx.clock.now(), fru: rt.cfg.name, level: p.level, watts: drawAt(rt.cfg.power, p.level) }]);
    return { level: p.level, watts: drawAt(rt.cfg.power, p.level) };
  }
}
