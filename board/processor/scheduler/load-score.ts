/**
 * Load score of the ATCA processor-card design (../shared/research/appliance.md §1): a server's
 * score is Score_i = 1 / (0.7 · CPU_i + 0.2 · MEM_i + 0.1 · Q_i) with utilisations in 0..1, and
 * new sessions are shared in proportion to it (weighted round robin). Pure functions: samples in,
 * weights out.
 *
 * Scale to integer weights (the `dynamic` scheduler's WRR weights), with W_i the member's
 * configured weight (its capacity as the operator states it):
 *   weight_i = max(1, round(100 · W_i·Score_i / max_j W_j·Score_j))   for a member that is up and not drained
 *   weight_i = 0                                                      otherwise
 * so the member with the most weighted headroom gets 100, a member k times as loaded gets about
 * 100/k of an equally weighted one, and one configured with twice the weight twice as much at
 * equal load. (Before, the configured weights were ignored — weight = 100 · Score / max — so a
 * pool weighted 3:1 was split by load alone, the surprise of katran#35.) The denominator has a
 * floor of 0.01 (an idle server scores 100, not infinity), and quantising to 1..100 keeps tiny
 * load changes from changing the weights (dataplane.md B5).
 */

/** Coefficients of the published score. */
export const LOAD_SCORE_WEIGHTS = { cpu: 0.7, mem: 0.2, queue: 0.1 } as const;
/** Floor of the score's denominator. */
export const LOAD_SCORE_FLOOR = 0.01;
/** Weight given to the best-scoring member. */
export const DYNAMIC_WEIGHT_SCALE = 100;

/** Score_i = 1 / max(0.01, 0.7·cpu + 0.2·mem + 0.1·queue); inputs are clamped to 0..1. */
export function loadScore(cpu: number, mem: number, queue: number): number {
  const c = (x: number) => (x > 1 ? 1 : x > 0 ? x : 0);
  const den = LOAD_SCORE_WEIGHTS.cpu * c(cpu) + LOAD_SCORE_WEIGHTS.mem * c(mem) + LOAD_SCORE_WEIGHTS.queue * c(queue);
  return 1 / Math.max(LOAD_SCORE_FLOOR, den);
}

/**
 * Integer weights from scores and configured weights (see the file header). `eligible[i]` false
 * (down or drained) → 0.
 * @param configured the members' configured weights (default all 1: the score alone)
 * @returns one weight per score, 0..DYNAMIC_WEIGHT_SCALE
 */
export function weightsFromScores(scores: readonly number[], eligible: readonly boolean[], configured?: readonly number[]): number[] {
  const v = scores.map((s, i) => s * (configured?.[i] ?? 1));
  let max = 0;
  for (let i = 0; i < v.length; i++) if (eligible[i] && v[i]! > max) max = v[i]!;
  return v.map((s, i) => (eligible[i] && max > 0 && s > 0 ? Math.max(1, Math.round((DYNAMIC_WEIGHT_SCALE * s) / max)) : 0));
}
