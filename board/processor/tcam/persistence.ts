/**
 * Session persistence (client → RS stickiness), as IPVS persistent services (`ipvsadm -p
 * timeout`, connection templates keyed by client address and service): once a client has been
 * scheduled to an RS, its new connections to the same service go to that RS until the template
 * has been unused for the service's persistence timeout. Granularity is the full client address
 * (IPVS's default netmask 255.255.255.255 / 128).
 *
 * Storage: fixed capacity, open addressing (linear probing, backward-shift deletion) over typed
 * arrays, and one LRU list per service (a service has one timeout, so its list is in expiry
 * order). A full table evicts the least-recently-used template among the lists' heads (a
 * template is soft state: losing one only loses stickiness). Expired templates are removed by
 * `sweep(now)` with bounded work, and ignored on lookup. No allocation per operation.
 */
import { fmix32, mix32 } from '../hash32.ts';

const KW = 5; // key words: service << 8 | family, address words 0..3

/** Fixed-capacity client → RS persistence table. */
export class PersistenceTable {
  readonly capacity: number;
  size = 0;
  /** Templates evicted because the table was full. */
  evicted = 0;
  private readonly keys: Uint32Array;
  private readonly rs: Int32Array;
  private readonly expires: Float64Array;
  private readonly timeout: Float64Array;
  private readonly hashes: Int32Array;
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly idx: Int32Array;
  private readonly mask: number;
  private readonly heads: Int32Array;
  private readonly tails: Int32Array;
  private freeHead = -1;
  private top = 0;
  private readonly k = new Uint32Array(KW);
  private kh = 0;

