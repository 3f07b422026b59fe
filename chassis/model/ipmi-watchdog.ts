/**
 * The IPMI watchdog timer of one controller (BMC / IPMC / ShMC), running on the Clock port.
 *
 * Follows IPMI v2.0 §27.5–27.7 (Reset 0x22, Set 0x24, Get 0x25, NetFn App 0x06) as summarised in
 * ../shared/research/ha.md §3.4, with these choices where reference implementations differ:
 * - validation at least as strict as OpenBMC phosphor-host-ipmid: reserved bits, reserved timer
 *   uses (0, 6, 7), reserved pre-timeout interrupts (4–7) and timeout actions (4–7) answer 0xCC;
 *   a non-zero pre-timeout interval not shorter than the countdown answers 0xCC;
 * - spec semantics for action "none": the timer runs, expires, sets its flag and logs (unlike
 *   ipmi_sim, which treats Reset with action none as a stop);
 * - Reset before any Set answers 0x80 ("attempt to start un-initialized watchdog"), as ipmi_sim;
 * - Set with don't-stop = 1 on a running timer reloads the new countdown and keeps running;
 *   with don't-stop = 0 it stops the timer (§27.6);
 * - Get before any Set returns all-zero fields (as ipmi_sim answers it, ../shared/ipmi
 *   golden 05_mc_watchdog_get); the present countdown of a stopped timer is 0;
 * - the present countdown is the time left rounded up to whole 100 ms units;
 * - a Reset that arrives at or after the deadline (its timer callback had not run yet) is too
 *   late: the timer expires first, as hardware would have;
 * - on expiry: the timer stops, bit `use` of the expiration flags is set (kept until a Set clears
 *   it), the pre-timeout (if any) has fired at countdown − interval, the action runs through the
 *   `onExpire` listeners, and the event says whether it is logged (don't-log bit clear).
 *
 * Time: all through the Clock given to the constructor (monotonic ms). No I/O.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { DecodeError } from '../../board/common/errors.ts';

/** Timer use values (IPMI v2.0 §27.6, byte 1 b2:0). 0, 6 and 7 are reserved. */
export const TimerUse = { biosFrb2: 1, biosPost: 2, osLoad: 3, smsOs: 4, oem: 5 } as const;
/** Timeout action values (byte 2 b2:0). */
export const TimeoutAction = { none: 0, hardReset: 1, powerDown: 2, powerCycle: 3 } as const;
/** Pre-timeout interrupt values (byte 2 b6:4). */
export const PretimeoutInterrupt = { none: 0, smi: 1, nmi: 2, messaging: 3 } as const;

/** Completion codes the watchdog commands use (IPMI v2.0 §5.2, §27). */
export const WatchdogCc = {
  ok: 0x00,
  uninitialized: 0x80,
  invalidLength: 0xc7,
  invalidField: 0xcc,
} as const;

/** NetFn App command numbers. */
export const WatchdogCmd = { reset: 0x22, set: 0x24, get: 0x25 } as const;

/**
 * Decoded Set Watchdog Timer request (IPMI v2.0 Table 27-2), as the IPMI command port
 * (chassis/ipmi/watchdog-port.ts) hands it to the device.
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

/** Get Watchdog Timer response fields (IPMI v2.0 Table 27-4). */
export type WatchdogStatus = WatchdogState;

/** What a pre-timeout or an expiry reports to its listeners. */
export interface WatchdogEvent {
  kind: 'pretimeout' | 'expired';
  /** Clock time of the event, ms. */
  at: number;
  use: number;
  /** The pre-timeout interrupt (pretimeout events) configured. */
  interrupt: number;
  /** The timeout action to run (expired events). */
  action: number;
  /** False when the don't-log bit was set. */
  log: boolean;
  /** Watchdog-2 sensor (type 23h) event offset: 0 expired, 1 hard reset, 2 power down, 3 power
   * cycle, 8 pre-timeout interrupt (IPMI v2.0 table 42-3). */
  sensorOffset: number;
}

/** A set of callbacks; `on…` return an unsubscribe function. */
type Listener = (e: WatchdogEvent) => void;

/**
 * One IPMI watchdog. Create with the controller's Clock; call `set`, `reset` (or `kick`) and `get`
 * as the three commands do, or `handle(cmd, data)` for the byte-level command path.
 */
export class IpmiWatchdog {
  private initialized = false;
  private s: WatchdogSettings = {
    use: 0, dontLog: false, dontStop: false, pretimeoutInterrupt: 0, timeoutAction: 0, pretimeoutSec: 0, clearFlags: 0, countdown: 0,
  };
  private flags = 0;
  private running = false;
  private deadline = 0;
  private preTimer: TimerId | undefined;
  private expTimer: TimerId | undefined;
  private pretimeoutFired = false;
  private readonly preListeners = new Set<Listener>();
  private readonly expListeners = new Set<Listener>();
  /** Number of expiries since construction (for reports). */
  expiries = 0;

