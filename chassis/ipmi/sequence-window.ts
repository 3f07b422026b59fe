/**
 * Sliding window over a session's inbound sequence numbers (u32, 0 reserved): accepts a number
 * only if it is new — ahead of the highest seen by at most `ahead`, or behind it by at most
 * `behind` and not yet seen (bitmap). Replays and out-of-window numbers are rejected.
 *
 * `check` has no side effects; the session layer calls `accept` only after the packet passed its
 * integrity check (IPMI v2.0 §6.12.13 and OpenIPMI lanserv's "to prevent spoofing" rule; research
 * §S3: ipmi_sim accepts duplicates, atcasim must not).
 */

function signedDistance(a: number, b: number): number {
  return ((a - b) | 0);
}

/** Replay-proof window over one counter (see the module comment). */
export class SequenceWindow {
  private highest: number;
  /** Bit i set = (highest - 1 - i) was seen. */
  private mask = 0;

  /**
   * @param behind how far below the highest number a late packet may be (1..32)
   * @param ahead  how far above the highest number the next packet may be (>= 1)
   * @param start  number treated as already seen; the first packet may be start+1 … start+ahead
   * @throws RangeError for window sizes out of range
   */
  constructor(
    readonly behind: number,
    readonly ahead: number,
    start = 0,
  ) {
    if (!(behind >= 1 && behind <= 32) || !(ahead >= 1)) throw new RangeError(`SequenceWindow: bad sizes behind=${behind} ahead=${ahead}`);
    this.highest = start >>> 0;
  }

  /** Highest number accepted so far (or the start value). */
  get last(): number {
    return this.highest;
  }

  /** True when `seq` would be accepted now (no state change). */
  check(seq: number): boolean {
    seq >>>= 0;
    if (seq === 0) return false;
    const d = signedDistance(seq, this.highest);
    if (d > 0) return d <= this.ahead;
    if (d === 0) return false;
    const back = -d;
    if (back > this.behind) return false;
    return (this.mask & (1 << (back - 1))) === 0;
  }

  /** Records `seq` as seen. Call only after `check(seq)` returned true and the packet was authenticated. */
  accept(seq: number): void {
    seq >>>= 0;
    const d = signedDistance(seq, this.highest);
    if (d > 0) {
      const shifted = d >= 32 ? 0 : (this.mask << d) >>> 0;
      const oldHighestBit = d - 1 < 32 ? (1 << (d - 1)) >>> 0 : 0;
      const keep = this.behind >= 32 ? 0xffffffff : ((1 << this.behind) >>> 0) - 1;
      this.mask = ((shifted | oldHighestBit) & keep) >>> 0;
      this.highest = seq;
    } else if (d < 0 && -d <= this.behind) {
      this.mask = (this.mask | (1 << (-d - 1))) >>> 0;
    }
  }
}
