/**
 * The boards' payload as the data plane sees it: a hub or processor board carries traffic while it
 * is in M4 and its payload is not restarting; every change is pushed to the data plane (which
 * reports the sessions a leaving board lost) and announced. FRU Control resets and reboots restart
 * the payload of an active board: it leaves service for one hot-swap step and comes back, the
 * M-state staying M4.
 *
 * Sources: PICMG 3.0 FRU Control and FRU Control Capabilities (2Ch/04h, 2Ch/1Eh).
 */
import type { TimerId } from '../../../board/common/clock.ts';
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import type { DataPlanePort } from '../data-plane-port.ts';
import type { FruControlOption } from '../events.ts';
import type { ShelfContext } from './context.ts';
import { isBoard, type FruRuntime } from './frus.ts';

/** Payload service and FRU Control (`shelf.payload`). */
export class ShelfPayload {
  private readonly resetTimers = new Map<string, TimerId>();
  private lost = 0;

  constructor(
    private readonly ctx: ShelfContext,
    private readonly dataPlane: DataPlanePort,
  ) {}

  /** Sessions lost by boards leaving service without a handover, since start. */
  get sessionsLost(): number {
    return this.lost;
  }

  /**
   * Brings a board's service state in line with its M-state and payload (`initial`: pushed to the
   * data plane whatever it was, and not announced — the shelf's boot). Other FRUs are skipped.
   */
  update(rt: FruRuntime, initial = false): void {
    if (!isBoard(rt)) return;
    const p = rt.payload;
    const want = rt.hs.context.state === 4 && !p.resetting;
    if (!initial && want === p.inService) return;
    p.inService = want;
    let lost = 0;
    try {
      lost = this.dataPlane.setInService(rt.cfg.slot!, want).sessionsLost;
    } catch (e) {
      this.ctx.log.error({ category: 'dataplane', fru: rt.cfg.name, err: String(e) }, 'data plane refused a service change');
    }
    if (lost > 0) {
      p.sessionsLost += lost;
      this.lost += lost;
    }
    if (!initial) this.ctx.events.emit({ type: 'service', at: this.ctx.clock.now(), fru: rt.cfg.name, slot: rt.cfg.slot!, inService: want, sessionsLost: lost });
  }

  /** FRU Control Capabilities (PICMG 2Ch/1Eh): the options besides cold reset. */
  controlCapabilities(ref: FruRef): FruControlOption[] {
    const c = this.ctx.frus.get(ref).cfg.fruControl;
    const out: FruControlOption[] = ['cold-reset'];
    if (c.warmReset) out.push('warm-reset');
    if (c.gracefulReboot) out.push('graceful-reboot');
    if (c.diagnosticInterrupt) out.push('diagnostic-interrupt');
    return out;
  }

  /**
   * FRU Control (PICMG 2Ch/04h). Resets and graceful reboots restart the payload of an active board:
   * it leaves service for one hot-swap step and comes back (its sessions are lost); the M-state stays
   * M4. A diagnostic interrupt only announces itself. (The HA wiring turns a cold reset of the
   * active ShMC into a switchover.)
   * @throws CommandError('unsupported' | 'not_present' | 'comm_lost')
   */
  control(ref: FruRef, option: FruControlOption): void {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    if (rt.hs.context.state === 7) throw new CommandError('comm_lost', `${rt.cfg.name} does not answer (M7)`);
    if (!this.controlCapabilities(rt.cfg.name).includes(option)) throw new CommandError('unsupported', `${rt.cfg.name} does not support ${option}`);
    this.ctx.events.emit({ type: 'fru.control', at: this.ctx.clock.now(), fru: rt.cfg.name, option });
    if (option !== 'diagnostic-interrupt' && rt.hs.context.state === 4) this.restart(rt);
  }

  /** Restarts a board's payload: out of service now, back one hot-swap step later. */
  restart(rt: FruRuntime): void {
    this.cancelRestart(rt);
    rt.payload.resetting = true;
    this.update(rt);
    const t = this.ctx.clock.setTimeout(() => {
      this.resetTimers.delete(rt.cfg.name);
      rt.payload.resetting = false;
      this.update(rt);
    }, this.ctx.config.hotSwap.stepMs);
    this.resetTimers.set(rt.cfg.name, t);
  }

  /** Ends a payload restart in progress (the FRU left M4 for M0 or M7). */
  cancelRestart(rt: FruRuntime): void {
    const t = this.resetTimers.get(rt.cfg.name);
    if (t !== undefined) this.ctx.clock.clearTimeout(t);
    this.resetTimers.delete(rt.cfg.name);
    rt.payload.resetting = false;
  }

  /** Cancels every payload restart's timer (shelf closed). */
  stop(): void {
    for (const t of this.resetTimers.values()) this.ctx.clock.clearTimeout(t);
    this.resetTimers.clear();
  }
}
