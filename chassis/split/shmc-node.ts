/**
 * One shelf manager of the split shelf (`atcasim shmc`, docs/split.md) without its sockets: the
 * existing pair-member machine and NodeController (chassis/ha) for the ShMC pair's one share
 * 'shmc', with
 *
 * - the backplane lines and the IPMI watchdog reached over the local bus (the shelf process holds
 *   them: `BusBackplane`, `BusWatchdog`);
 * - heartbeats and session sync (the ShMC share carries no sessions: the sync engine only runs its
 *   bulk handshake, which turns a standby hot) as datagrams to the peer: the HA layer's
 *   DatagramPairLink (chassis/ha/pair-link.ts) encodes them onto `sendPeer` and decodes what
 *   `onPeerDatagram` brings (the I/O side is chassis/io/udp-pair-link.ts); the mirror's datagrams
 *   share the flow; a switch drops heartbeat datagrams only, both ways (`blockHeartbeats`);
 * - the management-state mirror (mirror.ts): SEL records the shelf reports to the active ShMC are
 *   committed to its own database and mirrored to the standby; IPMI answers wait for the standby's
 *   commit while it is hot;
 * - the source of truth (docs/split.md: each ShMC has its own database): a node that turns active and
 *   whose database holds the management state (it took a `held` marker: a complete catch-up as a
 *   standby, or the shelf's seeding as an earlier active) sends that state to the shelf (`stateload`),
 *   which replaces its SEL, users and thresholds with it before any IPMI datagram is relayed; only a
 *   node whose database never held it asks the shelf for it (`statewant`, seeding, answered by
 *   `stateend`);
 * - the shelf address: `shelfAddress(true)` is asked when the node turns active (the I/O side binds
 *   the UDP port and relays datagrams to the shelf's IPMI layer over the bus), false when it leaves;
 * - the takeover figures the maintenance port reports (`status()`).
 *
 * Fencing: an ACTIVE claim is decided here from the last lines the shelf pushed and checked again
 * by the shelf's interlock; if the shelf refuses it (both claimed within one bus round trip) this
 * node resets itself (HEALTHY and ACTIVE low, reboot after resetMs), so two actives never persist.
 *
 * Pure: time from the Clock, I/O through the ports.
 */
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { Random } from '../../board/common/random.ts';
import type { BackplanePort, LineChange, LineState, NodeLines, NodePower } from '../model/backplane.ts';
import type { ResolvedHaConfig } from '../config/ha.ts';
import type { WireRole } from '../ha/heartbeat.ts';
import { NodeController } from '../ha/node-controller.ts';
import { emptyShareDataPlane } from '../ha/node-ports.ts';
import { DatagramPairLink } from '../ha/pair-link.ts';
import { IpmiWatchdog } from '../model/ipmi-watchdog.ts';
import type { WatchdogSettings, WatchdogStatus } from '../model/ipmi-watchdog.ts';
import { stateloadMessages } from './bus-codec.ts';
import type { BusLines, ShmcNode, ToShelf, ToShmc } from './bus-codec.ts';
import { MirrorReceiver, MirrorSender, mirrorCodec } from './mirror.ts';
import type { MirrorEntry } from './mirror.ts';

/** The ShMC pair's share (and backplane channel). */
export const SHMC_SHARE = 'shmc';

/** The ShMC's own database, as the node uses it. */
export interface ShmcStatePort {
  /** Commits (inserts or replaces) one SEL record. */
  putSel(id: number, data: string): void;
  /** Every SEL record held, by ID. */
  allSel(): Array<{ id: number; data: string }>;
  /** Deletes one SEL record (no-op when absent). */
  deleteSel(id: number): void;
  /** Deletes every SEL record. */
  clearSel(): void;
  /** Commits (inserts or replaces) one piece of other management state: kind 'user' (key = user ID) or 'thresholds' (key = FRU#number). */
  putState(kind: 'user' | 'thresholds', key: string, data: string): void;
  /** All other management state held. */
  allState(): Array<{ kind: 'user' | 'thresholds'; key: string; data: string }>;
  /** Persisted activation epoch of the share (fencing token). */
  epoch(): number;
  setEpoch(epoch: number): void;
  /**
   * True when the database holds the whole management state (a `held` marker was committed and no
   * catch-up was asked since). Persisted.
   */
  stateHeld(): boolean;
  setStateHeld(held: boolean): void;
}

