/**
 * The processor board's exact-match connection (session) table: the emulated TCAM session store
 * of the ATCA processor card (about 1.5 M entries, hot entries on chip), with the policies of the
 * systems it stands beside: IPVS-like TCP state timeouts, LRU aging, and TGW's SYN-flood defence
 * (a new connection on a full table evicts the least-recently-used *half-open* entry, never an
 * established one).
 *
 * Layout (no per-session JS objects, so 1.5 M sessions cost no GC time):
 * - Entries live in one Uint32Array, 12 words (48 bytes) per entry (array of structures, so a hit
 *   touches one or two cache lines):
 *     0 A        endpoint A address (IPv4) | IPv6 side-store slot
 *     1 B        endpoint B address (IPv4) | 0
 *     2 PORTS    portA << 16 | portB (0 when the key has no ports)
 *     3 META     proto | entry flags << 8 | state << 16 | key bits << 24 (v6, no-ports, client-is-B,
 *                hot ref, in hot tier)
 *     4 RS       RS index | service index << 16
 *     5 HASH     key hash (32 bits)
 *     6 SEEN     last-seen ms (table time, see below)
 *     7 HITS     packets that hit the entry after its creation (saturating)
 *     8 CREATED  ms
 *     9 PREV    10 NEXT   links of the entry's aging list (one LRU list per state)
 *    11 HOT      slot in the hot tier, -1 when cold
 *   A hit touches words 0–7 only (32 bytes).
 * - The index is an open-addressing hash table (linear probing, load ≤ 0.75, backward-shift
 *   deletion, Knuth TAOCP vol. 3 §6.4 Algorithm R) of 32-bit words: entry + 1 in the low bits,
 *   then the word's probe distance from its home slot (5 bits, 31 = "31 or more"), then the top
 *   bits of the key hash as a tag. A probe only reads an entry whose distance and tag both
 *   match, so most probes that do not match never touch an entry; and a deletion shifts the
 *   cluster behind it back by the stored distances alone, without reading the entries that follow
 *   (only a word whose distance saturated reads its entry's hash).
 *   It starts at 4096 slots and doubles as the table fills (a one-off rehash of the live entries,
 *   about 10–30 ms at the last doubling of a 1.5 M table), up to the first power of two ≥
 *   capacity / 0.75: a board holding a few thousand sessions probes a cache-resident index.
 * - IPv6 addresses (2 × 16 bytes) live in a side store grown in chunks of 4096 slots as IPv6
 *   sessions appear; IPv4-only traffic never allocates it.
 * At 1.5 M entries this is 48 B + 4 B × 2^21 / 1.5 M ≈ 53.6 bytes per IPv4 entry; an IPv6 entry
 * adds 36 bytes of side store (`memoryBytes()` reports the real figure).
 *
 * Keys are direction-insensitive: the two endpoints are ordered (lower address, then lower port,
 * first), so a 5-tuple and its reverse are one conversation. TCP/UDP/SCTP with ports are keyed
 * by the 5-tuple; other IP protocols, fragments and packets whose ports were not captured by
 * (address pair, protocol), following FlowTuple.hashPorts.
 *
 * Time: callers pass `now` in ms (any origin: simulated, performance.now or capture time). The
 * table keeps u32 ms relative to the first `now` it sees (plus a 2^31 bias so imported sessions
 * older than the table still fit), never goes backwards (a `now` older than the newest seen is
 * taken as the newest), and rebases itself before the u32 range runs out. While a session stays
 * in one state its last-seen (and LRU place) is refreshed at most once per min(1 s, timeout/64),
 * so idle expiry is exact to that granularity.
 */
import type { FlowTuple } from '../../packet/flow-tuple.ts';
import type { TimeoutConfig } from '../processor-config.ts';
import { DEFAULT_TIMEOUTS } from '../processor-config.ts';
import { fmix32, mix32 } from '../hash32.ts';
import {
  SessionState, STATE_COUNT, datagramNext, isHalfOpen, tcpNext,
} from '../tcp-state.ts';
import type { SessionRecord } from '../session-record.ts';

