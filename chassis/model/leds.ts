/**
 * FRU LEDs as PICMG 3.0 defines them (§2.2.8 and the Set/Get FRU LED State, Get FRU LED
 * Properties and Get LED Color Capabilities commands, 2Ch/05h–08h; research/ipmi.md §C):
 * LED 0 is the blue hot-swap LED, LED 1 red/amber "out of service", LED 2 green "healthy",
 * LED 3 amber (application specific). Each LED runs under local control (the IPMC decides from
 * the FRU's state) unless the shelf manager sets an override; a lamp test overrides for a while.
 */
import { BLUE_LED_BY_STATE, type MState } from './hot-swap.ts';

/** PICMG colour codes (Set FRU LED State byte 6, Get LED Color Capabilities bitmap bit n). */
export const LED_COLOR = { blue: 1, red: 2, green: 3, amber: 4, orange: 5, white: 6 } as const;
export type LedColorName = keyof typeof LED_COLOR;
/** Colour name of a code. */
export const LED_COLOR_NAME: Readonly<Record<number, LedColorName>> = { 1: 'blue', 2: 'red', 3: 'green', 4: 'amber', 5: 'orange', 6: 'white' };

/** An LED behaviour: off, on, blinking (on/off durations in ms), or lamp test. */
export interface LedFunction {
  mode: 'off' | 'on' | 'blink' | 'lamp-test';
  /** ms lit per period (blink), or the lamp test duration. */
  onMs: number;
  /** ms dark per period (blink). */
  offMs: number;
}

/** Static description of one LED. */
export interface LedDef {
  id: 0 | 1 | 2 | 3;
  name: 'blue' | 'led1' | 'led2' | 'led3';
  colors: readonly LedColorName[];
  defaultLocalColor: LedColorName;
  defaultOverrideColor: LedColorName;
}

/** The four status LEDs every atcasim FRU carries. */
export const STANDARD_LEDS: readonly LedDef[] = [
  { id: 0, name: 'blue', colors: ['blue'], defaultLocalColor: 'blue', defaultOverrideColor: 'blue' },
  { id: 1, name: 'led1', colors: ['red', 'amber'], defaultLocalColor: 'red', defaultOverrideColor: 'red' },
  { id: 2, name: 'led2', colors: ['green'], defaultLocalColor: 'green', defaultOverrideColor: 'green' },
  { id: 3, name: 'led3', colors: ['amber'], defaultLocalColor: 'amber', defaultOverrideColor: 'amber' },
];

/** A shelf-manager override of one LED. */
export interface LedOverride {
  fn: LedFunction;
  color: LedColorName;
  /** Lamp test: clock ms at which it ends (the override is dropped then). */
  until?: number;
}

/** Inputs of the local (IPMC-controlled) LED functions. */
export interface LedInputs {
  state: MState;
  /** The blue LED's last local function (kept in M7). */
  lastBlue: LedFunction;
  faulted: boolean;
  inService: boolean;
}

const OFF: LedFunction = { mode: 'off', onMs: 0, offMs: 0 };
const ON: LedFunction = { mode: 'on', onMs: 0, offMs: 0 };

/** Local function of the blue LED for an M-state (long blink 900/100 ms, short blink 100/900 ms). */
export function blueLedFunction(state: MState, last: LedFunction): LedFunction {
  switch (BLUE_LED_BY_STATE[state]) {
    case 'off':
      return OFF;
    case 'on':
      return ON;
    case 'long-blink':
      return { mode: 'blink', onMs: 900, offMs: 100 };
    case 'short-blink':
      return { mode: 'blink', onMs: 100, offMs: 900 };
    case 'unchanged':
      return last;
  }
}

/** Local function of LED `id`: blue from the M-state; LED1 on while a fault is injected; LED2 on
 * while the FRU is in M4 and in service; LED3 off. */
export function localLedFunction(id: number, inp: LedInputs): LedFunction {
  switch (id) {
    case 0:
      return blueLedFunction(inp.state, inp.lastBlue);
    case 1:
      return inp.faulted ? ON : OFF;
    case 2:
      return inp.state === 4 && inp.inService ? ON : OFF;
    default:
      return OFF;
  }
}

/**
 * Decodes the function byte and on-duration byte of Set FRU LED State (PICMG 2Ch/07h):
 * 00h off, 01h–FAh blink with off-time × 10 ms (on-duration byte × 10 ms), FBh lamp test for
 * on-duration × 100 ms, FCh restore local control, FFh on. FDh/FEh are reserved.
 * @returns the function, 'restore', or undefined for a reserved value.
 */
export function decodeLedFunction(fnByte: number, onDuration: number): LedFunction | 'restore' | undefined {
  if (fnByte === 0x00) return OFF;
  if (fnByte === 0xff) return ON;
  if (fnByte === 0xfc) return 'restore';
  if (fnByte === 0xfb) return { mode: 'lamp-test', onMs: onDuration * 100, offMs: 0 };
  if (fnByte >= 0x01 && fnByte <= 0xfa) return { mode: 'blink', onMs: onDuration * 10, offMs: fnByte * 10 };
  return undefined;
}

/** Encodes a function as Get FRU LED State reports it: [function byte, on-duration byte]. */
export function encodeLedFunction(fn: LedFunction): [number, number] {
  switch (fn.mode) {
    case 'off':
      return [0x00, 0x00];
    case 'on':
      return [0xff, 0x00];
    case 'lamp-test':
      return [0xfb, Math.min(0x7f, Math.round(fn.onMs / 100))];
    case 'blink':
      return [Math.max(1, Math.min(0xfa, Math.round(fn.offMs / 10))), Math.max(1, Math.min(0xff, Math.round(fn.onMs / 10)))];
  }
}