/** Ports of a ShMC node. */
export interface ShmcNodePorts {
  node: ShmcNode;
  cfg: ResolvedHaConfig;
  clock: Clock;
  random: Random;
  log: Logger;
  /** Unix ms (display only: the takeover record's time stamp). */
  wallNow(): number;
  /** Sends a message to the shelf over the bus. */
  bus(m: ToShelf): void;
  /** Sends a datagram to the peer ShMC (UDP). */
  sendPeer(bytes: Uint8Array): void;
  /** Bind (true) or release (false) the shelf address. */
  shelfAddress(bound: boolean): void;
  /** Sends IPMI reply datagrams to a LAN client from the shelf address. */
  sendIpmi(address: string, port: number, datagrams: Uint8Array[]): void;
  state: ShmcStatePort;
}

/** What the node reports on its maintenance port. */
export interface ShmcStatus {
  node: ShmcNode;
  role: WireRole;
  epoch: number;
  peerRole: WireRole | 'unknown';
  heartbeatAgeMs: number | null;
  heartbeatsBlocked: boolean;
  /** Own and peer lines as the shelf last reported them. */
  lines: { self: BusLines; peer: BusLines; interlock: boolean } | null;
  /** Role changes since start: [wall ms, role]. */
  roles: Array<{ at: number; role: WireRole }>;
  /** The last takeover (standby → active), if any. */
  takeover: TakeoverRecord | null;
  takeovers: number;
  mirror: { synchronous: boolean; lagging: boolean; lastSeq: number; ackedSeq: number; timeouts: number } | { inStep: boolean; committed: number } | null;
  sel: { count: number; ids: number[] };
  /**
   * Other management state held: user IDs with a name, thresholds records; `held`: the database
   * holds the whole management state (see the module header).
   */
  state: { users: number[]; thresholds: number; held: boolean };
  /**
   * How each activation got its management state: 'stateload' (this node's database loaded into the
   * shelf, with the numbers of SEL records and other records sent) or 'statewant' (seeded by the
   * shelf). Last 16.
   */
  activations: Array<{ at: number; source: 'stateload' | 'statewant'; sel?: number; state?: number }>;
  heartbeatMs: number;
  missedHeartbeats: number;
  activationMs: number;
}

/** A takeover as the new active measured it. */
export interface TakeoverRecord {
  /** Unix ms when ACTIVE was claimed. */
  at: number;
  from: WireRole;
  /** Ms from the last heartbeat heard from the peer to the claim (the fault came after that heartbeat). */
  sinceLastHeartbeatMs: number | null;
  /**
   * Ms from the peer's lines dropping to the claim (Unix ms: the shelf's time stamp of the change to
   * this node's clock at the claim; bus latency included), when they dropped.
   */
  sincePeerLinesDropMs: number | null;
  /** Activation cost a (commit, GARP), ms: HaConfig.activationMs. */
  activationMs: number;
  /**
   * The takeover time: from the first hardware evidence of the fault (the peer's lines dropping —
   * at once for a killed process, at the watchdog's expiry for a hung one) to serving, i.e.
   * sincePeerLinesDropMs + activationMs; sinceLastHeartbeatMs + activationMs when the lines did not drop.
   */
  totalMs: number | null;
}

const OFF: BusLines = { present: true, healthy: false, active: false, power: 'off' };

/** The lines, as the shelf reports them over the bus (see the module header). */
class BusBackplane implements BackplanePort {
  private self: BusLines = OFF;
  private peer: BusLines = OFF;
  private il = true;
  private epoch = 0;
  private readonly listeners = new Set<(c: LineChange) => void>();
  /** Unix ms (the shelf's time stamp) when the peer's ACTIVE or HEALTHY last went low. */
  peerDropAt: number | null = null;

