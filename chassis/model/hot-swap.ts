/**
 * PICMG 3.0 FRU hot-swap states M0–M7 as a pure, table-driven state machine.
 *
 * Source: PICMG 3.0 R3.0 §3.2.4 (FRU hot-swap states and transitions, Figure 3-3) and the PICMG
 * Hot Swap event format (§3.2.4.3; cause codes of event data 2), as summarised in
 * ../shared/research/ipmi.md §D. No timers and no I/O: `step(ctx, event)` returns what happens;
 * the per-FRU controller (hot-swap-controller.ts) runs the timed steps through the Clock.
 *
 * States: M0 Not Installed · M1 Inactive · M2 Activation Request · M3 Activation In Progress ·
 * M4 Active · M5 Deactivation Request · M6 Deactivation In Progress · M7 Communication Lost.
 *
 * Legal state changes (the PICMG diagram): M0→M1 · M1→M2 · M1→M0 · M2→M1 · M2→M3 · M3→M4 ·
 * M3→M6 · M4→M5 · M4→M6 · M5→M4 · M5→M6 · M6→M1 · M1..M6→M7 · M7→M1..M6 (back to the state it
 * left) · M1..M7→M0 (extraction).
 */

/** Hot-swap state number (0..7); the Hot Swap sensor asserts bit `state`. */
export type MState = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;

export const M_STATES: readonly MState[] = [0, 1, 2, 3, 4, 5, 6, 7];

/** State names as ipmitool and the PICMG specification print them. */
export const M_STATE_NAME: Readonly<Record<MState, string>> = {
  0: 'Not Installed',
  1: 'Inactive',
  2: 'Activation Request',
  3: 'Activation In Progress',
  4: 'Active',
  5: 'Deactivation Request',
  6: 'Deactivation In Progress',
  7: 'Communication Lost',
};

/** `M0`…`M7`. */
export function mLabel(s: MState): string {
  return `M${s}`;
}

/**
 * State-change cause (PICMG 3.0 Hot Swap event, event data 2 b7:4):
 * 0 normal state change · 1 change commanded by the shelf manager (Set FRU Activation) ·
 * 2 operator changed the handle switch · 3 FRU programmatic action · 4 communication lost or
 * regained · 5 communication lost or regained, locally detected · 6 surprise state change due to
 * extraction · 7 state change due to provided information · 8 invalid hardware address detected ·
 * 9 unexpected deactivation · F unknown.
 */
export const HOT_SWAP_CAUSE = {
  normal: 0x0,
  shelfManager: 0x1,
  handle: 0x2,
  programmatic: 0x3,
  communication: 0x4,
  communicationLocal: 0x5,
  surpriseExtraction: 0x6,
  providedInformation: 0x7,
  invalidHardwareAddress: 0x8,
  unexpectedDeactivation: 0x9,
  unknown: 0xf,
} as const;

/** A cause name (key of HOT_SWAP_CAUSE). */
export type HotSwapCause = keyof typeof HOT_SWAP_CAUSE;

/** Human text of each cause (as shelf-manager CLIs print it). */
export const HOT_SWAP_CAUSE_TEXT: Readonly<Record<HotSwapCause, string>> = {
  normal: 'Normal State Change',
  shelfManager: 'Change Commanded by Shelf Manager with Set FRU Activation',
  handle: 'State Change due to operator changing a Handle Switch',
  programmatic: 'State Change due to FRU programmatic action',
  communication: 'Communication Lost or Regained',
  communicationLocal: 'Communication Lost or Regained (locally detected)',
  surpriseExtraction: 'Surprise State Change due to extraction',
  providedInformation: 'State Change due to provided information',
  invalidHardwareAddress: 'Invalid Hardware Address Detected',
  unexpectedDeactivation: 'Unexpected Deactivation',
  unknown: 'Unknown',
};

