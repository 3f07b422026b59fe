/**
 * The split shelf's management state — SEL records, sensor thresholds, IPMI users — between the
 * shelf and the active ShMC's database, which is its source of truth (split-shelf.ts header):
 *
 * - a new active ShMC either loads its state into the shelf (`stateload`: the shelf's SEL, users and
 *   thresholds are replaced by it) or, when its database never held one, is seeded from the shelf
 *   (`statewant` → every record, then `stateend`). Until one of the two is done it is not "loaded":
 *   no change is pushed to it;
 * - SEL changes (records added, deleted, cleared), thresholds and user changes then go to the
 *   loaded active as they happen — a request's user changes before its reply;
 * - what the shelf's own hardware logs while no loaded active ShMC exists is held as pending, kept
 *   through a load and pushed to the new active after it — as an IPM controller retries its events
 *   until the event receiver takes them;
 * - a ShMC that missed changes while it was not the hot standby is "stale": its `stateload` would
 *   drop what the other one acknowledged, so it is refused and the ShMC seeded from the shelf.
 *
 * Pure: the connections are ports; the shelf and the LAN server are attached by the split shelf.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { LanServer } from '../ipmi/lan-server.ts';
import { InMemoryUserStore, hasAdministrator, type IpmiUser, type UserPrivilegeLimit } from '../ipmi/users.ts';
import type { HaRoleName } from '../model/events.ts';
import type { Shelf } from '../model/shelf.ts';
import { decodeSelRecord, encodeSelRecord } from '../sensors/sel.ts';
import { THRESHOLD_NAMES } from '../sensors/thresholds.ts';
import type { ShmcNode, StateItem, StateSel, ToShelf, ToShmc } from './bus-codec.ts';

/** A connected ShMC as the management sync sees it. */
export interface SyncedShmc {
  readonly conn: { send(m: ToShmc): void };
  readonly reg: { readonly node: ShmcNode };
  readonly role: HaRoleName;
  /** Its management state is loaded into the shelf or seeded from it. */
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

/** Ports of the management sync. */
export interface ManagementSyncPorts {
  log: Logger;
  /** The active ShMC (loaded or not), or undefined. */
  active(): SyncedShmc | undefined;
  /** The role a connected ShMC last reported; undefined when it is not connected. */
  liveRole(node: ShmcNode): HaRoleName | undefined;
}

/** See the module header. */
export class ManagementSync {
  private shelf: Shelf | undefined;
  private lan: LanServer | undefined;
  /** IDs of SEL records logged while no loaded active ShMC existed. */
  private readonly pendingSel = new Set<number>();
  /** Thresholds (FRU#number) changed while no loaded active ShMC existed. */
  private readonly pendingThresholds = new Set<string>();
  /**
   * ShMCs whose database is known, in this shelf process's lifetime, to miss management changes: a
   * change went to the active ShMC while this one was not its hot standby (down, booting, catching
   * up). Cleared when the ShMC reports standby.hot (caught up) or is seeded.
   */
  private readonly stale = new Set<ShmcNode>();
  /** Users as the LAN server holds them, by ID, as last sent to the active ShMC. */
  private readonly sentUsers = new Map<number, string>();
  /** What the last load did. */
  lastLoad: StateLoadSummary | undefined;

  constructor(private readonly p: ManagementSyncPorts) {}

  /** Binds the shelf model: its SEL changes and threshold changes go to the loaded active ShMC. @returns the unsubscribe functions */
  attachShelf(shelf: Shelf): Array<() => void> {
    this.shelf = shelf;
    return [
      shelf.on('sel.added', (e) => {
        if (!this.sendChange({ t: 'sel', id: e.record.recordId, data: Buffer.from(encodeSelRecord(e.record)).toString('base64') })) this.pendingSel.add(e.record.recordId);
      }),
      shelf.on('sel.deleted', (e) => {
        this.pendingSel.delete(e.recordId);
        this.sendChange({ t: 'seldel', id: e.recordId });
      }),
      shelf.on('sel.cleared', () => {
        this.pendingSel.clear();
        this.sendChange({ t: 'selclear' });
      }),
      shelf.on('sensor.thresholds', (e) => {
        const active = this.loadedActive();
        if (active) {
          this.sendThresholds(active, e.fru, e.number);
          this.changeSent(active);
        } else this.pendingThresholds.add(`${e.fru}#${e.number}`);
      }),
    ];
  }

  /** Binds the LAN server whose users are synchronised. */
  attachLan(server: LanServer): void {
    this.lan = server;
  }

  /** The ShMC reported standby.hot: it has caught up with every change. */
  caughtUp(node: ShmcNode): void {
    this.stale.delete(node);
  }

  /** `statewant`: the ShMC's database never held the management state; it is seeded from the shelf. */
  onStateWant(l: SyncedShmc): void {
    this.seed(l);
    this.p.log.info({ category: 'stateload', node: l.reg.node, source: 'shelf' }, `${l.reg.node}: its database never held the management state: seeded from the shelf`);
  }

  /** One chunk of a `stateload`; the last one (`done`) applies it, unless it is refused. */
  onStateLoad(l: SyncedShmc, m: Extract<ToShelf, { t: 'stateload' }>): void {
    const node = l.reg.node;
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
  }