  constructor(private readonly node: ShmcNode, private readonly peerNode: ShmcNode, private readonly bus: (m: ToShelf) => void, private readonly wallNow: () => number) {}

  get interlock(): boolean {
    return this.il;
  }

  lines(node: string, _channel: string): LineState {
    const l = node === this.node ? this.self : this.peer;
    return { present: l.present, healthy: l.healthy, active: l.active };
  }

  setHealthy(node: string, healthy: boolean): void {
    if (node === this.node) this.bus({ t: 'healthy', on: healthy });
  }

  claimActive(node: string, _channel: string, epoch = 0): boolean {
    if (node !== this.node || this.self.power !== 'on') return false;
    if (!this.self.active && this.il && this.peer.active) return false;
    if (epoch > this.epoch) this.epoch = epoch;
    this.bus({ t: 'claim', epoch });
    return true;
  }

  epochOf(_channel: string): number {
    return this.epoch;
  }

  releaseActive(node: string, _channel: string): void {
    if (node === this.node) this.bus({ t: 'release' });
  }

  onChange(fn: (c: LineChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Power is the shelf's (the connection is the power); a reset the software starts itself (a claim
   * the shelf refused) drops its HEALTHY and ACTIVE on the shelf as a hardware reset would.
   */
  setPower(node: string, power: NodePower): void {
    if (node !== this.node || power === 'on') return;
    this.bus({ t: 'release' });
    this.bus({ t: 'healthy', on: false });
  }

  /** A `lines` message from the shelf. */
  update(m: Extract<ToShmc, { t: 'lines' }>): void {
    const beforeSelf = this.self;
    const beforePeer = this.peer;
    const ilChanged = m.interlock !== this.il;
    this.self = m.self;
    this.peer = m.peer;
    this.il = m.interlock;
    if (m.epoch > this.epoch) this.epoch = m.epoch;
    if (!beforePeer.healthy && m.peer.healthy) this.peerDropAt = null;
    if ((beforePeer.active && !m.peer.active) || (beforePeer.healthy && !m.peer.healthy)) this.peerDropAt = m.at ?? this.wallNow();
    if (ilChanged || !same(beforeSelf, m.self)) this.emit(this.node, beforeSelf, m.self);
    if (ilChanged || !same(beforePeer, m.peer)) this.emit(this.peerNode, beforePeer, m.peer);
  }

  /** Last reported lines. */
  view(): { self: BusLines; peer: BusLines; interlock: boolean } {
    return { self: this.self, peer: this.peer, interlock: this.il };
  }

  private emit(node: string, before: BusLines, after: BusLines): void {
    const c: LineChange = { node, before: nodeLines(before), after: nodeLines(after) };
    for (const fn of [...this.listeners]) fn(c);
  }
}

function same(a: BusLines, b: BusLines): boolean {
  return a.present === b.present && a.healthy === b.healthy && a.active === b.active && a.power === b.power;
}

function nodeLines(l: BusLines): NodeLines {
  return { present: l.present, healthy: l.healthy, active: { [SHMC_SHARE]: l.active }, power: l.power };
}

/**
 * The ShMC's IPMI watchdog as its firmware sees it: the countdown runs in the shelf process, so
 * set / kick / stop go over the bus and nothing expires here (the shelf resets the process).
 */
class BusWatchdog extends IpmiWatchdog {
  private settings: WatchdogSettings | undefined;
  constructor(clock: Clock, private readonly bus: (m: ToShelf) => void) {
    super(clock);
  }

  override set(s: WatchdogSettings): 'ok' | 'invalid' {
    this.settings = s;
    this.bus({ t: 'wdset', timeoutMs: Math.max(100, s.countdown * 100) });
    return 'ok';
  }

  override reset(): 'ok' | 'uninitialized' {
    if (!this.settings) return 'uninitialized';
    this.bus({ t: 'kick' });
    return 'ok';
  }

