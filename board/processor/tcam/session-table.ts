/**
 * The processor board's exact-match connection (session) table: the emulated TCAM session store
 * of the ATCA processor card (about 1.5 M entries, hot entries on chip), with the policies of the
 * systems it stands beside: IPVS-like TCP state timeouts, LRU aging, and TGW's SYN-flood defence
 * (a new connection on a full table evicts the least-recently-used *half-open* entry, never an
 * established one).
 *
 * The table is one object built as a chain of classes, one concept per file, so the per-packet
 * path reads every field of one object with no indirection:
 * - entry-layout.ts   the 12-word entry layout, the entry array and its free list;
 * - table-clock.ts    table time (u32 ms) for the caller's `now`, and its rebasing;
 * - aging-lists.ts    one LRU list per state, timeouts, the budgeted sweep, full-table reclaim;
 * - hot-tier.ts       the on-chip tier: promotion after n hits, CLOCK demotion;
 * - key-registers.ts  the direction-insensitive conversation key and its hash;
 * - session-index.ts  the open-addressing index over the entries, with the IPv6 side store
 *                     (ipv6-store.ts);
 * - this file         insert, remove, the per-packet update, accessors and HA records.
 * At 1.5 M entries this is 48 B + 4 B × 2^21 / 1.5 M ≈ 53.6 bytes per IPv4 entry; an IPv6 entry
 * adds 36 bytes of side store (`memoryBytes()` reports the real figure).
 */
import { SessionState, STATE_COUNT, datagramNext, tcpNext } from '../tcp-state.ts';
import { DEFAULT_TIMEOUTS } from '../processor-config.ts';
import type { SessionRecord } from '../session-record.ts';
import * as L from './entry-layout.ts';
import { RemoveReason, type RemoveReasonCode } from './remove-reason.ts';
import { SessionIndex } from './session-index.ts';
import { checkedOptions, type SessionTableOptions } from './table-options.ts';

export { RemoveReason, REMOVE_REASON_NAMES, type RemoveReasonCode } from './remove-reason.ts';
export { LAST_SEEN_GRANULARITY_MS } from './aging-lists.ts';
export { MAX_SESSION_CAPACITY, type SessionTableOptions } from './table-options.ts';

// module-local copies of the layout (entry-layout.ts explains why)
const W = L.W;
const O_A = L.O_A;
const O_B = L.O_B;
const O_PORTS = L.O_PORTS;
const O_META = L.O_META;
const O_RS = L.O_RS;
const O_HASH = L.O_HASH;
const O_SEEN = L.O_SEEN;
const O_HITS = L.O_HITS;
const O_CREATED = L.O_CREATED;
const O_HOT = L.O_HOT;
const K_V6 = L.K_V6;
const K_NOPORTS = L.K_NOPORTS;
const K_CLIENT_B = L.K_CLIENT_B;

/**
 * Fixed-capacity exact-match session table over typed arrays. Hot-path methods (`loadKey`,
 * `find`, `insert`, `applyPacket`) allocate nothing.
 *
 * Usage per packet: `loadKey(tuple)`; `e = find()`; on a hit `applyPacket(e, flags,
 * isFromClient(e), now)`; on a miss `insert(now, service, rs, state, flags)` (−1 = table full).
 */
export class SessionTable extends SessionIndex {
  /** Per-RS connection counters as IPVS keeps them: active = ESTABLISHED TCP, inactive = any other state. */
  readonly rsActive: Int32Array;
  readonly rsInactive: Int32Array;

  // ---- counters (monotonic) ----
  /** Entries ever inserted. */
  inserted = 0;
  /** Inserts refused because the table was full of non-evictable entries. */
  fullRefusals = 0;

  /** Called before an entry is removed (any reason); the entry is still readable. The hook may
   * read entries (readRecord, rsOf…) but must not call loadKey/find/insert/remove. */
  onRemove: ((e: number, reason: RemoveReasonCode) => void) | null = null;
  /** Called when entry e has just been (re)used for a new session, by any path (insert,
   * upsertRecord): an owner that keeps per-entry bookkeeping beside the table resets it here.
   * Same restrictions as onRemove. */
  onCreate: ((e: number) => void) | null = null;

