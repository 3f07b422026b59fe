/**
 * The Clock port: the only way core code reads time or schedules work.
 *
 * Shape: xstate v5's `Clock` ({setTimeout, clearTimeout}) plus `now()`, so one object drives
 * xstate delays (`createActor(machine, { clock })`) and board aging alike. Implementations:
 * `SimClock` (board/common/sim-clock.ts; deterministic simulated time for tests, scenarios and
 * chaos) and `SystemClock` (chassis/io/system-clock.ts; wall clock, for `start` and real peers).
 *
 * Units: milliseconds throughout. `now()` is monotonic within one clock (it never goes back),
 * and starts wherever the implementation chooses (SimClock: 0).
 */
export type TimerId = unknown;

export interface Clock {
  /** Current time in ms (monotonic, may be fractional for the system clock). */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds (0 = as soon as possible, after the current call). */
  setTimeout(fn: () => void, ms: number): TimerId;
  /** Cancels a timer returned by `setTimeout`; unknown or fired ids are ignored. */
  clearTimeout(id: TimerId): void;
}
