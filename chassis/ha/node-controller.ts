/**
 * The runtime of one node of a redundant pair (the node controller): it wires, for each share the
 * node is a member of, a pair-member machine actor (pair-machine.ts) with the heartbeat sender and
 * receiver (heartbeat.ts), the backplane lines (chassis/model/backplane.ts), the session sync
 * (sync-sender.ts on the owner, sync-receiver.ts on the standby), the board's data plane and the
 * hubs' share router; and, per node, the firmware loop that feeds the IPMI watchdog
 * (chassis/model/ipmi-watchdog.ts) and the hardware behaviour around resets and power.
 *
 * Its ports (node-ports.ts): `ShareDataPlane` per share (the processor board's session table: live
 * when owner, standby table when standby; promote on takeover), `ShareRouter` (the hubs' resilient
 * bucket table), the `PairLink` to its peer (pair-link.ts: heartbeats and sync go out there, the
 * peer's arrive at `receiveHeartbeat` / `receiveSync`), the `BackplanePort`, an `IpmiWatchdog`,
 * Clocks and a Random.
 *
 * Clocks: `control` runs the machines, heartbeats and watchdog kicks; `data` runs the sync engine
 * and the data-plane tick; `hardware` times resets. In production all three can be the same
 * (StallCompensatedClock in wall-clock mode); the emulator gives each node freezable clocks
 * (chassis/sim/node-clock.ts) so a hang, a GC pause or a stalled control loop (S06) affects only
 * that node.
 *
 * Firmware rule (sbd, ha.md §2.4, §5.1): the watchdog is kicked every watchdogKickMs only if the
 * data plane made progress since the last kick; a hung node therefore stops kicking, the watchdog
 * expires, the hardware resets it (HEALTHY and ACTIVE drop at that instant) and only then does the
 * peer's dual-arbitration rule allow a takeover.
 */
import { createActor } from 'xstate';
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import { nullLogger } from '../../board/common/logger.ts';
import type { LineChange } from '../model/backplane.ts';
import type { WatchdogEvent } from '../model/ipmi-watchdog.ts';
import { firmwareWatchdogSettings, TimeoutAction } from '../model/ipmi-watchdog.ts';
import type { CompatVersion, Heartbeat, WireRole } from './heartbeat.ts';
import { HeartbeatMonitor } from './heartbeat.ts';
import { running } from './member.ts';
import type { Member, MemberActor } from './member.ts';
import type { MemberStatus, NodeControllerOptions } from './node-ports.ts';
import type { PairLinkReceiver } from './pair-link.ts';
import { alarmsOf, pairMemberMachine, roleOf } from './pair-machine.ts';
import type { ActivationKind, PairAlarm, PairMemberEvent, PairMemberSnapshot } from './pair-machine.ts';
import { SyncReceiver } from './sync-receiver.ts';
import { SyncSender } from './sync-sender.ts';
import { addSyncStats, emptySyncStats } from './sync-types.ts';
import type { SyncDatagram, SyncSenderStats, SyncTiming } from './sync-types.ts';

/** One node's HA runtime. */
export class NodeController implements PairLinkReceiver {
  readonly node: string;
  private readonly o: NodeControllerOptions;
  private readonly members = new Map<string, Member>();
  private version: CompatVersion;
  private incarnation: number;
  private softwareUp = false;
  private loops: Array<{ clock: Clock; id: TimerId }> = [];
  private dataTicks = 0;
  private lastKickTicks = -1;
  private uplinkUp = true;
  private powered = false;
  private resetTimer: TimerId | undefined;
  private readonly log: Logger;
  private readonly unsubs: Array<() => void> = [];
  private readonly retired: SyncSenderStats = emptySyncStats();

