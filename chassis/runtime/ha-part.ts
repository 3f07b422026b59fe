/**
 * The HA part of the emulator (the `HaPart` seam of ha-seam.ts): the shelf's redundant pairs —
 * the ShMC pair (classic active/standby) and every processor pair of the shelf YAML (dual-active
 * buddies, one pair-member machine per share `PAIR/HOME`) — on the HA fabric (chassis/ha), with
 * the real data plane as its data model (ha-board.ts) and the Shelf as its hardware:
 *
 * - Power and hot swap: a node is powered while its FRU is in M4. A planned deactivation (handle
 *   opened, Set FRU Activation deactivate) hands the board's sessions to its buddy in the data
 *   plane's handover hook (a final sync, nothing lost) and asks the node's members to hand their
 *   shares over; the node powers off when the FRU reaches M1. A payload fault, extraction or lost
 *   communication powers it off at once (HEALTHY, ACTIVE and for extraction PRESENT drop): the
 *   buddy takes over from its synced state. FRU Control resets (IPMI) reset the node.
 * - Node faults (crash, watchdog expiry, power-off, upgrade reboot) take the board's payload out of
 *   service for as long as the node is down; a hang or pause freezes the node's software only.
 * - Roles go to the Shelf (`Shelf.roles.set`: display, persistence and one SEL record each, never
 *   restored as authority; epochs are restored as fencing tokens). Watchdog expiries and
 *   pre-timeouts are SEL records (Watchdog 2 sensor type, IPMI v2.0 Table 42-3).
 * - IPMI: the shelf address follows the active ShMC; a switchover requested over IPMI (FRU 0 at 20h
 *   deactivated or cold-reset, `clia switchover`) is the ShMC pair's planned switchover; the
 *   watchdog commands over LAN address each ShMC's own IPMI watchdog, owned by the HA firmware
 *   (Set and Reset refused D5h, Get works); `shmstatus` reports the machines' roles; an HPM.1
 *   payload activation installs the new version on the node (payload-upgrade.ts).
 * - Wall-clock mode (`atcasim start`): the fabric runs on a StallCompensatedClock, so a stall of
 *   the whole process is never a node fault; the controllers are rebased after each stall.
 *
 * Its environment (ha-seam.ts `HaEnvironment`) comes from the composition root: the links between
 * the members (UDP datagrams on the live shelf, chassis/cli/live-ha.ts; simulated links in
 * scenarios) and the fault model (the simulator: per-node clocks, hang/heal, and in scenarios the
 * timeline, ledger and invariants). Scenario actions are run by the scenario engine
 * (chassis/scenarios/emulator-actions.ts) on the simulator and on the shelf.
 */
import type { Clock } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { DataPlane } from '../dataplane/data-plane.ts';
import type { SessionHandover } from '../dataplane/types.ts';
import { StallCompensatedClock } from '../../board/common/stall-clock.ts';
import type { HaConfig, PairConfig } from '../config/ha.ts';
import { resolveHaConfig } from '../config/ha.ts';
import { HaFabric } from '../ha/ha-fabric.ts';
import { parseVersion } from '../ha/heartbeat.ts';
import type { WireRole } from '../ha/heartbeat.ts';
import type { HaObserver } from '../ha/node-ports.ts';
import type { ShelfIpmiHaHooks, ShmStatus, SwitchoverReason } from '../ipmi/shelf-manager/index.ts';
import type { WatchdogPort } from '../ipmi/watchdog-port.ts';
import type { HaRoleName } from '../model/events.ts';
import type { HotSwapCause } from '../model/hot-swap.ts';
import { PLANNED_LEAVE } from './service-log.ts';
import type { Shelf } from '../model/shelf.ts';
import { eventSensor } from '../sensors/event-sensors.ts';
import { generatorIdForIpmb } from '../sensors/sel.ts';
import { BoardDataModel, slotNumber } from './ha-board.ts';
import { PayloadInstaller } from './payload-upgrade.ts';
import type { SessionBindings } from './session-payload.ts';
import type { HaContext, HaEnvironment, HaEnvironmentFactory, HaFactory, HaFaultModel, HaMemberView, HaOperatorAction, HaPart, LostByAge } from './ha-seam.ts';