/**
 * Inputs of the machine.
 * - `insert`: the FRU is plugged into the backplane (M0→M1).
 * - `extract`: the FRU is pulled (→M0; from M1 a normal extraction, otherwise a surprise).
 * - `handle.close` / `handle.open`: the operator moves the ejector handle.
 * - `shm.activate` / `shm.deactivate`: the shelf manager's Set FRU Activation (2Ch/0Ch). Activate
 *   moves M1→M2 (the operator asks the shelf manager to bring the FRU up), grants M2→M3, and in M5
 *   refuses the deactivation request (M5→M4).
 * - `fru.activate.request` / `fru.deactivate.request`: the FRU asks by itself (programmatic).
 * - `activation.done`: payload powered and E-keys set (M3→M4).
 * - `deactivation.done`: payload shut down and powered off (M6→M1).
 * - `payload.fault`: the payload died (unexpected deactivation, →M6).
 * - `comm.lost` / `comm.restored`: the shelf manager lost / regained the IPMC on IPMB-0.
 */
export type HotSwapEvent =
  | 'insert'
  | 'extract'
  | 'handle.close'
  | 'handle.open'
  | 'shm.activate'
  | 'shm.deactivate'
  | 'fru.activate.request'
  | 'fru.deactivate.request'
  | 'activation.done'
  | 'deactivation.done'
  | 'payload.fault'
  | 'comm.lost'
  | 'comm.restored';

export const HOT_SWAP_EVENTS: readonly HotSwapEvent[] = [
  'insert',
  'extract',
  'handle.close',
  'handle.open',
  'shm.activate',
  'shm.deactivate',
  'fru.activate.request',
  'fru.deactivate.request',
  'activation.done',
  'deactivation.done',
  'payload.fault',
  'comm.lost',
  'comm.restored',
];

/** What the machine remembers besides the state. */
export interface HotSwapContext {
  state: MState;
  /** State before the last transition (the Hot Swap event's "previous state"). */
  previous: MState;
  /** Cause of the last transition. */
  lastCause: HotSwapCause;
  /** Ejector handle position (true = closed, latched). */
  handleClosed: boolean;
  /** FRU activation policy, PICMG Set FRU Activation Policy (2Ch/0Ah) bit 0: stay in M1 when the handle closes. */
  activationLocked: boolean;
  /** Bit 1: stay in M4 when the handle opens. */
  deactivationLocked: boolean;
  /** The handle closed while activation was locked: clearing the lock moves the FRU to M2. */
  activationPending: boolean;
}

/** Guard names used by the table. */
export type HotSwapGuard = 'activationUnlocked' | 'deactivationUnlocked';

/** One table entry: target (`'previous'` = the state M7 was entered from), cause, optional guard. */
export interface HotSwapRule {
  to: MState | 'previous';
  cause: HotSwapCause;
  guard?: HotSwapGuard;
}

/**
 * The transition table: event → state → rule. A (state, event) pair that is absent is illegal.
 * Events that only move the handle (e.g. `handle.close` in M4) are handled by `step` as
 * "no state change" rather than listed here.
 */