  constructor(o: NodeControllerOptions) {
    this.o = o;
    this.node = o.node;
    this.version = { ...o.version };
    this.incarnation = o.random.u32();
    this.log = (o.log ?? nullLogger).child({ module: 'chassis.ha', node: o.node });
    for (const s of o.shares) {
      const m: Member = {
        share: s.share, peer: s.peer, home: s.home, actor: undefined as unknown as MemberActor,
        monitor: new HeartbeatMonitor(o.cfg.heartbeatMs, o.cfg.missedHeartbeats), seq: 0, role: 'failed',
        alarms: new Set(), sender: null, receiver: null, handoverOffered: false, dp: o.dataPlane(s.share),
        persistedEpoch: o.epochs?.[s.share] ?? 0, stream: 0, ackAlarm: false, dropped: false, outdated: false,
        activation: null,
      };
      this.members.set(s.share, m);
    }
    this.unsubs.push(o.backplane.onChange((c) => this.onLines(c)));
    this.unsubs.push(o.watchdog.onExpire((e) => this.onWatchdogExpire(e)));
    this.unsubs.push(o.watchdog.onPretimeout((e) => this.onWatchdogPretimeout(e)));
  }

  // ---------------------------------------------------------------- hardware-side inputs

  /** Powers the node's payload: the machines boot. Idempotent. */
  powerOn(cause = 'power-on'): void {
    if (this.powered) return;
    this.powered = true;
    this.o.softwareBoot?.();
    this.o.backplane.setPower(this.node, 'on');
    this.o.observer?.hardware?.({ at: this.o.hardware.now(), node: this.node, what: 'power-on', cause });
    for (const m of this.members.values()) {
      if (!running(m) || m.outdated) {
        this.createActor(m);
      } else {
        m.actor.send({ type: 'hw.powerOn' });
        this.deliverLines(m);
      }
    }
  }

  /** Payload power lost, board failed or pulled: every line drops, memory is lost. */
  powerOff(kind: 'off' | 'failed' | 'extracted' = 'off', cause: string = kind): void {
    this.cancelReset();
    this.o.backplane.setPower(this.node, kind);
    this.softwareDown();
    this.o.watchdog.stop();
    const was = this.powered;
    this.powered = false;
    if (was) this.o.observer?.hardware?.({ at: this.o.hardware.now(), node: this.node, what: 'power-off', cause });
    for (const m of this.members.values()) if (running(m)) m.actor.send({ type: 'hw.powerOff' });
  }

  /**
   * Hardware reset (watchdog action, supervisor after a crash, upgrade reboot): HEALTHY and every
   * ACTIVE drop now, the software's memory is lost, and the node is powered again after
   * HaConfig.resetMs (then it boots and re-arbitrates).
   */
  hardwareReset(cause: string): void {
    if (!this.powered) return;
    this.cancelReset();
    this.o.backplane.setPower(this.node, 'reset');
    this.softwareDown();
    this.o.observer?.hardware?.({ at: this.o.hardware.now(), node: this.node, what: 'reset', cause });
    for (const m of this.members.values()) if (running(m)) m.actor.send({ type: 'hw.reset' });
    this.resetTimer = this.o.hardware.setTimeout(() => {
      this.resetTimer = undefined;
      if (!this.powered) return;
      this.o.softwareBoot?.();
      this.o.backplane.setPower(this.node, 'on');
      for (const m of this.members.values()) {
        if (running(m)) {
          m.actor.send({ type: 'hw.powerOn' });
          this.deliverLines(m);
        } else {
          this.createActor(m);
        }
      }
    }, this.o.cfg.resetMs);
  }

  /** True while powered (on or in reset). */
  get isPowered(): boolean {
    return this.powered;
  }

  /**
   * True while the node's software runs: powered, out of reset and initialised (HEALTHY driven,
   * IPMI watchdog armed and kicked). False while off, in reset or booting.
   */
  get isRunning(): boolean {
    return this.powered && this.softwareUp;
  }

  /** True while a hardware reset or upgrade reboot holds the payload down (powered, not yet on again). */
  get inReset(): boolean {
    return this.resetTimer !== undefined;
  }