  /**
   * @param capacity templates held (≥ 1)
   * @param services number of services (service indexes 0 … services−1), default 1
   * @throws RangeError on bad sizes
   */
  constructor(capacity: number, services = 1) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`persistence capacity must be ≥ 1, got ${capacity}`);
    if (!Number.isInteger(services) || services < 1 || services > 0xffff) throw new RangeError(`persistence services must be 1..65535, got ${services}`);
    this.capacity = capacity;
    this.heads = new Int32Array(services).fill(-1);
    this.tails = new Int32Array(services).fill(-1);
    this.keys = new Uint32Array(capacity * KW);
    this.rs = new Int32Array(capacity);
    this.expires = new Float64Array(capacity);
    this.timeout = new Float64Array(capacity);
    this.hashes = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    let size = 16;
    while (size * 0.75 < capacity) size *= 2;
    this.idx = new Int32Array(size);
    this.mask = size - 1;
  }

  private load(service: number, family: number, addr: Uint8Array): void {
    const k = this.k;
    k[0] = ((service << 8) | family) >>> 0;
    const n = family === 6 ? 4 : 1;
    let h = 0x3c6ef372;
    h = mix32(h, k[0]!);
    for (let i = 0; i < 4; i++) {
      const o = i << 2;
      k[i + 1] = i < n ? ((addr[o]! << 24) | (addr[o + 1]! << 16) | (addr[o + 2]! << 8) | addr[o + 3]!) >>> 0 : 0;
      h = mix32(h, k[i + 1]!);
    }
    this.kh = fmix32(h) | 0;
  }

  private findLoaded(): number {
    const idx = this.idx;
    let i = this.kh & this.mask;
    for (;;) {
      const v = idx[i]!;
      if (v === 0) return -1;
      const e = v - 1;
      if (this.hashes[e] === this.kh) {
        const o = e * KW;
        const k = this.k;
        if (this.keys[o] === k[0] && this.keys[o + 1] === k[1] && this.keys[o + 2] === k[2] && this.keys[o + 3] === k[3] && this.keys[o + 4] === k[4]) return e;
      }
      i = (i + 1) & this.mask;
    }
  }

  /**
   * The RS a client is pinned to for a service, or −1 (none, or expired: then removed).
   * @param family 4 or 6; `addr` a 16-byte address (IPv4 in bytes 0..3)
   */
  lookup(service: number, family: number, addr: Uint8Array, now: number): number {
    this.load(service, family, addr);
    const e = this.findLoaded();
    if (e < 0) return -1;
    if (this.expires[e]! <= now) {
      this.removeEntry(e);
      return -1;
    }
    return this.rs[e]!;
  }

  /**
   * Pins a client to an RS for `timeoutMs` from now (creating or refreshing the template).
   */
  put(service: number, family: number, addr: Uint8Array, rs: number, now: number, timeoutMs: number): void {
    this.load(service, family, addr);
    let e = this.findLoaded();
    if (e >= 0) {
      this.unlink(e);
    } else {
      if (this.size >= this.capacity) {
        let victim = -1;
        for (let sv = 0; sv < this.heads.length; sv++) {
          const h = this.heads[sv]!;
          if (h >= 0 && (victim < 0 || this.lastUseOf(h) < this.lastUseOf(victim))) victim = h;
        }
        this.removeEntry(victim);
        this.evicted++;
        this.load(service, family, addr);
      }
      if (this.freeHead >= 0) {
        e = this.freeHead;
        this.freeHead = this.next[e]!;
      } else {
        e = this.top++;
      }
      this.keys.set(this.k, e * KW);
      this.hashes[e] = this.kh;
      let i = this.kh & this.mask;
      while (this.idx[i] !== 0) i = (i + 1) & this.mask;
      this.idx[i] = e + 1;
      this.size++;
    }
    this.rs[e] = rs;
    this.expires[e] = now + timeoutMs;
    this.timeout[e] = timeoutMs;
    this.linkTail(e);
  }

  /** Removes the template of a client. @returns true when one existed. */
  delete(service: number, family: number, addr: Uint8Array): boolean {
    this.load(service, family, addr);
    const e = this.findLoaded();
    if (e < 0) return false;
    this.removeEntry(e);
    return true;
  }

  /**
   * Removes expired templates (each service's list is in expiry order), at most `budget` per call.
   * @returns next deadline (ms), `now` when the budget ran out, Infinity when empty
   */
  sweep(now: number, budget = 256): number {
    let next = Infinity;
    for (let sv = 0; sv < this.heads.length; sv++) {
      for (;;) {
        const e = this.heads[sv]!;
        if (e < 0) break;
        if (this.expires[e]! > now) {
          if (this.expires[e]! < next) next = this.expires[e]!;
          break;
        }
        if (budget-- <= 0) return now;
        this.removeEntry(e);
      }
    }
    return next;
  }

  private lastUseOf(e: number): number {
    return this.expires[e]! - this.timeout[e]!;
  }

  private removeEntry(e: number): void {
    this.unlink(e);
    const idx = this.idx;
    const mask = this.mask;
    let i = this.hashes[e]! & mask;
    while (idx[i] !== e + 1) i = (i + 1) & mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const v = idx[j]!;
      if (v === 0) break;
      const k = this.hashes[v - 1]! & mask;
      if (j > i ? k <= i || k > j : k <= i && k > j) {
        idx[i] = v;
        i = j;
      }
    }
    idx[i] = 0;
    this.next[e] = this.freeHead;
    this.freeHead = e;
    this.size--;
  }

  private linkTail(e: number): void {
    const sv = this.keys[e * KW]! >>> 8;
    const tail = this.tails[sv]!;
    this.prev[e] = tail;
    this.next[e] = -1;
    if (tail >= 0) this.next[tail] = e;
    else this.heads[sv] = e;
    this.tails[sv] = e;
  }

  private unlink(e: number): void {
    const sv = this.keys[e * KW]! >>> 8;
    const p = this.prev[e]!;
    const n = this.next[e]!;
    if (p >= 0) this.next[p] = n;
    else this.heads[sv] = n;
    if (n >= 0) this.prev[n] = p;
    else this.tails[sv] = p;
  }

  /** Typed-array bytes held. */
  memoryBytes(): number {
    return this.keys.byteLength + this.rs.byteLength + this.expires.byteLength + this.timeout.byteLength
      + this.hashes.byteLength + this.prev.byteLength + this.next.byteLength + this.idx.byteLength;
  }
}
