/**
 * The faults of a node's software and environment, over per-node clocks: every node of the fabric
 * runs its control loop and its data path on two NodeClocks (node-clock.ts) over the fabric's base
 * clock, so that a hang (both frozen until the watchdog resets the node or `heal`), a GC pause
 * (both frozen for a while), a stalled control loop (S06: control frozen, data running), an NTP
 * slew or a wall-clock step affect that node only. A reset or power loss drops the software's
 * pending timers and ends any freeze; so does the next boot. The uplink state and the fault marks
 * the takeover ledger measures from (`lastFaultAt`, `recovering`) are kept here too.
 *
 * The data model hears when a node's data path stops and resumes (`data-stopped`, `data-resumed`).
 * Used by the simulator (ha-simulator.ts) in scenarios and, for the live shelf's operator hang, by
 * `atcasim start`. Pure over the base clock.
 */
import { CommandError } from '../../board/common/errors.ts';
import type { HaFabric, NodeClocks } from '../ha/ha-fabric.ts';
import { NodeClock } from './node-clock.ts';

/** A node's simulated state. */
export interface SimNode {
  readonly name: string;
  readonly control: NodeClock;
  readonly data: NodeClock;
  uplink: boolean;
  hung: boolean;
  stallControl: boolean;
  pauseGen: number;
  paused: boolean;
  /** Time of the last fault injected into this node (null after an operator switchover). */
  lastFaultAt: number | null;
  /** Had a node fault and is not yet back to active / standby.hot everywhere. */
  recovering: boolean;
}

/** See the module header. */
export class NodeFaults {
  private fabric!: HaFabric;
  private readonly nodes = new Map<string, SimNode>();
  /** Time of the last action on each pair (fault or operator request), ms. */
  private readonly actionAt = new Map<string, number>();

  /** Called by the simulator when the fabric attaches. */
  attach(fabric: HaFabric): void {
    this.fabric = fabric;
  }

  /** The clocks of a new node (the fabric's `nodeClocks` hook). */
  clocks(name: string): NodeClocks {
    const control = new NodeClock(this.fabric.clock);
    const data = new NodeClock(this.fabric.clock);
    this.nodes.set(name, {
      name, control, data, uplink: true, hung: false, stallControl: false, pauseGen: 0, paused: false, lastFaultAt: null, recovering: false,
    });
    return { control, data, wallNow: () => control.wallNow() };
  }

  /** A node's state. @throws CommandError('unknown_node') */
  node(name: string): SimNode {
    const n = this.nodes.get(name);
    if (!n) throw new CommandError('unknown_node', `unknown node "${name}" (known: ${[...this.nodes.keys()].join(', ')})`);
    return n;
  }

  /** Every node, in fabric order. */
  all(): IterableIterator<SimNode> {
    return this.nodes.values();
  }

  /**
   * Hangs running software (its armed watchdog then resets it).
   * @throws CommandError('not_running') while the node is off, in reset or booting: there is no
   *   running software (and no armed watchdog: a frozen boot would never end)
   */
  hang(n: SimNode, now: number): void {
    const c = this.fabric.controller(n.name);
    if (!c.isRunning) {
      const why = !c.isPowered ? 'powered off' : c.inReset ? 'in reset' : 'booting (its watchdog is not armed yet)';
      throw new CommandError('not_running', `${n.name} is not running (${why}): nothing to hang`);
    }
    this.fault(n, now);
    n.hung = true;
    this.freezeData(n, now);
    n.control.freeze();
  }

  /** Stops the control loop only (S06: the data path keeps running). */
  stallControl(n: SimNode, now: number): void {
    this.fault(n, now);
    n.stallControl = true;
    n.control.freeze();
  }

  /** Freezes the node's software for `ms` (a GC pause); `onEnd` runs when the pause ends by itself. */
  pause(n: SimNode, now: number, ms: number, onEnd: () => void): void {
    this.fault(n, now);
    n.paused = true;
    this.freezeData(n, now);
    n.control.freeze();
    const gen = ++n.pauseGen;
    this.fabric.clock.setTimeout(() => {
      if (n.pauseGen !== gen || !n.paused) return;
      n.paused = false;
      if (!n.hung) this.thaw(n);
      onEnd();
    }, ms);
  }

  /** Ends a hang, pause or control stall. */
  heal(n: SimNode): void {
    this.clearFreezeFlags(n);
    this.thaw(n);
  }

  /** The node's uplink went down or came back. */
  setUplink(n: SimNode, up: boolean, now: number): void {
    if (!up) this.fault(n, now);
    n.uplink = up;
    if (!up) this.fabric.model.nodeEvent?.(n.name, 'data-stopped', now);
    this.fabric.controller(n.name).setUplink(up);
  }

  /** Marks a fault injected into `n` now (the instant a takeover is measured from). */
  fault(n: SimNode, now: number): void {
    n.lastFaultAt = now;
    this.actionAt.set(this.fabric.pairOfNode(n.name).cfg.name, now);
  }

  /** Notes an action on `pair` now (power-on, link faults, operator requests). */
  pairAction(pair: string, now: number): void {
    this.actionAt.set(pair, now);
  }

  /** Time of the last action on `pair` (0 before any). */
  lastActionAt(pair: string): number {
    return this.actionAt.get(pair) ?? 0;
  }

  /** The node's software state is lost (the fabric's `softwareLost` hook): its freeze ends. */
  softwareLost(name: string): void {
    this.endFreeze(this.node(name));
  }

  /** The payload is powered (again): its software boots fresh, whatever was frozen before. */
  softwareBoot(name: string): void {
    const n = this.node(name);
    if (n.hung || n.stallControl || n.paused || n.control.isFrozen || n.data.isFrozen) this.endFreeze(n);
  }

  /** True when the node counts as a faulty component (an active fault, a stuck HEALTHY, a slewed clock, or still recovering). */
  faulty(n: SimNode): boolean {
    const stuck = this.fabric.pairOfNode(n.name).backplane.stuckHealthy(n.name) !== null;
    return n.hung || n.paused || n.stallControl || !n.uplink || stuck || n.control.slewPpm !== 0 || n.recovering;
  }

  private freezeData(n: SimNode, now: number): void {
    this.fabric.model.nodeEvent?.(n.name, 'data-stopped', now);
    n.data.freeze();
  }

  private thaw(n: SimNode): void {
    n.data.thaw();
    if (!n.stallControl && !n.hung && !n.paused) n.control.thaw();
    if (n.uplink) this.fabric.model.nodeEvent?.(n.name, 'data-resumed', this.fabric.now());
  }

  /** Drops the node's software timers and ends any hang, pause or control stall. */
  private endFreeze(n: SimNode): void {
    n.control.discard();
    n.data.discard();
    this.clearFreezeFlags(n);
  }

  /** No hang, control stall or pause any more; a pending pause's end timer is made stale. */
  private clearFreezeFlags(n: SimNode): void {
    n.hung = false;
    n.stallControl = false;
    n.paused = false;
    n.pauseGen++;
  }
}