/** Options of the emulator's HA part. */
export interface EmulatorHaOptions {
  /** Seed of the HA randomness (jitter, incarnations); default a draw from the platform's Random. */
  seed?: number;
  /** Wall-clock mode: wrap the clock in a StallCompensatedClock (`atcasim start`). */
  wallClock?: boolean;
  /** Software version of every node, default '1.0'. */
  version?: string;
  /** TEST-ONLY planted bug (the chaos test of docs/scenarios.md): the firmware ignores the interlock. */
  unsafeNoInterlockGuard?: boolean;
  /** Timing overrides over the shelf YAML's `ha` section (scenarios). */
  timing?: Partial<HaConfig>;
  /** The links and the fault model (see ha-seam.ts). */
  env: HaEnvironment;
}

/** Options of `haFactory`: the environment is built for the shelf's pairs when the factory runs. */
export interface HaFactoryOptions extends Omit<EmulatorHaOptions, 'env'> {
  env: HaEnvironmentFactory;
}

/** Preferred sensor number of the HA watchdog's SEL records: each node's Watchdog 2 event-only
 * sensor (chassis/sensors/event-sensors.ts), FEh unless its configuration uses that number. */
export const HA_WATCHDOG_SENSOR = 0xfe;
/** Sensor type Watchdog 2 (IPMI v2.0 Table 42-3). */
const WATCHDOG2 = 0x23;


/** Builds the HA factory the emulator calls once the shelf and data plane exist. */
export function haFactory(options: HaFactoryOptions): HaFactory {
  return async (ctx) => {
    const { env, ...rest } = options;
    return new EmulatorHa(ctx, { ...rest, env: await env(ctx.config.ha.pairs) });
  };
}

/** See the module header. */
export class EmulatorHa implements HaPart {
  /** The pairs, nodes and invariants. */
  readonly fabric: HaFabric;
  /** The board data model (sessions handed over / lost at board changes). */
  readonly model: BoardDataModel;

  /** See HaPart.setSessionBindings. */
  setSessionBindings(b: SessionBindings | null): void {
    this.model.setBindings(b);
  }
  readonly ipmiHooks: ShelfIpmiHaHooks;
  readonly handover: SessionHandover;
  /** The clock the HA layer runs on (stall-compensated in wall-clock mode). */
  readonly clock: Clock;
  private readonly shelf: Shelf;
  private readonly dp: DataPlane;
  private readonly log: Logger;
  private readonly pairs: readonly PairConfig[];
  private readonly stall: StallCompensatedClock | null;
  private readonly env: HaEnvironment;
  private readonly faults: HaFaultModel | undefined;
  private readonly unsubs: Array<() => void> = [];
  /** Slots leaving M4 by a planned deactivation (read by the handover hook). */
  private readonly leaving = new Set<number>();
  /** Resets deferred until a node finished handing its shares over (IPMI cold reset of the active ShMC). */
  private readonly pendingReset = new Map<string, unknown>();
  private stopped = false;
  private readonly installer: PayloadInstaller;
  /** When each raised alarm was raised (HA clock), by `node|share|alarm`. */
  private readonly alarmSince = new Map<string, number>();
  private readonly startedAt: number;

