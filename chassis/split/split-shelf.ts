/**
 * The shelf process's side of the split shelf (docs/split.md): the hardware the two external shelf
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
 *   replies go back the same way. The sessions belong to the ShMC process relaying them: when
 *   another process takes the shelf address (a failover, a restarted ShMC) or the relaying one's
 *   connection closes, every LAN session ends, as a real shelf manager's die with it; SEL changes (records added, deleted, cleared) are pushed to the active ShMC, before
 *   the reply of the request that caused them (the ShMC mirrors them to its standby and holds the
 *   reply until the standby committed: mirror.ts);
 * - the management state's source of truth is the active ShMC's database: a new active either loads
 *   its state into the shelf or is seeded from it (management-sync.ts). Until one of the two is done
 *   the ShMC is not "loaded": no IPMI datagram is relayed through it and no change is pushed to it.
 *   SEL records and thresholds the shelf's own hardware logs while no loaded active ShMC exists
 *   (the fault that caused the takeover, the new active's On Line) are held as pending and pushed to
 *   the new active after its load;
 * - the roles the ShMCs report, shown on the Shelf (TUI, SEL, the shelf address follows the active).
 *
 * Time (docs/split.md): everything that judges a ShMC by time — its watchdog countdown, the age of its
 * last report — runs on a StallCompensatedClock over the shelf's clock (board/common/stall-clock.ts).
 * A stall of the shelf process itself (GC, a loaded machine) is not a ShMC fault: while the shelf's
 * loop is blocked the ShMCs' kicks queue on the bus, and after the block Node runs due timers before
 * it reads the sockets, so a raw countdown would expire both ShMCs at once. On compensated time the
 * stall counts at most `globalStallMs`; a ShMC whose own process stops still misses its kicks while
 * the shelf's loop turns, and is reset by its watchdog as before.
 *
 * Pure: the bus connections, the restart/kill of processes and the clock are ports. The HA factory
 * that puts the split shelf into the Emulator is ./split-ha.ts.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import { DEFAULT_HA } from '../config/ha.ts';
import { StallCompensatedClock } from '../../board/common/stall-clock.ts';
import type { LanServer } from '../ipmi/lan-server.ts';
import type { ShelfIpmiHaHooks, ShmStatus } from '../ipmi/shelf-manager/index.ts';
import { HA_ROLES, type HaRoleName } from '../model/events.ts';
import type { Shelf } from '../model/shelf.ts';
import { administrators, trimPassword, type IpmiUser } from '../ipmi/users.ts';
import type { HaMemberView } from '../runtime/ha-seam.ts';
import type { ShmcNode, ToShelf, ToShmc } from './bus-codec.ts';
import { ManagementSync, type StateLoadSummary, type SyncedShmc } from './management-sync.ts';
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

interface Live extends SyncedShmc {
  readonly conn: BusConnection;
  readonly reg: ShmcRegistration;
  role: HaRoleName;
  epoch: number;
  /** The ShMC's last report (heartbeat age, alarms) and when it came (shelf clock). */
  report?: { hbAgeMs: number | null; alarms: string[]; at: number };
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
  /** The ShMC connection whose relay the LAN sessions belong to (the last that held the shelf address). */
  private relay: Live | undefined;
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
  /** The management state between the shelf and the active ShMC (management-sync.ts). */
  private readonly sync: ManagementSync;
  /** IPMI datagrams dropped because the ShMC that relayed them was not loaded yet. */
  unloadedIpmi = 0;
  /** Called with the send function of each ShMC that registers (after its welcome): SNMP's settings and rows. */
  private readonly registeredFns = new Set<(send: (m: ToShmc) => void) => void>();

  constructor(private readonly p: SplitShelfPorts) {
    this.sync = new ManagementSync({ log: p.log, active: () => this.activeLive(), liveRole: (node) => this.live.get(node)?.role });
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
    this.unsubs.push(...this.sync.attachShelf(shelf));
  }

  /** What the last `stateload` did (undefined before the first; a test may clear it). */
  get lastLoad(): StateLoadSummary | undefined {
    return this.sync.lastLoad;
  }

  set lastLoad(v: StateLoadSummary | undefined) {
    this.sync.lastLoad = v;
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
    this.sync.attachLan(server);
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

  /** Sends `m` to every registered ShMC (the SNMP rows: chassis/split/snmp-relay.ts). */
  broadcast(m: ToShmc): void {
    for (const l of this.live.values()) l.conn.send(m);
  }

  /** Sends `m` to the active ShMC. @returns false when none is active */
  sendToActive(m: ToShmc): boolean {
    const l = this.activeLive();
    l?.conn.send(m);
    return l !== undefined;
  }

  /** Calls `fn` with the send function of each ShMC that registers from now on. @returns unsubscribe */
  onRegistered(fn: (send: (m: ToShmc) => void) => void): () => void {
    this.registeredFns.add(fn);
    return () => this.registeredFns.delete(fn);
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
        this.sync.onStateWant(l);
        return;
      case 'stateload':
        this.sync.onStateLoad(l, m);
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
    if (this.relay === l) this.endSessions(`${node} (pid ${l.reg.pid}), which held the shelf address, is gone`);
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
    for (const fn of this.registeredFns) fn((x) => conn.send(x));
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
    if (role === 'standby.hot') this.sync.caughtUp(l.reg.node);
    // Out of the active role its load ends: an activation later loads (or is seeded) again first.
    if (role !== 'active') l.loaded = false;
    this.display(l.reg.node, role as HaRoleName, epoch);
  }

  private display(node: ShmcNode, role: HaRoleName, epoch: number): void {
    this.roles.set(node, { role, epoch });
    if (!this.shelf) return;
    try {
      this.shelf.roles.set(node, role, epoch);
    } catch (e) {
      this.p.log.error({ category: 'ha-role', node, err: String(e) }, 'role not recorded on the shelf');
    }
  }

  /**
   * The LAN sessions belonged to the ShMC process that held the shelf address: they end with it
   * (clients see their session end and log in again to the new active at the same address).
   */
  private endSessions(why: string): void {
    this.relay = undefined;
    const n = this.lan?.endAllSessions('failover') ?? 0;
    if (n > 0) this.p.log.info({ category: 'ipmi-sessions', ended: n }, `${n} IPMI session${n === 1 ? '' : 's'} ended: ${why}`);
  }

  private activeLive(): Live | undefined {
    for (const l of this.live.values()) if (l.role === 'active' && this.hw.view(l.reg.node).self.active) return l;
    return undefined;
  }

  private onIpmi(l: Live, m: Extract<ToShelf, { t: 'ipmi' }>): void {
    const replies: string[] = [];
    if (!l.loaded) {
      // Cannot happen in order (a ShMC loads or asks before it binds the shelf address): dropped.
      this.unloadedIpmi++;
    } else if (this.lan && l.role === 'active') {
      if (this.relay !== l) this.endSessions(`${l.reg.node} (pid ${l.reg.pid}) holds the shelf address`);
      this.relay = l;
      try {
        for (const r of this.lan.handleDatagram(Buffer.from(m.data, 'base64'), { address: m.address, port: m.port }, this.p.clock.now())) {
          replies.push(Buffer.from(r).toString('base64'));
        }
      } catch (e) {
        this.p.log.error({ category: 'ipmi', err: String(e) }, 'IPMI datagram failed');
      }
      // User changes the request made go to the active ShMC before its reply (mirrored, then answered).
      this.sync.sendUserChanges(l, false);
    }
    l.conn.send({ t: 'ipmi', id: m.id, replies });
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
