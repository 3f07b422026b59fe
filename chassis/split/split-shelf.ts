/**
 * The shelf process's side of the split shelf (issue 7): the hardware the two external shelf
 * managers plug into. It runs next to the Emulator (boards, data plane with traffic, processor-
 * board HA as in `start`) and owns:
 *
 * - the ShMC pair's lines and watchdogs (shmc-hardware.ts), driven by bus messages; the lines of a
 *   ShMC drop the instant its connection closes;
 * - registrations: a ShMC says hello with its node and flags; the flags are checked
 *   (shmc-flags.ts) and kept (without any administrator password: that is kept apart, in memory), because on a watchdog expiry the shelf resets the ShMC by killing
 *   the process and running `atcasim shmc` again with exactly those flags (the `restart` port);
 * - the IPMI command layer behind the shelf address: the active ShMC relays each LAN datagram over
 *   the bus; it is handled by the shelf's LanServer (sessions, users, every command table) and the
 *   replies go back the same way; SEL changes (records added, deleted, cleared) are pushed to the active ShMC, before
 *   the reply of the request that caused them (the ShMC mirrors them to its standby and holds the
 *   reply until the standby committed: mirror.ts);
 * - the management state's source of truth is the active ShMC's database: a new active either loads
 *   its state into the shelf (`stateload`: the shelf's SEL, users and thresholds are replaced by it)
 *   or, when its database never held one, is seeded from the shelf (`statewant` → every record, then
 *   `stateend`). Until one of the two is done the ShMC is not "loaded": no IPMI datagram is relayed
 *   through it and no change is pushed to it. SEL records and thresholds the shelf's own hardware
 *   logs while no loaded active ShMC exists (the fault that caused the takeover, the new active's
 *   On Line) are held as pending, kept through a load and pushed to the new active after it — as an
 *   IPM controller retries its events until the event receiver takes them;
 * - the roles the ShMCs report, shown on the Shelf (TUI, SEL, the shelf address follows the active).
 *
 * Time (issues 6/7): everything that judges a ShMC by time — its watchdog countdown, the age of its
 * last report — runs on a StallCompensatedClock over the shelf's clock (board/common/stall-clock.ts).
 * A stall of the shelf process itself (GC, a loaded machine) is not a ShMC fault: while the shelf's
 * loop is blocked the ShMCs' kicks queue on the bus, and after the block Node runs due timers before
 * it reads the sockets, so a raw countdown would expire both ShMCs at once. On compensated time the
 * stall counts at most `globalStallMs`; a ShMC whose own process stops still misses its kicks while
 * the shelf's loop turns, and is reset by its watchdog as before.
 *
 * Pure: the bus connections, the restart/kill of processes and the clock are ports.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import { DEFAULT_HA } from '../config/ha.ts';
import { StallCompensatedClock } from '../../board/common/stall-clock.ts';
import type { LanServer } from '../ipmi/lan-server.ts';
import type { ShelfIpmiHaHooks, ShmStatus } from '../ipmi/shelf/index.ts';
import { HA_ROLES, type HaRoleName } from '../model/events.ts';
import type { Shelf } from '../model/shelf.ts';
import { InMemoryUserStore, administrators, hasAdministrator, trimPassword, type IpmiUser, type UserPrivilegeLimit } from '../ipmi/users.ts';
import { THRESHOLD_NAMES } from '../sensors/sensor.ts';
import { decodeSelRecord, encodeSelRecord } from '../sensors/sel.ts';
import type { HaFactory, HaMemberView, HaPart } from '../runtime/ha-seam.ts';
import type { ShmcNode, StateItem, StateSel, ToShelf, ToShmc } from './bus-codec.ts';
import { parseShmcArgv, stripAdminPassword } from './shmc-flags.ts';
import { SHMC_NODES, ShmcHardware } from './shmc-hardware.ts';

/** One bus connection as the shelf sees it (chassis/io/bus-server.ts). */
export interface BusConnection {
  /** Sends one message (dropped once closed). */
  send(m: ToShmc): void;
  /** Closes the connection. */
  close(): void;
  /** Text for logs (remote address). */
  readonly label: string;
}

/** A registered ShMC. */
export interface ShmcRegistration {
  node: ShmcNode;
  pid: number;
  /** The validated shmc flags (argv without the verb), never with the administrator password. */
  argv: string[];
  /**
   * The administrator password the ShMC runs with (the hello's `adminPassword`, or a
   * `--admin-password` stripped from its argv): held in memory only, never logged, handed to the
   * restarted process through its environment (chassis/io/shmc-process.ts).
   */
  adminPassword?: string;
}

