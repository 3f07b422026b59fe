/**
 * The ECMP group of the hub boards: which member (hub port → processor board) a hash value maps
 * to. Both hubs of a shelf use one EcmpGroup object, so a flow lands on the same board whichever
 * hub it enters. Pure control-plane state plus an allocation-free `select(hash)` for the hot path.
 *
 * Mappings (EcmpConfig.mapping):
 * - `modulo`: port = upMembers[hash mod N], the N members that are up sorted by port — what an
 *   FM4224-class chip does with its 16-bit Pearson digest. Any change of N remaps about
 *   (N−1)/N of all flows (dataplane.md §3.2: 87.5 % at N = 8), which is why adding or removing a
 *   board breaks sessions. Failover targets and share moves do not apply.
 * - `resilient`: a table of B buckets (EcmpConfig.buckets, default 4096), bucket = hash mod B,
 *   as Linux resilient nexthop groups (Documentation/networking/nexthop-group-resilient.rst) and
 *   switch-chip resilient hashing do. Only buckets that must move do:
 *   · a member that goes down (board down, extracted, out of M4) loses its buckets at once; they go
 *     to its failover target (EcmpMember.failoverPort, its HA buddy) when that one is up, else they
 *     are spread evenly over the members still up (each to the member serving the fewest buckets,
 *     ties to the lowest port);
 *   · when it comes back, the buckets it owns return to it — and only those;
 *   · a member added takes ⌊B/(N+1)⌋ buckets, taken one at a time from the members with the most
 *     home buckets (their highest-numbered ones), so the shares end within one bucket of each
 *     other; no other bucket moves;
 *   · a member removed from the configuration hands its home buckets to the members with the
 *     fewest (preferring the member already serving a bucket, so a bucket spread while the member
 *     was down does not move again).
 *   Everything is deterministic: the same sequence of calls gives the same table.
 *
 * Three per-bucket tables (resilient only):
 * - home[b]: the share the bucket belongs to — the member whose buckets these are when all is well.
 *   The HA layer names shares by their home (docs/ha.md: `lb1/slot3` = the buckets whose home is slot3).
 *   Changes only when members are added or removed.
 * - owner[b]: the member the control plane wants to serve the bucket; equal to home unless the HA
 *   layer moved it (moveShare, moveBuckets, shift). An explicit owner is honoured even when the
 *   home member is up, so a failed-over share does not fail back before the HA layer says so.
 * - serving[b] (`table()`): who serves it now: the owner when up; else the current server when it
 *   is up and not the owner (a bucket is never moved twice without need); else the owner's
 *   failover target when up; else spread. -1 when no member is up.
 */
import { CommandError } from '../common/errors.ts';
import { nullLogger, type Logger } from '../common/logger.ts';
import { DEFAULT_ECMP, type EcmpConfig, type EcmpMember, type EgressMapping } from './switch-config.ts';

/** Highest hub port number accepted (ports are 1-based). */
export const MAX_HUB_PORT = 1023;
/** Largest resilient table accepted, buckets (2^20, as the shelf loader allows; Linux resilient
 * groups use a u16 count, switch chips 64..4096). */
export const MAX_BUCKETS = 1 << 20;

/** A member as the group reports it. */
export interface EcmpMemberInfo {
  port: number;
  slot: number;
  failoverPort?: number;
  /** False while the board is down, extracted or out of M4. */
  up: boolean;
}

/** A member's share of the table, as `shares()` reports it. */
export interface EcmpShare extends EcmpMemberInfo {
  /** Buckets it serves now (resilient) — 0 for modulo. */
  buckets: number;
  /** Buckets whose home it is (its share, resilient) — 0 for modulo. */
  homeBuckets: number;
  /** Buckets it owns (home buckets not moved away, plus buckets moved to it). */
  ownedBuckets: number;
  /** Fraction of the hash space it serves now, 0..1 (modulo: 1/N for each member up). */
  fraction: number;
}

/** Options of an EcmpGroup beyond the configuration. */
export interface EcmpGroupOptions {
  /** Whether the initial members start up (default true). */
  initiallyUp?: boolean;
  /** Membership and table changes are logged at info level under `switch.ecmp`. */
  log?: Logger;
}