  /** @param clock time source for the countdown (a controller's own monotonic clock). */
  constructor(private readonly clock: Clock) {}

  /** Registers a pre-timeout listener; returns an unsubscribe function. */
  onPretimeout(fn: Listener): () => void {
    this.preListeners.add(fn);
    return () => this.preListeners.delete(fn);
  }

  /** Registers an expiry listener (it runs the timeout action); returns an unsubscribe function. */
  onExpire(fn: Listener): () => void {
    this.expListeners.add(fn);
    return () => this.expListeners.delete(fn);
  }

  /**
   * Set Watchdog Timer (§27.6): stores the settings, clears the requested expiration flags, and
   * stops a running timer unless `dontStop` (then the timer restarts with the new countdown).
   * @returns 'ok', or 'invalid' (cc 0xCC) when `validateSettings` rejects them (nothing changes).
   */
  set(settings: WatchdogSettings): 'ok' | 'invalid' {
    if (validateSettings(settings) !== null) return 'invalid';
    const wasRunning = this.running;
    this.cancelTimers();
    this.running = false;
    this.s = { ...settings };
    this.initialized = true;
    this.flags &= ~(settings.clearFlags & 0x3e);
    if (wasRunning && settings.dontStop) this.start();
    return 'ok';
  }

  /**
   * Reset Watchdog Timer (§27.5): (re)starts the countdown from the initial value.
   * @returns 'uninitialized' (cc 0x80) when no Set has been accepted yet, else 'ok'.
   */
  reset(): 'ok' | 'uninitialized' {
    if (!this.initialized) return 'uninitialized';
    if (this.running && this.clock.now() >= this.deadline) {
      // Too late: a hardware timer does not wait for a late event loop. It expires now, and the
      // action (a reset) makes this kick moot.
      this.fireExpire();
      return 'ok';
    }
    this.cancelTimers();
    this.start();
    return 'ok';
  }

  /** Firmware feeding the watchdog (same as Reset Watchdog Timer). */
  kick(): 'ok' | 'uninitialized' {
    return this.reset();
  }

  /** Stops the countdown without changing settings (power loss of the payload, or a Set with don't-stop clear). */
  stop(): void {
    this.cancelTimers();
    this.running = false;
  }

  /** Get Watchdog Timer (§27.7). */
  get(): WatchdogStatus {
    const left = this.running ? Math.max(0, this.deadline - this.clock.now()) : 0;
    return {
      use: this.s.use,
      dontLog: this.s.dontLog,
      running: this.running,
      pretimeoutInterrupt: this.s.pretimeoutInterrupt,
      timeoutAction: this.s.timeoutAction,
      pretimeoutSec: this.s.pretimeoutSec,
      expirationFlags: this.flags,
      countdown: this.s.countdown,
      present: Math.min(0xffff, Math.max(0, Math.ceil(left / 100 - 1e-9))),
    };
  }

  /** Milliseconds until expiry, or undefined when stopped (for UIs and reports). */
  remainingMs(): number | undefined {
    return this.running ? Math.max(0, this.deadline - this.clock.now()) : undefined;
  }

  /** True once a Set has been accepted. */
  get isInitialized(): boolean {
    return this.initialized;
  }

  /**
   * The byte-level command path for the IPMI LAN server: request data in, completion code and
   * response data out. Unknown commands answer 0xC1 (invalid command).
   * @param cmd 0x22 Reset, 0x24 Set, 0x25 Get (NetFn App)
   * @param data request data bytes (after the command byte)
   */
  handle(cmd: number, data: Uint8Array): { cc: number; data: Uint8Array } {
    switch (cmd) {
      case WatchdogCmd.reset: {
        if (data.length !== 0) return { cc: WatchdogCc.invalidLength, data: new Uint8Array(0) };
        return { cc: this.reset() === 'ok' ? WatchdogCc.ok : WatchdogCc.uninitialized, data: new Uint8Array(0) };
      }
      case WatchdogCmd.set: {
        const d = decodeSetWatchdog(data);
        if (typeof d === 'number') return { cc: d, data: new Uint8Array(0) };
        return { cc: this.set(d) === 'ok' ? WatchdogCc.ok : WatchdogCc.invalidField, data: new Uint8Array(0) };
      }
      case WatchdogCmd.get: {
        if (data.length !== 0) return { cc: WatchdogCc.invalidLength, data: new Uint8Array(0) };
        return { cc: WatchdogCc.ok, data: encodeGetWatchdogResponse(this.get()) };
      }
      default:
        return { cc: 0xc1, data: new Uint8Array(0) };
    }
  }