/** Ports of the split shelf. */
export interface SplitShelfPorts {
  clock: Clock;
  log: Logger;
  /** Unix ms (time stamps of line changes: the ShMCs measure their takeover from them). */
  wallNow(): number;
  /**
   * HA timing the ShMCs run with (the shelf YAML's `ha` section, resolved). Its `globalStallMs`
   * (default 250 ms) is also the shelf's own stall threshold; it is read at the first use of the
   * ShMCs' time (normally the first watchdog set, or a status read), so the object may be filled in
   * after construction, before the bus opens (SplitSetup.launch does).
   */
  ha: Record<string, number>;
  /**
   * Resets a ShMC as a power cycle would: kill the process `reg.pid` (SIGKILL) and start
   * `atcasim shmc` with `reg.argv` again (`reg.adminPassword` in its environment). Must not throw.
   */
  restart(reg: ShmcRegistration): void;
  /** Kills the process `reg.pid` only (watchdog power-down). Must not throw. */
  kill(reg: ShmcRegistration): void;
}

interface Live {
  conn: BusConnection;
  reg: ShmcRegistration;
  role: HaRoleName;
  epoch: number;
  /** The ShMC's last report (heartbeat age, alarms) and when it came (shelf clock). */
  report?: { hbAgeMs: number | null; alarms: string[]; at: number };
  /** Its management state is loaded into the shelf or seeded from it (see the module header). */
  loaded: boolean;
  /** A `stateload` being received (chunks until `done`). */
  load?: { sel: StateSel[]; state: StateItem[] };
  /** The rest of a refused `stateload` is ignored. */
  refuseLoad?: boolean;
}

/** What the last `stateload` did to the shelf's state (log line `stateload`, tests). */
export interface StateLoadSummary {
  node: ShmcNode;
  /** SEL records of the shelf equal to the ShMC's (same ID, same bytes): kept. */
  kept: number;
  /** SEL records of the shelf the ShMC does not hold (not pending): deleted. */
  dropped: number;
  /** SEL records of the ShMC the shelf did not hold: added again (new ID, Add SEL Entry rules). */
  readded: number;
  /** SEL records the shelf logged while no ShMC was loaded: kept and pushed to the ShMC. */
  pending: number;
  /** IPMI users set from the ShMC's copy (0 when its copy was refused: no administrator). */
  users: number;
  /** Sensors whose thresholds were set from the ShMC's copy. */
  thresholds: number;
}

/** See the module header. */
export class SplitShelf {
  readonly hw: ShmcHardware;
  private readonly live = new Map<ShmcNode, Live>();
  /** Last registration of each node (kept after a reset: what is restarted). */
  private readonly regs = new Map<ShmcNode, ShmcRegistration>();
  private readonly roles = new Map<ShmcNode, { role: HaRoleName; epoch: number }>();
  private readonly connNode = new Map<BusConnection, ShmcNode>();
  private shelf: Shelf | undefined;
  private lan: LanServer | undefined;
  private lanTimer: TimerId | undefined;
  private readonly unsubs: Array<() => void> = [];
  private stopped = false;
  private lineChangeAt = 0;
  /** Restarts per node (watchdog resets). */
  readonly restarts: Record<ShmcNode, number> = { 'shmc-a': 0, 'shmc-b': 0 };
  /** Bus lines refused as garbage (counted). */
  garbage = 0;
  private stallClock: StallCompensatedClock | undefined;
  /** Stalls of the shelf process compensated on the ShMCs' time (see the module header). */
  stalls = 0;
  /** IDs of SEL records logged while no loaded active ShMC existed (see the module header). */
  private readonly pendingSel = new Set<number>();
  /**
   * ShMCs whose database is known, in this shelf process's lifetime, to miss management changes: a
   * change went to the active ShMC while this one was not its hot standby (down, booting, catching
   * up). Its `stateload` would drop what the other one acknowledged, so it is refused and the ShMC
   * seeded from the shelf instead. Cleared when the ShMC reports standby.hot (caught up) or is
   * seeded.
   */
  private readonly stale = new Set<ShmcNode>();
  /** Thresholds (FRU#number) changed while no loaded active ShMC existed. */
  private readonly pendingThresholds = new Set<string>();
  /** What the last load did. */
  lastLoad: StateLoadSummary | undefined;
  /** IPMI datagrams dropped because the ShMC that relayed them was not loaded yet. */
  unloadedIpmi = 0;

