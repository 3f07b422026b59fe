/**
 * Hot swap of the shelf's FRUs: the operator's handle and extraction, the shelf manager's
 * activation commands and policy, injected faults and their repair — each FRU's M-state run by its
 * HotSwapController (../hot-swap-controller.ts, through the pure machine ../hot-swap.ts), for which
 * this part is the host: it decides whether the shelf manager grants an activation (a ShMC is
 * active, chassis power is on for boards, the power budget covers it) or approves a deactivation,
 * and commits each transition (FRU record, "Transition to Mx" SEL record, event) before the next
 * step is scheduled. A transition to M1/M0 powers the payload off and drops its E-key overrides; M0
 * drops the LED overrides; the board's service and the SDR follow.
 *
 * Sources: PICMG 3.0 §3.2.4 (hot swap states and causes), Set FRU Activation (Policy) (2Ch/0Ah–0Ch);
 * research/ipmi.md §D.
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import type { SelEventInput } from '../../sensors/sel.ts';
import { eventSensor } from '../../sensors/event-sensors.ts';
import { READING_TYPE, SENSOR_TYPE } from '../../sensors/sensor-types.ts';
import type { ChassisEvent, FaultKind } from '../events.ts';
import type { HotSwapHost } from '../hot-swap-controller.ts';
import { hotSwapEventData, mLabel, type HotSwapCause, type HotSwapContext, type HotSwapStep, type MState } from '../hot-swap.ts';
import { localLedFunction } from '../leds.ts';
import type { ShelfChassis } from './chassis.ts';
import type { ShelfContext } from './context.ts';
import { isBoard, type FruRuntime } from './frus.ts';
import type { ShelfLeds } from './leds.ts';
import type { ShelfPayload } from './payload.ts';
import type { ShelfPower } from './power.ts';
import type { ShelfSdr } from './sdr.ts';
import type { ShelfSel } from './sel.ts';

/** Result of a hot-swap command: the state right after it (timed steps follow). */
export interface HotSwapOutcome {
  fru: string;
  state: MState;
  /** False when the command was legal but moved nothing (already there). */
  changed: boolean;
}

/** The parts a transition touches. */
export interface HotSwapParts {
  sel: ShelfSel;
  sdr: ShelfSdr;
  power: ShelfPower;
  leds: ShelfLeds;
  payload: ShelfPayload;
  chassis: ShelfChassis;
}

/** Hot-swap commands (`shelf.hotSwap`) and the host of every FRU's controller. */
export class ShelfHotSwap {
  /** False while the shelf boots (context changes then are the stored ones: not persisted again). */
  private live = false;

  constructor(
    private readonly ctx: ShelfContext,
    private readonly parts: HotSwapParts,
  ) {}

  /** The host every FRU's HotSwapController is built with. */
  readonly host: HotSwapHost = {
    transitioned: (fru, s) => this.onTransition(this.ctx.frus.named(fru)!, s),
    contextChanged: (fru) => {
      if (!this.live) return;
      this.parts.sel.persist(this.ctx.frus.named(fru)!);
    },
    grantActivation: (fru) => this.grantActivation(this.ctx.frus.named(fru)!),
    approveDeactivation: (fru) => {
      const rt = this.ctx.frus.named(fru)!;
      if (rt.cfg.kind === 'shmc') return true;
      return this.ctx.config.hotSwap.autoDeactivate && this.ctx.frus.activeShmc() !== undefined;
    },
    stepFailed: (fru, err) => {
      this.ctx.log.error({ category: 'store', fru, err: String(err) }, 'hot-swap step not persisted; retrying one step later');
    },
  };

  /** Boot is over: context changes are persisted from now on. */
  booted(): void {
    this.live = true;
  }

  /** Cancels every FRU's pending steps for good (shelf closed). */
  stop(): void {
    for (const rt of this.ctx.frus.all) rt.hs.stop();
  }

  /** Full hot-swap context of a FRU (state, previous, cause, handle, locks). */
  context(ref: FruRef): Readonly<HotSwapContext> {
    return { ...this.ctx.frus.get(ref).hs.context };
  }

  /** The "Transition to M`to` from M`from`" SEL record of a FRU's Hot Swap sensor. */
  transitionSel(rt: FruRuntime, from: MState, to: MState, cause: HotSwapCause): SelEventInput {
    return {
      generatorId: this.ctx.frus.generatorFor(rt),
      sensorType: SENSOR_TYPE.fruHotSwap,
      sensorNumber: rt.sensors.hotSwap.number,
      eventDirType: READING_TYPE.sensorSpecific,
      eventData: hotSwapEventData(to, from, cause, 0),
    };
  }

