/**
 * The neighbour table of one live link: IPv4 (ARP, RFC 826; RFC 1122 §2.3.2) and IPv6 (Neighbour
 * Discovery, RFC 4861 §7.3) next hops → MAC, with the Neighbour Unreachability Detection states of
 * RFC 4861 §7.3.2 used for both families:
 *
 *   INCOMPLETE  resolution under way: a multicast/broadcast solicitation every `retransMs`, at most
 *               `maxMulticastSolicit` (RFC 4861 §10: RetransTimer 1 s, MAX_MULTICAST_SOLICIT 3);
 *               frames to it wait in a bounded queue (§7.2.2), at most `queueLimit` per entry —
 *               the oldest is dropped (`neighbour_queue_full`) when a new one arrives; when no
 *               answer comes the entry is deleted and its frames dropped (`neighbour_unresolved`).
 *   REACHABLE   confirmed within `reachableMs` (REACHABLE_TIME 30 s); used as it is.
 *   STALE       older, or learnt without confirmation (an unsolicited ARP/NA, a request from it);
 *               still used; the first use starts DELAY.
 *   DELAY       waits `delayFirstProbeMs` (DELAY_FIRST_PROBE_TIME 5 s) for a confirmation, then
 *   PROBE       unicast solicitations every `retransMs`, at most `maxUnicastSolicit` (3); no answer
 *               deletes the entry. The entry stays usable throughout, as §7.3.3 says.
 * REACHABLE turns STALE by the clock alone (checked when the entry is used, no timer); timers run
 * only for INCOMPLETE, DELAY and PROBE entries. Every time comes from the Clock port (ms).
 *
 * Updates (`learn`) follow RFC 4861 §7.2.5 for both families: an answer to our solicitation
 * (ARP reply, NA with S) confirms (REACHABLE); anything else (ARP request, gratuitous ARP,
 * unsolicited NA) records the address as STALE when it is new or changed; an NA with O clear does
 * not replace a known, different address. Entries are created only when the caller says so
 * (RFC 826: when we are the target, or when we resolve). `capacity` bounds the table: a full table
 * evicts its least recently used STALE entry, or refuses (`neighbour_table_full`).
 */
import type { Clock, TimerId } from '../common/clock.ts';

export const NeighbourState = { INCOMPLETE: 1, REACHABLE: 2, STALE: 3, DELAY: 4, PROBE: 5 } as const;
export type NeighbourState = (typeof NeighbourState)[keyof typeof NeighbourState];
export const NEIGHBOUR_STATE_NAMES = ['', 'INCOMPLETE', 'REACHABLE', 'STALE', 'DELAY', 'PROBE'] as const;

/** What the table does through its owner (the live port's L2 code). */
export interface NeighbourIo {
  /** Sends a solicitation for `address`: broadcast ARP / multicast NS when `unicastMac` is null,
   * a unicast probe to `unicastMac` otherwise. */
  solicit(family: 4 | 6, address: Uint8Array, unicastMac: Uint8Array | null): void;
  /** A frame queued for a neighbour just resolved; its Ethernet destination (bytes 0..5) is set. */
  transmit(frame: Uint8Array, length: number): void;
  /** Frames dropped, with the reason ('neighbour_unresolved', 'neighbour_queue_full', 'neighbour_table_full'). */
  dropped(reason: string, frames: number): void;
}

/** Timing and bounds (RFC 4861 §10 defaults). */
export interface NeighbourOptions {
  reachableMs: number;
  retransMs: number;
  delayFirstProbeMs: number;
  maxMulticastSolicit: number;
  maxUnicastSolicit: number;
  /** Frames queued per unresolved entry. */
  queueLimit: number;
  /** Entries of the table. */
  capacity: number;
}

export const DEFAULT_NEIGHBOUR_OPTIONS: Readonly<NeighbourOptions> = {
  reachableMs: 30_000, retransMs: 1000, delayFirstProbeMs: 5000, maxMulticastSolicit: 3, maxUnicastSolicit: 3, queueLimit: 8, capacity: 4096,
};

/** One entry as plain data (for views, and for the buddy's copy after a takeover). */
export interface NeighbourRecord {
  family: 4 | 6;
  /** 16 bytes (IPv4 in 0..3). */
  address: Uint8Array;
  /** 6 bytes; zeros while INCOMPLETE. */
  mac: Uint8Array;
  state: NeighbourState;
  /** Time of the last confirmation, ms on the table's clock. */
  confirmedMs: number;
}

interface Entry extends NeighbourRecord {
  key: number | string;
  solicits: number;
  timer: TimerId | null;
  queue: Uint8Array[];
  lastUsedMs: number;
}