  constructor(private readonly p: SplitShelfPorts) {
    // The hardware's clock forwards to the stall-compensated one, created on first use (p.ha may be
    // filled in after construction).
    const shmcClock: Clock = {
      now: () => this.shmcTime().now(),
      setTimeout: (fn, ms) => this.shmcTime().setTimeout(fn, ms),
      clearTimeout: (id) => this.shmcTime().clearTimeout(id),
    };
    this.hw = new ShmcHardware({
      clock: shmcClock,
      log: p.log,
      reset: (node) => this.onReset(node, true),
      powerDown: (node) => this.onReset(node, false),
    });
    this.unsubs.push(this.hw.onChange(() => {
      this.lineChangeAt = p.wallNow();
      this.pushLines();
    }));
  }

  /** Binds the shelf model (roles, SEL records). */
  attachShelf(shelf: Shelf): void {
    this.shelf = shelf;
    this.unsubs.push(shelf.on('sel.added', (e) => {
      if (!this.sendChange({ t: 'sel', id: e.record.recordId, data: Buffer.from(encodeSelRecord(e.record)).toString('base64') })) this.pendingSel.add(e.record.recordId);
    }));
    this.unsubs.push(shelf.on('sel.deleted', (e) => {
      this.pendingSel.delete(e.recordId);
      this.sendChange({ t: 'seldel', id: e.recordId });
    }));
    this.unsubs.push(shelf.on('sel.cleared', () => {
      this.pendingSel.clear();
      this.sendChange({ t: 'selclear' });
    }));
    this.unsubs.push(shelf.on('sensor.thresholds', (e) => {
      const active = this.loadedActive();
      if (active) {
        this.sendThresholds(active, e.fru, e.number);
        this.changeSent(active);
      } else this.pendingThresholds.add(`${e.fru}#${e.number}`);
    }));
  }

  /**
   * The password of the shelf's IPMI administrator of record (the ShMCs' maintenance-port control
   * operations use it): `preferred` when an enabled administrator has it, else the first enabled
   * administrator's; undefined before `attachLan` or without one.
   */
  administratorPassword(preferred?: string): string | undefined {
    const admins = this.lan ? administrators(this.lan.users) : [];
    const text = (u: IpmiUser): string => Buffer.from(trimPassword(u.password)).toString('utf8');
    if (preferred !== undefined && admins.some((u) => text(u) === preferred)) return preferred;
    return admins[0] ? text(admins[0]) : undefined;
  }

  /** Binds the IPMI LAN server the active ShMC relays to, and ticks it (session timeouts). */
  attachLan(server: LanServer, shelfAddressPort: number): () => void {
    this.lan = server;
    const detach = server.attachTransport({
      localPort: shelfAddressPort,
      send: (bytes, peer) => this.activeLive()?.conn.send({ t: 'send', address: peer.address, port: peer.port, data: Buffer.from(bytes).toString('base64') }),
    });
    const tick = () => {
      if (this.stopped) return;
      let next: number | undefined;
      try {
        next = server.tick(this.p.clock.now());
      } catch (e) {
        this.p.log.error({ category: 'ipmi', err: String(e) }, 'LAN server tick failed');
      }
      const delay = next === undefined ? 1000 : Math.max(10, Math.min(1000, next - this.p.clock.now()));
      this.lanTimer = this.p.clock.setTimeout(tick, delay);
    };
    tick();
    return () => {
      detach();
      if (this.lanTimer !== undefined) this.p.clock.clearTimeout(this.lanTimer);
    };
  }