  private faultSel(rt: FruRuntime, kind: FaultKind, active: boolean): SelEventInput {
    // Module/Board, generic severity: "Transition to Critical from less severe" / "Transition to OK";
    // data 2 = fault kind (1 payload, 2 comm), data 3 = FRU device ID.
    return {
      generatorId: this.ctx.frus.generatorFor(rt),
      sensorType: SENSOR_TYPE.moduleBoard,
      sensorNumber: eventSensor(rt.cfg, 'health')!.number,
      eventDirType: READING_TYPE.severity,
      eventData: [0xa0 | (active ? 0x02 : 0x00), kind === 'payload' ? 1 : 2, 0],
    };
  }

  /** Persists and announces a transition; throws (after undoing its own changes) when the store
   * cannot commit, so the controller rolls the state back. */
  private onTransition(rt: FruRuntime, s: Extract<HotSwapStep, { kind: 'transition' }>): void {
    const { clock, frus } = this.ctx;
    const { sel, sdr, leds, payload } = this.parts;
    const saved = { powerLevel: rt.power.level, ports: new Map(rt.ports.overrides), leds: new Map(rt.leds.overrides), lastBlue: rt.leds.lastBlue };
    if (s.to === 1 || s.to === 0) {
      rt.power.level = 0;
      rt.ports.overrides.clear();
    }
    if (s.to === 0) rt.leds.overrides.clear();
    if (s.to === 7) rt.leds.lastBlue = localLedFunction(0, leds.inputs(rt, s.from));
    const events: ChassisEvent[] = [{ type: 'hotswap', at: clock.now(), fru: rt.cfg.name, ...(rt.cfg.slot !== undefined ? { slot: rt.cfg.slot } : {}), from: s.from, to: s.to, cause: s.cause }];
    try {
      sel.commit([rt], [this.transitionSel(rt, s.from, s.to, s.cause)], events);
    } catch (e) {
      rt.power.level = saved.powerLevel;
      rt.ports.overrides = saved.ports;
      rt.leds.overrides = saved.leds;
      rt.leds.lastBlue = saved.lastBlue;
      this.ctx.log.error({ category: 'store', fru: rt.cfg.name, err: String(e) }, 'hot-swap transition not persisted');
      throw e;
    }
    if (s.to === 0 || s.to === 7) payload.cancelRestart(rt);
    if (s.from === 0 || s.to === 0) sdr.rebuild();
    payload.update(rt);
    if (s.to === 1 && rt.reactivateOnM1) {
      rt.reactivateOnM1 = false;
      // After the controller finished this step, not from inside it.
      clock.setTimeout(() => this.reactivateIfRepaired(rt), 0);
    } else if (s.to !== 5 && s.to !== 6) {
      rt.reactivateOnM1 = false;
    }
    frus.pokeAll();
  }

  /** M1 with a closed, unlocked handle, no fault and power on: request activation (M1 → M2). */
  private reactivateIfRepaired(rt: FruRuntime): void {
    const c = rt.hs.context;
    if (c.state !== 1 || !c.handleClosed || c.activationLocked || rt.faults.size > 0 || rt.chassisOff) return;
    const a = rt.hs.dispatch('fru.activate.request');
    if (a.kind !== 'illegal') this.ctx.frus.pokeAll();
  }

  /** M2: does the shelf manager grant activation now? (Negotiates power when it does.) */
  private grantActivation(rt: FruRuntime): boolean {
    const { clock, config, events, frus } = this.ctx;
    const at = clock.now();
    const fru = rt.cfg.name;
    if (rt.faults.size > 0) {
      events.emit({ type: 'activation.waiting', at, fru, reason: 'faulted' });
      return false;
    }
    if (rt.cfg.kind !== 'shmc') {
      if (!config.hotSwap.autoActivate) return false;
      if (frus.activeShmc() === undefined) {
        events.emit({ type: 'activation.waiting', at, fru, reason: 'no_shelf_manager' });
        return false;
      }
      if (isBoard(rt) && !this.parts.chassis.powerOn) return false;
    }
    return this.parts.power.negotiate(rt);
  }

  private outcome(rt: FruRuntime, r: HotSwapStep): HotSwapOutcome {
    return { fru: rt.cfg.name, state: rt.hs.context.state, changed: r.kind === 'transition' };
  }

  private handleEvent(rt: FruRuntime, closed: boolean): void {
    this.ctx.events.emit({ type: 'handle', at: this.ctx.clock.now(), fru: rt.cfg.name, closed });
  }