/** Words per entry. */
const W = 12;
const O_A = 0;
const O_B = 1;
const O_PORTS = 2;
const O_META = 3;
const O_RS = 4;
const O_HASH = 5;
// The words a hit reads or writes (key, RS, last-seen, hits) come first: 32 bytes, within one
// cache line for three entries in four; creation time, LRU links and hot slot follow.
const O_SEEN = 6;
const O_HITS = 7;
const O_CREATED = 8;
const O_PREV = 9;
const O_NEXT = 10;
const O_HOT = 11;

/** META key bits (top byte). */
const K_V6 = 1 << 24;
const K_NOPORTS = 1 << 25;
const K_CLIENT_B = 1 << 26;
const K_REF = 1 << 27;
/** Mirror of `HOT ≥ 0` (in the hot tier), so a hit needs no read of the HOT word. */
const K_HOT = 1 << 28;
/** Bits of META that are part of the key: protocol, family, no-ports. */
const KEY_META = 0xff | K_V6 | K_NOPORTS;

const BIAS = 2 ** 31;
const REBASE_AT = 0xc000_0000;
const V6_CHUNK_BITS = 12;
const V6_CHUNK = 1 << V6_CHUNK_BITS;
/** Last-seen is refreshed at most once per min(1 s, timeout/64) of a state: an entry may expire
 * up to that much early, in exchange for no list move on most hits. */
export const LAST_SEEN_GRANULARITY_MS = 1000;
/** Slots of a new table's index (it doubles as entries arrive). */
const INITIAL_INDEX_SIZE = 4096;
/** Largest supported capacity (the index word needs 5 distance bits beside the entry number). */
export const MAX_SESSION_CAPACITY = 1 << 26;
/** Bits of an index word's probe distance; DIST_SAT means "DIST_SAT or more: read the entry". */
const DIST_BITS = 5;
const DIST_SAT = (1 << DIST_BITS) - 1;

/** Why an entry left the table (the `onRemove` hook's second argument). */
export const RemoveReason = {
  /** Idle longer than its state's timeout (sweep or lazy reclaim). */
  EXPIRED: 0,
  /** A half-open entry evicted by a new connection on a full table. */
  EVICTED: 1,
  /** The board removed it: a new connection reused the tuple of a closing session. */
  REUSED: 2,
  /** The board removed it: its RS went down. */
  RS_DOWN: 3,
  /** Removed by `delete`/`clear` (HA delete sync, operator). */
  DELETED: 4,
} as const;
export type RemoveReasonCode = (typeof RemoveReason)[keyof typeof RemoveReason];
export const REMOVE_REASON_NAMES: readonly string[] = ['expired', 'evicted', 'reused', 'rs_down', 'deleted'];

/** Options of a SessionTable. */
export interface SessionTableOptions {
  /** Maximum number of entries (1 … 2^26). The board default is 1,500,000. */
  capacity: number;
  /** Entries in the hot (on-chip) tier, default 0 (no tier). */
  hotCapacity?: number;
  /** Hits after which a cold entry is promoted to the hot tier, default 8. */
  promoteAfterHits?: number;
  /** Idle timeouts by state (ms); defaults DEFAULT_TIMEOUTS. */
  timeouts?: Partial<TimeoutConfig>;
  /** Hash seed; the same seed gives the same flow hashes on every board. Default 0x9e3779b9. */
  seed?: number;
  /** Size of the per-RS connection counters (RS indexes 0 … n−1), default 65536. */
  maxRealServers?: number;
}

/**
 * Fixed-capacity exact-match session table over typed arrays. Hot-path methods (`loadKey`,
 * `find`, `insert`, `applyPacket`) allocate nothing.
 *
 * Usage per packet: `loadKey(tuple)`; `e = find()`; on a hit `applyPacket(e, flags,
 * isFromClient(e), now)`; on a miss `insert(now, service, rs, state, flags)` (−1 = table full).
 */
export class SessionTable {
  readonly capacity: number;
  readonly hotCapacity: number;
  readonly promoteAfterHits: number;
  readonly seed: number;
  /** Live entries. */
  size = 0;