  /** A message from a connection (already decoded). */
  onMessage(conn: BusConnection, m: ToShelf): void {
    if (this.stopped) return;
    if (m.t === 'hello') {
      this.onHello(conn, m);
      return;
    }
    const node = this.connNode.get(conn);
    const l = node ? this.live.get(node) : undefined;
    if (!node || !l || l.conn !== conn) {
      this.garbage++;
      return; // not registered (or a stale connection of a ShMC that was reset)
    }
    switch (m.t) {
      case 'healthy':
        this.hw.setHealthy(node, m.on);
        return;
      case 'claim': {
        const ok = this.hw.claim(node, m.epoch);
        conn.send({ t: 'claimed', ok, epoch: m.epoch });
        if (!ok) this.p.log.warn({ category: 'interlock', node, epoch: m.epoch }, `${node}: ACTIVE claim refused by the interlock`);
        return;
      }
      case 'release':
        this.hw.release(node);
        return;
      case 'wdset':
        this.hw.watchdogSet(node, m.timeoutMs);
        return;
      case 'kick':
        this.hw.kick(node);
        return;
      case 'wdstop':
        this.hw.watchdogStop(node);
        return;
      case 'role':
        this.onRole(l, m.role, m.epoch);
        return;
      case 'ipmi':
        this.onIpmi(l, m);
        return;
      case 'statewant':
        this.seed(l);
        this.p.log.info({ category: 'stateload', node, source: 'shelf' }, `${node}: its database never held the management state: seeded from the shelf`);
        return;
      case 'stateload':
        if (l.refuseLoad) {
          // the rest of a refused stateload
          if (m.done) l.refuseLoad = false;
          return;
        }
        if (!l.load && this.stale.has(node)) {
          // its database misses changes the other ShMC acknowledged while this one was not its hot
          // standby: loading it would drop them
          this.p.log.warn({ category: 'stateload', node }, `${node}: its database misses management changes acknowledged while it was not the hot standby: stateload refused, seeded from the shelf`);
          l.refuseLoad = !m.done;
          this.seed(l);
          return;
        }
        l.load ??= { sel: [], state: [] };
        for (const r of m.sel) l.load.sel.push(r);
        for (const r of m.state) l.load.state.push(r);
        if (l.load.sel.length > 0xffff || l.load.state.length > 4096) {
          this.p.log.error({ category: 'stateload', node }, `${node}: stateload too large: refused (the shelf's state is kept and seeds the ShMC)`);
          l.load = undefined;
          l.refuseLoad = !m.done;
          this.seed(l);
          return;
        }
        if (m.done) {
          const load = l.load;
          l.load = undefined;
          this.applyLoad(l, load);
        }
        return;
      case 'report':
        l.report = { hbAgeMs: m.hbAgeMs, alarms: m.alarms.slice(0, 16), at: this.shmcTime().now() };
        return;
      default:
        this.garbage++;
    }
  }

  /** A connection closed (or errored): the ShMC's lines drop at once. */
  onClose(conn: BusConnection): void {
    const node = this.connNode.get(conn);
    this.connNode.delete(conn);
    if (!node) return;
    const l = this.live.get(node);
    if (!l || l.conn !== conn) return;
    this.live.delete(node);
    this.hw.disconnect(node);
    this.p.log.warn({ category: 'shmc', node, pid: l.reg.pid }, `${node}: bus connection lost (lines dropped)`);
    this.display(node, 'failed', l.epoch);
  }

  /** A bus line that could not be decoded. */
  onGarbage(conn: BusConnection, err: string): void {
    this.garbage++;
    this.p.log.warn({ category: 'bus-garbage', from: conn.label, err }, 'bus line refused');
  }

  /** Current registration of a node (live or last). */
  registration(node: ShmcNode): ShmcRegistration | undefined {
    return this.regs.get(node);
  }

  /** True while a ShMC process is connected for `node`. */
  connected(node: ShmcNode): boolean {
    return this.live.has(node);
  }

  /** The role a node last reported ('failed' if none). */
  roleOf(node: ShmcNode): HaRoleName {
    return this.live.has(node) ? (this.roles.get(node)?.role ?? 'booting') : (this.roles.get(node)?.role === 'resetting' ? 'resetting' : 'failed');
  }

  /** `clia shmstatus` over the shelf address: the answering (active) ShMC and its peer. */
  shmStatus(): ShmStatus {
    const active = this.activeLive();
    const self = active?.reg.node ?? 'shmc-a';
    const peer: ShmcNode = self === 'shmc-a' ? 'shmc-b' : 'shmc-a';
    return { self, role: this.roleOf(self), peer, peerRole: this.roleOf(peer), epoch: this.roles.get(self)?.epoch ?? 0 };
  }

  /** HA member views of the two ShMCs (TUI, stats line). */
  memberViews(): HaMemberView[] {
    return SHMC_NODES.map((n) => {
      const r = this.live.get(n)?.report;
      // the age as reported, plus the time since the report (a stopped ShMC's view only ages)
      const age = r && r.hbAgeMs !== null ? r.hbAgeMs + (this.shmcTime().now() - r.at) : Infinity;
      const v: HaMemberView = { share: 'shmc', node: n, role: this.roleOf(n), epoch: this.roles.get(n)?.epoch ?? 0, heartbeatAgeMs: age, alarms: r?.alarms ?? [] };
      const wd = this.hw.watchdog(n).remainingMs();
      if (wd !== undefined) v.watchdogMs = wd;
      return v;
    });
  }