  /** Restarts the node on a new software version (a planned reboot: watchdog stopped first; epochs persist). */
  upgrade(version: CompatVersion): void {
    this.version = { ...version };
    if (!this.powered) {
      for (const m of this.members.values()) m.outdated = true;
      return;
    }
    this.cancelReset();
    this.o.backplane.setPower(this.node, 'reset');
    this.softwareDown();
    // a planned reboot: the software stops its IPMI watchdog first (the new one arms it at boot),
    // else the watchdog, still counting through the reboot, resets the node a second time
    this.o.watchdog.stop();
    this.o.observer?.hardware?.({ at: this.o.hardware.now(), node: this.node, what: 'reset', cause: `upgrade to ${version.major}.${version.minor}` });
    for (const m of this.members.values()) {
      m.actor.stop();
      this.emitRole(m, 'resetting');
    }
    this.resetTimer = this.o.hardware.setTimeout(() => {
      this.resetTimer = undefined;
      if (!this.powered) return;
      this.o.softwareBoot?.();
      this.o.backplane.setPower(this.node, 'on');
      for (const m of this.members.values()) this.createActor(m);
    }, this.o.cfg.resetMs);
  }

  /** The software version the node runs (or will run after its upgrade reboot). */
  get softwareVersion(): CompatVersion {
    return { ...this.version };
  }

  /** The node's uplink went down or came back (S21). */
  setUplink(up: boolean): void {
    this.uplinkUp = up;
    for (const m of this.members.values()) if (running(m)) m.actor.send({ type: up ? 'uplink.up' : 'uplink.down' });
  }

  /** Wall-clock mode: a global stall was compensated; restart the silence timers. */
  rebase(): void {
    const now = this.o.control.now();
    for (const m of this.members.values()) {
      m.monitor.rebase(now);
      if (running(m)) m.actor.send({ type: 'clock.rebased' });
    }
  }

  /**
   * Planned switchover of `share` (operator, CLI, IPMI). Must be called on the owner.
   * @throws CommandError('unknown_share' | 'not_active' | refusal code from arbitration.handOverRefusal,
   *   e.g. 'peer_not_hot', 'incompatible_version')
   */
  switchover(share: string): void {
    const m = this.member(share);
    if (roleOf(m.actor.getSnapshot()) !== 'active') throw new CommandError('not_active', `${this.node} is not the active member of ${share}`);
    m.actor.send({ type: 'operator.switchover' });
    const s = m.actor.getSnapshot();
    if (roleOf(s) === 'active' && (s.value as { role: { active: string } }).role.active === 'serving') {
      const code = s.context.refusal ?? 'not_allowed';
      throw new CommandError(code, `switchover of ${share} refused: ${code.replace(/_/g, ' ')}`);
    }
  }

  // ---------------------------------------------------------------- link inputs

  /** A heartbeat from the peer (delivered on the control clock; dropped when not for us). */
  receiveHeartbeat(hb: Heartbeat): void {
    this.o.control.setTimeout(() => this.onHeartbeat(hb), 0);
  }

  /** A sync datagram for `share` from the peer (delivered on the data clock). */
  receiveSync(share: string, d: SyncDatagram): void {
    this.o.data.setTimeout(() => this.onSync(share, d), 0);
  }

  // ---------------------------------------------------------------- status

  /** Status of every member. */
  status(): MemberStatus[] {
    const now = this.o.control.now();
    return [...this.members.values()].map((m) => {
      const s = m.actor?.getSnapshot();
      const role = s ? roleOf(s) : 'failed';
      let sync: MemberStatus['sync'] = null;
      if (m.sender) sync = { lastSeq: m.sender.lastSeq, ackedSeq: m.sender.ackedSeq, resendQueue: m.sender.resendQueueLength, lagMs: m.sender.lastAckLagMs };
      else if (m.receiver) sync = { appliedSeq: m.receiver.appliedSeq, complete: m.receiver.complete };
      return {
        share: m.share, node: this.node, role, epoch: s?.context.epoch ?? m.persistedEpoch, owner: role === 'active',
        heartbeatAgeMs: m.monitor.silentFor(now), peerRole: s?.context.peer.role ?? 'unknown', alarms: s ? alarmsOf(s) : [],
        sync,
      };
    });
  }