export const HOT_SWAP_TABLE: Readonly<Record<HotSwapEvent, Readonly<Partial<Record<MState, HotSwapRule>>>>> = {
  insert: { 0: { to: 1, cause: 'normal' } },
  extract: {
    1: { to: 0, cause: 'normal' },
    2: { to: 0, cause: 'surpriseExtraction' },
    3: { to: 0, cause: 'surpriseExtraction' },
    4: { to: 0, cause: 'surpriseExtraction' },
    5: { to: 0, cause: 'surpriseExtraction' },
    6: { to: 0, cause: 'surpriseExtraction' },
    7: { to: 0, cause: 'surpriseExtraction' },
  },
  'handle.close': {
    1: { to: 2, cause: 'handle', guard: 'activationUnlocked' },
    5: { to: 4, cause: 'handle' },
  },
  'handle.open': {
    2: { to: 1, cause: 'handle' },
    3: { to: 6, cause: 'handle' },
    4: { to: 5, cause: 'handle', guard: 'deactivationUnlocked' },
  },
  'shm.activate': {
    1: { to: 2, cause: 'shelfManager' },
    2: { to: 3, cause: 'shelfManager' },
    5: { to: 4, cause: 'shelfManager' },
  },
  'shm.deactivate': {
    2: { to: 1, cause: 'shelfManager' },
    3: { to: 6, cause: 'shelfManager' },
    4: { to: 6, cause: 'shelfManager' },
    5: { to: 6, cause: 'shelfManager' },
  },
  'fru.activate.request': { 1: { to: 2, cause: 'programmatic', guard: 'activationUnlocked' } },
  'fru.deactivate.request': { 4: { to: 5, cause: 'programmatic', guard: 'deactivationUnlocked' } },
  'activation.done': { 3: { to: 4, cause: 'normal' } },
  'deactivation.done': { 6: { to: 1, cause: 'normal' } },
  'payload.fault': {
    3: { to: 6, cause: 'unexpectedDeactivation' },
    4: { to: 6, cause: 'unexpectedDeactivation' },
    5: { to: 6, cause: 'unexpectedDeactivation' },
  },
  'comm.lost': {
    1: { to: 7, cause: 'communication' },
    2: { to: 7, cause: 'communication' },
    3: { to: 7, cause: 'communication' },
    4: { to: 7, cause: 'communication' },
    5: { to: 7, cause: 'communication' },
    6: { to: 7, cause: 'communication' },
  },
  'comm.restored': { 7: { to: 'previous', cause: 'communication' } },
};

/**
 * Result of one step.
 * - `transition`: the state changes `from` → `to` with `cause`; `context` is the new context.
 * - `unchanged`: the event is legal but moves no state (a handle move that only updates the handle
 *   position, or a transition held back by a lock: `blockedBy` names the guard).
 * - `illegal`: the event is not accepted in this state (nothing changes).
 */
export type HotSwapStep =
  | { kind: 'transition'; from: MState; to: MState; cause: HotSwapCause; context: HotSwapContext }
  | { kind: 'unchanged'; context: HotSwapContext; blockedBy?: HotSwapGuard }
  | { kind: 'illegal'; state: MState; event: HotSwapEvent };

/** A fresh context: state `state` (default M0), handle closed, no locks. */
export function initialHotSwapContext(state: MState = 0, patch: Partial<HotSwapContext> = {}): HotSwapContext {
  return {
    state,
    previous: state,
    lastCause: 'normal',
    handleClosed: true,
    activationLocked: false,
    deactivationLocked: false,
    activationPending: false,
    ...patch,
  };
}

function guardOk(g: HotSwapGuard | undefined, c: HotSwapContext): boolean {
  if (g === 'activationUnlocked') return !c.activationLocked;
  if (g === 'deactivationUnlocked') return !c.deactivationLocked;
  return true;
}

/**
 * Applies one event to a context (pure; the input is not modified).
 * Handle events always update `handleClosed` (the handle is physical), even when no state changes;
 * in M0 the handle cannot be moved (there is no board). A handle closed against an activation lock
 * sets `activationPending`. `comm.restored` returns to the state M7 was entered from.
 */