/** Counters of a table. */
export interface NeighbourStats {
  solicitations: number;
  resolved: number;
  unresolved: number;
  queueDrops: number;
  tableFull: number;
}

export class NeighbourTable {
  readonly options: NeighbourOptions;
  readonly stats: NeighbourStats = { solicitations: 0, resolved: 0, unresolved: 0, queueDrops: 0, tableFull: 0 };
  private readonly v4 = new Map<number, Entry>();
  private readonly v6 = new Map<string, Entry>();

  constructor(private readonly clock: Clock, private readonly io: NeighbourIo, options: Partial<NeighbourOptions> = {}) {
    this.options = { ...DEFAULT_NEIGHBOUR_OPTIONS, ...options };
  }

  /** Entries in the table. */
  get size(): number {
    return this.v4.size + this.v6.size;
  }

  /**
   * Sends `frame[0..length)` to next hop `address`: writes its MAC into bytes 0..5 and hands it to
   * `io.transmit` now, or queues a copy and resolves.
   * @returns true when sent now, false when queued or dropped
   */
  output(family: 4 | 6, address: Uint8Array, frame: Uint8Array, length: number): boolean {
    const now = this.clock.now();
    let e = this.get(family, address);
    if (e === undefined) {
      e = this.insert(family, address);
      if (e === undefined) {
        this.io.dropped('neighbour_table_full', 1);
        return false;
      }
      e.state = NeighbourState.INCOMPLETE;
      this.solicitNow(e, null);
    }
    e.lastUsedMs = now;
    if (e.state === NeighbourState.INCOMPLETE) {
      if (e.queue.length >= this.options.queueLimit) {
        e.queue.shift();
        this.stats.queueDrops++;
        this.io.dropped('neighbour_queue_full', 1);
      }
      e.queue.push(frame.slice(0, length));
      return false;
    }
    this.age(e, now);
    if (e.state === NeighbourState.STALE) this.enter(e, NeighbourState.DELAY, this.options.delayFirstProbeMs);
    frame.set(e.mac, 0);
    this.io.transmit(frame, length);
    return true;
  }

  /**
   * Records a link-layer address heard for `address` (see the module header).
   * @param confirmed an answer to our solicitation (ARP reply to us, NA with S set)
   * @param override false for an NA with O clear
   * @param create make an entry when there is none (we are the target, or we asked)
   */
  learn(family: 4 | 6, address: Uint8Array, mac: Uint8Array, confirmed: boolean, override = true, create = false): void {
    const now = this.clock.now();
    let e = this.get(family, address);
    if (e === undefined) {
      if (!create && !confirmed) return;
      e = this.insert(family, address);
      if (e === undefined) return;
      e.state = NeighbourState.INCOMPLETE;
    }
    const same = sameMac(e.mac, mac);
    if (e.state === NeighbourState.INCOMPLETE) {
      e.mac.set(mac.subarray(0, 6));
      this.settle(e, confirmed ? NeighbourState.REACHABLE : NeighbourState.STALE, now);
      this.flush(e);
      return;
    }
    if (!override && !same) {
      if (confirmed && e.state === NeighbourState.REACHABLE) this.settle(e, NeighbourState.STALE, now);
      return;
    }
    if (!same) e.mac.set(mac.subarray(0, 6));
    if (confirmed) this.settle(e, NeighbourState.REACHABLE, now);
    else if (!same) this.settle(e, NeighbourState.STALE, now);
  }

  /** The entry for `address` as it is now (state aged by the clock), or null. */
  lookup(family: 4 | 6, address: Uint8Array): Readonly<NeighbourRecord> | null {
    const e = this.get(family, address);
    if (e === undefined) return null;
    this.age(e, this.clock.now());
    return e;
  }

  /** Every entry as plain records (copies), e.g. for a view or the buddy's sync. */
  entries(): NeighbourRecord[] {
    const now = this.clock.now();
    const out: NeighbourRecord[] = [];
    for (const e of [...this.v4.values(), ...this.v6.values()]) {
      this.age(e, now);
      out.push({ family: e.family, address: Uint8Array.from(e.address), mac: Uint8Array.from(e.mac), state: e.state, confirmedMs: e.confirmedMs });
    }
    return out;
  }

  /** Enters records learnt elsewhere (the buddy's copy) as STALE: usable, re-confirmed on use. */
  import(records: readonly NeighbourRecord[]): void {
    for (const r of records) if (r.state !== NeighbourState.INCOMPLETE) this.learn(r.family, r.address, r.mac, false, true, true);
  }