  /** Per-RS connection counters as IPVS keeps them: active = ESTABLISHED TCP, inactive = any other state. */
  readonly rsActive: Int32Array;
  readonly rsInactive: Int32Array;

  // ---- counters (monotonic) ----
  /** Entries ever inserted. */
  inserted = 0;
  /** Entries removed by aging. */
  expired = 0;
  /** Half-open entries evicted for a new connection, total and by state. */
  evicted = 0;
  readonly evictedByState = new Float64Array(STATE_COUNT);
  /** Inserts refused because the table was full of non-evictable entries. */
  fullRefusals = 0;
  /** Hits on hot-tier / cold-tier entries; promotions into and demotions out of the hot tier. */
  hotHits = 0;
  coldHits = 0;
  promotions = 0;
  demotions = 0;
  /** Times the index doubled (it starts small and grows to capacity / 0.75). */
  indexGrowths = 0;

  /** Called before an entry is removed (any reason); the entry is still readable. The hook may
   * read entries (readRecord, rsOf…) but must not call loadKey/find/insert/remove. */
  onRemove: ((e: number, reason: RemoveReasonCode) => void) | null = null;

  private readonly d: Uint32Array;
  private readonly di: Int32Array;
  private idx: Int32Array;
  private mask: number;
  private readonly maxIndexSize: number;
  private readonly emask: number;
  private readonly tmask: number;
  /** Bit position of the 5-bit probe distance in an index word (= entry bits). */
  private readonly dshift: number;
  /** Mask of the tag and distance bits of an index word. */
  private readonly tdmask: number;
  private readonly heads = new Int32Array(STATE_COUNT).fill(-1);
  private readonly tails = new Int32Array(STATE_COUNT).fill(-1);
  private readonly counts = new Int32Array(STATE_COUNT);
  private readonly timeoutByState = new Float64Array(STATE_COUNT);
  private readonly granByState = new Float64Array(STATE_COUNT);
  private freeHead = -1;
  private top = 0;

  private readonly hotRing: Int32Array;
  private hotCount = 0;
  private hand = 0;

  /** Per-entry stamps (see stampOf), grown on demand up to capacity; null until first set. */
  private stamps: Int32Array | null = null;

  private v6Chunks: Int32Array[] = [];
  private v6Free = new Int32Array(0);
  private v6FreeCount = 0;
  private v6Top = 0;

  private base = Number.NaN;
  private tnow = 0;
  /** The `now` that last advanced tnow (time() of the same `now` again returns tnow at once). */
  private lastIn = Number.NaN;

  // ---- the loaded key (registers) ----
  private kV6 = false;
  private kA = 0;
  private kB = 0;
  private readonly kWords = new Int32Array(8);
  private kPorts = 0;
  private kMeta = 0;
  private kHash = 0;
  private kPktIsA = true;

  /**
   * @throws RangeError when capacity is not an integer in 1 … 2^26, or hotCapacity > capacity.
   */
  constructor(opts: SessionTableOptions) {
    const cap = opts.capacity;
    if (!Number.isInteger(cap) || cap < 1 || cap > MAX_SESSION_CAPACITY) {
      throw new RangeError(`session table capacity must be an integer in 1..${MAX_SESSION_CAPACITY}, got ${cap}`);
    }
    const hot = opts.hotCapacity ?? 0;
    if (!Number.isInteger(hot) || hot < 0 || hot > cap) {
      throw new RangeError(`hot tier capacity must be an integer in 0..${cap}, got ${hot}`);
    }
    this.capacity = cap;
    this.hotCapacity = hot;
    this.promoteAfterHits = Math.max(1, opts.promoteAfterHits ?? 8);
    this.seed = (opts.seed ?? 0x9e3779b9) | 0;
    const buf = new ArrayBuffer(cap * W * 4);
    this.d = new Uint32Array(buf);
    this.di = new Int32Array(buf);
    let size = 16;
    while (size * 0.75 < cap) size *= 2;
    this.maxIndexSize = size;
    // The index starts small and doubles as the table fills (load ≤ 0.75), so a table that holds
    // a few thousand sessions of its 1.5 M probes a cache-resident index.
    const initial = Math.min(size, INITIAL_INDEX_SIZE);
    this.idx = new Int32Array(initial);
    this.mask = initial - 1;
    let ebits = 1;
    while ((1 << ebits) <= cap) ebits++;
    this.emask = (1 << ebits) - 1;
    this.dshift = ebits;
    // tag: the hash bits above the entry and distance fields (none when ebits + 5 = 32)
    this.tmask = ebits + DIST_BITS >= 32 ? 0 : ~((1 << (ebits + DIST_BITS)) - 1);
    this.tdmask = this.tmask | (DIST_SAT << ebits);
    this.hotRing = new Int32Array(hot);
    const nRs = opts.maxRealServers ?? 65536;
    this.rsActive = new Int32Array(nRs);
    this.rsInactive = new Int32Array(nRs);
    this.setTimeouts({ ...DEFAULT_TIMEOUTS, ...opts.timeouts });
  }

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