  override kick(): 'ok' | 'uninitialized' {
    return this.reset();
  }

  override stop(): void {
    this.bus({ t: 'wdstop' });
  }

  override get(): WatchdogStatus {
    const s = this.settings;
    return {
      use: s?.use ?? 0, dontLog: s?.dontLog ?? false, running: s !== undefined, pretimeoutInterrupt: s?.pretimeoutInterrupt ?? 0,
      timeoutAction: s?.timeoutAction ?? 0, pretimeoutSec: s?.pretimeoutSec ?? 0, expirationFlags: 0, countdown: s?.countdown ?? 0, present: 0,
    };
  }

  override remainingMs(): number | undefined {
    return undefined;
  }
}


/** See the module header. */
export class ShmcRuntime {
  readonly node: ShmcNode;
  readonly peer: ShmcNode;
  private readonly backplane: BusBackplane;
  private readonly controller: NodeController;
  private role: WireRole = 'failed';
  private readonly roles: Array<{ at: number; role: WireRole }> = [];
  private takeover: TakeoverRecord | null = null;
  private takeovers = 0;
  private sender: MirrorSender | null = null;
  private receiver: MirrorReceiver | null = null;
  private blocked = false;
  private bound = false;
  private pollTimer: unknown;
  private stopped = false;
  /** The peer flow: heartbeats and sync through the codecs, mirror datagrams beside them. */
  private readonly link: DatagramPairLink;

  constructor(private readonly p: ShmcNodePorts) {
    this.node = p.node;
    this.peer = p.node === 'shmc-a' ? 'shmc-b' : 'shmc-a';
    this.backplane = new BusBackplane(this.node, this.peer, p.bus, () => p.wallNow());
    const watchdog = new BusWatchdog(p.clock, p.bus);
    this.link = new DatagramPairLink((_share, bytes) => p.sendPeer(bytes), (_share, bytes) => this.onMirrorDatagram(bytes));
    this.controller = new NodeController({
      node: this.node,
      shares: [{ share: SHMC_SHARE, peer: this.peer, home: this.node === 'shmc-a' }],
      version: { major: 1, minor: 0 },
      cfg: p.cfg,
      control: p.clock,
      data: p.clock,
      hardware: p.clock,
      backplane: this.backplane,
      watchdog,
      router: { assign: () => {}, shift: () => {} },
      dataPlane: () => emptyShareDataPlane(),
      link: {
        sendHeartbeat: (hb) => {
          if (!this.blocked) this.link.sendHeartbeat(hb);
        },
        sendSync: (share, d) => this.link.sendSync(share, d),
      },
      random: p.random,
      wallNow: () => p.wallNow(),
      epochs: { [SHMC_SHARE]: p.state.epoch() },
      log: p.log,
      observer: {
        roleChanged: (e) => this.onRole(e.from, e.to, e.epoch),
        alarm: (e) => p.log.info({ category: 'ha-alarm', alarm: e.alarm, raised: e.raised }, `${e.alarm} ${e.raised ? 'raised' : 'cleared'}`),
        hardware: (e) => p.log.info({ category: 'ha-hardware', what: e.what, cause: e.cause }, `${e.what} (${e.cause})`),
      },
    });
    const controller = this.controller;
    this.link.connect({
      receiveHeartbeat: (hb) => {
        if (!this.blocked) controller.receiveHeartbeat(hb);
      },
      receiveSync: (share, d) => controller.receiveSync(share, d),
    });
  }

  /** The shelf accepted the registration: the payload is powered, the machine boots. */
  start(): void {
    this.controller.powerOn('registered on the shelf bus');
    this.poll();
  }