const NONE = -1;
const SPREAD = -2;

/** See the module header. */
export class EcmpGroup {
  readonly mapping: EgressMapping;
  /** Bucket count B of the resilient table (also kept for modulo, unused there). */
  readonly bucketCount: number;
  /** The shelf's ECMP configuration (DEFAULT_ECMP overlaid with what the constructor got): hubs
   * built over this group take their hash profile from here, so both hash alike. */
  readonly config: Readonly<EcmpConfig>;
  /** Incremented on every change of membership, state or table (for caches and snapshots). */
  version = 0;

  private readonly log: Logger;
  private readonly members = new Map<number, EcmpMemberInfo>();
  private sortedPorts: number[] = [];
  /** Per port number: 1 when a member and up. */
  private readonly upByPort = new Uint8Array(MAX_HUB_PORT + 1);
  /** Per port number: slot, -1 when not a member. */
  private readonly slotByPort = new Int32Array(MAX_HUB_PORT + 1).fill(NONE);
  // modulo
  private upPorts = new Int32Array(0);
  private nUp = 0;
  // resilient
  /** mapping === 'resilient', as a boolean (the hot path compares no strings). */
  private readonly resilient: boolean;
  private readonly mask: number;
  private readonly home: Int32Array;
  private readonly owner: Int32Array;
  private readonly serving: Int32Array;

  /**
   * @param config  the shelf's EcmpConfig (mapping and bucket count are used here; the hash profile
   *                — fields, hash, symmetric, tunnel, toeplitzKey — is kept for the hubs); missing
   *                keys take DEFAULT_ECMP's values
   * @param members initial members, any order (the table is built from them sorted by port:
   *                bucket i → i-th member mod N, so the same set gives the same table)
   * @throws TypeError for an unknown mapping, a bad or duplicate port, a bad slot, or a failover
   *         target that is the member itself or not in `members`; RangeError for a bucket count
   *         outside 1..2^20
   */
  constructor(config: Partial<EcmpConfig> & Pick<EcmpConfig, 'mapping' | 'buckets'>, members: readonly EcmpMember[] = [], opts: EcmpGroupOptions = {}) {
    if (config.mapping !== 'modulo' && config.mapping !== 'resilient') {
      throw new TypeError(`unknown ECMP mapping '${String(config.mapping)}' (expected modulo or resilient)`);
    }
    const b = config.buckets;
    if (!Number.isInteger(b) || b < 1 || b > MAX_BUCKETS) {
      throw new RangeError(`ECMP bucket count must be an integer in 1..${MAX_BUCKETS}, got ${b}`);
    }
    this.mapping = config.mapping;
    this.resilient = config.mapping === 'resilient';
    this.bucketCount = b;
    this.config = Object.freeze({ ...DEFAULT_ECMP, ...config });
    this.mask = (b & (b - 1)) === 0 ? b - 1 : NONE;
    this.log = (opts.log ?? nullLogger).child({ module: 'switch.ecmp' });
    const up = opts.initiallyUp ?? true;
    const ports = new Set<number>();
    for (const m of members) {
      checkMember(m);
      if (ports.has(m.port)) throw new TypeError(`duplicate ECMP member port ${m.port}`);
      ports.add(m.port);
    }
    for (const m of members) {
      if (m.failoverPort !== undefined && !ports.has(m.failoverPort)) {
        throw new TypeError(`ECMP member port ${m.port}: failover port ${m.failoverPort} is not a member`);
      }
      this.members.set(m.port, infoOf(m, up));
    }
    const resilient = this.mapping === 'resilient';
    this.home = new Int32Array(resilient ? b : 0).fill(NONE);
    this.owner = new Int32Array(resilient ? b : 0).fill(NONE);
    this.serving = new Int32Array(resilient ? b : 0).fill(NONE);
    this.refreshIndexes();
    const sorted = this.sortedPorts;
    if (resilient && sorted.length > 0) {
      for (let i = 0; i < b; i++) {
        const p = sorted[i % sorted.length]!;
        this.home[i] = p;
        this.owner[i] = p;
      }
      this.reconcile();
    }
    this.version = 1;
  }