  /**
   * @throws RangeError when capacity is not an integer in 1 … 2^26, or hotCapacity > capacity.
   */
  constructor(opts: SessionTableOptions) {
    super(checkedOptions(opts));
    const nRs = opts.maxRealServers ?? 65536;
    this.rsActive = new Int32Array(nRs);
    this.rsInactive = new Int32Array(nRs);
    this.setTimeouts({ ...DEFAULT_TIMEOUTS, ...opts.timeouts });
  }

  // ------------------------------------------------------------------ insert / remove

  /**
   * Inserts the loaded key as a new session whose client is the loaded packet's source. When
   * the table is full it first reclaims an already-expired entry, else evicts the
   * least-recently-used half-open entry (SYN_RECV, UDP_NEW, OTHER_NEW) in O(1); established and
   * closing entries are never evicted.
   * The caller must have checked that the key is absent (find() === −1).
   * @param service service index (0 … 65535)
   * @param rs RS index (0 … maxRealServers−1)
   * @param state initial state (SessionState)
   * @param entryFlags initial EF_* bits
   * @returns the entry index, or −1 when the table is full of non-evictable entries.
   */
  insert(now: number, service: number, rs: number, state: number, entryFlags = 0): number {
    const t = this.time(now);
    if (this.size >= this.capacity && !this.reclaim(t)) {
      this.fullRefusals++;
      return -1;
    }
    return this.place(t, t, service, rs, state, entryFlags, this.kPktIsA, false);
  }

  private place(created: number, seen: number, service: number, rs: number, state: number, entryFlags: number, clientIsA: boolean, clampSeen: boolean): number {
    const e = this.allocEntry();
    const d = this.d;
    const di = this.di;
    const o = e * W;
    if (this.kV6) {
      const slot = this.v6.alloc();
      this.v6.write(slot, this.kWords);
      di[o + O_A] = slot;
      di[o + O_B] = 0;
    } else {
      di[o + O_A] = this.kA;
      di[o + O_B] = this.kB;
    }
    di[o + O_PORTS] = this.kPorts;
    di[o + O_META] = this.kMeta | ((entryFlags & 0xff) << 8) | (state << 16) | (clientIsA ? 0 : K_CLIENT_B);
    di[o + O_RS] = (rs & 0xffff) | (service << 16);
    di[o + O_HASH] = this.kHash;
    d[o + O_CREATED] = created;
    // lists stay sorted by last-seen: an imported entry is no older than the newest in its list
    const tailSeen = clampSeen && this.tails[state]! >= 0 ? d[this.tails[state]! * W + O_SEEN]! : 0;
    d[o + O_SEEN] = seen > tailSeen ? seen : tailSeen;
    d[o + O_HITS] = 0;
    di[o + O_HOT] = -1;
    this.linkTail(e, state);
    this.indexAdd(e);
    this.size++;
    this.inserted++;
    if (state === SessionState.ESTABLISHED) this.rsActive[rs]!++;
    else this.rsInactive[rs]!++;
    const hook = this.onCreate;
    if (hook !== null) hook(e);
    return e;
  }

  /**
   * Removes entry `e` (calls `onRemove` first). The loaded key registers are not touched, so a
   * caller may remove a stale entry and insert the loaded key again.
   */
  remove(e: number, reason: RemoveReasonCode): void {
    const d = this.d;
    const o = e * W;
    const meta = d[o + O_META]!;
    const state = (meta >>> 16) & 0xff;
    if (state === SessionState.FREE) return;
    if (this.onRemove) this.onRemove(e, reason);
    this.unlink(e, state);
    if (this.di[o + O_HOT]! >= 0) this.hotRemove(e);
    this.indexDelete(e);
    if (meta & K_V6) this.v6.release(d[o + O_A]!);
    const rs = d[o + O_RS]! & 0xffff;
    if (state === SessionState.ESTABLISHED) this.rsActive[rs]!--;
    else this.rsInactive[rs]!--;
    this.freeEntry(e);
    this.size--;
  }

  /** Removes every entry (reason DELETED, `onRemove` called for each). */
  clear(): void {
    for (let s = 1; s < STATE_COUNT; s++) {
      while (this.heads[s]! >= 0) this.remove(this.heads[s]!, RemoveReason.DELETED);
    }
  }

  // ------------------------------------------------------------------ per-packet update