  /** The active ShMC once its management state is loaded or seeded: management changes go to it. */
  private loadedActive(): SyncedShmc | undefined {
    const l = this.p.active();
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
  private changeSent(to: SyncedShmc): void {
    const peer: ShmcNode = to.reg.node === 'shmc-a' ? 'shmc-b' : 'shmc-a';
    if (this.p.liveRole(peer) !== 'standby.hot') this.stale.add(peer);
  }

  /**
   * Replaces the shelf's management state with a ShMC's (its `stateload`): SEL records the ShMC
   * holds stay or are added again, the shelf's others go unless pending; users and thresholds are
   * set from its copy. Then the ShMC is loaded and gets the pending records. Never throws.
   */
  private applyLoad(l: SyncedShmc, load: { sel: StateSel[]; state: StateItem[] }): void {
    const node = l.reg.node;
    const sum: StateLoadSummary = { node, kept: 0, dropped: 0, readded: 0, pending: 0, users: 0, thresholds: 0 };
    let oldIds: number[] = [];
    if (this.shelf) {
      oldIds = this.loadSel(node, load.sel, sum);
      sum.thresholds = this.loadThresholds(node, load.state);
    }
    sum.users = this.loadUsers(node, load.state);
    sum.pending = this.pendingSel.size;
    this.lastLoad = sum;
    this.p.log.info({ category: 'stateload', ...sum }, `${node}: management state loaded from its database (SEL: ${sum.kept} kept, ${sum.dropped} dropped, ${sum.readded} added again, ${sum.pending} pending)`);
    for (const id of oldIds) l.conn.send({ t: 'seldel', id });
    this.finishLoad(l);
  }

  /** The SEL from a load: the ShMC's records, by ID and bytes. @returns the ShMC's IDs of the records added again (it drops them) */
  private loadSel(node: ShmcNode, sel: StateSel[], sum: StateLoadSummary): number[] {
    const shelf = this.shelf!;
    const oldIds: number[] = [];
    const want = new Map<number, string>();
    for (const r of sel) want.set(r.id, r.data);
    const matched = new Set<number>();
    for (const r of [...shelf.sel.records()]) {
      if (want.get(r.recordId) === Buffer.from(encodeSelRecord(r)).toString('base64')) {
        matched.add(r.recordId);
        sum.kept++;
        continue;
      }
      if (this.pendingSel.has(r.recordId)) continue;
      try {
        shelf.sel.delete(r.recordId, shelf.sel.reserve());
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
        shelf.sel.add(decodeSelRecord(Buffer.from(data, 'base64')));
        oldIds.push(id);
        sum.readded++;
      } catch (e) {
        this.p.log.warn({ category: 'stateload', node, id, err: String(e) }, 'SEL record of the ShMC not added');
      }
    }
    return oldIds;
  }

  /** Thresholds from a load (FRU#number → {thresholds}); the ones the shelf changed meanwhile are kept. @returns how many were set */
  private loadThresholds(node: ShmcNode, state: StateItem[]): number {
    const shelf = this.shelf!;
    let n = 0;
    for (const it of state) {
      if (it.kind !== 'thresholds' || this.pendingThresholds.has(it.key)) continue;
      const hash = it.key.lastIndexOf('#');
      const fru = it.key.slice(0, hash);
      const number = Number(it.key.slice(hash + 1));
      try {
        const t = (JSON.parse(it.data) as { thresholds?: Record<string, number> }).thresholds ?? {};
        const cur = shelf.sensors.get(fru, number).thresholds ?? {};
        if (THRESHOLD_NAMES.every((x) => (cur[x] ?? null) === (t[x] ?? null))) continue;
        const next: Partial<Record<(typeof THRESHOLD_NAMES)[number], number | null>> = {};
        for (const x of THRESHOLD_NAMES) next[x] = typeof t[x] === 'number' ? t[x] : null;
        shelf.sensors.setThresholds(fru, number, next);
        n++;
      } catch (e) {
        this.p.log.warn({ category: 'stateload', node, sensor: it.key, err: String(e) }, 'thresholds of the ShMC not applied');
      }
    }
    return n;
  }

  /** Seeds a ShMC with the shelf's state (a clear, every record, `stateend`): it is loaded. */
  private seed(l: SyncedShmc): void {
    this.sendAllSel(l);
    l.conn.send({ t: 'stateend' });
    this.stale.delete(l.reg.node);
    this.changeSent(l);
    l.loaded = true;
    this.pendingSel.clear();
    this.pendingThresholds.clear();
  }

  /** The ShMC is loaded: the pending records and thresholds go to it, then every change. */
  private finishLoad(l: SyncedShmc): void {
    l.loaded = true;
    this.changeSent(l); // the load may have changed the shelf's state: a peer not hot misses it
    if (this.shelf) {
      for (const r of this.shelf.sel.records()) {
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

  private sendAllSel(l: SyncedShmc): void {
    if (!this.shelf) return;
    l.conn.send({ t: 'selclear' });
    for (const r of this.shelf.sel.records()) l.conn.send({ t: 'sel', id: r.recordId, data: Buffer.from(encodeSelRecord(r)).toString('base64') });
    this.sendUserChanges(l, true);
    for (const fru of this.shelf.fruNames()) {
      for (const s of this.shelf.sensors.list(fru)) if (s.thresholds) this.sendThresholds(l, fru, s.number);
    }
  }

  /** Sends the users changed since they were last sent (`all`: every user) to `l`. */
  sendUserChanges(l: SyncedShmc, all: boolean): void {
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

  private sendThresholds(l: SyncedShmc, fru: string, number: number): void {
    try {
      const s = this.shelf!.sensors.get(fru, number);
      l.conn.send({ t: 'thresholds', key: `${fru}#${number}`, data: JSON.stringify({ thresholds: s.thresholds, hysteresis: s.hysteresis }) });
    } catch (e) {
      this.p.log.warn({ category: 'split', fru, sensor: number, err: String(e) }, 'thresholds not sent');
    }
  }
}