  /** The member's machine snapshot. @throws CommandError('unknown_share'). */
  snapshot(share: string): PairMemberSnapshot {
    return this.member(share).actor.getSnapshot();
  }

  /** The member's last activation: epoch, kind and whether it came from standby.ready (valid from the router's assign call on). */
  lastActivation(share: string): { epoch: number; kind: ActivationKind | null; notHot: boolean } | null {
    return this.member(share).activation;
  }

  /** The member's sync sender while it owns the share, else null. */
  sender(share: string): SyncSender | null {
    return this.member(share).sender;
  }

  /** The member's sync receiver while it is standby, else null. */
  receiver(share: string): SyncReceiver | null {
    return this.member(share).receiver;
  }

  /** Stops every actor and timer (end of a run). */
  dispose(): void {
    this.cancelReset();
    this.softwareDown();
    for (const m of this.members.values()) m.actor?.stop();
    for (const u of this.unsubs) u();
  }

  // ---------------------------------------------------------------- internals

  private member(share: string): Member {
    const m = this.members.get(share);
    if (!m) throw new CommandError('unknown_share', `${this.node} is not a member of ${share}`);
    return m;
  }

  private createActor(m: Member): void {
    const cfg = this.o.cfg;
    if (m.actor) m.actor.stop();
    m.outdated = false;
    const machine = pairMemberMachine.provide({
      actions: {
        assertHealthy: () => this.softwareInit(),
        claimActive: ({ context }) => this.claim(m, context),
        releaseActive: () => this.release(m),
        startFinalSync: () => this.startFinalSync(m),
        abortHandover: ({ context }) => {
          m.sender?.cancelFinal();
          m.handoverOffered = false;
          m.dp.resume();
          const reason = context.handoverAborted ?? 'final_sync_unacked';
          this.log.warn({ category: 'handover-aborted', share: m.share, reason }, `${m.share}: planned switchover abandoned after ${this.o.cfg.handoverTimeoutMs} ms (${reason})`);
          this.o.observer?.handoverAborted?.({ at: this.o.control.now(), node: this.node, share: m.share, reason, epoch: context.epoch });
        },
        offerHandover: () => {
          m.handoverOffered = true;
          this.sendHeartbeats();
        },
        enterStandby: ({ context }) => this.enterStandby(m, context.peer.epoch),
        requestBulk: () => {
          m.receiver?.requestBulk();
          this.sendHeartbeats();
        },
        dropTable: () => {
          m.dp.demote(false);
          m.dropped = true;
        },
        markHot: () => {},
      },
    });
    m.actor = createActor(machine, {
      clock: this.o.control,
      input: {
        share: m.share, self: this.node, peer: m.peer, home: m.home, version: this.version,
        epoch: m.persistedEpoch, unsafeNoInterlockGuard: this.o.unsafeNoInterlockGuard === true,
        timing: {
          heartbeatMs: cfg.heartbeatMs, missedHeartbeats: cfg.missedHeartbeats, bootMs: cfg.bootMs,
          settleMs: cfg.settleMs, loneSettleMs: cfg.loneSettleMs, handoverTimeoutMs: cfg.handoverTimeoutMs,
        },
      },
    });
    m.actor.subscribe((s) => this.onSnapshot(m, s));
    m.actor.start();
    this.emitRole(m, 'booting');
    // First reading of the peer's lines.
    this.deliverLines(m);
    this.onSnapshot(m, m.actor.getSnapshot());
  }

