/**
 * The local address pool of a processor board under `fullnat` (DPVS's laddr pool; IPVS FNAT
 * patches): the addresses the board uses as the client's source towards the RS, and the ports it
 * hands out on them.
 *
 * Allocation. A connection to RS destination D over protocol P gets (local address A, port p)
 * with (A, p, D, P) unused: ports are allocated per (local address, destination, protocol), so
 * every local address offers its whole port range to every RS (the 5-tuple on the back side stays
 * unique, as DPVS does). Addresses of the connection's family are tried round-robin; within one
 * (A, D, P) ports are taken next-fit from a cursor. A port is never handed out twice while in
 * use: when no address of the family has a free port for D, `allocate` fails with
 * `local_ports_exhausted` (or `no_local_address` when the pool has no address of that family) and
 * counts it — never a silent reuse.
 *
 * Partitions (shares). The port range is split into `shares` interleaved partitions: port p
 * belongs to share (p − portMin) mod shares. An owner allocates only from the partitions of the
 * shares it owns, so two boards that own different shares of one pool (an HA pair's buddies) never
 * hand out the same (A, p) even without talking; after a takeover the survivor owns both shares
 * and allocates from both. Synced connections are entered with `reserve` so their ports are not
 * handed out again.
 *
 * Destinations are keys the caller chooses (the RS's stable identity, e.g. `name@address`, the
 * same on both buddies). Memory: one 8 KiB bitmap per (address, destination, protocol) in use.
 */
import { type ParsedAddress, parseAddress } from '../ip-address.ts';

/** Configuration of a pool. */
export interface LocalPoolConfig {
  /** Local addresses (IPv4 and/or IPv6 text). */
  addresses: readonly string[];
  /** First and last port handed out (default 1024 and 65535). */
  portMin?: number;
  portMax?: number;
  /** Number of interleaved partitions (default 1). */
  shares?: number;
}

/** Counters of a pool. */
export interface LocalPoolStats {
  /** Successful allocations (and reservations). */
  allocated: number;
  /** Ports in use now. */
  inUse: number;
  /** Allocations refused: every address's partition for that destination was full. */
  exhausted: number;
  /** Allocations refused: no address of the connection's family. */
  noAddress: number;
  /** `reserve` calls that found the port already in use. */
  conflicts: number;
}

/** Why the last `allocate` failed. */
export type LocalPoolFailure = 'local_ports_exhausted' | 'no_local_address';

interface PortSet {
  bits: Uint8Array;
  /** Free ports per share. */
  free: Int32Array;
  /** Next port to try per share. */
  cursor: Int32Array;
}

/** The result of `allocate` (reused by the caller). */
export interface LocalEndpoint {
  /** 16-byte local address (IPv4 in bytes 0..3) — written in place. */
  address: Uint8Array;
  port: number;
}

export class LocalAddressPool {
  readonly portMin: number;
  readonly portMax: number;
  readonly shares: number;
  readonly addresses: readonly ParsedAddress[];
  readonly stats: LocalPoolStats = { allocated: 0, inUse: 0, exhausted: 0, noAddress: 0, conflicts: 0 };
  /** Reason of the last failed `allocate`, or null. */
  lastFailure: LocalPoolFailure | null = null;
  private readonly sets = new Map<string, PortSet>();
  private readonly byFamily: { 4: number[]; 6: number[] } = { 4: [], 6: [] };
  private readonly rr = { 4: 0, 6: 0 };

  /**
   * @param vips the VIPs of the board's services, to refuse an overlap
   * @throws TypeError naming the address on a bad or duplicate address, a local address that is
   *   also a VIP, a bad port range or share count
   */
  constructor(cfg: LocalPoolConfig, vips: ReadonlyArray<{ service: string; vip: string }> = []) {
    this.portMin = cfg.portMin ?? 1024;
    this.portMax = cfg.portMax ?? 65535;
    this.shares = cfg.shares ?? 1;
    if (!(Number.isInteger(this.portMin) && Number.isInteger(this.portMax) && this.portMin >= 1 && this.portMax <= 65535 && this.portMin <= this.portMax)) {
      throw new TypeError(`local address pool: bad port range ${this.portMin}-${this.portMax} (1..65535)`);
    }
    if (!(Number.isInteger(this.shares) && this.shares >= 1 && this.shares <= this.portMax - this.portMin + 1)) {
      throw new TypeError(`local address pool: shares must be an integer 1..${this.portMax - this.portMin + 1}`);
    }
    const seen = new Set<string>();
    const list: ParsedAddress[] = [];
    for (const text of cfg.addresses) {
      let a: ParsedAddress;
      try {
        a = parseAddress(text);
      } catch {
        throw new TypeError(`local address pool: bad address '${text}'`);
      }
      const k = `${a.family}/${hex(a.bytes)}`;
      if (seen.has(k)) throw new TypeError(`local address pool: address ${text} listed twice`);
      seen.add(k);
      for (const v of vips) {
        let vb: ParsedAddress | null = null;
        try {
          vb = parseAddress(v.vip);
        } catch {
          vb = null;
        }
        if (vb !== null && vb.family === a.family && hex(vb.bytes) === hex(a.bytes)) {
          throw new TypeError(`local address pool: address ${text} is the VIP of service '${v.service}'`);
        }
      }
      this.byFamily[a.family].push(list.length);
      list.push(a);
    }
    this.addresses = list;
  }