  // ------------------------------------------------------------------ keys

  /**
   * Loads the conversation key of a parsed IP header into the table's key registers (no
   * allocation). Ports are used when `t.hashPorts` (TCP/UDP/SCTP, not a fragment).
   * @returns the key hash (u32), the same for both directions of a conversation.
   */
  loadKey(t: FlowTuple): number {
    this.loadTuple(t);
    return this.kHash >>> 0;
  }

  /**
   * `loadKey` for the data path: the same key registers, but the hash is returned as a signed
   * 32-bit integer (`loadKey(t) === (loadKeyI32(t) >>> 0)`), which V8 keeps in a register or a
   * small integer — `loadKey`'s unsigned value is a heap number about half the time.
   * @returns the key hash as int32
   */
  loadKeyI32(t: FlowTuple): number {
    this.loadTuple(t);
    return this.kHash;
  }

  private loadTuple(t: FlowTuple): void {
    // booleans read from objects compared with true/false: a word compare, not V8's ToBoolean
    const hp = t.hasPorts === true && t.fragment === false;
    if (t.family === 6) this.setKey(true, t.src, t.dst, hp ? t.sport : 0, hp ? t.dport : 0, t.proto, hp);
    else this.setKeyV4(t.src, t.dst, hp ? t.sport : 0, hp ? t.dport : 0, t.proto, hp);
  }

  /** setKey for IPv4 (the same registers and hash), without the IPv6 branches. */
  private setKeyV4(src: Uint8Array, dst: Uint8Array, sport: number, dport: number, proto: number, hasPorts: boolean): void {
    const s = (src[0]! << 24) | (src[1]! << 16) | (src[2]! << 8) | src[3]!;
    const d = (dst[0]! << 24) | (dst[1]! << 16) | (dst[2]! << 8) | dst[3]!;
    const aIsSrc = s >>> 0 < d >>> 0 || (s === d && sport <= dport);
    const a = aIsSrc ? s : d;
    const b = aIsSrc ? d : s;
    const ports = hasPorts ? (aIsSrc ? ((sport & 0xffff) << 16) | (dport & 0xffff) : ((dport & 0xffff) << 16) | (sport & 0xffff)) : 0;
    const meta = (proto & 0xff) | (hasPorts ? 0 : K_NOPORTS);
    this.kA = a;
    this.kB = b;
    this.kV6 = false;
    this.kPktIsA = aIsSrc;
    this.kPorts = ports;
    this.kMeta = meta;
    this.kHash = fmix32(mix32(mix32(mix32(mix32(this.seed, a), b), ports), meta) ^ 16) | 0;
  }

  /**
   * Loads a key from raw fields: `src`/`dst` 16-byte addresses (IPv4 in bytes 0..3); the packet
   * (or session) direction is src → dst. Returns the key hash.
   */
  loadKeyRaw(v6: boolean, src: Uint8Array, dst: Uint8Array, sport: number, dport: number, proto: number, hasPorts: boolean): number {
    this.setKey(v6, src, dst, sport, dport, proto, hasPorts);
    return this.kHash >>> 0;
  }

