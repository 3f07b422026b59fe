/**
 * The data plane's flow stamps (chassis/dataplane/data-plane.ts `deliver`): one int32 per
 * session-table entry of one processor board, remembering under which routing (epoch, hub, hub
 * port) the data plane last counted the entry's conversation in its flow set. A packet whose
 * session carries the stamp of the current routing cannot change a flow count, so the data
 * plane skips its flow-set probe.
 *
 * A stamp is 0 for an entry that was never stamped, and goes back to 0 whenever the table reuses
 * the entry for a new session, by any path (a packet's insert, an HA import): the data plane
 * calls `reset` from the table's `onCreate` hook. Storage (4 bytes per entry) is made on the
 * first `set` and grows with the entries in use, up to the table's capacity.
 */

/** Stamp layout: routing epoch << EPOCH_SHIFT | hub index << 10 | hub port (≤ 1023). */
export const EPOCH_SHIFT = 13;
/** Epochs run 1 … MAX_EPOCH − 1 (then every stamp is cleared and the epoch restarts at 1). */
export const MAX_EPOCH = 1 << 18;
/** Entries of the first allocation. */
const INITIAL_STAMPS = 4096;

/** Flow stamps of one board's session table, by entry number. */
export class FlowStamps {
  private stamps: Int32Array | null = null;

  /** @param capacity the session table's capacity (entries 0 … capacity − 1) */
  constructor(private readonly capacity: number) {}

  /** Entry e's stamp, 0 when never stamped since the entry was (re)used. */
  get(e: number): number {
    const st = this.stamps;
    return st !== null && e < st.length ? st[e]! : 0;
  }

  /** Sets entry e's stamp. @param v an int32 (see EPOCH_SHIFT) */
  set(e: number, v: number): void {
    let st = this.stamps;
    if (st === null || e >= st.length) st = this.grow(e);
    st[e] = v;
  }

  /** Entry e was (re)used for a new session: its stamp goes back to 0. */
  reset(e: number): void {
    const st = this.stamps;
    if (st !== null && e < st.length) st[e] = 0;
  }

  /** Resets every entry's stamp to 0. */
  clear(): void {
    this.stamps?.fill(0);
  }

  /** Bytes held. */
  bytes(): number {
    return this.stamps === null ? 0 : this.stamps.byteLength;
  }

  private grow(e: number): Int32Array {
    const old = this.stamps;
    let n = Math.max(INITIAL_STAMPS, old === null ? 0 : old.length * 2);
    while (n <= e) n *= 2;
    const st = new Int32Array(Math.min(n, this.capacity));
    if (old !== null) st.set(old);
    this.stamps = st;
    return st;
  }
}
