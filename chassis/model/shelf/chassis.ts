/**
 * The shelf as an IPMI chassis: power of the front boards (Chassis Control off / on / cycle / reset /
 * diagnostic interrupt; ShMCs, fan trays and PEMs stay up on management power), Chassis Identify,
 * the restart cause, and the power-on-hours counter (persisted, counted in minutes while the boards
 * have power). The power state and POH survive an emulator restart ("restore previous" policy).
 *
 * Sources: IPMI v2.0 §28 (chassis commands: §28.2 status, §28.3 control, §28.5 identify, §28.11
 * restart cause, §28.14 POH counter).
 */
import type { TimerId } from '../../../board/common/clock.ts';
import type { ChassisPowerAction } from '../events.ts';
import type { ShelfContext } from './context.ts';
import { isBoard } from './frus.ts';
import type { ShelfPayload } from './payload.ts';
import type { ShelfPower } from './power.ts';
import type { ShelfSel } from './sel.ts';

/** Get Chassis Status (IPMI v2.0 §28.2) as flags. */
export interface ChassisStatus {
  powerOn: boolean;
  powerOverload: boolean;
  interlock: boolean;
  /** A PEM is faulted or absent while boards need it. */
  powerFault: boolean;
  powerControlFault: boolean;
  /** 'previous': power state restored after an emulator restart (policy 01b). */
  restorePolicy: 'off' | 'previous' | 'on';
  /** Last power event: true when the last change came from a Chassis Control command. */
  lastPowerByCommand: boolean;
  identify: 'off' | 'timed' | 'indefinite';
  /** A fan tray is faulted, absent or below a lower threshold. */
  fanFault: boolean;
}

/** Chassis commands (`shelf.chassis`). */
export class ShelfChassis {
  private on: boolean;
  private lastPowerByCommand = false;
  private restartCauseCode = 0x07;
  private identifyMode: 'off' | 'timed' | 'indefinite' = 'off';
  private identifyTimer: TimerId | undefined;
  private cycleTimer: TimerId | undefined;
  private pohTimer: TimerId | undefined;
  private pohBaseMinutes: number;
  private pohOnSince: number | undefined;
  private stopped = false;

  /** Restores the power state and the POH counter the store holds. */
  constructor(
    private readonly ctx: ShelfContext,
    private readonly parts: { sel: ShelfSel; power: ShelfPower; payload: ShelfPayload },
  ) {
    this.on = ctx.store.getMeta('chassis_power') !== 'off';
    this.pohBaseMinutes = Number(ctx.store.getMeta('poh_minutes') ?? 0) || 0;
  }

  private now(): number {
    return this.ctx.clock.now();
  }

  /** True while the front boards have power. */
  get powerOn(): boolean {
    return this.on;
  }

  /** Chassis Identify's state. */
  get identifyState(): 'off' | 'timed' | 'indefinite' {
    return this.identifyMode;
  }

  /** Boot is over: the POH counter runs (while powered). */
  start(): void {
    if (this.on) this.pohOnSince = this.now();
    this.schedulePoh();
  }

  /** Get Chassis Status (IPMI v2.0 §28.2). */
  status(): ChassisStatus {
    const { frus } = this.ctx;
    const { power } = this.parts;
    return {
      powerOn: this.on,
      powerOverload: power.usedW() > power.budgetW(),
      interlock: false,
      powerFault: frus.ofKind('pem').some((r) => r.faults.size > 0 || r.hs.context.state !== 4),
      powerControlFault: false,
      restorePolicy: 'previous',
      lastPowerByCommand: this.lastPowerByCommand,
      identify: this.identifyMode,
      fanFault: frus
        .ofKind('fan')
        .some((r) => r.faults.size > 0 || r.hs.context.state !== 4 || [...r.sensors.thresholds.values()].some((s) => s.assertedThresholds.has('lc') || s.assertedThresholds.has('lnr'))),
    };
  }

