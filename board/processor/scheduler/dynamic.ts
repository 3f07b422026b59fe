/**
 * `dynamic`: interleaved WRR (wrr.ts) over weights the board recomputes every health interval
 * from each member's load score (load-score.ts): the ATCA processor-card design's dynamic
 * weighted scheduling. The scheduler itself is WRR; the board writes the weights into the pool's
 * effective-weight array and calls rebuild(). A configured weight of 0 still drains the member.
 */
import { WrrScheduler } from './wrr.ts';

/** WRR over load-score weights. */
export class DynamicScheduler extends WrrScheduler {
  override readonly name = 'dynamic' as const;
}