  /** The IPMI hooks of the split shelf (switchover over IPMI is not implemented: refused). */
  ipmiHooks(): ShelfIpmiHaHooks {
    return {
      switchover: () => {
        throw new CommandError('not_available', 'split shelf: a switchover over IPMI is not implemented (stop or kill the active ShMC process)');
      },
      shmStatus: () => this.shmStatus(),
      watchdog: (shmc) => {
        if (shmc !== 'shmc-a' && shmc !== 'shmc-b') return undefined;
        const wd = this.hw.watchdog(shmc);
        return { ownedByHa: true, set: (s) => wd.set(s), reset: () => wd.reset(), get: () => wd.get() };
      },
    };
  }

  /** Stops timers and closes every connection. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const u of this.unsubs) u();
    if (this.lanTimer !== undefined) this.p.clock.clearTimeout(this.lanTimer);
    this.hw.dispose();
    this.stallClock?.dispose();
    for (const l of this.live.values()) l.conn.close();
    this.live.clear();
  }

  // ---------------------------------------------------------------- internals

  /** The ShMCs' time: the shelf's clock with its own process stalls compensated (module header). */
  private shmcTime(): StallCompensatedClock {
    if (this.stallClock) return this.stallClock;
    const g = this.p.ha.globalStallMs;
    const c = new StallCompensatedClock(this.p.clock, typeof g === 'number' && g > 0 ? g : DEFAULT_HA.globalStallMs);
    c.onStall((e) => {
      this.stalls++;
      this.p.log.info({ category: 'global-stall', gap_ms: Math.round(e.gapMs), total_ms: Math.round(e.totalMs) }, `shelf process stalled ${Math.round(e.gapMs)} ms: ShMC watchdogs compensated`);
    });
    this.stallClock = c;
    return c;
  }

  private onHello(conn: BusConnection, m: Extract<ToShelf, { t: 'hello' }>): void {
    // A password on the registered argv (a ShMC of an older build) is taken off it: the stored flags,
    // what is logged and what is re-run after a reset never carry it.
    const stripped = stripAdminPassword(m.argv);
    const password = m.adminPassword ?? stripped.password;
    let flagsNode: string;
    try {
      flagsNode = `shmc-${parseShmcArgv(stripped.argv, { requirePassword: false }).node}`;
    } catch (e) {
      conn.send({ t: 'refused', reason: `flags refused: ${(e as Error).message}` });
      conn.close();
      return;
    }
    if (flagsNode !== m.node) {
      conn.send({ t: 'refused', reason: `hello for ${m.node} with flags of ${flagsNode}` });
      conn.close();
      return;
    }
    const existing = this.live.get(m.node);
    if (existing) {
      conn.send({ t: 'refused', reason: `${m.node} is already connected (pid ${existing.reg.pid})` });
      conn.close();
      return;
    }
    if (this.hw.power(m.node) === 'reset' && this.regs.get(m.node)?.pid === m.pid) {
      conn.send({ t: 'refused', reason: `${m.node} pid ${m.pid} was reset` });
      conn.close();
      return;
    }
    const reg: ShmcRegistration = { node: m.node, pid: m.pid, argv: stripped.argv, ...(password !== undefined ? { adminPassword: password } : {}) };
    this.regs.set(m.node, reg);
    this.live.set(m.node, { conn, reg, role: 'booting', epoch: this.roles.get(m.node)?.epoch ?? 0, loaded: false });
    this.connNode.set(conn, m.node);
    this.p.log.info({ category: 'shmc', node: m.node, pid: m.pid }, `${m.node} registered (pid ${m.pid})`);
    conn.send({ t: 'welcome', node: m.node, ha: this.p.ha });
    this.hw.connect(m.node);
    this.pushLines();
  }

  private pushLines(): void {
    for (const [node, l] of this.live) {
      const v = this.hw.view(node);
      l.conn.send({ t: 'lines', ...v, at: this.lineChangeAt });
    }
  }

  private onRole(l: Live, role: string, epoch: number): void {
    if (!(HA_ROLES as readonly string[]).includes(role)) {
      this.garbage++;
      return;
    }
    l.role = role as HaRoleName;
    l.epoch = epoch;
    if (role === 'standby.hot') this.stale.delete(l.reg.node);
    // Out of the active role its load ends: an activation later loads (or is seeded) again first.
    if (role !== 'active') l.loaded = false;
    this.display(l.reg.node, role as HaRoleName, epoch);
  }

