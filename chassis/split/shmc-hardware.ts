/**
 * What the shelf's hardware holds for its two external shelf managers (the split shelf, docs/split.md):
 * the ShMC pair's backplane lines (PRESENT / HEALTHY / ACTIVE on the one channel 'shmc', and the
 * interlock: chassis/model/backplane.ts) and each ShMC's IPMI watchdog (chassis/model/ipmi-watchdog.ts),
 * counting down on the shelf's Clock.
 *
 * - A ShMC's payload is powered ('on') from its registration on the bus until its connection
 *   closes ('off': HEALTHY and ACTIVE drop at that instant, the interlock frees the peer) or its
 *   watchdog expires.
 * - The watchdog keeps counting while the connection is gone (it is shelf hardware): a ShMC killed
 *   with its watchdog running is reset when it expires, as a hung one is.
 * - Expiry runs the programmed timeout action (IPMI v2.0 §27.7): hard reset / power cycle →
 *   `resetDecision` 'reset' (lines low, power 'reset', and the `reset` port is called: the I/O side
 *   kills the process and starts it again); power down → 'off' (lines low, nothing restarted);
 *   none → 'log' (logged only).
 *
 * Pure: time from the Clock, no I/O.
 */
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import { Backplane } from '../model/backplane.ts';
import type { NodePower } from '../model/backplane.ts';
import { firmwareWatchdogSettings, IpmiWatchdog, TimeoutAction } from '../model/ipmi-watchdog.ts';
import type { WatchdogEvent } from '../model/ipmi-watchdog.ts';
import type { BusLines, ShmcNode } from './bus-codec.ts';

/** The two ShMC node names, in order. */
export const SHMC_NODES: readonly [ShmcNode, ShmcNode] = ['shmc-a', 'shmc-b'];
/** The ShMC pair's one arbitrated channel. */
export const SHMC_CHANNEL = 'shmc';

/** What a watchdog expiry does to a ShMC. */
export type ResetDecision = 'reset' | 'off' | 'log';

/**
 * The decision for an expiry event (IPMI v2.0 §27.7 timeout actions).
 * @returns 'reset' for hard reset and power cycle, 'off' for power down, 'log' for no action
 */
export function resetDecision(e: Pick<WatchdogEvent, 'action'>): ResetDecision {
  switch (e.action) {
    case TimeoutAction.hardReset:
    case TimeoutAction.powerCycle:
      return 'reset';
    case TimeoutAction.powerDown:
      return 'off';
    default:
      return 'log';
  }
}

/** The lines one ShMC sees: its own, its peer's, the interlock and the epoch register. */
export interface LinesView {
  self: BusLines;
  peer: BusLines;
  interlock: boolean;
  epoch: number;
}

/** Ports of the hardware model. */
export interface ShmcHardwarePorts {
  clock: Clock;
  log: Logger;
  /** The watchdog of `node` expired with a reset action: kill the process and start it again. */
  reset(node: ShmcNode, e: WatchdogEvent): void;
  /** The watchdog of `node` expired with power-down: kill the process, start nothing. */
  powerDown?(node: ShmcNode, e: WatchdogEvent): void;
}

/** See the module header. */
export class ShmcHardware {
  readonly backplane = new Backplane(SHMC_NODES, [SHMC_CHANNEL]);
  private readonly watchdogs = new Map<ShmcNode, IpmiWatchdog>();
  /** Expiries per node (reports, maint). */
  readonly expiries: Record<ShmcNode, number> = { 'shmc-a': 0, 'shmc-b': 0 };

  constructor(private readonly ports: ShmcHardwarePorts) {
    for (const n of SHMC_NODES) {
      const wd = new IpmiWatchdog(ports.clock);
      wd.onExpire((e) => this.onExpire(n, e));
      this.watchdogs.set(n, wd);
    }
  }

  /** The node's IPMI watchdog (Get Watchdog Timer over LAN reads it). */
  watchdog(node: ShmcNode): IpmiWatchdog {
    return this.watchdogs.get(node)!;
  }

  /** A ShMC process registered: its payload is powered. */
  connect(node: ShmcNode): void {
    this.backplane.setPower(node, 'on');
  }

  /** Its connection closed: every line drops now; the watchdog keeps counting. */
  disconnect(node: ShmcNode): void {
    if (this.power(node) === 'on') this.backplane.setPower(node, 'off');
  }

  /** Software drives HEALTHY. */
  setHealthy(node: ShmcNode, on: boolean): void {
    this.backplane.setHealthy(node, on);
  }

  /** Software asserts ACTIVE. @returns false when refused (not powered, or the interlock and the peer's ACTIVE). */
  claim(node: ShmcNode, epoch: number): boolean {
    return this.backplane.claimActive(node, SHMC_CHANNEL, epoch);
  }

  /** Software releases ACTIVE. */
  release(node: ShmcNode): void {
    this.backplane.releaseActive(node, SHMC_CHANNEL);
  }

  /** The firmware programs its watchdog (hard reset after `timeoutMs`) and starts it. */
  watchdogSet(node: ShmcNode, timeoutMs: number): void {
    const wd = this.watchdog(node);
    if (wd.set(firmwareWatchdogSettings(timeoutMs)) === 'ok') wd.kick();
    else this.ports.log.warn({ category: 'watchdog', node, timeoutMs }, 'watchdog settings refused');
  }

  /** The firmware kicks its watchdog (only while powered: a dead process cannot kick). */
  kick(node: ShmcNode): void {
    if (this.power(node) === 'on') this.watchdog(node).kick();
  }

  /** The firmware stops its watchdog. */
  watchdogStop(node: ShmcNode): void {
    this.watchdog(node).stop();
  }

  /** Payload power of a node. */
  power(node: ShmcNode): NodePower {
    return this.backplane.nodeLines(node).power;
  }

  /** What `node` sees. */
  view(node: ShmcNode): LinesView {
    const peer = node === 'shmc-a' ? 'shmc-b' : 'shmc-a';
    return { self: this.busLines(node), peer: this.busLines(peer), interlock: this.backplane.interlock, epoch: this.backplane.epochOf(SHMC_CHANNEL) };
  }

  /** Subscribes to every effective line change. @returns unsubscribe */
  onChange(fn: () => void): () => void {
    return this.backplane.onChange(() => fn());
  }

  /** Stops both watchdogs (shutdown). */
  dispose(): void {
    for (const wd of this.watchdogs.values()) wd.stop();
  }

  private busLines(node: ShmcNode): BusLines {
    const l = this.backplane.nodeLines(node);
    return { present: l.present, healthy: l.healthy, active: l.active[SHMC_CHANNEL] ?? false, power: l.power === 'on' ? 'on' : l.power === 'reset' ? 'reset' : 'off' };
  }

  private onExpire(node: ShmcNode, e: WatchdogEvent): void {
    this.expiries[node]++;
    const d = resetDecision(e);
    this.ports.log.warn({ category: 'watchdog', node, action: d }, `${node}: IPMI watchdog expired (${d})`);
    if (d === 'log') return;
    this.watchdog(node).stop();
    this.backplane.setPower(node, d === 'reset' ? 'reset' : 'off');
    if (d === 'reset') this.ports.reset(node, e);
    else this.ports.powerDown?.(node, e);
  }
}
