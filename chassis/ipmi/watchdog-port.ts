/**
 * The port through which the IPMI watchdog commands (Reset 06h/22h, Set 06h/24h, Get 06h/25h;
 * IPMI v2.0 §27) reach the watchdog model. The HA part implements it (chassis/ha/watchdog.ts);
 * tests use a small fake. Countdowns are in 100 ms units, as on the wire.
 *
 * While `ownedByHa` is true the HA machine drives the timer: Set and Reset from the LAN are
 * refused with D5h (not supported in present state) so a remote command cannot blind hang
 * detection; Get still works (issue 5).
 */

/**
 * Decoded Set Watchdog Timer request (IPMI v2.0 Table 27-2). Field names match the HA part's
 * `IpmiWatchdog` (chassis/ha/watchdog.ts) so that class satisfies this port structurally.
 */
export interface WatchdogSettings {
  /** Timer use 1..5: 1 BIOS FRB2, 2 BIOS/POST, 3 OS load, 4 SMS/OS, 5 OEM. */
  use: number;
  /** Byte 1 b7: do not log the expiration in the SEL. */
  dontLog: boolean;
  /** Byte 1 b6: do not stop a running timer on Set. */
  dontStop: boolean;
  /** Byte 2 b6:4: 0 none, 1 SMI, 2 NMI/diagnostic interrupt, 3 messaging interrupt. */
  pretimeoutInterrupt: number;
  /** Byte 2 b2:0: 0 no action, 1 hard reset, 2 power down, 3 power cycle. */
  timeoutAction: number;
  /** Pre-timeout interval, seconds (0..255). */
  pretimeoutSec: number;
  /** Byte 4: timer use expiration flags to clear (bit n = timer use n). */
  clearFlags: number;
  /** Initial countdown, 100 ms units (0..65535). */
  countdown: number;
}

/** Watchdog state as Get Watchdog Timer reports it (IPMI v2.0 Table 27-4). */
export interface WatchdogState {
  /** Timer use 0..5 (0 before the first Set). */
  use: number;
  dontLog: boolean;
  /** True while the timer counts down. */
  running: boolean;
  pretimeoutInterrupt: number;
  timeoutAction: number;
  pretimeoutSec: number;
  /** Timer use expiration flags (bit n = timer use n expired). */
  expirationFlags: number;
  /** Initial countdown, 100 ms units. */
  countdown: number;
  /** Present countdown, 100 ms units. */
  present: number;
}

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