export function step(ctx: HotSwapContext, event: HotSwapEvent): HotSwapStep {
  const rule = HOT_SWAP_TABLE[event][ctx.state];
  let next: HotSwapContext = ctx;
  const isHandle = event === 'handle.close' || event === 'handle.open';
  if (isHandle) {
    if (ctx.state === 0) return { kind: 'illegal', state: ctx.state, event };
    const closed = event === 'handle.close';
    next = { ...ctx, handleClosed: closed, activationPending: closed ? ctx.activationPending : false };
  }
  if (!rule) {
    if (isHandle) return { kind: 'unchanged', context: next };
    return { kind: 'illegal', state: ctx.state, event };
  }
  if (!guardOk(rule.guard, next)) {
    if (rule.guard === 'activationUnlocked' && event === 'handle.close') next = { ...next, activationPending: true };
    return { kind: 'unchanged', context: next, blockedBy: rule.guard };
  }
  const to: MState = rule.to === 'previous' ? ctx.previous : rule.to;
  const context: HotSwapContext = {
    ...next,
    state: to,
    previous: ctx.state,
    lastCause: rule.cause,
    activationPending: to === 1 ? next.activationPending : false,
  };
  // A board pulled out has no handle state to keep; re-inserted boards start with the handle
  // open until the operator closes it (the shelf's insert command closes it by default).
  if (to === 0) context.handleClosed = false;
  return { kind: 'transition', from: ctx.state, to, cause: rule.cause, context };
}

/**
 * Applies a new activation policy (PICMG Set FRU Activation Policy). Returns the new context and
 * whether the FRU should now request activation (lock cleared in M1 with a pending handle close).
 */
export function setPolicy(
  ctx: HotSwapContext,
  policy: { activationLocked?: boolean; deactivationLocked?: boolean },
): { context: HotSwapContext; requestActivation: boolean } {
  const context = {
    ...ctx,
    activationLocked: policy.activationLocked ?? ctx.activationLocked,
    deactivationLocked: policy.deactivationLocked ?? ctx.deactivationLocked,
  };
  const requestActivation = context.state === 1 && context.handleClosed && context.activationPending && !context.activationLocked;
  return { context, requestActivation };
}

/** Every legal (from, to) state pair of the PICMG diagram, for checks and documentation. */
export const LEGAL_STATE_CHANGES: ReadonlyArray<readonly [MState, MState]> = (() => {
  const pairs = new Set<string>();
  for (const ev of HOT_SWAP_EVENTS) {
    for (const [from, rule] of Object.entries(HOT_SWAP_TABLE[ev])) {
      const f = Number(from) as MState;
      if (rule!.to === 'previous') for (const p of [1, 2, 3, 4, 5, 6] as MState[]) pairs.add(`${f}>${p}`);
      else pairs.add(`${f}>${rule!.to}`);
    }
  }
  return [...pairs].map((s) => s.split('>').map(Number) as unknown as readonly [MState, MState]);
})();

/** True when the PICMG diagram allows a change from `from` to `to`. */
export function isLegalStateChange(from: MState, to: MState): boolean {
  return LEGAL_STATE_CHANGES.some(([a, b]) => a === from && b === to);
}

/**
 * PICMG Hot Swap event data (research/ipmi.md §D; sensor type F0h, event/reading type 6Fh):
 * data1 = A0h | new state (b7:4 = Ah: OEM codes in data 2 and 3, b3:0 = offset = state),
 * data2 = cause << 4 | previous state, data3 = FRU device ID.
 */
export function hotSwapEventData(to: MState, from: MState, cause: HotSwapCause, fruDeviceId = 0): [number, number, number] {
  return [0xa0 | to, (HOT_SWAP_CAUSE[cause] << 4) | from, fruDeviceId & 0xff];
}

/** Blue LED behaviour of each state (PICMG 3.0 §2.2.8 / research/ipmi.md §D): off in M0, M3, M4;
 * on in M1 (safe to extract); long blink (900 ms on / 100 ms off) in M2; short blink (100 ms on /
 * 900 ms off) in M5 and M6. M7 keeps whatever the LED showed (the IPMC drives it, not the ShM). */
export type BlueLedMode = 'off' | 'on' | 'long-blink' | 'short-blink' | 'unchanged';

export const BLUE_LED_BY_STATE: Readonly<Record<MState, BlueLedMode>> = {
  0: 'off',
  1: 'on',
  2: 'long-blink',
  3: 'off',
  4: 'off',
  5: 'short-blink',
  6: 'short-blink',
  7: 'unchanged',
};