  // ---------------------------------------------------------------- hot path

  /**
   * The port a hash value maps to, or -1 when no member is up. Allocation-free.
   * @param hash unsigned 32-bit hash value
   */
  select(hash: number): number {
    if (this.resilient) {
      const b = this.mask >= 0 ? hash & this.mask : (hash >>> 0) % this.bucketCount;
      return this.serving[b]!;
    }
    const n = this.nUp;
    return n === 0 ? NONE : this.upPorts[(hash >>> 0) % n]!;
  }

  /** The port serving bucket `b` of the resilient table (`select(h) === servingAt(bucketOf(h))`),
   * -1 when no member is up. Resilient mapping only; `b` in 0..bucketCount−1. */
  servingAt(b: number): number {
    return this.serving[b]!;
  }

  /** Bucket of a hash value (resilient), or -1 for modulo. */
  bucketOf(hash: number): number {
    if (!this.resilient) return NONE;
    return this.mask >= 0 ? hash & this.mask : (hash >>> 0) % this.bucketCount;
  }

  /** Slot of the board behind a member port, -1 when not a member. */
  slotOf(port: number): number {
    return port >= 0 && port <= MAX_HUB_PORT ? this.slotByPort[port]! : NONE;
  }

  /** True when `port` is a member and up. */
  isUp(port: number): boolean {
    return port >= 0 && port <= MAX_HUB_PORT && this.upByPort[port] === 1;
  }

  /** True when `port` is a member (up or down). */
  isMember(port: number): boolean {
    return this.members.has(port);
  }

  /** A member's failover target, or -1 when it has none (or is not a member). */
  failoverOf(port: number): number {
    return this.members.get(port)?.failoverPort ?? NONE;
  }

  /** Number of members up. */
  get upCount(): number {
    return this.nUp;
  }

  // ---------------------------------------------------------------- queries (allocate)

  /** Members sorted by port (copies). */
  memberList(): EcmpMemberInfo[] {
    return this.sortedPorts.map((p) => ({ ...this.members.get(p)! }));
  }

  /**
   * Bucket → serving port (-1 when none), a copy of length bucketCount.
   * @throws CommandError('not_resilient') for modulo groups
   */
  table(): Int32Array {
    this.needResilient('table');
    return this.serving.slice();
  }

  /** Bucket → home port (the share it belongs to), a copy. @throws CommandError('not_resilient') */
  homeTable(): Int32Array {
    this.needResilient('homeTable');
    return this.home.slice();
  }

  /** Bucket → owner port (see the module header), a copy. @throws CommandError('not_resilient') */
  ownerTable(): Int32Array {
    this.needResilient('ownerTable');
    return this.owner.slice();
  }

  /** The buckets whose home is `port` (its share), ascending. @throws CommandError('not_resilient') */
  homeBuckets(port: number): number[] {
    this.needResilient('homeBuckets');
    const out: number[] = [];
    for (let i = 0; i < this.bucketCount; i++) if (this.home[i] === port) out.push(i);
    return out;
  }

  /** The buckets `port` serves now, ascending. @throws CommandError('not_resilient') */
  servedBuckets(port: number): number[] {
    this.needResilient('servedBuckets');
    const out: number[] = [];
    for (let i = 0; i < this.bucketCount; i++) if (this.serving[i] === port) out.push(i);
    return out;
  }

  /** Each member's share (see EcmpShare), sorted by port. */
  shares(): EcmpShare[] {
    const served = new Map<number, number>();
    const homes = new Map<number, number>();
    const owned = new Map<number, number>();
    if (this.mapping === 'resilient') {
      for (let i = 0; i < this.bucketCount; i++) {
        inc(served, this.serving[i]!);
        inc(homes, this.home[i]!);
        inc(owned, this.owner[i]!);
      }
    }
    return this.sortedPorts.map((p) => {
      const m = this.members.get(p)!;
      const buckets = served.get(p) ?? 0;
      const fraction = this.mapping === 'resilient' ? buckets / this.bucketCount : m.up && this.nUp > 0 ? 1 / this.nUp : 0;
      return { ...m, buckets, homeBuckets: homes.get(p) ?? 0, ownedBuckets: owned.get(p) ?? 0, fraction };
    });
  }