  /** A message from the shelf. */
  onBus(m: ToShmc): void {
    if (this.stopped) return;
    switch (m.t) {
      case 'lines':
        this.backplane.update(m);
        return;
      case 'claimed':
        if (!m.ok) {
          this.p.log.warn({ category: 'interlock', epoch: m.epoch }, 'the shelf refused our ACTIVE claim: resetting (fencing)');
          this.controller.hardwareReset('ACTIVE claim refused by the shelf interlock');
        }
        return;
      case 'sel':
        this.write({ kind: 'sel', id: m.id, data: m.data });
        return;
      case 'seldel':
        this.write({ kind: 'sel-del', id: m.id });
        return;
      case 'selclear':
        this.write({ kind: 'sel-clear' });
        return;
      case 'user':
        this.write({ kind: 'user', id: m.id, data: m.data });
        return;
      case 'thresholds':
        this.write({ kind: 'thresholds', key: m.key, data: m.data });
        return;
      case 'stateend':
        // The shelf's seeding is complete: this database now holds the whole state (and so does a
        // standby that has followed the stream since its catch-up).
        if (this.role !== 'active') return;
        this.p.state.setStateHeld(true);
        this.sender?.append({ kind: 'held' });
        return;
      case 'ipmi': {
        const replies = m.replies.map((r) => Buffer.from(r, 'base64'));
        const [address, port] = this.pendingIpmi.get(m.id) ?? [undefined, 0];
        this.pendingIpmi.delete(m.id);
        if (address === undefined) return;
        const send = () => this.p.sendIpmi(address, port, replies);
        // Nothing a user is told succeeded may be lost: wait for the hot standby's commit.
        if (this.sender) this.sender.afterCommitted(send);
        else send();
        return;
      }
      case 'send':
        this.p.sendIpmi(m.address, m.port, [Buffer.from(m.data, 'base64')]);
        return;
      default:
        return;
    }
  }

  private readonly pendingIpmi = new Map<number, [string, number]>();
  private nextIpmiId = 1;

  /** A datagram arrived on the shelf address: relay it to the shelf's IPMI layer. */
  onIpmiDatagram(bytes: Uint8Array, address: string, port: number): void {
    if (this.stopped || this.role !== 'active') return;
    const id = this.nextIpmiId++;
    this.pendingIpmi.set(id, [address, port]);
    if (this.pendingIpmi.size > 1024) this.pendingIpmi.delete(this.pendingIpmi.keys().next().value!);
    this.p.bus({ t: 'ipmi', id, address, port, data: Buffer.from(bytes).toString('base64') });
  }

  /** A datagram from the peer's port (heartbeat, sync or mirror; anything else is counted as garbage). */
  onPeerDatagram(bytes: Uint8Array): void {
    if (this.stopped) return;
    this.link.deliver(SHMC_SHARE, bytes);
  }

  /** Garbage datagrams from the peer port (counted, dropped). */
  get garbage(): number {
    return this.link.stats.garbage;
  }

  /** A mirror datagram (anything the link does not decode as heartbeat or sync). @throws DecodeError on garbage (counted by the link) */
  private onMirrorDatagram(bytes: Uint8Array): void {
    const d = mirrorCodec.decode(bytes);
    if (d.k === 'rec') this.receiver?.receive(d);
    else this.sender?.receive(d);
  }

  /** The in-process heartbeat switch: drops heartbeat datagrams to and from the peer (nothing else). */
  blockHeartbeats(on: boolean): void {
    this.blocked = on;
    this.p.log.warn({ category: 'fault', heartbeats_blocked: on }, on ? 'heartbeats to/from the peer blocked' : 'heartbeats unblocked');
  }

