/**
 * Aging of the session table (board/processor/tcam/session-table.ts): one LRU list per state,
 * the idle timeouts (IPVS-like TCP state timeouts), the budgeted sweep, and the reclaim of an
 * entry for an insert on a full table (TGW's SYN-flood defence: a new connection on a full table
 * evicts the least-recently-used *half-open* entry, never an established one).
 *
 * Each state's list is kept in last-seen order (oldest at the head): entries are appended when
 * they enter a state or are refreshed. While a session stays in one state its last-seen (and LRU
 * place) is refreshed at most once per min(1 s, timeout/64), so idle expiry is exact to that
 * granularity.
 */
import type { TimeoutConfig } from '../processor-config.ts';
import { DEFAULT_TIMEOUTS } from '../processor-config.ts';
import { SessionState, STATE_COUNT, isHalfOpen } from '../tcp-state.ts';
import * as L from './entry-layout.ts';
import { RemoveReason, type RemoveReasonCode } from './remove-reason.ts';
import { TableClock } from './table-clock.ts';

// module-local copies of the layout (entry-layout.ts explains why)
const W = L.W;
const O_SEEN = L.O_SEEN;
const O_PREV = L.O_PREV;
const O_NEXT = L.O_NEXT;

/** Last-seen is refreshed at most once per min(1 s, timeout/64) of a state: an entry may expire
 * up to that much early, in exchange for no list move on most hits. */
export const LAST_SEEN_GRANULARITY_MS = 1000;

/** The clocked entry store with per-state LRU lists, timeouts, sweep and reclaim. */
export abstract class AgingLists extends TableClock {
  /** Entries removed by aging. */
  expired = 0;
  /** Half-open entries evicted for a new connection, total and by state. */
  evicted = 0;
  readonly evictedByState = new Float64Array(STATE_COUNT);

  /** Oldest and newest entry of each state's list (−1: empty), and its length. */
  protected readonly heads = new Int32Array(STATE_COUNT).fill(-1);
  protected readonly tails = new Int32Array(STATE_COUNT).fill(-1);
  private readonly counts = new Int32Array(STATE_COUNT);
  /** Idle timeout of each state, ms, and its last-seen refresh granularity. */
  protected readonly timeoutByState = new Float64Array(STATE_COUNT);
  protected readonly granByState = new Float64Array(STATE_COUNT);

  /** Removes entry e (the session table's remove: lists, index, hot tier, counters, hook). */
  abstract remove(e: number, reason: RemoveReasonCode): void;

  /** Replaces the idle timeouts (ms); takes effect for every entry at the next sweep. */
  setTimeouts(t: TimeoutConfig): void {
    const s = this.timeoutByState;
    s[SessionState.SYN_RECV] = t.tcpSynRecv;
    s[SessionState.ESTABLISHED] = t.tcpEstablished;
    s[SessionState.FIN_WAIT] = t.tcpFinWait;
    s[SessionState.TIME_WAIT] = t.tcpTimeWait ?? DEFAULT_TIMEOUTS.tcpTimeWait ?? 120_000;
    s[SessionState.CLOSE] = t.tcpClose;
    s[SessionState.UDP_NEW] = t.udp;
    s[SessionState.UDP] = t.udp;
    s[SessionState.OTHER_NEW] = t.other;
    s[SessionState.OTHER] = t.other;
    for (let i = 0; i < STATE_COUNT; i++) this.granByState[i] = Math.min(LAST_SEEN_GRANULARITY_MS, Math.floor(s[i]! / 64));
  }

  /** Idle timeout of a state, ms. */
  timeoutOf(state: number): number {
    return this.timeoutByState[state]!;
  }

  /** Live entries in a state. */
  countInState(state: number): number {
    return this.counts[state]!;
  }

  /**
   * Expires idle entries, oldest first in each state's LRU list, removing at most `budget`
   * entries per call so a sweep never stalls the data path.
   * @returns the next deadline in the caller's ms: when the next entry will expire, `now` when
   *   the budget ran out with expired entries left, or Infinity when the table is empty.
   */
  sweep(now: number, budget = 1024): number {
    const t = this.time(now);
    const d = this.d;
    let next = Infinity;
    for (let s = 1; s < STATE_COUNT; s++) {
      const to = this.timeoutByState[s]!;
      for (;;) {
        const h = this.heads[s]!;
        if (h < 0) break;
        const due = d[h * W + O_SEEN]! + to;
        if (due > t) {
          if (due < next) next = due;
          break;
        }
        if (budget <= 0) return now;
        this.remove(h, RemoveReason.EXPIRED);
        this.expired++;
        budget--;
      }
    }
    return next === Infinity ? Infinity : this.absolute(next);
  }

  /** Frees one entry for an insert on a full table: an expired one, else the LRU half-open one. */
  protected reclaim(t: number): boolean {
    const d = this.d;
    for (let s = 1; s < STATE_COUNT; s++) {
      const h = this.heads[s]!;
      if (h >= 0 && d[h * W + O_SEEN]! + this.timeoutByState[s]! <= t) {
        this.remove(h, RemoveReason.EXPIRED);
        this.expired++;
        return true;
      }
    }
    let victim = -1;
    let victimSeen = Infinity;
    let victimState = 0;
    for (let s = 1; s < STATE_COUNT; s++) {
      if (!isHalfOpen(s)) continue;
      const h = this.heads[s]!;
      if (h >= 0 && d[h * W + O_SEEN]! < victimSeen) {
        victim = h;
        victimSeen = d[h * W + O_SEEN]!;
        victimState = s;
      }
    }
    if (victim < 0) return false;
    this.remove(victim, RemoveReason.EVICTED);
    this.evicted++;
    this.evictedByState[victimState]!++;
    return true;
  }

  /** Appends entry e to state s's list (it becomes the newest). */
  protected linkTail(e: number, s: number): void {
    const di = this.di;
    const o = e * W;
    const tail = this.tails[s]!;
    di[o + O_PREV] = tail;
    di[o + O_NEXT] = -1;
    if (tail >= 0) di[tail * W + O_NEXT] = e;
    else this.heads[s] = e;
    this.tails[s] = e;
    this.counts[s]!++;
  }

  /** Takes entry e out of state s's list. */
  protected unlink(e: number, s: number): void {
    const di = this.di;
    const o = e * W;
    const p = di[o + O_PREV]!;
    const n = di[o + O_NEXT]!;
    if (p >= 0) di[p * W + O_NEXT] = n;
    else this.heads[s] = n;
    if (n >= 0) di[n * W + O_PREV] = p;
    else this.tails[s] = p;
    this.counts[s]!--;
  }
}