  // ---------------------------------------------------------------- membership

  /**
   * Marks a member up or down (board state: up only while it can take traffic, i.e. in M4).
   * A member going down is out of the group at once.
   * @returns buckets whose serving port changed (modulo: 0; every flow may move)
   * @throws CommandError('no_such_member')
   */
  setUp(port: number, up: boolean): number {
    const m = this.need(port);
    if (m.up === up) return 0;
    m.up = up;
    this.refreshIndexes();
    const moved = this.reconcile();
    this.changed(up ? 'ecmp-member-up' : 'ecmp-member-down', { port, moved });
    return moved;
  }

  /**
   * Adds a member (resilient: it takes ⌊B/(N+1)⌋ buckets, evenly from the others).
   * @param up whether it starts up (default true); added down, its buckets stay where they are
   *           until it comes up
   * @returns buckets whose serving port changed
   * @throws CommandError('member_exists'); TypeError for a bad port/slot/failover port
   */
  addMember(member: EcmpMember, up = true): number {
    checkMember(member);
    if (this.members.has(member.port)) throw new CommandError('member_exists', `ECMP port ${member.port} is already a member`);
    const before = this.sortedPorts.slice();
    this.members.set(member.port, infoOf(member, up));
    this.refreshIndexes();
    if (this.mapping === 'resilient') this.giveShareTo(member.port, before);
    const moved = this.reconcile();
    this.changed('ecmp-member-added', { port: member.port, moved });
    return moved;
  }

  /**
   * Removes a member from the configuration; its share goes to the others.
   * @returns buckets whose serving port changed
   * @throws CommandError('no_such_member')
   */
  removeMember(port: number): number {
    this.need(port);
    this.members.delete(port);
    this.refreshIndexes();
    if (this.mapping === 'resilient') this.takeShareFrom(port);
    const moved = this.reconcile();
    this.changed('ecmp-member-removed', { port, moved });
    return moved;
  }

  /**
   * Sets or clears (undefined) a member's failover target. Buckets already placed stay where they
   * are; the target is used the next time the member goes down.
   * @throws CommandError('no_such_member'); TypeError when target === port
   */
  setFailover(port: number, target: number | undefined): void {
    const m = this.need(port);
    if (target === port) throw new TypeError(`ECMP port ${port} cannot fail over to itself`);
    if (target === undefined) delete m.failoverPort;
    else m.failoverPort = target;
    this.changed('ecmp-failover-set', { port, target: target ?? null });
  }

  // ---------------------------------------------------------------- bucket moves (HA layer)

  /**
   * Makes `toPort` the owner of the given buckets (it serves them while up; see the module header).
   * @returns buckets whose serving port changed
   * @throws CommandError('not_resilient' | 'no_such_member' | 'bad_bucket')
   */
  moveBuckets(buckets: Iterable<number>, toPort: number): number {
    this.needResilient('moveBuckets');
    this.need(toPort);
    const list = [...buckets];
    for (const b of list) {
      if (!Number.isInteger(b) || b < 0 || b >= this.bucketCount) {
        throw new CommandError('bad_bucket', `bucket ${b} is outside 0..${this.bucketCount - 1}`);
      }
    }
    for (const b of list) this.owner[b] = toPort;
    const moved = this.reconcile();
    this.changed('ecmp-buckets-moved', { to: toPort, buckets: list.length, moved });
    return moved;
  }

  /**
   * Moves a whole share — every bucket whose home is `homePort` — to `toPort` (e.g. the HA
   * layer handing share `lb1/slot3` to the buddy). `moveShare(p, p)` gives it back to its home.
   * @returns buckets whose serving port changed
   * @throws CommandError('not_resilient' | 'no_such_member')
   */
  moveShare(homePort: number, toPort: number): number {
    this.needResilient('moveShare');
    this.need(homePort);
    this.need(toPort);
    for (let i = 0; i < this.bucketCount; i++) if (this.home[i] === homePort) this.owner[i] = toPort;
    const moved = this.reconcile();
    this.changed('ecmp-share-moved', { home: homePort, to: toPort, moved });
    return moved;
  }

