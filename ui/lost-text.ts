/**
 * The TUI's words for sessions lost by age (LostByAge, chassis/runtime/lost-by-age.ts: young =
 * younger than T_s + B when the old owner stopped forwarding, established = older) and for the
 * shelf managers' names. Pure text helpers beside ui/view-model.ts, which picks the longest form
 * that fits the width it has.
 */
import type { LostByAge } from '../chassis/runtime/ha-seam.ts';

/** Count in at most 4–5 characters: 950, 12k, 1.2M (exact below 10,000, so small counts can be checked). */
function short(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0';
  if (n < 10_000) return String(Math.round(n));
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

/**
 * The lost split, longest form first: `lost 12 young / 0 est`, `lost 12y/0e`.
 * Without HA session sync (no LostByAge) there is no split: `lost n/a`.
 * @param l the counts since start (undefined: no HA session sync)
 * @returns the forms, each shorter than the one before
 */
export function lostSplitForms(l: LostByAge | undefined): string[] {
  if (!l) return ['lost n/a'];
  const y = short(l.young);
  const e = short(l.established);
  return [`lost ${y} young / ${e} est`, `lost ${y}y/${e}e`];
}

/**
 * The one name of a shelf manager on screen: `shmc-a` → `ShMC-A` (any other name unchanged).
 * @param name FRU name from the shelf configuration
 */
export function shmcName(name: string): string {
  const m = /^shmc-?(\w+)$/i.exec(name);
  return m ? `ShMC-${m[1]!.toUpperCase()}` : name;
}

/**
 * `text` with every shelf-manager FRU name (`shmc-a`) written as on screen (`ShMC-A`); same
 * length, so columns stay aligned (the `a` overlay's copy of `atcasim status`).
 */
export function shmcNamesIn(text: string): string {
  return text.replace(/\bshmc-(\w)\b/g, (_m, x: string) => `ShMC-${x.toUpperCase()}`);
}

const NARROW_EVENT_WORDS: readonly [RegExp, string][] = [
  [/ Module\/Board /, ' Board '],
  [/ Management Subsystem Health /, ' Mgmt '],
  [/ Watchdog 2 /, ' WD '],
  [/ \(deasserted\)$/, ' (deass.)'],
];

/**
 * An event pane text shortened for a narrow pane (80 columns): `slot3 Module/Board → Off Duty`
 * → `slot3 Board → Off Duty`, so the new state is not cut.
 */
export function narrowEventText(text: string): string {
  let t = text;
  for (const [re, w] of NARROW_EVENT_WORDS) t = t.replace(re, w);
  return t;
}
