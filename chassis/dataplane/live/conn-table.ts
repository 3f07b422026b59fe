/**
 * The live path's translated connections: for every session a processor board forwards by
 * `dr`, `nat` or `fullnat`, its Translation (board/processor/forwarding/translation.ts) under two
 * keys — the client side (client:port → VIP:port, what the hubs bring in) and, for `nat` and
 * `fullnat`, the server side as the RS's replies carry it (RS:port → client:port, or →
 * local:port under `fullnat`). A reply is looked up by the second key, translated back, and then
 * goes through the board like any packet of its session (the session table keys the original
 * tuple, direction-insensitive).
 *
 * The board's session table is the authority on a connection's life: `sweep` removes the
 * entries whose session the board no longer holds (expired, reused, RS down) and gives their
 * full-NAT ports back. Keys are short strings built from the frame's bytes (one UTF-16 unit per
 * byte or port: one small string per packet).
 */
import type { ClientAddressState } from '../../../board/processor/forwarding/client-address.ts';
import { FlowTuple } from '../../../board/packet/flow-tuple.ts';
import type { IpLayout } from '../../../board/packet/ip-layout.ts';
import type { LocalAddressPool } from '../../../board/processor/forwarding/local-address-pool.ts';
import type { Translation } from '../../../board/processor/forwarding/translation.ts';
import { backSource, backSourcePort } from '../../../board/processor/forwarding/translation.ts';

/** One translated connection. */
export interface Conn {
  t: Translation;
  proto: number;
  /** Slot of the processor board holding the session, and of the hub it came in by. */
  slot: number;
  hub: number;
  /** Board-wide RS id. */
  rsId: number;
  frontKey: string;
  /** '' for dr (replies bypass the appliance). */
  backKey: string;
  /** The client-side tuple, to ask the board whether the session still exists. */
  tuple: FlowTuple;
  /** The full-NAT pool and destination key the local port came from (null otherwise). */
  pool: LocalAddressPool | null;
  poolDest: string;
  /** `fullnat` with a client_address mode: the TOA / PROXY header progress (client-address.ts). */
  ca?: ClientAddressState;
}

const fcc = String.fromCharCode;

/** Key text of an address: one UTF-16 unit per byte (cheap to build and to hash). */
function addrKey(b: Uint8Array, off: number, n: number): string {
  if (n === 4) return fcc(b[off]!, b[off + 1]!, b[off + 2]!, b[off + 3]!);
  let s = '';
  for (let i = 0; i < 16; i += 4) s += fcc(b[off + i]!, b[off + i + 1]!, b[off + i + 2]!, b[off + i + 3]!);
  return s;
}

function tupleKey(proto: number, src: string, sp: number, dst: string, dp: number): string {
  return fcc(proto) + src + fcc(sp, dp) + dst;
}

/** Key of a datagram's tuple as it sits in `frame` (src → dst, proto, ports when TCP/UDP). */
export function frameKey(frame: Uint8Array, ip: IpLayout): string {
  const n = ip.family === 6 ? 16 : 4;
  const s = ip.l3 + (ip.family === 6 ? 8 : 12);
  const ports = ip.l4 >= 0 && (ip.proto === 6 || ip.proto === 17) && ip.l4 + 4 <= ip.end;
  const sp = ports ? (frame[ip.l4]! << 8) | frame[ip.l4 + 1]! : 0;
  const dp = ports ? (frame[ip.l4 + 2]! << 8) | frame[ip.l4 + 3]! : 0;
  return tupleKey(ip.proto, addrKey(frame, s, n), sp, addrKey(frame, s + n, n), dp);
}

/** The key of the reply to the datagram quoted at `q` (quote dst → quote src): an ICMP error
 * from the server side quotes a datagram the appliance sent to the RS. */
export function quoteReplyKey(frame: Uint8Array, q: IpLayout): string {
  const n = q.family === 6 ? 16 : 4;
  const s = q.l3 + (q.family === 6 ? 8 : 12);
  const ports = q.l4 >= 0 && (q.proto === 6 || q.proto === 17) && q.l4 + 4 <= q.end;
  const sp = ports ? (frame[q.l4]! << 8) | frame[q.l4 + 1]! : 0;
  const dp = ports ? (frame[q.l4 + 2]! << 8) | frame[q.l4 + 3]! : 0;
  return tupleKey(q.proto, addrKey(frame, s + n, n), dp, addrKey(frame, s, n), sp);
}

/** The same key from parts (addresses 16-byte arrays, family's length used). */
export function partsKey(family: 4 | 6, proto: number, src: Uint8Array, sp: number, dst: Uint8Array, dp: number): string {
  const n = family === 6 ? 16 : 4;
  return tupleKey(proto, addrKey(src, 0, n), sp, addrKey(dst, 0, n), dp);
}

/** The key of the RS's replies of connection `t` (RS:rport → back source:port). */
export function backKeyOf(t: Translation, proto: number): string {
  return partsKey(t.family, proto, t.rs, t.rsPort, backSource(t), backSourcePort(t));
}

/** A copy of a packet's tuple (what the board keys its session by). */
export function copyTuple(from: FlowTuple): FlowTuple {
  const t = new FlowTuple();
  t.copyFrom(from);
  t.fragment = false;
  return t;
}

export class ConnTable {
  private readonly byFront = new Map<string, Conn>();
  private readonly byBack = new Map<string, Conn>();

  get size(): number {
    return this.byFront.size;
  }

  front(key: string): Conn | undefined {
    return this.byFront.get(key);
  }

  back(key: string): Conn | undefined {
    return this.byBack.get(key);
  }

  add(c: Conn): void {
    const old = this.byFront.get(c.frontKey);
    if (old !== undefined) this.remove(old);
    this.byFront.set(c.frontKey, c);
    if (c.backKey !== '') this.byBack.set(c.backKey, c);
  }

  /** Forgets `c` and gives its full-NAT port back. */
  remove(c: Conn): void {
    if (this.byFront.get(c.frontKey) === c) this.byFront.delete(c.frontKey);
    if (c.backKey !== '' && this.byBack.get(c.backKey) === c) this.byBack.delete(c.backKey);
    if (c.pool !== null) c.pool.release(c.t.family, c.proto, c.poolDest, c.t.local, c.t.localPort);
  }

  /**
   * Removes every connection for which `alive` is false (its board no longer holds the session).
   * @returns how many were removed
   */
  sweep(alive: (c: Conn) => boolean): number {
    let n = 0;
    for (const c of [...this.byFront.values()]) {
      if (!alive(c)) {
        this.remove(c);
        n++;
      }
    }
    return n;
  }

  /** Connections by mode (for the stats line). */
  countByMode(): Record<string, number> {
    const r: Record<string, number> = { dr: 0, nat: 0, fullnat: 0 };
    for (const c of this.byFront.values()) r[c.t.mode] = (r[c.t.mode] ?? 0) + 1;
    return r;
  }

  clear(): void {
    for (const c of [...this.byFront.values()]) this.remove(c);
  }
}