  /** Gives a share back to its home member: `moveShare(homePort, homePort)`. */
  restoreShare(homePort: number): number {
    return this.moveShare(homePort, homePort);
  }

  /**
   * Blue/green traffic shift between two members: afterwards exactly round(fraction × |share of
   * fromPort|) of fromPort's home buckets are owned by `toPort` and the other ones by `fromPort`.
   * The fraction is absolute, not cumulative: shift(a, b, 0.1), then shift(a, b, 0.5), then
   * shift(a, b, 1) moves 10 %, 50 %, all; shift(a, b, 0) gives everything back. Buckets are taken
   * in ascending bucket order, so raising the fraction only adds buckets and lowering it returns
   * the last ones added. Buckets of the share owned by a third member are left alone (and not
   * counted as eligible).
   * @param fraction 0..1
   * @returns buckets whose serving port changed
   * @throws CommandError('not_resilient' | 'no_such_member' | 'bad_fraction')
   */
  shift(fromPort: number, toPort: number, fraction: number): number {
    this.needResilient('shift');
    this.need(fromPort);
    this.need(toPort);
    if (!(fraction >= 0 && fraction <= 1)) throw new CommandError('bad_fraction', `shift fraction must be in 0..1, got ${fraction}`);
    let total = 0;
    const eligible: number[] = [];
    for (let i = 0; i < this.bucketCount; i++) {
      if (this.home[i] !== fromPort) continue;
      total++;
      const o = this.owner[i];
      if (o === fromPort || o === toPort) eligible.push(i);
    }
    const k = Math.min(Math.round(fraction * total), eligible.length);
    for (let j = 0; j < eligible.length; j++) this.owner[eligible[j]!] = j < k ? toPort : fromPort;
    const moved = this.reconcile();
    this.changed('ecmp-shift', { from: fromPort, to: toPort, fraction, buckets: k, moved });
    return moved;
  }

  // ---------------------------------------------------------------- internals

  private need(port: number): EcmpMemberInfo {
    const m = this.members.get(port);
    if (!m) throw new CommandError('no_such_member', `ECMP port ${port} is not a member of the group`);
    return m;
  }

  private needResilient(what: string): void {
    if (this.mapping !== 'resilient') {
      throw new CommandError('not_resilient', `${what} needs the resilient mapping (this group uses ${this.mapping})`);
    }
  }

  private changed(category: string, fields: Record<string, unknown>): void {
    this.version++;
    this.log.info({ category, ...fields }, category.replace(/-/g, ' '));
  }

  private refreshIndexes(): void {
    this.sortedPorts = [...this.members.keys()].sort((a, b) => a - b);
    this.upByPort.fill(0);
    this.slotByPort.fill(NONE);
    const up: number[] = [];
    for (const p of this.sortedPorts) {
      const m = this.members.get(p)!;
      this.slotByPort[p] = m.slot;
      if (m.up) {
        this.upByPort[p] = 1;
        up.push(p);
      }
    }
    this.upPorts = Int32Array.from(up);
    this.nUp = up.length;
  }

  /** New member `port`: orphan buckets first, then ⌊B/(N+1)⌋ in all, from the fullest shares. */
  private giveShareTo(port: number, before: readonly number[]): void {
    const B = this.bucketCount;
    const lists = new Map<number, number[]>(before.map((p) => [p, []]));
    let got = 0;
    for (let i = 0; i < B; i++) {
      const h = this.home[i]!;
      const l = lists.get(h);
      if (l) l.push(i);
      else {
        this.home[i] = port;
        this.owner[i] = port;
        got++;
      }
    }
    const target = Math.floor(B / (before.length + 1));
    while (got < target) {
      let best = NONE;
      let bestLen = 0;
      for (const p of before) {
        const len = lists.get(p)!.length;
        if (len > bestLen) {
          best = p;
          bestLen = len;
        }
      }
      if (best === NONE || bestLen <= got) break;
      const b = lists.get(best)!.pop()!;
      this.home[b] = port;
      this.owner[b] = port;
      got++;
    }
  }

