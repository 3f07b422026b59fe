/**
 * Per-FRU hot-swap controller: applies events through the pure machine (./hot-swap.ts) and runs
 * the timed steps through the Clock, one step time apart (shelf YAML `shelf.hot_swap.step`,
 * default 1 s, so a person can follow them in the TUI):
 *  - M2: the shelf manager grants activation (power budgeted) → M3;
 *  - M3: payload powered, E-keys set → M4;
 *  - M5: the shelf manager approves the deactivation request → M6;
 *  - M6: payload shut down → M1.
 * Decisions (may the shelf manager grant? approve?) and side effects (persist, SEL, data plane) are
 * the host's; the host calls `poke()` when a condition it was waiting for may have changed.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { setPolicy, step, type HotSwapContext, type HotSwapEvent, type HotSwapStep } from './hot-swap.ts';

/** What the controller needs from the shelf. */
export interface HotSwapHost {
  /** A state change happened (persist + SEL + events + data plane). Runs before follow-ups are scheduled. */
  transitioned(fru: string, s: Extract<HotSwapStep, { kind: 'transition' }>): void;
  /** The context changed without a state change (handle moved, lock, pending flag): persist. */
  contextChanged(fru: string, ctx: HotSwapContext): void;
  /** M2: may the shelf manager grant activation now? (Does power negotiation when it says yes.) */
  grantActivation(fru: string): boolean;
  /** M5: does the shelf manager approve the deactivation request by itself? */
  approveDeactivation(fru: string): boolean;
  /** A timed step could not be committed (`transitioned` threw); it is retried one step later. */
  stepFailed(fru: string, err: unknown): void;
}

export class HotSwapController {
  private ctx: HotSwapContext;
  private timer: TimerId | undefined;
  private stopped = false;
  private resumed = false;

  constructor(
    readonly fru: string,
    ctx: HotSwapContext,
    private readonly clock: Clock,
    private readonly stepMs: number,
    private readonly host: HotSwapHost,
  ) {
    this.ctx = ctx;
  }

  /** The current context (read-only view). */
  get context(): Readonly<HotSwapContext> {
    return this.ctx;
  }

  /** True while a timed step is pending. */
  get busy(): boolean {
    return this.timer !== undefined;
  }

  /**
   * Applies one event. On a transition the host is told (it persists it), then the follow-up step
   * for the new state is scheduled. If the host cannot commit, the context is restored and the
   * error is rethrown, so a command never acknowledges a change that was not stored.
   * @returns the machine's step result (illegal steps change nothing)
   */
  dispatch(ev: HotSwapEvent): HotSwapStep {
    const r = step(this.ctx, ev);
    if (r.kind === 'illegal') return r;
    const before = this.ctx;
    this.ctx = r.context;
    if (r.kind === 'transition') {
      this.cancel();
      try {
        this.host.transitioned(this.fru, r);
      } catch (e) {
        this.ctx = before;
        this.schedule();
        throw e;
      }
      this.schedule();
    } else if (!sameContext(before, r.context)) {
      try {
        this.host.contextChanged(this.fru, r.context);
      } catch (e) {
        this.ctx = before;
        throw e;
      }
    }
    return r;
  }

  /** Applies a new activation policy; a cleared lock with a pending handle close requests activation. */
  setPolicy(p: { activationLocked?: boolean; deactivationLocked?: boolean }): HotSwapStep | undefined {
    const r = setPolicy(this.ctx, p);
    const before = this.ctx;
    this.ctx = r.context;
    if (!sameContext(before, r.context)) {
      try {
        this.host.contextChanged(this.fru, this.ctx);
      } catch (e) {
        this.ctx = before;
        throw e;
      }
    }
    if (r.requestActivation) return this.dispatch('fru.activate.request');
    return undefined;
  }

  /** Replaces parts of the context that are not the state (used when restoring). */
  patch(p: Partial<Pick<HotSwapContext, 'handleClosed' | 'activationPending'>>): void {
    const before = this.ctx;
    this.ctx = { ...this.ctx, ...p };
    try {
      this.host.contextChanged(this.fru, this.ctx);
    } catch (e) {
      this.ctx = before;
      throw e;
    }
  }

  /**
   * Replaces the context of a controller that has not resumed yet: the shelf's first power-up
   * keeps a FRU that the power budget does not cover in M2 instead of M4. Nothing is persisted or
   * scheduled (resume() schedules the follow-up).
   * @throws Error once the controller has resumed
   */
  reset(ctx: HotSwapContext): void {
    if (this.resumed) throw new Error(`${this.fru}: the hot-swap context is reset only before the controller resumes`);
    this.ctx = ctx;
  }

  /** Schedules the follow-up of the current state (after a restore from the database). */
  resume(): void {
    this.resumed = true;
    this.cancel();
    this.schedule();
  }

  /** Re-checks a state that waits for the shelf manager (M2, M5) at once. */
  poke(): void {
    if (this.stopped) return;
    if ((this.ctx.state === 2 || this.ctx.state === 5) && this.timer === undefined) this.schedule();
  }

  /** Cancels pending steps for good (shelf closed). */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    const s = this.ctx.state;
    let ev: HotSwapEvent | undefined;
    let decide: (() => boolean) | undefined;
    if (s === 2) {
      ev = 'shm.activate';
      decide = () => this.host.grantActivation(this.fru);
    } else if (s === 3) ev = 'activation.done';
    else if (s === 5) {
      ev = 'shm.deactivate';
      decide = () => this.host.approveDeactivation(this.fru);
    } else if (s === 6) ev = 'deactivation.done';
    if (!ev) return;
    const state = s;
    const event = ev;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.stopped || this.ctx.state !== state) return;
      if (decide && !decide()) return; // waits until poke()
      try {
        this.dispatch(event);
      } catch (e) {
        this.host.stepFailed(this.fru, e); // dispatch rescheduled the step: retried one step later
      }
    }, this.stepMs);
  }
}

function sameContext(a: HotSwapContext, b: HotSwapContext): boolean {
  return (
    a.state === b.state &&
    a.previous === b.previous &&
    a.lastCause === b.lastCause &&
    a.handleClosed === b.handleClosed &&
    a.activationLocked === b.activationLocked &&
    a.deactivationLocked === b.deactivationLocked &&
    a.activationPending === b.activationPending
  );
}