  /**
   * Chassis Control (IPMI v2.0 §28.3) on the shelf: `off` deactivates every board (M4 → M6 → M1),
   * `on` activates the boards the power-off deactivated, `cycle` = off, then on after
   * `shelf.power_cycle_interval`, `reset`/`soft` restart every active board's payload, `diag`
   * sends a diagnostic interrupt. ShMCs, fan trays and PEMs stay up (management power).
   */
  control(action: ChassisPowerAction): void {
    const at = this.now();
    const { frus, events, clock } = this.ctx;
    this.lastPowerByCommand = true;
    const boards = frus.all.filter(isBoard);
    if (action === 'off' || action === 'cycle') {
      if (this.cycleTimer !== undefined) clock.clearTimeout(this.cycleTimer);
      this.cycleTimer = undefined;
      this.setPower(false);
      for (const rt of boards) {
        const s = rt.hs.context.state;
        if (s >= 2 && s <= 5) {
          rt.chassisOff = true;
          frus.dispatch(rt, 'shm.deactivate');
        }
      }
      events.emit({ type: 'chassis.power', at, on: false, action });
      if (action === 'cycle') {
        this.cycleTimer = clock.setTimeout(() => {
          this.cycleTimer = undefined;
          this.powerUp('cycle');
        }, this.ctx.config.powerCycleIntervalMs);
      }
    } else if (action === 'on') {
      this.powerUp('on');
    } else if (action === 'reset' || action === 'soft') {
      this.restartCauseCode = 0x01;
      for (const rt of boards) if (rt.hs.context.state === 4) this.parts.payload.restart(rt);
      events.emit({ type: 'chassis.power', at, on: this.on, action });
    } else {
      for (const rt of boards) if (rt.hs.context.state === 4) events.emit({ type: 'fru.control', at, fru: rt.cfg.name, option: 'diagnostic-interrupt' });
      events.emit({ type: 'chassis.power', at, on: this.on, action });
    }
  }

  private powerUp(action: ChassisPowerAction): void {
    this.setPower(true);
    this.restartCauseCode = 0x01;
    for (const rt of this.ctx.frus.all) {
      if (!rt.chassisOff) continue;
      rt.chassisOff = false;
      const c = rt.hs.context;
      if (c.state === 1 && rt.faults.size === 0 && c.handleClosed) rt.hs.dispatch('shm.activate');
      else {
        // still deactivating from the power-off (M5/M6, e.g. an HA handover in progress): activate once in M1
        if (c.state === 5 || c.state === 6) rt.reactivateOnM1 = true;
        this.parts.sel.persist(rt);
      }
    }
    this.ctx.events.emit({ type: 'chassis.power', at: this.now(), on: true, action });
  }

  private setPower(on: boolean): void {
    if (on === this.on) return;
    this.accruePoh();
    this.on = on;
    this.pohOnSince = on ? this.now() : undefined;
    this.ctx.store.putMeta('chassis_power', on ? 'on' : 'off');
  }

  /**
   * Chassis Identify (§28.5): `seconds` 0 turns it off, 'force' lights it until turned off;
   * default 15 s.
   */
  identify(seconds: number | 'force' = 15): void {
    const { clock, events } = this.ctx;
    if (this.identifyTimer !== undefined) clock.clearTimeout(this.identifyTimer);
    this.identifyTimer = undefined;
    if (seconds === 'force') {
      this.identifyMode = 'indefinite';
    } else if (seconds <= 0) {
      this.identifyMode = 'off';
    } else {
      this.identifyMode = 'timed';
      this.identifyTimer = clock.setTimeout(() => {
        this.identifyTimer = undefined;
        this.identifyMode = 'off';
        events.emit({ type: 'chassis.identify', at: this.now(), active: false, seconds: 0 });
      }, seconds * 1000);
    }
    events.emit({ type: 'chassis.identify', at: this.now(), active: this.identifyMode !== 'off', seconds: seconds === 'force' ? 'indefinite' : Math.max(0, seconds) });
  }

  /** Get System Restart Cause (§28.11): 07h after an emulator start (power restored, "restore
   * previous" policy), 01h after a Chassis Control command. */
  restartCause(): number {
    return this.restartCauseCode;
  }

  /** Get POH Counter (§28.14): minutes per count (1) and powered-on minutes, persisted. */
  poh(): { minutesPerCount: number; count: number } {
    const extra = this.pohOnSince !== undefined ? (this.now() - this.pohOnSince) / 60000 : 0;
    return { minutesPerCount: 1, count: Math.floor(this.pohBaseMinutes + extra) >>> 0 };
  }

  private accruePoh(): void {
    if (this.pohOnSince === undefined) return;
    const now = this.now();
    this.pohBaseMinutes += (now - this.pohOnSince) / 60000;
    this.pohOnSince = now;
    try {
      this.ctx.store.putMeta('poh_minutes', String(this.pohBaseMinutes));
    } catch (e) {
      this.ctx.log.warn({ category: 'store', err: String(e) }, 'POH counter not persisted');
    }
  }

  private schedulePoh(): void {
    if (this.stopped) return;
    this.pohTimer = this.ctx.clock.setTimeout(() => {
      this.accruePoh();
      this.schedulePoh();
    }, 60_000);
  }

  /** Stops the identify, power-cycle and POH timers and persists the POH counter (shelf closed). */
  stop(): void {
    this.stopped = true;
    for (const t of [this.identifyTimer, this.cycleTimer, this.pohTimer]) if (t !== undefined) this.ctx.clock.clearTimeout(t);
    this.accruePoh();
  }
}