  constructor(ctx: HaContext, o: EmulatorHaOptions) {
    this.env = o.env;
    this.faults = o.env.faults;
    this.shelf = ctx.shelf;
    this.dp = ctx.dataPlane;
    this.log = ctx.platform.log.child({ module: 'chassis.ha' });
    const cfg = resolveHaConfig({ ...ctx.config.ha.timing, ...(o.timing ?? {}) });
    this.pairs = ctx.config.ha.pairs;
    for (const p of this.pairs) {
      for (const m of p.members) {
        let kind: string;
        try {
          kind = this.shelf.fruConfig(m).kind;
        } catch {
          throw new TypeError(`ha pair ${p.name}: member ${m} is not a FRU of the shelf`);
        }
        if ((p.kind === 'shmc') !== (kind === 'shmc') || (p.kind === 'processor' && kind !== 'processor')) {
          throw new TypeError(`ha pair ${p.name}: member ${m} is a ${kind}, not a ${p.kind === 'shmc' ? 'shelf manager' : 'processor board'}`);
        }
      }
    }
    this.stall = o.wallClock ? new StallCompensatedClock(ctx.platform.clock, cfg.globalStallMs) : null;
    this.clock = this.stall ?? ctx.platform.clock;
    this.startedAt = this.clock.now();
    this.model = new BoardDataModel(this.dp, this.pairs, this.clock, {
      gateOut: (slot) => this.gateOut(slot),
      plannedLeave: (slot) => this.leaving.has(slot),
    }, this.log);
    this.handover = (slot, board) => this.model.handover(slot, board);
    this.fabric = new HaFabric({
      seed: o.seed ?? ctx.platform.random.u32(),
      cfg,
      pairs: this.pairs,
      clock: this.clock,
      model: this.model,
      links: o.env.links,
      ...(this.faults ? { supervisor: this.faults } : {}),
      ...(o.version !== undefined ? { version: o.version } : {}),
      unsafeNoInterlockGuard: o.unsafeNoInterlockGuard === true,
      observer: this.observer(),
      epochs: (node) => {
        // Epochs are fencing tokens: restored from the shelf's record (roles never are).
        const pair = this.pairs.find((p) => p.members.includes(node));
        const out: Record<string, number> = {};
        for (const r of this.shelf.roles.of(node)) out[r.key === node && pair ? pair.name : r.key] = r.epoch;
        return out;
      },
      log: this.log,
    });
    for (const p of this.pairs) {
      p.members.forEach((m) => {
        this.unsubs.push(this.fabric.backplane(p.name).onChange((c) => {
          if (c.node === m && c.after.power === 'on' && c.before.power !== 'on') this.gateIn(m);
        }));
      });
    }
    this.unsubs.push(this.shelf.on('hotswap', (e) => this.onHotSwap(e.fru, e.from, e.to, e.cause)));
    this.unsubs.push(this.shelf.on('fru.control', (e) => {
      // A board's payload restarts on any reset option; a shelf manager's HA node only on a cold
      // reset (which the IPMI face turns into a switchover first when it is the active one).
      if (!this.fabric.hasNode(e.fru) || e.option === 'diagnostic-interrupt') return;
      if (this.shelf.fruConfig(e.fru).kind === 'shmc' && e.option !== 'cold-reset') return;
      this.resetNode(e.fru, `fru-control ${e.option}`);
    }));
    if (this.stall) {
      this.unsubs.push(this.stall.onStall((s) => {
        this.log.warn({ category: 'global-stall', gap_ms: Math.round(s.gapMs), total_ms: Math.round(s.totalMs) }, `process stalled ${Math.round(s.gapMs)} ms: HA timers compensated (no failover)`);
        for (const n of this.fabric.nodeNames()) this.fabric.controller(n).rebase();
      }));
    }
    const powered = (node: string) => this.shelf.state(node) === 4;
    if (this.faults) this.faults.start(powered);
    else this.fabric.start(powered);
    // Nodes that did not start: their persisted roles are stale; show them failed.
    for (const n of this.fabric.nodeNames()) {
      if (!this.fabric.controller(n).isPowered) for (const s of this.sharesOfNode(n)) this.display(n, s, 'failed', this.fabric.epochOf(n, s));
    }
    this.installer = new PayloadInstaller({ fabric: this.fabric, clock: this.clock, perform: (a) => this.perform(a), log: this.log });
    this.ipmiHooks = {
      switchover: (r) => this.ipmiSwitchover(r),
      shmStatus: () => this.shmStatus(),
      alarms: () => this.status().flatMap((m) => m.alarms.map((alarm) => ({ node: m.node, share: m.share, alarm }))),
      watchdog: (shmc) => this.watchdogPort(shmc),
      payloadFirmware: this.installer,
    };
  }

  // ---------------------------------------------------------------- HaPart

  /**
   * Planned switchover. `target`: a pair (`shmc`, `lb1`: every share of the pair), a share
   * (`lb1/slot3`), a ShMC name (its pair), or a processor board (its home share: handed to the
   * other member, or back to it).
   * @throws CommandError('unknown_pair' | 'no_active' | refusal codes of arbitration.handOverRefusal)
   */
  switchover(target: string): void {
    this.perform({ op: 'switchover', pair: this.resolvePairTarget(target) });
  }

  /**
   * Hangs a node: heartbeats, sync and watchdog kicks stop until its watchdog resets it or `heal`.
   * @throws CommandError('not_ha_node'); CommandError('not_running') while the node is powered off,
   *   in reset or booting (its software has not armed its watchdog: nothing would end the hang)
   */
  hang(node: string): void {
    this.perform({ op: 'hang', node: this.resolveNode(node, 'hang') });
  }

  /** Ends a hang, pause or control stall. @throws CommandError('not_ha_node') */
  heal(node: string): void {
    this.perform({ op: 'heal', node: this.resolveNode(node, 'hang') });
  }