  private display(node: ShmcNode, role: HaRoleName, epoch: number): void {
    this.roles.set(node, { role, epoch });
    if (!this.shelf) return;
    try {
      this.shelf.setRole(node, role, epoch);
    } catch (e) {
      this.p.log.error({ category: 'ha-role', node, err: String(e) }, 'role not recorded on the shelf');
    }
  }

  private activeLive(): Live | undefined {
    for (const l of this.live.values()) if (l.role === 'active' && this.hw.view(l.reg.node).self.active) return l;
    return undefined;
  }

  /** The active ShMC once its management state is loaded or seeded: management changes go to it. */
  private loadedActive(): Live | undefined {
    const l = this.activeLive();
    return l?.loaded ? l : undefined;
  }

  /** Sends a management change to the loaded active ShMC (see changeSent). @returns false when no
   * ShMC is active and loaded (the caller keeps it pending) */
  private sendChange(m: ToShmc): boolean {
    const active = this.loadedActive();
    if (!active) return false;
    active.conn.send(m);
    this.changeSent(active);
    return true;
  }

  /** A management change went to `to`: its peer misses it unless it is the hot standby. */
  private changeSent(to: Live): void {
    const peer: ShmcNode = to.reg.node === 'shmc-a' ? 'shmc-b' : 'shmc-a';
    if (this.live.get(peer)?.role !== 'standby.hot') this.stale.add(peer);
  }

  /**
   * Replaces the shelf's management state with a ShMC's (its `stateload`): SEL records the ShMC
   * holds stay or are added again, the shelf's others go unless pending; users and thresholds are
   * set from its copy. Then the ShMC is loaded and gets the pending records. Never throws.
   */
  private applyLoad(l: Live, load: { sel: StateSel[]; state: StateItem[] }): void {
    const shelf = this.shelf;
    const node = l.reg.node;
    const sum: StateLoadSummary = { node, kept: 0, dropped: 0, readded: 0, pending: 0, users: 0, thresholds: 0 };
    const oldIds: number[] = [];
    if (shelf) {
      // SEL: the ShMC's records, by ID and bytes.
      const want = new Map<number, string>();
      for (const r of load.sel) want.set(r.id, r.data);
      const matched = new Set<number>();
      for (const r of [...shelf.selRecords()]) {
        if (want.get(r.recordId) === Buffer.from(encodeSelRecord(r)).toString('base64')) {
          matched.add(r.recordId);
          sum.kept++;
          continue;
        }
        if (this.pendingSel.has(r.recordId)) continue;
        try {
          shelf.deleteSel(r.recordId, shelf.reserveSel());
          sum.dropped++;
        } catch (e) {
          this.p.log.warn({ category: 'stateload', node, id: r.recordId, err: String(e) }, 'SEL record not deleted');
        }
      }
      for (const [id, data] of want) {
        if (matched.has(id)) continue;
        // A record the shelf lost (its database was replaced): logged again, as Add SEL Entry does
        // (a new record ID; a system event gets the current SEL time). The ShMC drops its old ID.
        try {
          shelf.addSelEntry(decodeSelRecord(Buffer.from(data, 'base64')));
          oldIds.push(id);
          sum.readded++;
        } catch (e) {
          this.p.log.warn({ category: 'stateload', node, id, err: String(e) }, 'SEL record of the ShMC not added');
        }
      }
      // Thresholds (FRU#number → {thresholds}); the ones the shelf changed meanwhile are kept.
      for (const it of load.state) {
        if (it.kind !== 'thresholds' || this.pendingThresholds.has(it.key)) continue;
        const hash = it.key.lastIndexOf('#');
        const fru = it.key.slice(0, hash);
        const number = Number(it.key.slice(hash + 1));
        try {
          const t = (JSON.parse(it.data) as { thresholds?: Record<string, number> }).thresholds ?? {};
          const cur = shelf.sensor(fru, number).thresholds ?? {};
          if (THRESHOLD_NAMES.every((n) => (cur[n] ?? null) === (t[n] ?? null))) continue;
          const next: Partial<Record<(typeof THRESHOLD_NAMES)[number], number | null>> = {};
          for (const n of THRESHOLD_NAMES) next[n] = typeof t[n] === 'number' ? t[n] : null;
          shelf.setSensorThresholds(fru, number, next);
          sum.thresholds++;
        } catch (e) {
          this.p.log.warn({ category: 'stateload', node, sensor: it.key, err: String(e) }, 'thresholds of the ShMC not applied');
        }
      }
    }
    sum.users = this.loadUsers(node, load.state);
    sum.pending = this.pendingSel.size;
    this.lastLoad = sum;
    this.p.log.info({ category: 'stateload', ...sum }, `${node}: management state loaded from its database (SEL: ${sum.kept} kept, ${sum.dropped} dropped, ${sum.readded} added again, ${sum.pending} pending)`);
    for (const id of oldIds) l.conn.send({ t: 'seldel', id });
    this.finishLoad(l);
  }