  private start(): void {
    const now = this.clock.now();
    const total = this.s.countdown * 100;
    this.running = true;
    this.deadline = now + total;
    this.pretimeoutFired = false;
    if (this.s.pretimeoutInterrupt !== PretimeoutInterrupt.none) {
      const at = Math.max(0, total - this.s.pretimeoutSec * 1000);
      this.preTimer = this.clock.setTimeout(() => this.firePretimeout(), at);
    }
    this.expTimer = this.clock.setTimeout(() => this.fireExpire(), total);
  }

  private cancelTimers(): void {
    if (this.preTimer !== undefined) this.clock.clearTimeout(this.preTimer);
    if (this.expTimer !== undefined) this.clock.clearTimeout(this.expTimer);
    this.preTimer = undefined;
    this.expTimer = undefined;
  }

  private firePretimeout(): void {
    this.preTimer = undefined;
    if (!this.running || this.pretimeoutFired) return;
    this.pretimeoutFired = true;
    const e: WatchdogEvent = {
      kind: 'pretimeout', at: this.clock.now(), use: this.s.use, interrupt: this.s.pretimeoutInterrupt,
      action: this.s.timeoutAction, log: !this.s.dontLog, sensorOffset: 8,
    };
    for (const fn of [...this.preListeners]) fn(e);
  }

  private fireExpire(): void {
    this.expTimer = undefined;
    if (!this.running) return;
    // A pre-timeout at interval 0 fires together with the expiry, first.
    if (this.s.pretimeoutInterrupt !== PretimeoutInterrupt.none && !this.pretimeoutFired) this.firePretimeout();
    if (!this.running) return; // a pre-timeout listener stopped or re-kicked it
    this.running = false;
    this.cancelTimers();
    if (this.s.use >= 1 && this.s.use <= 5) this.flags |= 1 << this.s.use;
    this.expiries++;
    const e: WatchdogEvent = {
      kind: 'expired', at: this.clock.now(), use: this.s.use, interrupt: this.s.pretimeoutInterrupt,
      action: this.s.timeoutAction, log: !this.s.dontLog, sensorOffset: this.s.timeoutAction,
    };
    for (const fn of [...this.expListeners]) fn(e);
  }
}

/**
 * Checks Set Watchdog Timer settings. Returns null when valid, else the reason (answered as 0xCC).
 * Rules: use 1..5; interrupt 0..3; action 0..3; pretimeoutSec 0..255; countdown 0..65535;
 * clearFlags only bits 1..5; a non-zero pre-timeout interval must be shorter than the countdown.
 */
export function validateSettings(s: WatchdogSettings): string | null {
  if (!Number.isInteger(s.use) || s.use < 1 || s.use > 5) return `reserved timer use ${s.use}`;
  if (!Number.isInteger(s.pretimeoutInterrupt) || s.pretimeoutInterrupt < 0 || s.pretimeoutInterrupt > 3) return `reserved pre-timeout interrupt ${s.pretimeoutInterrupt}`;
  if (!Number.isInteger(s.timeoutAction) || s.timeoutAction < 0 || s.timeoutAction > 3) return `reserved timeout action ${s.timeoutAction}`;
  if (!Number.isInteger(s.pretimeoutSec) || s.pretimeoutSec < 0 || s.pretimeoutSec > 255) return `pre-timeout ${s.pretimeoutSec} out of range`;
  if (!Number.isInteger(s.countdown) || s.countdown < 0 || s.countdown > 0xffff) return `countdown ${s.countdown} out of range`;
  if ((s.clearFlags & ~0x3e) !== 0) return `reserved expiration flag bits 0x${(s.clearFlags & ~0x3e).toString(16)}`;
  if (s.pretimeoutSec > 0 && s.pretimeoutSec * 10 >= s.countdown) return `pre-timeout ${s.pretimeoutSec} s not shorter than countdown ${s.countdown / 10} s`;
  return null;
}

/**
 * Decodes the 6 request bytes of Set Watchdog Timer (§27.6).
 * @returns the settings, or a completion code: 0xC7 for a length other than 6, 0xCC for reserved
 *   bits set (timer use b5:3, actions b7 and b3, flags b7/b6/b0) or any value `validateSettings` rejects.
 */