  /** Removed member `port`: its home buckets to the remaining members, fewest first. */
  private takeShareFrom(port: number): void {
    const B = this.bucketCount;
    const rest = this.sortedPorts;
    if (rest.length === 0) {
      this.home.fill(NONE);
      this.owner.fill(NONE);
      return;
    }
    const count = new Map<number, number>(rest.map((p) => [p, 0]));
    for (let i = 0; i < B; i++) {
      const h = this.home[i]!;
      if (h !== port) count.set(h, (count.get(h) ?? 0) + 1);
    }
    const ceil = Math.ceil(B / rest.length);
    const left: number[] = [];
    for (let i = 0; i < B; i++) {
      if (this.home[i] !== port) continue;
      const s = this.serving[i]!;
      if (s !== port && count.has(s) && count.get(s)! < ceil) {
        this.home[i] = s;
        count.set(s, count.get(s)! + 1);
      } else left.push(i);
    }
    for (const i of left) {
      let best = rest[0]!;
      for (const p of rest) if (count.get(p)! < count.get(best)!) best = p;
      this.home[i] = best;
      count.set(best, count.get(best)! + 1);
    }
    for (let i = 0; i < B; i++) {
      if (this.owner[i] === port || !this.members.has(this.owner[i]!)) this.owner[i] = this.home[i]!;
    }
  }

  /** Recomputes serving[] per the rules of the module header. @returns buckets that changed */
  private reconcile(): number {
    if (this.mapping !== 'resilient') return 0;
    const B = this.bucketCount;
    const want = new Int32Array(B);
    const load = new Map<number, number>(this.upPorts.length ? [...this.upPorts].map((p) => [p, 0]) : []);
    let spread = 0;
    for (let i = 0; i < B; i++) {
      const o = this.owner[i]!;
      const s = this.serving[i]!;
      let w: number;
      if (this.isUp(o)) w = o;
      else if (s >= 0 && s !== o && this.isUp(s)) w = s;
      else {
        const f = o >= 0 ? this.failoverOf(o) : NONE;
        w = f >= 0 && this.isUp(f) ? f : SPREAD;
      }
      want[i] = w;
      if (w >= 0) load.set(w, load.get(w)! + 1);
      else spread++;
    }
    if (spread > 0 && this.nUp > 0) {
      const ports = this.upPorts;
      const counts = Int32Array.from(ports, (p) => load.get(p)!);
      for (let i = 0; i < B; i++) {
        if (want[i] !== SPREAD) continue;
        let k = 0;
        for (let j = 1; j < counts.length; j++) if (counts[j]! < counts[k]!) k = j;
        want[i] = ports[k]!;
        counts[k]!++;
      }
    }
    let moved = 0;
    for (let i = 0; i < B; i++) {
      const w = want[i]! >= 0 ? want[i]! : NONE;
      if (this.serving[i] !== w) {
        this.serving[i] = w;
        moved++;
      }
    }
    return moved;
  }
}

function checkMember(m: EcmpMember): void {
  if (!Number.isInteger(m.port) || m.port < 1 || m.port > MAX_HUB_PORT) {
    throw new TypeError(`ECMP member port must be an integer in 1..${MAX_HUB_PORT}, got ${m.port}`);
  }
  if (!Number.isInteger(m.slot) || m.slot < 0) throw new TypeError(`ECMP member port ${m.port}: bad slot ${m.slot}`);
  if (m.failoverPort !== undefined) {
    if (!Number.isInteger(m.failoverPort) || m.failoverPort < 1 || m.failoverPort > MAX_HUB_PORT) {
      throw new TypeError(`ECMP member port ${m.port}: bad failover port ${m.failoverPort}`);
    }
    if (m.failoverPort === m.port) throw new TypeError(`ECMP member port ${m.port} cannot fail over to itself`);
  }
}

function infoOf(m: EcmpMember, up: boolean): EcmpMemberInfo {
  const info: EcmpMemberInfo = { port: m.port, slot: m.slot, up };
  if (m.failoverPort !== undefined) info.failoverPort = m.failoverPort;
  return info;
}

function inc(m: Map<number, number>, k: number): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}