  private onSnapshot(m: Member, s: PairMemberSnapshot): void {
    if (s.context.epoch > m.persistedEpoch) m.persistedEpoch = s.context.epoch;
    const role = roleOf(s);
    if (role !== m.role) this.emitRole(m, role, s);
    const now = this.o.control.now();
    const next = new Set<string>(alarmsOf(s));
    if (m.ackAlarm) next.add('SYNC_ACKS_LOST');
    for (const a of next) if (!m.alarms.has(a)) this.o.observer?.alarm?.({ at: now, node: this.node, share: m.share, alarm: a as PairAlarm, raised: true });
    for (const a of m.alarms) if (!next.has(a)) this.o.observer?.alarm?.({ at: now, node: this.node, share: m.share, alarm: a as PairAlarm, raised: false });
    m.alarms = next;
  }

  private emitRole(m: Member, to: WireRole, s?: PairMemberSnapshot): void {
    const from = m.role;
    m.role = to;
    if (from === to) return;
    this.log.info({ category: 'role', share: m.share, from, to, epoch: s?.context.epoch ?? m.persistedEpoch }, `${m.share}: ${from} → ${to}`);
    this.o.observer?.roleChanged?.({
      at: this.o.control.now(), node: this.node, share: m.share, from, to, epoch: s?.context.epoch ?? m.persistedEpoch,
      activation: s?.context.activation ?? null, takeoverNotHot: s?.context.takeoverNotHot ?? false,
    });
  }

  /** Software init done (first member entering arbitrating): HEALTHY, watchdog, loops. */
  private softwareInit(): void {
    if (this.softwareUp) return;
    this.softwareUp = true;
    this.o.backplane.setHealthy(this.node, true);
    const cfg = this.o.cfg;
    this.o.watchdog.set(firmwareWatchdogSettings(cfg.watchdogTimeoutMs, cfg.watchdogPretimeoutMs));
    this.o.watchdog.kick();
    this.lastKickTicks = this.dataTicks;
    this.loop(this.o.data, cfg.watchdogKickMs / 2, () => {
      this.dataTicks++;
      this.checkAckHealth();
    });
    this.loop(this.o.control, cfg.watchdogKickMs, () => {
      if (this.dataTicks !== this.lastKickTicks) {
        this.lastKickTicks = this.dataTicks;
        this.o.watchdog.kick();
      }
    });
    this.sendHeartbeats();
    this.heartbeatLoop();
  }

  private softwareDown(): void {
    this.o.softwareLost?.();
    this.softwareUp = false;
    for (const l of this.loops) l.clock.clearTimeout(l.id);
    this.loops = [];
    this.incarnation = this.o.random.u32();
    for (const m of this.members.values()) {
      this.retireSender(m);
      m.receiver?.stop();
      m.receiver = null;
      m.handoverOffered = false;
      m.seq = 0;
      m.monitor.clear();
      m.dp.reset();
      m.ackAlarm = false;
    }
  }

  private loop(clock: Clock, everyMs: number, fn: () => void): void {
    const entry = { clock, id: undefined as TimerId };
    const run = () => {
      fn();
      entry.id = clock.setTimeout(run, everyMs);
    };
    entry.id = clock.setTimeout(run, everyMs);
    this.loops.push(entry);
  }

  private heartbeatLoop(): void {
    const h = this.o.cfg.heartbeatMs;
    const entry = { clock: this.o.control, id: undefined as TimerId };
    const next = () => h * (1 - this.o.cfg.heartbeatJitter * this.o.random.next());
    const run = () => {
      this.sendHeartbeats();
      entry.id = this.o.control.setTimeout(run, next());
    };
    entry.id = this.o.control.setTimeout(run, next());
    this.loops.push(entry);
  }

