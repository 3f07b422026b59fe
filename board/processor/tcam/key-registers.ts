/**
 * The session table's key registers (board/processor/tcam/session-table.ts): the conversation key
 * of the packet being looked up, loaded once per packet and read by find/insert without any
 * allocation.
 *
 * Keys are direction-insensitive: the two endpoints are ordered (lower address, then lower port,
 * first), so a 5-tuple and its reverse are one conversation. TCP/UDP/SCTP with ports are keyed
 * by the 5-tuple; other IP protocols, fragments and packets whose ports were not captured by
 * (address pair, protocol), following FlowTuple.hashPorts. The hash (murmur3-style mixing,
 * hash32.ts) is the same for both directions and is the flow hash the board reports.
 */
import type { FlowTuple } from '../../packet/flow-tuple.ts';
import { fmix32, mix32 } from '../hash32.ts';
import * as L from './entry-layout.ts';
import { HotTier } from './hot-tier.ts';
import type { SessionTableOptions } from './table-options.ts';

// module-local copies of the layout (entry-layout.ts explains why)
const W = L.W;
const O_META = L.O_META;
const K_V6 = L.K_V6;
const K_NOPORTS = L.K_NOPORTS;
const K_CLIENT_B = L.K_CLIENT_B;

/** The entry store with the loaded key: endpoints in key order, ports, META key bits, hash. */
export abstract class KeyRegisters extends HotTier {
  readonly seed: number;

  // ---- the loaded key (registers) ----
  protected kV6 = false;
  /** Endpoint A and B (IPv4, int32), 0 for IPv6 (its 8 words are in kWords). */
  protected kA = 0;
  protected kB = 0;
  protected readonly kWords = new Int32Array(8);
  protected kPorts = 0;
  protected kMeta = 0;
  /** Key hash, int32. */
  protected kHash = 0;
  /** The packet travels A → B. */
  protected kPktIsA = true;

  /** @param opts checked (table-options.ts checkedOptions) */
  constructor(opts: SessionTableOptions) {
    super(opts);
    this.seed = (opts.seed ?? 0x9e3779b9) | 0;
  }

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

  /** True when the loaded key's packet travels client → server for entry `e` (found by find()). */
  isFromClient(e: number): boolean {
    return ((this.d[e * W + O_META]! & K_CLIENT_B) === 0) === (this.kPktIsA === true);
  }
}