  /** Seeds a ShMC with the shelf's state (a clear, every record, `stateend`): it is loaded. */
  private seed(l: Live): void {
    this.sendAllSel(l);
    l.conn.send({ t: 'stateend' });
    this.stale.delete(l.reg.node);
    this.changeSent(l);
    l.loaded = true;
    this.pendingSel.clear();
    this.pendingThresholds.clear();
  }

  /** The ShMC is loaded: the pending records and thresholds go to it, then every change. */
  private finishLoad(l: Live): void {
    l.loaded = true;
    this.changeSent(l); // the load may have changed the shelf's state: a peer not hot misses it
    if (this.shelf) {
      for (const r of this.shelf.selRecords()) {
        if (this.pendingSel.has(r.recordId)) l.conn.send({ t: 'sel', id: r.recordId, data: Buffer.from(encodeSelRecord(r)).toString('base64') });
      }
      for (const key of this.pendingThresholds) {
        const hash = key.lastIndexOf('#');
        this.sendThresholds(l, key.slice(0, hash), Number(key.slice(hash + 1)));
      }
    }
    this.pendingSel.clear();
    this.pendingThresholds.clear();
    this.sendUserChanges(l, false);
  }

  /**
   * Sets the LAN server's users from a ShMC's copy (all of them or none: a copy without an enabled
   * administrator who can log in is refused, the shelf's users are kept and sent to the ShMC).
   * @returns the number of users changed
   */
  private loadUsers(node: ShmcNode, state: StateItem[]): number {
    const lan = this.lan;
    if (!lan) return 0;
    const users: IpmiUser[] = [];
    for (const it of state) {
      if (it.kind !== 'user') continue;
      try {
        const u = JSON.parse(it.data) as Omit<IpmiUser, 'password'> & { password: string };
        users.push({
          id: Number(it.key), name: String(u.name ?? ''), password: new Uint8Array(Buffer.from(String(u.password ?? ''), 'base64')),
          privilege: u.privilege as UserPrivilegeLimit, enabled: u.enabled === true, ipmiMessaging: u.ipmiMessaging === true,
          linkAuth: u.linkAuth === true, callinRestricted: u.callinRestricted === true,
        });
      } catch (e) {
        this.p.log.warn({ category: 'stateload', node, user: it.key, err: String(e) }, 'user of the ShMC unreadable');
      }
    }
    if (users.length === 0) return 0;
    let ok = false;
    try {
      ok = hasAdministrator(new InMemoryUserStore(users));
    } catch {
      ok = false;
    }
    if (!ok) {
      this.p.log.warn({ category: 'stateload', node }, `${node}: its users have no enabled administrator: the shelf's users are kept`);
      this.sentUsers.clear();
      return 0;
    }
    const key = (u: IpmiUser) => JSON.stringify({ ...u, password: Buffer.from(u.password).toString('base64') });
    const current = new Map(lan.users.list().map((u) => [u.id, key(u)]));
    const changed = users.filter((u) => current.get(u.id) !== key(u));
    try {
      // names first cleared, so that a name moving from one ID to another is never taken twice
      for (const u of changed) if (lan.users.get(u.id)?.name !== u.name) lan.users.update(u.id, { name: '' });
      for (const u of changed) {
        const { id, ...fields } = u;
        lan.users.update(id, fields);
      }
    } catch (e) {
      this.p.log.error({ category: 'stateload', node, err: String(e) }, 'users of the ShMC not applied completely');
    }
    // What the ShMC holds now equals the LAN server's table: only later changes are sent.
    this.sentUsers.clear();
    for (const u of lan.users.list()) this.sentUsers.set(u.id, key(u));
    return changed.length;
  }

  private onIpmi(l: Live, m: Extract<ToShelf, { t: 'ipmi' }>): void {
    const replies: string[] = [];
    if (!l.loaded) {
      // Cannot happen in order (a ShMC loads or asks before it binds the shelf address): dropped.
      this.unloadedIpmi++;
    } else if (this.lan && l.role === 'active') {
      try {
        for (const r of this.lan.handleDatagram(Buffer.from(m.data, 'base64'), { address: m.address, port: m.port }, this.p.clock.now())) {
          replies.push(Buffer.from(r).toString('base64'));
        }
      } catch (e) {
        this.p.log.error({ category: 'ipmi', err: String(e) }, 'IPMI datagram failed');
      }
      // User changes the request made go to the active ShMC before its reply (mirrored, then answered).
      this.sendUserChanges(l, false);
    }
    l.conn.send({ t: 'ipmi', id: m.id, replies });
  }