  private sendHeartbeats(): void {
    if (!this.softwareUp) return;
    const now = this.o.control.now();
    for (const m of this.members.values()) {
      const s = m.actor.getSnapshot();
      const role = roleOf(s);
      const standby = role === 'standby.ready' || role === 'standby.hot';
      m.seq = (m.seq + 1) >>> 0;
      this.o.link.sendHeartbeat({
        share: m.share, node: this.node, incarnation: this.incarnation, seq: m.seq,
        epoch: s.context.epoch, role,
        syncSeq: m.sender ? m.sender.lastSeq : m.receiver ? m.receiver.appliedSeq : 0,
        healthy: true, hearsPeer: !m.monitor.isSilent(now) && m.monitor.lastHeardAt !== undefined,
        handover: m.handoverOffered, wantsBulk: standby && (role === 'standby.ready' || (m.receiver?.wantsBulk ?? false)),
        uplink: this.uplinkUp, version: this.version, wallMs: this.o.wallNow ? this.o.wallNow() : now,
      });
    }
  }

  private onHeartbeat(hb: Heartbeat): void {
    if (!this.softwareUp) return;
    const m = this.members.get(hb.share);
    if (!m || hb.node !== m.peer || !running(m)) return;
    const now = this.o.control.now();
    if (m.monitor.offer(hb, now) === 'duplicate') return;
    m.actor.send({
      type: 'hb.received', role: hb.role, epoch: hb.epoch, version: hb.version, healthy: hb.healthy,
      uplink: hb.uplink, handover: hb.handover, hearsUs: hb.hearsPeer,
    });
    if (hb.role === 'active') m.receiver?.noteEpoch(hb.epoch);
    // The owner starts a bulk when a compatible standby asks for one (join).
    if (m.sender && hb.wantsBulk && hb.version.major === this.version.major) m.sender.requestBulk(hb.syncSeq);
  }

  private onSync(share: string, d: SyncDatagram): void {
    if (!this.softwareUp) return;
    const m = this.members.get(share);
    if (!m) return;
    if (d.kind === 'ack' || d.kind === 'nack') m.sender?.onAckDatagram(d);
    else m.receiver?.receive(d);
  }

  private onLines(c: LineChange): void {
    for (const m of this.members.values()) {
      if (c.node !== m.peer || !m.actor) continue;
      // Software reads the lines on its next run (a frozen node reads them when it thaws).
      this.o.control.setTimeout(() => this.deliverLines(m), 0);
    }
  }

  /** Sends `ev` to the member's current actor on the control clock's next run (dropped if the actor changed). */
  private post(m: Member, ev: PairMemberEvent): void {
    const actor = m.actor;
    this.o.control.setTimeout(() => {
      if (m.actor === actor && running(m)) actor.send(ev);
    }, 0);
  }

  private deliverLines(m: Member): void {
    if (!running(m)) return;
    const l = this.o.backplane.lines(m.peer, m.share);
    m.actor.send({
      type: 'hw.lines', present: l.present, healthy: l.healthy, active: l.active, interlock: this.o.backplane.interlock,
      epoch: this.o.backplane.epochOf(m.share),
    });
  }

  private claim(m: Member, ctx: PairMemberSnapshot['context']): void {
    m.activation = { epoch: ctx.epoch, kind: ctx.activation, notHot: ctx.takeoverNotHot };
    const ok = this.o.backplane.claimActive(this.node, m.share, ctx.epoch);
    if (!ok && !this.o.unsafeNoInterlockGuard) {
      this.log.warn({ category: 'interlock', share: m.share }, 'ACTIVE claim refused by the interlock');
      // Our reading of the peer's lines was stale: read them again, then report the refusal.
      this.o.control.setTimeout(() => this.deliverLines(m), 0);
      this.post(m, { type: 'hw.claimRefused' });
      return;
    }
    m.receiver?.stop();
    m.receiver = null;
    m.handoverOffered = false;
    const epoch = ctx.epoch;
    m.dp.promote(this.o.data.now() + this.o.cfg.activationMs);
    this.o.router.assign(m.share, this.node);
    if (m.sender) {
      // Reclaim after an aborted handover: keep the running stream.
      this.sendHeartbeats();
      return;
    }
    m.stream = this.o.random.u32() || 1;
    m.sender = new SyncSender({
      clock: this.o.data, source: m.dp.source, send: (d) => this.o.link.sendSync(m.share, d), epoch,
      stream: m.stream, schema: this.version.major, timing: this.syncTiming(),
    });
    this.sendHeartbeats();
  }

