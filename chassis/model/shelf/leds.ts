/**
 * The FRU LEDs of the shelf: each FRU's four status LEDs under local control (the blue LED follows
 * the M-state, LED1 shows a fault, LED2 service; ../leds.ts), and the shelf manager's overrides and
 * lamp tests. Overrides persist across restarts (not lamp tests); a FRU back in M0 loses them.
 *
 * Sources: PICMG 3.0 §2.2.8 (LEDs); Get FRU LED Properties, Get LED Color Capabilities, Set/Get
 * FRU LED State (2Ch/05h–08h).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import type { MState } from '../hot-swap.ts';
import { STANDARD_LEDS, localLedFunction, type LedColorName, type LedFunction, type LedInputs, type LedOverride } from '../leds.ts';
import type { LedSnapshot } from '../snapshot.ts';
import type { ShelfContext } from './context.ts';
import type { FruRuntime } from './frus.ts';
import type { ShelfSel } from './sel.ts';

/** Get LED state (PICMG Get FRU LED State). */
export interface LedStateView {
  led: number;
  local: { fn: LedFunction; color: LedColorName };
  override?: { fn: LedFunction; color: LedColorName };
  lampTest: boolean;
  /** What the LED shows now. */
  effective: { fn: LedFunction; color: LedColorName };
}

/** LED commands (`shelf.leds`). */
export class ShelfLeds {
  constructor(
    private readonly ctx: ShelfContext,
    private readonly sel: ShelfSel,
  ) {}

  /** Inputs of a FRU's local LED functions, in its present state or in `state`. */
  inputs(rt: FruRuntime, state: MState = rt.hs.context.state): LedInputs {
    return { state, lastBlue: rt.leds.lastBlue, faulted: rt.faults.size > 0, inService: rt.payload.inService };
  }

  /** Drops the lamp tests that have ended. */
  expireLampTests(rt: FruRuntime): void {
    const now = this.ctx.clock.now();
    for (const [led, o] of rt.leds.overrides) if (o.until !== undefined && o.until <= now) rt.leds.overrides.delete(led);
  }

  /** Get FRU LED Properties (PICMG 2Ch/05h): the four status LEDs, no application LEDs. */
  properties(ref: FruRef): { statusLeds: number; applicationLeds: number } {
    this.ctx.frus.requirePresent(this.ctx.frus.get(ref));
    return { statusLeds: 0x0f, applicationLeds: 0 };
  }

  /** Get LED Color Capabilities (PICMG 2Ch/06h). @throws CommandError('out_of_range') for an unknown LED */
  colors(ref: FruRef, led: number): { colors: LedColorName[]; defaultLocal: LedColorName; defaultOverride: LedColorName } {
    this.ctx.frus.requirePresent(this.ctx.frus.get(ref));
    const d = STANDARD_LEDS[led];
    if (!d) throw new CommandError('out_of_range', `LED ${led} does not exist (0..3)`);
    return { colors: [...d.colors], defaultLocal: d.defaultLocalColor, defaultOverride: d.defaultOverrideColor };
  }

  /** Get FRU LED State (PICMG 2Ch/08h). @throws CommandError('out_of_range' | 'not_present') */
  state(ref: FruRef, led: number): LedStateView {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const d = STANDARD_LEDS[led];
    if (!d) throw new CommandError('out_of_range', `LED ${led} does not exist (0..3)`);
    this.expireLampTests(rt);
    const local = { fn: localLedFunction(led, this.inputs(rt)), color: d.defaultLocalColor };
    const o = rt.leds.overrides.get(led);
    const view: LedStateView = { led, local, lampTest: o?.fn.mode === 'lamp-test', effective: o ? { fn: o.fn, color: o.color } : local };
    if (o) view.override = { fn: o.fn, color: o.color };
    return view;
  }

  /**
   * Set FRU LED State (PICMG 2Ch/07h) for LED `led` (or 'all'): a function overrides local control,
   * 'restore' returns to it; a lamp test lasts `fn.onMs`. `color` defaults to the LED's override
   * colour. @throws CommandError('out_of_range') for an unknown LED or a colour it cannot show
   */
  set(ref: FruRef, led: number | 'all', fn: LedFunction | 'restore', color?: LedColorName): void {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const ids = led === 'all' ? [0, 1, 2, 3] : [led];
    for (const id of ids) {
      const d = STANDARD_LEDS[id];
      if (!d) throw new CommandError('out_of_range', `LED ${id} does not exist (0..3)`);
      if (color && !d.colors.includes(color)) throw new CommandError('out_of_range', `LED ${id} cannot show ${color} (${d.colors.join(', ')})`);
    }
    for (const id of ids) {
      const d = STANDARD_LEDS[id]!;
      if (fn === 'restore') rt.leds.overrides.delete(id);
      else {
        const o: LedOverride = { fn: { ...fn }, color: color ?? d.defaultOverrideColor };
        if (fn.mode === 'lamp-test') o.until = this.ctx.clock.now() + fn.onMs;
        rt.leds.overrides.set(id, o);
      }
    }
    this.sel.commit([rt], [], ids.map((id) => ({ type: 'led' as const, at: this.ctx.clock.now(), fru: rt.cfg.name, led: id })));
  }

  /** What a FRU's LEDs show, for the snapshot (lamp tests expired by the caller). */
  snapshot(rt: FruRuntime): LedSnapshot[] {
    return STANDARD_LEDS.map((d) => {
      const local = localLedFunction(d.id, this.inputs(rt));
      const o = rt.leds.overrides.get(d.id);
      return { id: d.id, name: d.name, color: o?.color ?? d.defaultLocalColor, fn: o?.fn ?? local, override: !!o };
    });
  }
}