  private sendAllSel(l: Live): void {
    if (!this.shelf) return;
    l.conn.send({ t: 'selclear' });
    for (const r of this.shelf.selRecords()) l.conn.send({ t: 'sel', id: r.recordId, data: Buffer.from(encodeSelRecord(r)).toString('base64') });
    this.sendUserChanges(l, true);
    for (const fru of this.shelf.fruNames()) {
      for (const s of this.shelf.sensors(fru)) if (s.thresholds) this.sendThresholds(l, fru, s.number);
    }
  }

  /** Users as the LAN server holds them, by ID, as last sent to the active ShMC. */
  private readonly sentUsers = new Map<number, string>();

  private sendUserChanges(l: Live, all: boolean): void {
    if (!this.lan) return;
    if (all) this.sentUsers.clear();
    for (const u of this.lan.users.list()) {
      const data = JSON.stringify({ ...u, password: Buffer.from(u.password).toString('base64') });
      if (this.sentUsers.get(u.id) === data) continue;
      this.sentUsers.set(u.id, data);
      l.conn.send({ t: 'user', id: u.id, data });
      this.changeSent(l);
    }
  }

  private sendThresholds(l: Live, fru: string, number: number): void {
    try {
      const s = this.shelf!.sensor(fru, number);
      l.conn.send({ t: 'thresholds', key: `${fru}#${number}`, data: JSON.stringify({ thresholds: s.thresholds, hysteresis: s.hysteresis }) });
    } catch (e) {
      this.p.log.warn({ category: 'split', fru, sensor: number, err: String(e) }, 'thresholds not sent');
    }
  }

  private onReset(node: ShmcNode, restart: boolean): void {
    const l = this.live.get(node);
    const reg = l?.reg ?? this.regs.get(node);
    if (l) {
      this.live.delete(node);
      this.connNode.delete(l.conn);
      l.conn.close();
    }
    this.display(node, restart ? 'resetting' : 'failed', this.roles.get(node)?.epoch ?? 0);
    if (!reg) return;
    if (restart) {
      this.restarts[node]++;
      this.p.log.warn({ category: 'shmc', node, pid: reg.pid }, `${node}: watchdog reset — process ${reg.pid} killed and started again`);
      this.p.restart(reg);
    } else {
      this.p.kill(reg);
    }
  }
}

/**
 * The HA factory of the split shelf: the emulator's HA part (`inner`, e.g. haFactory) for the
 * processor-board pairs only — the ShMC pair runs in the shmc processes — with the split shelf's
 * IPMI hooks and the ShMCs' member views added. Without `inner` (`--no-ha`) the processor boards
 * run without pairs (switchover and hang of a board answer "not available").
 */
export function splitHaFactory(inner: HaFactory | undefined, split: SplitShelf): HaFactory {
  return async (ctx) => {
    const config = { ...ctx.config, ha: { ...ctx.config.ha, pairs: ctx.config.ha.pairs.filter((p) => p.kind !== 'shmc') } };
    split.attachShelf(ctx.shelf);
    const none = (what: string) => () => {
      throw new CommandError('not_available', `${what}: the processor pairs are off (--no-ha)`);
    };
    const part: HaPart = inner
      ? await inner({ ...ctx, config })
      : { switchover: none('switchover'), hang: none('hang'), heal: none('heal'), status: () => [], stop: () => {} };
    const hooks = split.ipmiHooks();
    const wrapped: HaPart = {
      switchover: (pair) => {
        if (pair === 'shmc' || pair === 'shmc-a' || pair === 'shmc-b') throw new CommandError('not_available', 'split shelf: the ShMC pair switches over when its active process dies or stops (no planned switchover yet)');
        part.switchover(pair);
      },
      hang: (node) => {
        if (node === 'shmc-a' || node === 'shmc-b') throw new CommandError('not_available', `split shelf: hang ${node} with kill -STOP on its process`);
        part.hang(node);
      },
      heal: (node) => part.heal(node),
      status: () => [...split.memberViews(), ...part.status()],
      stop: () => part.stop(),
      ipmiHooks: hooks,
      ...(part.handover ? { handover: part.handover } : {}),
    };
    return wrapped;
  };
}