  /** The node's report (maintenance port). */
  status(): ShmcStatus {
    const st = this.controller.status()[0];
    const sel = this.p.state.allSel();
    let mirror: ShmcStatus['mirror'] = null;
    if (this.sender) mirror = { synchronous: this.sender.synchronous, lagging: this.sender.lagging, lastSeq: this.sender.lastSeq, ackedSeq: this.sender.ackedSeq, timeouts: this.sender.stats.timeouts };
    else if (this.receiver) mirror = { inStep: this.receiver.inStep, committed: this.receiver.stats.committed };
    const bl = this.backplane.view();
    return {
      node: this.node,
      role: this.role,
      epoch: st?.epoch ?? 0,
      peerRole: st?.peerRole ?? 'unknown',
      heartbeatAgeMs: st && Number.isFinite(st.heartbeatAgeMs) ? Math.round(st.heartbeatAgeMs) : null,
      heartbeatsBlocked: this.blocked,
      lines: bl.self === OFF && bl.peer === OFF ? null : bl,
      roles: this.roles.slice(),
      takeover: this.takeover,
      takeovers: this.takeovers,
      mirror,
      sel: { count: sel.length, ids: sel.map((r) => r.id) },
      state: (() => {
        const all = this.p.state.allState();
        const users = all.filter((s) => s.kind === 'user' && (JSON.parse(s.data) as { name?: string }).name).map((s) => Number(s.key));
        return { users: users.sort((a, b) => a - b), thresholds: all.filter((s) => s.kind === 'thresholds').length, held: this.p.state.stateHeld() };
      })(),
      activations: this.activations.slice(),
      heartbeatMs: this.p.cfg.heartbeatMs,
      missedHeartbeats: this.p.cfg.missedHeartbeats,
      activationMs: this.p.cfg.activationMs,
    };
  }

  /** True while this node holds the shelf address. */
  get shelfAddressBound(): boolean {
    return this.bound;
  }

  /** Stall compensation: restart silence timers after the whole process stalled. */
  rebase(): void {
    this.controller.rebase();
  }

  /** Stops the machine, timers and mirror. */
  stop(): void {
    this.stopped = true;
    if (this.pollTimer !== undefined) this.p.clock.clearTimeout(this.pollTimer);
    this.sender?.stop();
    this.controller.dispose();
  }

  // ---------------------------------------------------------------- internals

  private onRole(from: WireRole, to: WireRole, epoch: number): void {
    this.role = to;
    this.roles.push({ at: this.p.wallNow(), role: to });
    if (this.roles.length > 64) this.roles.shift();
    if (epoch > this.p.state.epoch()) this.p.state.setEpoch(epoch);
    this.p.bus({ t: 'role', role: to === 'active.handover' ? 'active' : to, epoch });
    if (to === 'active' && from !== 'active.handover') {
      if (from === 'standby.hot' || from === 'standby.ready') {
        const st = this.controller.status()[0];
        const hb = st && Number.isFinite(st.heartbeatAgeMs) ? Math.round(st.heartbeatAgeMs) : null;
        const drop = this.backplane.peerDropAt;
        const at = this.p.wallNow();
        const sinceDrop = drop !== null ? Math.max(0, Math.round(at - drop)) : null;
        const base = sinceDrop ?? hb;
        this.takeover = {
          at, from,
          sinceLastHeartbeatMs: hb,
          sincePeerLinesDropMs: sinceDrop,
          activationMs: this.p.cfg.activationMs,
          totalMs: base !== null ? base + this.p.cfg.activationMs : null,
        };
        this.takeovers++;
        this.p.log.warn({ category: 'takeover', ...this.takeover }, `took over the shelf (${from} → active)`);
      }
      this.becomeActive();
    } else if (to !== 'active' && to !== 'active.handover' && this.sender) {
      this.sender.stop();
      this.sender = null;
      this.setBound(false);
    }
    if (to === 'standby.ready' || to === 'standby.hot') {
      if (!this.receiver) {
        this.receiver = new MirrorReceiver({
          commit: (e) => this.commitEntry(e),
          send: (d) => this.p.sendPeer(mirrorCodec.encode(d)),
          onCatchUp: () => this.p.state.setStateHeld(false),
        });
        this.receiver.requestCatchUp();
      }
    } else if (to !== 'active.handover') {
      this.receiver = null;
    }
    if (to === 'resetting' || to === 'failed' || to === 'booting') this.setBound(false);
  }