  /**
   * Applies a packet that hit entry `e`: moves the TCP state from the flags (UDP/other: the
   * first reply confirms the session), refreshes last-seen and the entry's place in its LRU
   * list (at most once per LAST_SEEN_GRANULARITY_MS or timeout/64 while the state stays),
   * counts the hit and promotes the entry to the hot tier after `promoteAfterHits` hits.
   * @param tcpFlags the segment's TCP flags, or −1 (not TCP / not captured)
   * @param fromClient isFromClient(e)
   * @returns the new state
   */
  applyPacket(e: number, tcpFlags: number, fromClient: boolean, now: number): number {
    const t = this.time(now);
    const d = this.d;
    const o = e * W;
    const meta = d[o + O_META]!;
    const state = (meta >>> 16) & 0xff;
    const ef = (meta >>> 8) & 0xff;
    const r = (meta & 0xff) === 6 && (meta & K_NOPORTS) === 0
      ? tcpNext(state, ef, tcpFlags, fromClient)
      : datagramNext(state, ef, fromClient);
    const ns = r & 0xff;
    const nf = (r >>> 8) & 0xff;
    if (ns !== state) {
      this.unlink(e, state);
      d[o + O_SEEN] = t;
      this.linkTail(e, ns);
    } else if (t - d[o + O_SEEN]! >= this.granByState[state]!) {
      // Refresh last-seen (and the LRU place) at most once per granularity: a busy flow does
      // not pay two neighbour cache misses per packet for a list move.
      d[o + O_SEEN] = t;
      if (this.tails[state] !== e) {
        this.unlink(e, state);
        this.linkTail(e, state);
      }
    }
    d[o + O_META] = ((meta & 0xff0000ff) | (nf << 8) | (ns << 16)) >>> 0;
    if (ns !== state) {
      const rs = d[o + O_RS]! & 0xffff;
      if (state === SessionState.ESTABLISHED) {
        this.rsActive[rs]!--;
        this.rsInactive[rs]!++;
      } else if (ns === SessionState.ESTABLISHED) {
        this.rsInactive[rs]!--;
        this.rsActive[rs]!++;
      }
    }
    this.hit(e);
    return ns;
  }

  // ------------------------------------------------------------------ accessors

  /** State of entry e (SessionState; FREE for a free index). */
  stateOf(e: number): number {
    return (this.d[e * W + O_META]! >>> 16) & 0xff;
  }

  /** EF_* flag bits of entry e. */
  flagsOf(e: number): number {
    return (this.d[e * W + O_META]! >>> 8) & 0xff;
  }

  /** IP protocol of entry e. */
  protoOf(e: number): number {
    return this.d[e * W + O_META]! & 0xff;
  }

  /** RS index of entry e. */
  rsOf(e: number): number {
    return this.d[e * W + O_RS]! & 0xffff;
  }

  /** Service index of entry e. */
  serviceOf(e: number): number {
    return this.d[e * W + O_RS]! >>> 16;
  }

  /** Creation time of entry e, caller ms. */
  createdOf(e: number): number {
    return this.absolute(this.d[e * W + O_CREATED]!);
  }

  /** Last-seen time of entry e, caller ms. */
  lastSeenOf(e: number): number {
    return this.absolute(this.d[e * W + O_SEEN]!);
  }

  /** Hits of entry e since its creation (reset when demoted from the hot tier). */
  hitsOf(e: number): number {
    return this.d[e * W + O_HITS]!;
  }

  /** Flow hash of entry e (the same value loadKey returned for its packets). */
  hashOf(e: number): number {
    return this.d[e * W + O_HASH]!;
  }

  /** Bytes of typed-array storage the table holds now (entries, index, hot ring, IPv6 store, counters). */
  memoryBytes(): number {
    const b = this.d.byteLength + this.indexBytes() + this.hotBytes() + this.v6.bytes();
    return b + this.rsActive.byteLength + this.rsInactive.byteLength;
  }

  /** Bytes of the IPv6 side store. */
  v6StoreBytes(): number {
    return this.v6.bytes();
  }