  /**
   * The operator opens the ejector handle (TUI `x`): M4 → M5 → (shelf manager approves) M6 → M1,
   * the board stays present; M2 → M1; M3 → M6 → M1.
   * @throws CommandError('not_present') in M0; CommandError('deactivation_locked') when the FRU's
   *   policy keeps it in M4 (the handle is open nevertheless)
   */
  openHandle(ref: FruRef): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    frus.requirePresent(rt);
    const r = frus.dispatch(rt, 'handle.open');
    this.handleEvent(rt, false);
    if (r.kind === 'unchanged' && r.blockedBy === 'deactivationUnlocked') {
      throw new CommandError('deactivation_locked', `${rt.cfg.name} stays in M4: its deactivation is locked (Set FRU Activation Policy)`);
    }
    return this.outcome(rt, r);
  }

  /**
   * The operator closes the handle (TUI `i`): M1 → M2 → (granted) M3 → M4; M5 → M4.
   * @throws CommandError('not_present'); CommandError('activation_locked') when the policy keeps
   *   the FRU in M1 (clearing the lock later activates it); CommandError('faulted') while a payload
   *   fault is injected (repair first)
   */
  closeHandle(ref: FruRef): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    frus.requirePresent(rt);
    if (rt.hs.context.state === 1 && rt.faults.has('payload')) {
      rt.hs.patch({ handleClosed: true });
      this.handleEvent(rt, true);
      throw new CommandError('faulted', `${rt.cfg.name} has a payload fault: it stays in M1 until repaired`);
    }
    const r = frus.dispatch(rt, 'handle.close');
    this.handleEvent(rt, true);
    if (r.kind === 'unchanged' && r.blockedBy === 'activationUnlocked') {
      throw new CommandError('activation_locked', `${rt.cfg.name} stays in M1: its activation is locked (Set FRU Activation Policy)`);
    }
    return this.outcome(rt, r);
  }

  /**
   * Set FRU Activation (activate) from the shelf manager: M1 → M2 (then granted after one step),
   * M2 → M3 at once (power budgeted now), M5 → M4 (deactivation refused). In M3/M4: nothing to do.
   * @throws CommandError('not_present' | 'illegal_state' (M6, M7) | 'faulted' | 'power_budget' | 'chassis_off')
   */
  activate(ref: FruRef): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    frus.requirePresent(rt);
    const s = rt.hs.context.state;
    if (s === 3 || s === 4) return { fru: rt.cfg.name, state: s, changed: false };
    if ((s === 1 || s === 2) && rt.faults.size > 0) throw new CommandError('faulted', `${rt.cfg.name} is faulted (${[...rt.faults].join(', ')}): repair it first`);
    if ((s === 1 || s === 2) && isBoard(rt) && !this.parts.chassis.powerOn) throw new CommandError('chassis_off', 'chassis power is off');
    if (s === 2 && !this.parts.power.negotiate(rt)) throw new CommandError('power_budget', `not enough power budget to activate ${rt.cfg.name}`);
    return this.outcome(rt, frus.dispatch(rt, 'shm.activate'));
  }

  /**
   * Set FRU Activation (deactivate) from the shelf manager (`picmg deactivate`, `clia deactivate`):
   * M4 → M6 → M1 directly (no M5), M5 → M6, M3 → M6, M2 → M1. In M1: nothing to do.
   * @throws CommandError('not_present' | 'illegal_state' (M6, M7))
   */
  deactivate(ref: FruRef): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    frus.requirePresent(rt);
    if (rt.hs.context.state === 1) return { fru: rt.cfg.name, state: 1, changed: false };
    return this.outcome(rt, frus.dispatch(rt, 'shm.deactivate'));
  }

  /**
   * The board is pulled from the backplane (TUI `e`): any state → M0 (a surprise extraction unless
   * it was in M1). Its sensors and SDR records disappear; it stops carrying traffic at once.
   * @throws CommandError('not_present') when already extracted
   */
  extract(ref: FruRef): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    frus.requirePresent(rt);
    return this.outcome(rt, frus.dispatch(rt, 'extract'));
  }

  /**
   * The board is plugged in: M0 → M1, and (default) the operator closes its handle → M2 → M3 → M4.
   * @throws CommandError('already_present') unless the FRU is in M0
   */
  insert(ref: FruRef, opts: { closeHandle?: boolean } = {}): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    if (rt.hs.context.state !== 0) throw new CommandError('already_present', `${rt.cfg.name} is already installed (${mLabel(rt.hs.context.state)})`);
    const r = frus.dispatch(rt, 'insert');
    if (opts.closeHandle ?? true) {
      try {
        this.closeHandle(rt.cfg.name);
      } catch (e) {
        if (!(e instanceof CommandError)) throw e; // locked or faulted: stays in M1
      }
    }
    return this.outcome(rt, r);
  }

  /**
   * Injects a fault (TUI `f`). `payload`: the payload dies — M3/M4/M5 → M6 (cause: unexpected
   * deactivation) → M1, and the FRU stays in M1 until repaired. `comm`: the IPMC stops answering
   * on IPMB-0 — M1..M6 → M7 (sensors unavailable). A SEL record is logged either way.
   * @throws CommandError('not_present' | 'already_faulted')
   */
  injectFault(ref: FruRef, kind: FaultKind = 'payload'): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    frus.requirePresent(rt);
    if (rt.faults.has(kind)) throw new CommandError('already_faulted', `${rt.cfg.name} already has a ${kind} fault`);
    rt.faults.add(kind);
    this.parts.sel.commit([rt], [this.faultSel(rt, kind, true)], [{ type: 'fault', at: this.ctx.clock.now(), fru: rt.cfg.name, fault: kind, active: true }]);
    let r: HotSwapStep = { kind: 'unchanged', context: rt.hs.context };
    const s = rt.hs.context.state;
    if (kind === 'payload' && (s === 3 || s === 4 || s === 5)) r = frus.dispatch(rt, 'payload.fault');
    else if (kind === 'payload' && s === 2) r = frus.dispatch(rt, 'shm.deactivate');
    else if (kind === 'comm' && s >= 1 && s <= 6) r = frus.dispatch(rt, 'comm.lost');
    return this.outcome(rt, r);
  }

  /**
   * Repairs injected faults (TUI `r`; all kinds unless one is named): communication regained
   * returns M7 to the state it left; a repaired payload with a closed, unlocked handle asks for
   * activation again (M1 → M2 → M3 → M4).
   * @throws CommandError('not_faulted')
   */
  repair(ref: FruRef, kind?: FaultKind): HotSwapOutcome {
    const frus = this.ctx.frus;
    const rt = frus.get(ref);
    const kinds = kind ? [kind] : [...rt.faults];
    if (kinds.length === 0 || kinds.some((k) => !rt.faults.has(k))) throw new CommandError('not_faulted', `${rt.cfg.name} has no ${kind ?? ''} fault to repair`.replace('  ', ' '));
    for (const k of kinds) rt.faults.delete(k);
    this.parts.sel.commit(
      [rt],
      kinds.map((k) => this.faultSel(rt, k, false)),
      kinds.map((k) => ({ type: 'fault' as const, at: this.ctx.clock.now(), fru: rt.cfg.name, fault: k, active: false })),
    );
    let r: HotSwapStep = { kind: 'unchanged', context: rt.hs.context };
    if (kinds.includes('comm') && rt.hs.context.state === 7) r = frus.dispatch(rt, 'comm.restored');
    const c = rt.hs.context;
    if (kinds.includes('payload') && c.state === 1 && c.handleClosed && !c.activationLocked && rt.faults.size === 0 && !rt.chassisOff) {
      const a = rt.hs.dispatch('fru.activate.request');
      if (a.kind !== 'illegal') r = a;
    } else if (kinds.includes('payload') && (c.state === 5 || c.state === 6)) {
      rt.reactivateOnM1 = true; // still shutting down: re-activate once it reaches M1
    }
    frus.pokeAll();
    return this.outcome(rt, r);
  }

  /**
   * Set FRU Activation Policy (PICMG 2Ch/0Ah): set or clear the Activation Locked / Deactivation
   * Locked bits (undefined = unchanged). Clearing the activation lock of a FRU in M1 whose handle
   * closed meanwhile moves it to M2.
   */
  setActivationPolicy(ref: FruRef, p: { activationLocked?: boolean; deactivationLocked?: boolean }): { activationLocked: boolean; deactivationLocked: boolean } {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    rt.hs.setPolicy(p);
    const c = rt.hs.context;
    this.ctx.events.emit({ type: 'policy', at: this.ctx.clock.now(), fru: rt.cfg.name, activationLocked: c.activationLocked, deactivationLocked: c.deactivationLocked });
    return { activationLocked: c.activationLocked, deactivationLocked: c.deactivationLocked };
  }

  /** Get FRU Activation Policy (PICMG 2Ch/0Bh). */
  activationPolicy(ref: FruRef): { activationLocked: boolean; deactivationLocked: boolean } {
    const c = this.ctx.frus.get(ref).hs.context;
    return { activationLocked: c.activationLocked, deactivationLocked: c.deactivationLocked };
  }
}