  status(): readonly HaMemberView[] {
    const out: HaMemberView[] = [];
    for (const n of this.fabric.nodeNames()) {
      const c = this.fabric.controller(n);
      const wd = this.fabric.watchdog(n).remainingMs();
      for (const m of c.status()) {
        const now = this.clock.now();
        const alarmAgeMs: Record<string, number> = {};
        for (const a of m.alarms) alarmAgeMs[a] = now - (this.alarmSince.get(`${n}|${m.share}|${a}`) ?? this.startedAt);
        const v: HaMemberView = { share: m.share, node: n, role: m.role, epoch: m.epoch, heartbeatAgeMs: m.heartbeatAgeMs, alarms: m.alarms, alarmAgeMs };
        if (wd !== undefined) v.watchdogMs = wd;
        if (m.sync && 'lagMs' in m.sync) v.syncLagMs = m.sync.lagMs;
        out.push(v);
      }
    }
    return out;
  }

  lostByAge(): LostByAge {
    return this.model.lostByAge();
  }

  stop(): void | Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const u of this.unsubs) u();
    this.installer.stop();
    for (const t of this.pendingReset.values()) this.clock.clearTimeout(t);
    this.fabric.dispose();
    this.stall?.dispose();
    return this.env.links.close?.();
  }

  // ---------------------------------------------------------------- shelf coupling

  /** An operator action: through the fault model (which records it), or straight on the fabric. */
  private perform(a: HaOperatorAction): void {
    if (this.faults) {
      this.faults.perform(a);
      return;
    }
    if (a.op === 'upgrade') this.fabric.controller(a.node).upgrade(parseVersion(a.version));
    else if (a.op !== 'switchover') throw new CommandError('not_available', `${a.op} ${a.node}: this HA part has no fault model (its nodes run on one clock)`);
    else this.fabric.switchover(a.pair);
  }

  private sharesOfNode(node: string): string[] {
    return this.fabric.pairOfNode(node).shares.slice();
  }

  /**
   * The HA node a FRU name or alias stands for.
   * @param op 'hang' when the caller hangs or heals the node (the message names what can be hung)
   * @throws CommandError('not_ha_node') for a FRU that is not a member of a pair
   */
  resolveNode(name: string, op?: 'hang'): string {
    const n = this.shelf.resolve(name);
    if (!this.fabric.hasNode(n)) {
      if (op === 'hang') throw new CommandError('not_ha_node', `${n} runs no HA software to hang (a ShMC or a processor board in an HA pair can be hung)`);
      throw new CommandError('not_ha_node', `${n} is not a member of a redundant pair`);
    }
    return n;
  }

  /**
   * The pair or share a switchover target names: a pair, a share, a ShMC (its pair) or a processor
   * board (its home share). @throws CommandError('unknown_pair')
   */
  resolvePairTarget(target: string): string {
    if (this.fabric.hasNode(target)) {
      const p = this.fabric.pairOfNode(target);
      return p.cfg.kind === 'shmc' ? p.cfg.name : `${p.cfg.name}/${target}`;
    }
    let fru: string | undefined;
    try {
      fru = this.shelf.resolve(target);
    } catch {
      fru = undefined;
    }
    if (fru !== undefined && this.fabric.hasNode(fru)) return this.resolvePairTarget(fru);
    this.fabric.pairOf(target); // throws unknown_pair
    return target;
  }

  private onHotSwap(fru: string, from: number, to: number, cause: HotSwapCause): void {
    if (this.stopped || !this.fabric.hasNode(fru)) return;
    const c = this.fabric.controller(fru);
    const slot = slotNumber(fru);
    if (to === 4) {
      if (slot >= 0) this.leaving.delete(slot);
      if (!this.faults?.holdsOff(fru) && !c.isPowered) c.powerOn('activated');
      return;
    }
    if (from === 4) for (const sh of this.sharesOfNode(fru)) this.display(fru, sh, 'failed', this.fabric.epochOf(fru, sh));
    if (from === 4 && PLANNED_LEAVE.has(cause)) {
      // Planned: the payload runs through M5/M6; its shares are handed over now.
      if (slot >= 0) this.leaving.add(slot);
      this.clock.setTimeout(() => this.handOverAll(fru), 0);
      return;
    }
    if (to === 0) {
      this.fabric.markFault(fru);
      c.powerOff('extracted', 'extracted');
    } else if (to === 1) {
      if (c.isPowered) c.powerOff('off', 'deactivated');
      if (slot >= 0) this.leaving.delete(slot);
    } else if (from === 4 || from === 5 || from === 6 || to === 7) {
      if (this.leaving.has(slot)) return; // still shutting down after a planned leave
      if (c.isPowered) {
        this.fabric.markFault(fru);
        c.powerOff('failed', cause === 'unexpectedDeactivation' ? 'payload fault' : `M${to}`);
      }
    }
  }

  /** Hands every share the node owns to its peer (planned deactivation); refusals are logged. */
  private handOverAll(node: string): void {
    if (this.stopped) return;
    for (const s of this.sharesOfNode(node)) {
      if (this.fabric.ownerOf(s) !== node) continue;
      try {
        this.perform({ op: 'switchover', pair: s });
      } catch (e) {
        if (!(e instanceof CommandError)) throw e;
        this.log.warn({ category: 'ha', node, share: s, code: e.code }, `${node} leaves M4: ${s} not handed over (${e.message}); the peer takes over when it powers off`);
      }
    }
  }

  private resetNode(node: string, cause: string): void {
    const c = this.fabric.controller(node);
    const busy = c.isPowered && this.sharesOfNode(node).some((s) => {
      const snap = c.snapshot(s);
      return snap.matches({ role: { active: 'finalSync' } }) || snap.matches({ role: { active: 'handingOver' } });
    });
    if (!busy) {
      c.hardwareReset(cause);
      return;
    }
    // The node is handing its shares over (a switchover requested just before): reset after it.
    const t = this.clock.setTimeout(() => {
      this.pendingReset.delete(node);
      c.hardwareReset(cause);
    }, this.fabric.cfg.handoverTimeoutMs + this.fabric.cfg.heartbeatMs);
    this.pendingReset.set(node, t);
  }

  private gateOut(slot: number): void {
    if (this.stopped || !this.dp.isInService(slot)) return;
    try {
      this.dp.setInService(slot, false);
    } catch (e) {
      this.log.error({ category: 'ha', slot, err: String(e) }, 'could not take a board out of service');
    }
  }

  private gateIn(node: string): void {
    const slot = slotNumber(node);
    if (slot < 0 || this.stopped || this.dp.isInService(slot) || this.shelf.state(node) !== 4) return;
    const f = this.shelf.snapshot().frus.find((x) => x.name === node);
    if (f && !f.inService) return;
    try {
      this.dp.setInService(slot, true);
    } catch (e) {
      this.log.error({ category: 'ha', slot, err: String(e) }, 'could not put a board back in service');
    }
  }

  // ---------------------------------------------------------------- observer: roles, SEL

  private observer(): HaObserver {
    return {
      roleChanged: (e) => {
        this.display(e.node, e.share, e.to, e.epoch);
        const t = this.pendingReset.get(e.node);
        if (t !== undefined && (e.to === 'standby.ready' || e.to === 'standby.hot' || e.to === 'failed')) {
          this.clock.clearTimeout(t);
          this.pendingReset.delete(e.node);
          this.clock.setTimeout(() => this.fabric.controller(e.node).hardwareReset('fru-control cold-reset'), 0);
        }
      },
      alarm: (e) => {
        const key = `${e.node}|${e.share}|${e.alarm}`;
        if (e.raised) this.alarmSince.set(key, this.clock.now());
        else this.alarmSince.delete(key);
        this.log.info({ category: 'ha-alarm', node: e.node, share: e.share, alarm: e.alarm, raised: e.raised }, `${e.node} ${e.share}: ${e.alarm} ${e.raised ? 'raised' : 'cleared'}`);
      },
      watchdog: (e) => {
        if (!e.event.log) return;
        const fru = this.shelf.fruConfig(e.node);
        try {
          this.shelf.sel.log({
            generatorId: generatorIdForIpmb(fru.ipmbAddress),
            sensorType: WATCHDOG2,
            sensorNumber: eventSensor(fru, 'watchdog')?.number ?? HA_WATCHDOG_SENSOR,
            eventDirType: 0x6f,
            eventData: [0xc0 | (e.event.sensorOffset & 0x0f), (e.event.interrupt << 4) | e.event.use, 0xff],
          });
        } catch (err) {
          this.log.error({ category: 'sel', err: String(err) }, 'watchdog SEL record not written');
        }
        this.log.warn({ category: 'watchdog', node: e.node, kind: e.event.kind, action: e.event.action }, `${e.node}: IPMI watchdog ${e.event.kind}`);
      },
      hardware: (e) => this.log.info({ category: 'ha-hardware', node: e.node, what: e.what, cause: e.cause }, `${e.node}: ${e.what} (${e.cause})`),
      handoverAborted: (e) => {
        try {
          this.shelf.roles.handoverAborted(e.node, e.reason === 'final_sync_unacked' ? 1 : 2, e.epoch);
        } catch (err) {
          this.log.error({ category: 'sel', err: String(err) }, 'handover-aborted SEL record not written');
        }
      },
    };
  }

  /** Shows a role on the shelf (persisted, SEL). 'active.handover' is not a shelf role: skipped. */
  private display(node: string, share: string, role: WireRole, epoch: number): void {
    if (role === 'active.handover' || this.stopped) return;
    // A FRU leaving M4 (M5/M6: its payload is going down) or out of it shows failed.
    if (this.shelf.state(node) !== 4) role = 'failed';
    const p = this.fabric.pairOfNode(node);
    try {
      this.shelf.roles.set(node, role as HaRoleName, epoch, p.cfg.kind === 'shmc' ? {} : { share });
    } catch (e) {
      this.log.error({ category: 'ha-role', node, share, err: String(e) }, 'role not recorded on the shelf');
    }
  }

  // ---------------------------------------------------------------- IPMI hooks

  private shmcPair(): PairConfig | undefined {
    return this.pairs.find((p) => p.kind === 'shmc');
  }

  /** The IPMI switchover of the ShMC pair: synchronous (the shelf address moves before it returns). */
  private ipmiSwitchover(r: { reason: SwitchoverReason; from: string; to: string }): void {
    const pair = this.shmcPair();
    if (!pair || !pair.members.includes(r.from) || !pair.members.includes(r.to)) throw new CommandError('no_standby', 'the shelf managers are not an HA pair');
    const share = pair.name;
    if (this.fabric.ownerOf(share) !== r.from) throw new CommandError('not_active', `${r.from} is not the active shelf manager`);
    try {
      this.perform({ op: 'switchover', pair: share });
    } catch (e) {
      if (e instanceof CommandError) {
        const refused = new CommandError(e.code, `${r.to} cannot take over: ${e.code.replace(/_/g, ' ')} (${e.message})`);
        this.log.warn({ category: 'switchover-refused', from: r.from, to: r.to, reason: r.reason, code: e.code }, `shelf-manager switchover (${r.reason}) refused: ${refused.message}`);
        throw refused;
      }
      throw e;
    }
    // The machines finish the handover within milliseconds; the shelf address moves now.
    const epoch = Math.max(this.fabric.epochOf(r.from, share), this.fabric.epochOf(r.to, share), this.fabric.backplane(share).epochOf(share)) + 1;
    this.display(r.to, share, 'active', epoch);
    this.display(r.from, share, 'standby.ready', this.fabric.epochOf(r.from, share));
    this.clock.setTimeout(() => this.reconcile(pair), this.fabric.cfg.handoverTimeoutMs + 2 * this.fabric.cfg.heartbeatMs);
  }

  /** Puts the machines' roles of a pair back on the shelf (after an eager display). */
  private reconcile(pair: PairConfig): void {
    if (this.stopped) return;
    for (const n of pair.members) for (const s of this.sharesOfNode(n)) this.display(n, s, this.fabric.roleOf(n, s), this.fabric.epochOf(n, s));
  }

  private shmStatus(): ShmStatus {
    const pair = this.shmcPair();
    const shmcs = this.shelf.fruNames().filter((n) => this.shelf.fruConfig(n).kind === 'shmc');
    const self = this.shelf.activeShmc() ?? shmcs[0]!;
    const peer = shmcs.find((n) => n !== self);
    const role = (n: string): HaRoleName => {
      // The roles the shelf shows (what the shelf address follows); the machine's when none is shown.
      const shown = this.shelf.roles.of(n).find((r) => r.key === n)?.role;
      if (shown) return shown;
      if (!pair || !this.fabric.hasNode(n)) return 'failed';
      const r = this.fabric.roleOf(n, pair.name);
      return r === 'active.handover' ? 'active' : r;
    };
    const s: ShmStatus = {
      self,
      role: role(self),
      peerRole: peer === undefined || this.shelf.state(peer) === 0 ? 'absent' : role(peer),
      epoch: pair && this.fabric.hasNode(self) ? this.fabric.epochOf(self, pair.name) : 0,
    };
    if (peer) s.peer = peer;
    return s;
  }

  private watchdogPort(shmc: string): WatchdogPort | undefined {
    if (!this.fabric.hasNode(shmc)) return undefined;
    const wd = this.fabric.watchdog(shmc);
    return { ownedByHa: true, set: (s) => wd.set(s), reset: () => wd.reset(), get: () => wd.get() };
  }
}