  private becomeActive(): void {
    this.receiver = null;
    if (!this.sender) {
      this.sender = new MirrorSender({
        clock: this.p.clock,
        send: (d) => this.p.sendPeer(mirrorCodec.encode(d)),
        all: () => [
          { kind: 'sel-clear' } as MirrorEntry,
          ...this.p.state.allSel().map((r): MirrorEntry => ({ kind: 'sel', id: r.id, data: r.data })),
          ...this.p.state.allState().map((s): MirrorEntry => (s.kind === 'user' ? { kind: 'user', id: Number(s.key), data: s.data } : { kind: 'thresholds', key: s.key, data: s.data })),
          // complete only when this database is (else `held` follows the shelf's seeding: stateend)
          ...(this.p.state.stateHeld() ? [{ kind: 'held' } as MirrorEntry] : []),
        ],
        newStream: () => this.p.random.u32() || 1,
        resendMs: this.p.cfg.heartbeatMs,
        ackTimeoutMs: this.p.cfg.heartbeatMs * this.p.cfg.missedHeartbeats,
      });
    }
    // The source of truth: a database that holds the management state loads it into the shelf (which
    // replaces its SEL, users and thresholds before it relays an IPMI datagram through this node: the
    // bus keeps the order); a database that never held it is seeded by the shelf (a clear and every
    // SEL record, user and thresholds record it holds, then `stateend`), then each change follows.
    if (this.p.state.stateHeld()) {
      const sel = this.p.state.allSel();
      const state = this.p.state.allState();
      for (const m of stateloadMessages(sel, state)) this.p.bus(m);
      this.noteActivation({ at: this.p.wallNow(), source: 'stateload', sel: sel.length, state: state.length });
      this.p.log.info({ category: 'stateload', sel: sel.length, state: state.length }, `management state loaded into the shelf from this ShMC's database (${sel.length} SEL records)`);
    } else {
      this.p.bus({ t: 'statewant' });
      this.noteActivation({ at: this.p.wallNow(), source: 'statewant' });
      this.p.log.info({ category: 'stateload' }, 'this database never held the management state: seeded by the shelf');
    }
    this.setBound(true);
  }

  private setBound(b: boolean): void {
    if (this.bound === b) return;
    this.bound = b;
    this.p.shelfAddress(b);
  }

  private readonly activations: ShmcStatus['activations'] = [];

  private noteActivation(a: ShmcStatus['activations'][number]): void {
    this.activations.push(a);
    if (this.activations.length > 16) this.activations.shift();
  }

  private commitEntry(e: MirrorEntry): void {
    if (e.kind === 'held') this.p.state.setStateHeld(true);
    else if (e.kind === 'sel') this.p.state.putSel(e.id, e.data);
    else if (e.kind === 'sel-del') this.p.state.deleteSel(e.id);
    else if (e.kind === 'sel-clear') this.p.state.clearSel();
    else if (e.kind === 'user') this.p.state.putState('user', String(e.id), e.data);
    else this.p.state.putState('thresholds', e.key, e.data);
  }

  /** A management write the shelf reported: committed here, then mirrored. */
  private write(e: MirrorEntry): void {
    this.commitEntry(e);
    this.sender?.append(e);
  }

  /** Every heartbeat interval: is the peer a hot standby (writes then wait for its commit)? Re-ask a catch-up when out of step. */
  private poll(): void {
    this.pollTimer = this.p.clock.setTimeout(() => {
      if (this.stopped) return;
      const st = this.controller.status()[0];
      if (st) this.p.bus({ t: 'report', hbAgeMs: Number.isFinite(st.heartbeatAgeMs) ? Math.round(st.heartbeatAgeMs) : null, alarms: st.alarms.slice() });
      if (this.sender && st) {
        const fresh = Number.isFinite(st.heartbeatAgeMs) && st.heartbeatAgeMs < this.p.cfg.heartbeatMs * this.p.cfg.missedHeartbeats;
        this.sender.setPeerHot(fresh && st.peerRole === 'standby.hot');
      }
      if (this.receiver && !this.receiver.inStep && (this.pollCount++ % 5) === 0) this.receiver.requestCatchUp();
      this.poll();
    }, this.p.cfg.heartbeatMs);
  }

  private pollCount = 0;
}
