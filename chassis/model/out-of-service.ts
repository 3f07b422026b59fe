/**
 * The word for a FRU that is out of service on purpose. The HA layer records a pair member whose
 * board left M4 as `failed` whatever the reason; shown that way, a planned deactivation reads as a
 * fault. What the screen and the logs say instead (docs/ha.md "Roles"):
 *
 * - `off`: the FRU left M4 by a planned change — the operator's handle, Set FRU Activation from
 *   the shelf manager (`clia deactivate`, `ipmitool picmg deactivate`) or its own programmatic
 *   action — and is in M5, M6 or M1;
 * - `out`: the FRU is not in the shelf (M0) after anything but a surprise extraction;
 * - otherwise (a fault, M7, a surprise extraction, a crash) nothing: `failed` stays `fail`.
 *
 * Sources: PICMG 3.0 §3.2.4.1 (hot-swap state change causes).
 */
import type { HotSwapCause, MState } from './hot-swap.ts';

/** Causes of a planned change of state. */
export const PLANNED_CAUSES: ReadonlySet<HotSwapCause> = new Set<HotSwapCause>(['handle', 'shelfManager', 'programmatic']);

/** `off`, `out` or undefined (see the module note) for a FRU in `state` whose last change had `cause`. */
export function plannedOutWord(state: MState, cause: HotSwapCause): 'off' | 'out' | undefined {
  if (state === 0) return cause === 'surpriseExtraction' ? undefined : 'out';
  if ((state === 1 || state === 5 || state === 6) && PLANNED_CAUSES.has(cause)) return 'off';
  return undefined;
}