  /** Removes an entry (its queued frames are dropped as unresolved). */
  remove(family: 4 | 6, address: Uint8Array): void {
    const e = this.get(family, address);
    if (e !== undefined) this.delete(e, 'neighbour_unresolved');
  }

  /** Stops every timer and drops every queued frame (the link went away). */
  clear(): void {
    for (const e of [...this.v4.values(), ...this.v6.values()]) this.delete(e, 'neighbour_unresolved');
  }

  private get(family: 4 | 6, a: Uint8Array): Entry | undefined {
    return family === 4 ? this.v4.get(key4(a)) : this.v6.get(key6(a));
  }

  private insert(family: 4 | 6, address: Uint8Array): Entry | undefined {
    if (this.size >= this.options.capacity && !this.evict()) {
      this.stats.tableFull++;
      return undefined;
    }
    const key = family === 4 ? key4(address) : key6(address);
    const a = new Uint8Array(16);
    a.set(address.subarray(0, family === 4 ? 4 : 16));
    const e: Entry = {
      family, address: a, mac: new Uint8Array(6), state: NeighbourState.INCOMPLETE, confirmedMs: 0,
      key, solicits: 0, timer: null, queue: [], lastUsedMs: this.clock.now(),
    };
    if (family === 4) this.v4.set(key as number, e);
    else this.v6.set(key as string, e);
    return e;
  }

  /** Evicts the least recently used STALE entry; false when there is none. */
  private evict(): boolean {
    let victim: Entry | undefined;
    const now = this.clock.now();
    for (const e of [...this.v4.values(), ...this.v6.values()]) {
      this.age(e, now);
      if (e.state === NeighbourState.STALE && (victim === undefined || e.lastUsedMs < victim.lastUsedMs)) victim = e;
    }
    if (victim === undefined) return false;
    this.delete(victim, 'neighbour_unresolved');
    return true;
  }

  private delete(e: Entry, reason: string): void {
    if (e.timer !== null) this.clock.clearTimeout(e.timer);
    e.timer = null;
    if (e.queue.length > 0) {
      this.io.dropped(reason, e.queue.length);
      e.queue.length = 0;
    }
    if (e.family === 4) this.v4.delete(e.key as number);
    else this.v6.delete(e.key as string);
  }

  private age(e: Entry, now: number): void {
    if (e.state === NeighbourState.REACHABLE && now - e.confirmedMs >= this.options.reachableMs) e.state = NeighbourState.STALE;
  }

  private settle(e: Entry, state: NeighbourState, now: number): void {
    if (e.timer !== null) this.clock.clearTimeout(e.timer);
    e.timer = null;
    e.solicits = 0;
    e.state = state;
    if (state === NeighbourState.REACHABLE) e.confirmedMs = now;
  }

  private flush(e: Entry): void {
    const q = e.queue;
    e.queue = [];
    this.stats.resolved++;
    for (const f of q) {
      f.set(e.mac, 0);
      this.io.transmit(f, f.length);
    }
  }

  private enter(e: Entry, state: NeighbourState, ms: number): void {
    if (e.timer !== null) this.clock.clearTimeout(e.timer);
    e.state = state;
    e.timer = this.clock.setTimeout(() => this.fire(e), ms);
  }

  private solicitNow(e: Entry, mac: Uint8Array | null): void {
    e.solicits++;
    this.stats.solicitations++;
    this.io.solicit(e.family, e.address, mac);
    e.timer = this.clock.setTimeout(() => this.fire(e), this.options.retransMs);
  }

  private fire(e: Entry): void {
    e.timer = null;
    if (this.get(e.family, e.address) !== e) return;
    if (e.state === NeighbourState.DELAY) {
      e.state = NeighbourState.PROBE;
      e.solicits = 0;
      this.solicitNow(e, e.mac);
      return;
    }
    const max = e.state === NeighbourState.INCOMPLETE ? this.options.maxMulticastSolicit : this.options.maxUnicastSolicit;
    if (e.state !== NeighbourState.INCOMPLETE && e.state !== NeighbourState.PROBE) return;
    if (e.solicits >= max) {
      this.stats.unresolved++;
      this.delete(e, 'neighbour_unresolved');
      return;
    }
    this.solicitNow(e, e.state === NeighbourState.PROBE ? e.mac : null);
  }
}

function key4(a: Uint8Array): number {
  return ((a[0]! << 24) | (a[1]! << 16) | (a[2]! << 8) | a[3]!) >>> 0;
}

function key6(a: Uint8Array): string {
  let s = '';
  for (let i = 0; i < 16; i++) s += String.fromCharCode(a[i]!);
  return s;
}

function sameMac(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 6; i++) if (a[i] !== b[i]) return false;
  return true;
}