export function decodeSetWatchdog(data: Uint8Array): WatchdogSettings | number {
  if (data.length !== 6) return WatchdogCc.invalidLength;
  const [b1, b2, b3, b4, lsb, msb] = [data[0]!, data[1]!, data[2]!, data[3]!, data[4]!, data[5]!];
  if ((b1 & 0x38) !== 0 || (b2 & 0x88) !== 0 || (b4 & 0xc1) !== 0) return WatchdogCc.invalidField;
  const s: WatchdogSettings = {
    dontLog: (b1 & 0x80) !== 0,
    dontStop: (b1 & 0x40) !== 0,
    use: b1 & 0x07,
    pretimeoutInterrupt: (b2 >> 4) & 0x07,
    timeoutAction: b2 & 0x07,
    pretimeoutSec: b3,
    clearFlags: b4,
    countdown: lsb | (msb << 8),
  };
  return validateSettings(s) === null ? s : WatchdogCc.invalidField;
}

/**
 * Encodes Set Watchdog Timer request data (6 bytes) — what ipmitool sends.
 * @throws RangeError when a field does not fit its bits.
 */
export function encodeSetWatchdog(s: WatchdogSettings): Uint8Array {
  const fits = (v: number, max: number, f: string) => {
    if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`watchdog ${f} ${v} out of range 0..${max}`);
  };
  fits(s.use, 7, 'use');
  fits(s.pretimeoutInterrupt, 7, 'pretimeoutInterrupt');
  fits(s.timeoutAction, 7, 'timeoutAction');
  fits(s.pretimeoutSec, 255, 'pretimeoutSec');
  fits(s.clearFlags, 255, 'clearFlags');
  fits(s.countdown, 0xffff, 'countdown');
  return Uint8Array.of(
    (s.dontLog ? 0x80 : 0) | (s.dontStop ? 0x40 : 0) | s.use,
    (s.pretimeoutInterrupt << 4) | s.timeoutAction,
    s.pretimeoutSec,
    s.clearFlags,
    s.countdown & 0xff,
    s.countdown >> 8,
  );
}

/**
 * Encodes the 8 response data bytes of Get Watchdog Timer (§27.7; the completion code is not
 * included): use (b7 don't log, b6 running), actions, pre-timeout, flags, initial countdown
 * LSB/MSB, present countdown LSB/MSB (100 ms units, little-endian).
 */
export function encodeGetWatchdogResponse(st: WatchdogStatus): Uint8Array {
  return Uint8Array.of(
    (st.dontLog ? 0x80 : 0) | (st.running ? 0x40 : 0) | (st.use & 0x07),
    ((st.pretimeoutInterrupt & 0x07) << 4) | (st.timeoutAction & 0x07),
    st.pretimeoutSec & 0xff,
    st.expirationFlags & 0x3e,
    st.countdown & 0xff,
    (st.countdown >> 8) & 0xff,
    st.present & 0xff,
    (st.present >> 8) & 0xff,
  );
}

/**
 * Decodes Get Watchdog Timer response data (8 bytes, completion code removed).
 * @throws DecodeError('ipmi-watchdog', …) when fewer than 8 bytes are given.
 */
export function decodeGetWatchdogResponse(data: Uint8Array): WatchdogStatus {
  if (data.length < 8) throw new DecodeError('ipmi-watchdog', 'get-response', data.length, `need 8 bytes, have ${data.length}`);
  return {
    dontLog: (data[0]! & 0x80) !== 0,
    running: (data[0]! & 0x40) !== 0,
    use: data[0]! & 0x07,
    pretimeoutInterrupt: (data[1]! >> 4) & 0x07,
    timeoutAction: data[1]! & 0x07,
    pretimeoutSec: data[2]!,
    expirationFlags: data[3]! & 0x3e,
    countdown: data[4]! | (data[5]! << 8),
    present: data[6]! | (data[7]! << 8),
  };
}

/**
 * The settings a node's firmware programs from HaConfig: SMS/OS use, hard reset on expiry,
 * countdown = watchdogTimeoutMs (rounded up to 100 ms units), an optional messaging-interrupt
 * pre-timeout of watchdogPretimeoutMs (rounded to whole seconds), don't-stop set.
 */
export function firmwareWatchdogSettings(timeoutMs: number, pretimeoutMs = 0): WatchdogSettings {
  const pre = Math.round(pretimeoutMs / 1000);
  return {
    use: TimerUse.smsOs,
    dontLog: false,
    dontStop: true,
    pretimeoutInterrupt: pre > 0 ? PretimeoutInterrupt.messaging : PretimeoutInterrupt.none,
    timeoutAction: TimeoutAction.hardReset,
    pretimeoutSec: pre,
    clearFlags: 0,
    countdown: Math.min(0xffff, Math.ceil(timeoutMs / 100)),
  };
}