  /**
   * Moves every live entry to new RS and service indexes (a run-time change of the services):
   * RS r becomes rsMap[r], service v serviceMap[v]; the per-RS counters follow.
   */
  remap(rsMap: Int32Array, serviceMap: Int32Array): void {
    const d = this.d;
    this.rsActive.fill(0);
    this.rsInactive.fill(0);
    for (let e = 0; e < this.top; e++) {
      const o = e * W;
      const state = (d[o + O_META]! >>> 16) & 0xff;
      if (state === 0) continue;
      const rs = rsMap[d[o + O_RS]! & 0xffff]! & 0xffff;
      d[o + O_RS] = rs | (serviceMap[d[o + O_RS]! >>> 16]! << 16);
      if (state === SessionState.ESTABLISHED) this.rsActive[rs]!++;
      else this.rsInactive[rs]!++;
    }
  }

  // ------------------------------------------------------------------ records (HA sync)

  /** Fills `rec` with entry e (client side first). Returns rec. */
  readRecord(e: number, rec: SessionRecord): SessionRecord {
    const d = this.d;
    const o = e * W;
    const meta = d[o + O_META]!;
    const v6 = (meta & K_V6) !== 0;
    const clientB = (meta & K_CLIENT_B) !== 0;
    const ca = clientB ? rec.server : rec.client;
    const cb = clientB ? rec.client : rec.server;
    ca.fill(0);
    cb.fill(0);
    if (v6) {
      const slot = d[o + O_A]!;
      for (let i = 0; i < 4; i++) {
        putWord(ca, i << 2, this.v6.word(slot, i));
        putWord(cb, i << 2, this.v6.word(slot, 4 + i));
      }
    } else {
      putWord(ca, 0, d[o + O_A]!);
      putWord(cb, 0, d[o + O_B]!);
    }
    const ports = d[o + O_PORTS]!;
    const pa = ports >>> 16;
    const pb = ports & 0xffff;
    rec.family = v6 ? 6 : 4;
    rec.proto = meta & 0xff;
    rec.hasPorts = (meta & K_NOPORTS) === 0;
    rec.clientPort = clientB ? pb : pa;
    rec.serverPort = clientB ? pa : pb;
    rec.state = (meta >>> 16) & 0xff;
    rec.flags = (meta >>> 8) & 0xff;
    rec.service = d[o + O_RS]! >>> 16;
    rec.rs = d[o + O_RS]! & 0xffff;
    rec.createdMs = this.absolute(d[o + O_CREATED]!);
    rec.lastSeenMs = this.absolute(d[o + O_SEEN]!);
    return rec;
  }

  /** Loads the key of a record (direction client → server) into the key registers. */
  loadRecordKey(rec: SessionRecord): number {
    return this.loadKeyRaw(rec.family === 6, rec.client, rec.server, rec.clientPort, rec.serverPort, rec.proto, rec.hasPorts);
  }

  /**
   * Inserts or refreshes a session from a record (HA import, takeover merge). An existing entry
   * with the same key is overwritten (state, RS, service, times). Insertion into a full table
   * follows the same policy as `insert`. The entry's last-seen is kept in LRU order: it is the
   * record's last-seen or the newest last-seen already in that state, whichever is later.
   * @param now caller ms, used for lazy reclaim on a full table
   * @returns the entry index, or −1 when the table is full.
   * @throws RangeError for a record whose state, RS or family is out of range.
   */
  upsertRecord(rec: SessionRecord, now: number): number {
    if (!(rec.state >= 1 && rec.state < STATE_COUNT)) throw new RangeError(`session record: bad state ${rec.state}`);
    if (!(rec.rs >= 0 && rec.rs < this.rsActive.length)) throw new RangeError(`session record: RS ${rec.rs} out of range`);
    if (rec.family !== 4 && rec.family !== 6) throw new RangeError(`session record: bad family ${rec.family}`);
    this.time(now);
    this.loadRecordKey(rec);
    const old = this.find();
    if (old >= 0) this.remove(old, RemoveReason.DELETED);
    if (this.size >= this.capacity && !this.reclaim(this.tnow)) {
      this.fullRefusals++;
      return -1;
    }
    this.loadRecordKey(rec);
    return this.place(this.relative(rec.createdMs), this.relative(rec.lastSeenMs), rec.service, rec.rs, rec.state, rec.flags, this.kPktIsA, true);
  }

  /** Removes the session a record names. @returns true when it existed. */
  deleteRecord(rec: SessionRecord): boolean {
    this.loadRecordKey(rec);
    const e = this.find();
    if (e < 0) return false;
    this.remove(e, RemoveReason.DELETED);
    return true;
  }
}

function putWord(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}