  private release(m: Member): void {
    this.o.backplane.releaseActive(this.node, m.share);
    if (!m.dropped) m.dp.demote(true);
    m.dropped = false;
    this.retireSender(m);
  }

  private retireSender(m: Member): void {
    if (!m.sender) return;
    m.sender.stop();
    addSyncStats(this.retired, m.sender.stats);
    m.sender = null;
  }

  /** Sync counters of every sender this node ran (retired ones and the current ones). */
  syncStats(): SyncSenderStats {
    const t = emptySyncStats();
    addSyncStats(t, this.retired);
    for (const m of this.members.values()) if (m.sender) addSyncStats(t, m.sender.stats);
    return t;
  }

  private startFinalSync(m: Member): void {
    m.dp.hold();
    const sender = m.sender;
    if (!sender) return;
    sender.finalSync(() => this.post(m, { type: 'sync.finalAcked' }));
  }

  private enterStandby(m: Member, peerEpoch: number): void {
    if (m.receiver) return;
    m.receiver = new SyncReceiver({
      clock: this.o.data, sink: m.dp.sink, schema: this.version.major, timing: this.syncTiming(),
      reply: (d) => this.o.link.sendSync(m.share, d),
      onBulkDone: () => this.post(m, { type: 'sync.bulkDone' }),
      onStale: () => this.post(m, { type: 'sync.stale' }),
    });
    m.receiver.noteEpoch(peerEpoch);
  }

  private checkAckHealth(): void {
    const now = this.o.data.now();
    for (const m of this.members.values()) {
      // Acks stopped coming: something has waited for an ACK longer than T_stale. Measured from the
      // later of the last ACK and the moment something became outstanding, so the burst of a
      // periodic full resync after a quiet spell (no ACKs because nothing needed one) is no fault.
      const lost = m.sender !== null && m.sender.ackWaitMs(now) > this.o.cfg.syncStaleMs;
      if (lost !== m.ackAlarm) {
        m.ackAlarm = lost;
        this.onSnapshot(m, m.actor.getSnapshot());
      }
    }
  }

  private syncTiming(): SyncTiming {
    const c = this.o.cfg;
    return {
      syncMinAgeMs: c.syncMinAgeMs, syncBatchMs: c.syncBatchMs, syncMtu: c.syncMtu, syncFullResyncMs: c.syncFullResyncMs,
      syncResendMs: c.syncResendMs, syncResendQueue: c.syncResendQueue, syncBulkBytesPerSec: c.syncBulkBytesPerSec,
      syncStaleMs: c.syncStaleMs,
    };
  }

  private onWatchdogPretimeout(e: WatchdogEvent): void {
    this.o.observer?.watchdog?.({ at: this.o.hardware.now(), node: this.node, event: e });
  }

  private onWatchdogExpire(e: WatchdogEvent): void {
    this.o.observer?.watchdog?.({ at: this.o.hardware.now(), node: this.node, event: e });
    switch (e.action) {
      case TimeoutAction.hardReset:
      case TimeoutAction.powerCycle:
        this.hardwareReset('watchdog');
        break;
      case TimeoutAction.powerDown:
        this.powerOff('off', 'watchdog');
        break;
      default:
        break; // action none: logged only
    }
  }

  private cancelReset(): void {
    if (this.resetTimer !== undefined) this.o.hardware.clearTimeout(this.resetTimer);
    this.resetTimer = undefined;
  }
}
