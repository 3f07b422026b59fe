/**
 * The port through which the IPMI watchdog commands (Reset 06h/22h, Set 06h/24h, Get 06h/25h;
 * IPMI v2.0 §27) reach the watchdog device of a controller (chassis/model/ipmi-watchdog.ts, which
 * also declares the settings and state types below); the HA part hands out each ShMC's device
 * through it; tests use a small fake. Countdowns are in 100 ms units, as on the wire.
 *
 * While `ownedByHa` is true the HA machine drives the timer: Set and Reset from the LAN are
 * refused with D5h (not supported in present state) so a remote command cannot blind hang
 * detection; Get still works (docs/ipmi.md "Watchdog").
 */
import type { WatchdogSettings, WatchdogState } from '../model/ipmi-watchdog.ts';

export type { WatchdogSettings, WatchdogState };

/** What the LAN side can do to the watchdog. */
export interface WatchdogPort {
  /** True while the HA machine owns the timer (Set/Reset from the LAN refused with D5h). */
  readonly ownedByHa: boolean;
  /** Applies Set Watchdog Timer; 'invalid' (→ CC CCh) when the model rejects the values. */
  set(settings: WatchdogSettings): 'ok' | 'invalid' | void;
  /** Reset Watchdog Timer: restarts the countdown. 'uninitialized' (→ CC 80h) before the first Set. */
  reset(): 'ok' | 'uninitialized';
  /** Current state for Get Watchdog Timer. */
  get(): WatchdogState;
}