  /** The share (partition) port `port` belongs to. */
  shareOf(port: number): number {
    return (port - this.portMin) % this.shares;
  }

  /** Ports of share `share` on one (address, destination, protocol). */
  portsPerShare(share: number): number {
    const n = this.portMax - this.portMin + 1;
    return Math.floor(n / this.shares) + (share < n % this.shares ? 1 : 0);
  }

  /**
   * Allocates a local endpoint for a new connection of `family`/`proto` to destination `dest`,
   * from the partition of `share`, into `out`.
   * @returns true, or false with `lastFailure` set and counted (no port is reused)
   * @throws RangeError for a share outside 0..shares−1
   */
  allocate(share: number, family: 4 | 6, proto: number, dest: string, out: LocalEndpoint): boolean {
    if (!(share >= 0 && share < this.shares)) throw new RangeError(`local address pool: share ${share} outside 0..${this.shares - 1}`);
    const idx = this.byFamily[family];
    if (idx.length === 0) {
      this.stats.noAddress++;
      this.lastFailure = 'no_local_address';
      return false;
    }
    const start = this.rr[family] % idx.length;
    this.rr[family] = (start + 1) % idx.length;
    for (let k = 0; k < idx.length; k++) {
      const ai = idx[(start + k) % idx.length]!;
      const set = this.set(ai, proto, dest);
      if (set.free[share]! <= 0) continue;
      const port = this.take(set, share);
      out.address.fill(0);
      out.address.set(this.addresses[ai]!.bytes.subarray(0, family === 6 ? 16 : 4));
      out.port = port;
      this.stats.allocated++;
      this.stats.inUse++;
      this.lastFailure = null;
      return true;
    }
    this.stats.exhausted++;
    this.lastFailure = 'local_ports_exhausted';
    return false;
  }

  /**
   * Marks (address, port) in use for `dest`/`proto`: a connection learnt from the buddy's sync.
   * @returns false when the address is not in the pool, the port is outside the range, or it is
   *   in use already (counted as a conflict)
   */
  reserve(family: 4 | 6, proto: number, dest: string, address: Uint8Array, port: number): boolean {
    const ai = this.indexOf(family, address);
    if (ai < 0 || port < this.portMin || port > this.portMax) return false;
    const set = this.set(ai, proto, dest);
    const bit = port - this.portMin;
    if ((set.bits[bit >> 3]! & (1 << (bit & 7))) !== 0) {
      this.stats.conflicts++;
      return false;
    }
    set.bits[bit >> 3]! |= 1 << (bit & 7);
    set.free[this.shareOf(port)]!--;
    this.stats.allocated++;
    this.stats.inUse++;
    return true;
  }

  /** Returns (address, port) of a closed connection to the pool; unknown ones are ignored. */
  release(family: 4 | 6, proto: number, dest: string, address: Uint8Array, port: number): void {
    const ai = this.indexOf(family, address);
    if (ai < 0 || port < this.portMin || port > this.portMax) return;
    const set = this.sets.get(key(ai, proto, dest));
    if (set === undefined) return;
    const bit = port - this.portMin;
    if ((set.bits[bit >> 3]! & (1 << (bit & 7))) === 0) return;
    set.bits[bit >> 3]! &= ~(1 << (bit & 7));
    set.free[this.shareOf(port)]!++;
    this.stats.inUse--;
  }

  /** True when `address` (16 bytes) is one of the pool's addresses of `family`. */
  has(family: 4 | 6, address: Uint8Array): boolean {
    return this.indexOf(family, address) >= 0;
  }

  private indexOf(family: 4 | 6, address: Uint8Array): number {
    const n = family === 6 ? 16 : 4;
    for (const ai of this.byFamily[family]) {
      const b = this.addresses[ai]!.bytes;
      let eq = true;
      for (let i = 0; i < n; i++) if (b[i] !== address[i]) eq = false;
      if (eq) return ai;
    }
    return -1;
  }

  private set(ai: number, proto: number, dest: string): PortSet {
    const k = key(ai, proto, dest);
    let s = this.sets.get(k);
    if (s === undefined) {
      const free = new Int32Array(this.shares);
      const cursor = new Int32Array(this.shares);
      for (let sh = 0; sh < this.shares; sh++) {
        free[sh] = this.portsPerShare(sh);
        cursor[sh] = this.portMin + sh;
      }
      s = { bits: new Uint8Array(((this.portMax - this.portMin) >> 3) + 1), free, cursor };
      this.sets.set(k, s);
    }
    return s;
  }

  /** Next free port of `share` from its cursor (the caller checked that one is free). */
  private take(s: PortSet, share: number): number {
    const step = this.shares;
    let p = s.cursor[share]!;
    for (;;) {
      const bit = p - this.portMin;
      if ((s.bits[bit >> 3]! & (1 << (bit & 7))) === 0) {
        s.bits[bit >> 3]! |= 1 << (bit & 7);
        s.free[share]!--;
        let next = p + step;
        if (next > this.portMax) next = this.portMin + share;
        s.cursor[share] = next;
        return p;
      }
      p += step;
      if (p > this.portMax) p = this.portMin + share;
    }
  }
}

function key(ai: number, proto: number, dest: string): string {
  return `${ai}|${proto}|${dest}`;
}

function hex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}