  /** Fills the key registers (loadKeyRaw without a return value: nothing to box). */
  private setKey(v6: boolean, src: Uint8Array, dst: Uint8Array, sport: number, dport: number, proto: number, hasPorts: boolean): void {
    let h = this.seed;
    let aIsSrc: boolean;
    v6 = v6 === true;
    hasPorts = hasPorts === true;
    if (!v6) {
      // Key registers hold int32 values (no heap numbers); the order compares them unsigned.
      const s = (src[0]! << 24) | (src[1]! << 16) | (src[2]! << 8) | src[3]!;
      const d = (dst[0]! << 24) | (dst[1]! << 16) | (dst[2]! << 8) | dst[3]!;
      aIsSrc = s >>> 0 < d >>> 0 || (s === d && sport <= dport);
      this.kA = aIsSrc ? s : d;
      this.kB = aIsSrc ? d : s;
      h = mix32(mix32(h, this.kA), this.kB);
    } else {
      let cmp = 0;
      for (let i = 0; i < 16 && cmp === 0; i++) cmp = src[i]! - dst[i]!;
      aIsSrc = cmp < 0 || (cmp === 0 && sport <= dport);
      const a = aIsSrc ? src : dst;
      const b = aIsSrc ? dst : src;
      const kw = this.kWords;
      for (let i = 0; i < 4; i++) {
        const o = i << 2;
        kw[i] = (a[o]! << 24) | (a[o + 1]! << 16) | (a[o + 2]! << 8) | a[o + 3]!;
        kw[i + 4] = (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
      }
      for (let i = 0; i < 8; i++) h = mix32(h, kw[i]!);
      this.kA = 0;
      this.kB = 0;
    }
    this.kV6 = v6;
    this.kPktIsA = aIsSrc;
    const pa = aIsSrc ? sport : dport;
    const pb = aIsSrc ? dport : sport;
    this.kPorts = hasPorts ? ((pa & 0xffff) << 16) | (pb & 0xffff) : 0;
    this.kMeta = (proto & 0xff) | (v6 ? K_V6 : 0) | (hasPorts ? 0 : K_NOPORTS);
    h = mix32(mix32(h, this.kPorts), this.kMeta);
    this.kHash = fmix32(h ^ (v6 ? 40 : 16)) | 0;
  }

  /** Hash of the loaded key (u32). */
  get keyHash(): number {
    return this.kHash >>> 0;
  }

  /** Looks up the loaded key. @returns the entry index, or −1 when absent. */
  find(): number {
    const idx = this.idx;
    const di = this.di;
    const mask = this.mask;
    const emask = this.emask;
    const tdmask = this.tdmask;
    const dshift = this.dshift;
    const h = this.kHash;
    const tag = h & this.tmask;
    let i = h & mask;
    // An entry in the n-th slot from its home carries distance min(n, DIST_SAT).
    for (let n = 0; ; n++) {
      const v = idx[i]!;
      if (v === 0) return -1;
      if ((v & tdmask) === (tag | ((n < DIST_SAT ? n : DIST_SAT) << dshift))) {
        const e = (v & emask) - 1;
        const o = e * W;
        if (di[o + O_HASH] === h && (di[o + O_META]! & KEY_META) === this.kMeta && di[o + O_PORTS] === this.kPorts) {
          if (this.kV6 === true ? this.v6Equal(di[o + O_A]!) : di[o + O_A] === this.kA && di[o + O_B] === this.kB) return e;
        }
      }
      i = (i + 1) & mask;
    }
  }

  /** The index word of entry e placed n slots from its home (hash h). */
  private word(h: number, n: number, e: number): number {
    return (h & this.tmask) | ((n < DIST_SAT ? n : DIST_SAT) << this.dshift) | (e + 1);
  }

  /** True when the loaded key's packet travels client → server for entry `e` (found by find()). */
  isFromClient(e: number): boolean {
    return ((this.d[e * W + O_META]! & K_CLIENT_B) === 0) === (this.kPktIsA === true);
  }

  private v6Equal(slot: number): boolean {
    const c = this.v6Chunks[slot >>> V6_CHUNK_BITS]!;
    const o = (slot & (V6_CHUNK - 1)) << 3;
    const kw = this.kWords;
    for (let i = 0; i < 8; i++) if (c[o + i] !== kw[i]) return false;
    return true;
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
    let e: number;
    if (this.freeHead >= 0) {
      e = this.freeHead;
      this.freeHead = this.di[e * W + O_NEXT]!;
    } else {
      e = this.top++;
    }
    const d = this.d;
    const di = this.di;
    const o = e * W;
    if (this.kV6) {
      const slot = this.v6Alloc();
      const c = this.v6Chunks[slot >>> V6_CHUNK_BITS]!;
      c.set(this.kWords, (slot & (V6_CHUNK - 1)) << 3);
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
    this.di[o + O_HOT] = -1;
    const st = this.stamps;
    if (st !== null && e < st.length) st[e] = 0;
    this.linkTail(e, state);
    if ((this.size + 1) * 4 > this.idx.length * 3 && this.idx.length < this.maxIndexSize) this.growIndex();
    const idx = this.idx;
    const mask = this.mask;
    let i = this.kHash & mask;
    let n = 0;
    while (idx[i] !== 0) {
      i = (i + 1) & mask;
      n++;
    }
    idx[i] = this.word(this.kHash, n, e);
    this.size++;
    this.inserted++;
    if (state === SessionState.ESTABLISHED) this.rsActive[rs]!++;
    else this.rsInactive[rs]!++;
    return e;
  }

  /** Doubles the index and re-inserts every live entry (hashes are kept in the entries). */
  private growIndex(): void {
    const size = this.idx.length * 2;
    const idx = new Int32Array(size);
    const mask = size - 1;
    const di = this.di;
    for (let e = 0; e < this.top; e++) {
      const o = e * W;
      if (((di[o + O_META]! >>> 16) & 0xff) === 0) continue;
      const h = di[o + O_HASH]!;
      let i = h & mask;
      let n = 0;
      while (idx[i] !== 0) {
        i = (i + 1) & mask;
        n++;
      }
      idx[i] = this.word(h, n, e);
    }
    this.idx = idx;
    this.mask = mask;
    this.indexGrowths++;
  }

  /** Frees one entry for an insert on a full table: an expired one, else the LRU half-open one. */
  private reclaim(t: number): boolean {
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
    // index: find the slot that holds e, then backward-shift the cluster behind it
    const idx = this.idx;
    const mask = this.mask;
    const emask = this.emask;
    let i = d[o + O_HASH]! & mask;
    for (let n = 0; (idx[i]! & emask) !== e + 1; n++) {
      if (n > mask) throw new Error('session table index corrupt: entry not found');
      i = (i + 1) & mask;
    }
    // Algorithm R: a word at j whose home is not cyclically in (i, j] — its distance is at least
    // the gap j − i — moves back into the hole at i, its distance reduced by the gap.
    const dshift = this.dshift;
    const keep = ~(DIST_SAT << dshift);
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const v = idx[j]!;
      if (v === 0) break;
      let dist = (v >>> dshift) & DIST_SAT;
      if (dist === DIST_SAT) dist = (j - d[((v & emask) - 1) * W + O_HASH]!) & mask;
      const gap = (j - i) & mask;
      if (dist >= gap) {
        const nd = dist - gap;
        idx[i] = (v & keep) | ((nd < DIST_SAT ? nd : DIST_SAT) << dshift);
        i = j;
      }
    }
    idx[i] = 0;
    if (meta & K_V6) this.v6Release(d[o + O_A]!);
    const rs = d[o + O_RS]! & 0xffff;
    if (state === SessionState.ESTABLISHED) this.rsActive[rs]!--;
    else this.rsInactive[rs]!--;
    d[o + O_META] = 0;
    this.di[o + O_NEXT] = this.freeHead;
    this.freeHead = e;
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

  private hit(e: number): void {
    const d = this.d;
    const o = e * W;
    const hits = d[o + O_HITS]!;
    if (hits !== 0xffffffff) d[o + O_HITS] = hits + 1;
    const meta = d[o + O_META]!;
    if ((meta & K_HOT) !== 0) {
      this.hotHits++;
      d[o + O_META] = (meta | K_REF) >>> 0;
      return;
    }
    this.coldHits++;
    if (this.hotCapacity > 0 && hits + 1 >= this.promoteAfterHits) this.promote(e);
  }

  /** Puts cold entry e into the hot tier; when the tier is full, the CLOCK hand picks a victim
   * (the first hot entry not referenced since the hand last passed) and demotes it. */
  private promote(e: number): void {
    const ring = this.hotRing;
    const d = this.d;
    let slot: number;
    if (this.hotCount < this.hotCapacity) {
      slot = this.hotCount++;
    } else {
      for (;;) {
        if (this.hand >= this.hotCount) this.hand = 0;
        const v = ring[this.hand]!;
        const vo = v * W + O_META;
        if (d[vo]! & K_REF) {
          d[vo] = (d[vo]! & ~K_REF) >>> 0;
          this.hand++;
          continue;
        }
        this.di[v * W + O_HOT] = -1;
        d[vo] = (d[vo]! & ~K_HOT) >>> 0;
        d[v * W + O_HITS] = 0;
        this.demotions++;
        slot = this.hand++;
        break;
      }
    }
    ring[slot] = e;
    this.di[e * W + O_HOT] = slot;
    d[e * W + O_META] = (d[e * W + O_META]! | K_REF | K_HOT) >>> 0;
    this.promotions++;
  }

  private hotRemove(e: number): void {
    const s = this.di[e * W + O_HOT]!;
    const last = --this.hotCount;
    if (s !== last) {
      const moved = this.hotRing[last]!;
      this.hotRing[s] = moved;
      this.di[moved * W + O_HOT] = s;
    }
    this.di[e * W + O_HOT] = -1;
    this.d[e * W + O_META] = (this.d[e * W + O_META]! & ~K_HOT) >>> 0;
  }

  // ------------------------------------------------------------------ aging

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

  // ------------------------------------------------------------------ time

  /** Table time (u32 ms) for a caller's `now`; monotonic. */
  private time(now: number): number {
    // Most packets share their millisecond with the one before: nothing to recompute.
    if (now === this.lastIn) return this.tnow;
    if (!Number.isFinite(now)) return this.tnow;
    if (Number.isNaN(this.base)) {
      this.base = Math.floor(now);
      this.tnow = BIAS;
    }
    const r = Math.floor(now - this.base) + BIAS;
    if (!(r > this.tnow)) return this.tnow;
    if (r >= REBASE_AT) return this.rebase(r);
    this.tnow = r;
    this.lastIn = now;
    return r;
  }

  /** Moves the time origin forward so table time `r` becomes BIAS again: entries keep their
   * distance to the present, clamped at 0 (already long expired). O(entries), once per ~12 days
   * of table time or per big forward jump of a capture's clock. */
  private rebase(r: number): number {
    const shift = r - BIAS;
    this.base += shift;
    const d = this.d;
    for (let e = 0; e < this.top; e++) {
      const o = e * W;
      if (((d[o + O_META]! >>> 16) & 0xff) === 0) continue;
      d[o + O_CREATED] = Math.max(0, d[o + O_CREATED]! - shift);
      d[o + O_SEEN] = Math.max(0, d[o + O_SEEN]! - shift);
    }
    this.tnow = BIAS;
    return BIAS;
  }

  /** Caller ms for a table time. */
  private absolute(t: number): number {
    return this.base + t - BIAS;
  }

  /** Table time for an absolute caller time without advancing the clock (imports). */
  private relative(ms: number): number {
    if (Number.isNaN(this.base)) this.time(ms);
    const r = Math.floor(ms - this.base) + BIAS;
    return r < 0 ? 0 : r > this.tnow ? this.tnow : r;
  }

  // ------------------------------------------------------------------ lists

  private linkTail(e: number, s: number): void {
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

  private unlink(e: number, s: number): void {
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

  // ------------------------------------------------------------------ IPv6 side store

  private v6Alloc(): number {
    if (this.v6FreeCount > 0) return this.v6Free[--this.v6FreeCount]!;
    if (this.v6Top === this.v6Chunks.length * V6_CHUNK) {
      this.v6Chunks.push(new Int32Array(V6_CHUNK * 8));
      const grown = new Int32Array(this.v6Chunks.length * V6_CHUNK);
      grown.set(this.v6Free.subarray(0, this.v6FreeCount));
      this.v6Free = grown;
    }
    return this.v6Top++;
  }

  private v6Release(slot: number): void {
    this.v6Free[this.v6FreeCount++] = slot;
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

  /** True when entry e is in the hot tier. */
  isHot(e: number): boolean {
    return this.di[e * W + O_HOT]! >= 0;
  }

  /** Live entries in a state. */
  countInState(state: number): number {
    return this.counts[state]!;
  }

  /** Entries in the hot tier. */
  get hotSize(): number {
    return this.hotCount;
  }

  /** hotHits / (hotHits + coldHits), 0 when nothing hit yet. */
  get hotHitRatio(): number {
    const n = this.hotHits + this.coldHits;
    return n === 0 ? 0 : this.hotHits / n;
  }

  // ------------------------------------------------------------------ stamps

  /**
   * An opaque per-entry word kept for the owner's bookkeeping (the data plane uses it to remember
   * which routing it last counted the entry's conversation under, chassis/dataplane). It is 0
   * for every entry that was never stamped, and reset to 0 whenever an entry is (re)used for a
   * new session, by any path (insert, upsertRecord, promote). Storage (4 bytes per entry) is made
   * on the first `setStamp` and grows with the entries in use.
   */
  stampOf(e: number): number {
    const st = this.stamps;
    return st !== null && e < st.length ? st[e]! : 0;
  }

  /** Sets entry e's stamp (see stampOf). @param v an int32 */
  setStamp(e: number, v: number): void {
    let st = this.stamps;
    if (st === null || e >= st.length) st = this.growStamps(e);
    st[e] = v;
  }

  /** Resets every entry's stamp to 0. */
  clearStamps(): void {
    this.stamps?.fill(0);
  }

  private growStamps(e: number): Int32Array {
    const old = this.stamps;
    let n = Math.max(INITIAL_INDEX_SIZE, old === null ? 0 : old.length * 2);
    while (n <= e) n *= 2;
    const st = new Int32Array(Math.min(n, this.capacity));
    if (old !== null) st.set(old);
    this.stamps = st;
    return st;
  }

  /** Bytes of typed-array storage the table holds now (entries, index, hot ring, IPv6 store, counters, stamps). */
  memoryBytes(): number {
    let b = this.d.byteLength + this.idx.byteLength + this.hotRing.byteLength + this.v6Free.byteLength;
    if (this.stamps !== null) b += this.stamps.byteLength;
    for (const c of this.v6Chunks) b += c.byteLength;
    return b + this.rsActive.byteLength + this.rsInactive.byteLength;
  }

  /** Bytes of the IPv6 side store. */
  v6StoreBytes(): number {
    let b = this.v6Free.byteLength;
    for (const c of this.v6Chunks) b += c.byteLength;
    return b;
  }

  /** Calls cb for every live entry (do not insert or remove from cb). */
  forEach(cb: (e: number) => void): void {
    const d = this.d;
    for (let e = 0; e < this.top; e++) {
      if (((d[e * W + O_META]! >>> 16) & 0xff) !== 0) cb(e);
    }
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
      const c = this.v6Chunks[slot >>> V6_CHUNK_BITS]!;
      const so = (slot & (V6_CHUNK - 1)) << 3;
      for (let i = 0; i < 4; i++) {
        putWord(ca, i << 2, c[so + i]!);
        putWord(cb, i << 2, c[so + 4 + i]!);
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
