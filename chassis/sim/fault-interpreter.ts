/**
 * The fault interpreter: runs the simulation's actions (sim-actions.ts) on a fabric — node faults
 * through NodeFaults and the node controllers, link faults on the simulated links, the interlock
 * on every backplane, operator requests (switchover, blue/green shift, upgrade) through the
 * fabric — checks them first (names, directions), schedules them at a time, and records each one
 * in the timeline (ok or refused) with an audit after it, when the simulator records.
 *
 * A refusal is a CommandError: thrown by `perform`, recorded (not thrown) for a scheduled action.
 * Pure over the fabric's clock.
 */
import { CommandError } from '../../board/common/errors.ts';
import type { FabricPair, HaFabric } from '../ha/ha-fabric.ts';
import { parseVersion } from '../ha/heartbeat.ts';
import type { SimPairLinks } from './links.ts';
import type { NodeFaults, SimNode } from './node-faults.ts';
import { formatAction, parseAction } from './sim-actions.ts';
import type { SimAction } from './sim-actions.ts';

/** What the interpreter records to (the simulator's timeline and audit); absent on the live shelf. */
export interface ActionRecorder {
  /** The action `text` ran at `t` (error: 'code: message' when refused). */
  action(t: number, text: string, error?: string): void;
  /** Checks the invariants (after every action). */
  audit(): void;
}

type LinkAction = Extract<SimAction, { link: unknown }>;
type NodeAction = Exclude<SimAction, LinkAction | { op: 'interlock' | 'switchover' | 'shift' }>;

/** See the module header. */
export class FaultInterpreter {
  private interlockOff = false;

  /**
   * @param fabric   the wired pairs
   * @param nodes    the nodes' clocks and fault state
   * @param links    the simulated links of each pair by name (null: the pairs use real links, and
   *                 link faults are refused)
   * @param recorder where actions are recorded (null: nothing is)
   */
  constructor(
    private readonly fabric: HaFabric,
    private readonly nodes: NodeFaults,
    private readonly links: ReadonlyMap<string, SimPairLinks> | null,
    private readonly recorder: ActionRecorder | null,
  ) {}

  /** True while the interlock is off (an `interlock off` action or the initial conditions). */
  get interlockIsOff(): boolean {
    return this.interlockOff;
  }

  /**
   * Checks an action (names, directions) without running it.
   * @throws CommandError('bad_action' | 'bad_duration' | 'unknown_node' | 'unknown_pair')
   */
  validate(a: SimAction): void {
    switch (a.op) {
      case 'interlock':
        return;
      case 'cut':
      case 'restore':
      case 'delay':
      case 'jitter':
      case 'flap':
      case 'lossy': {
        const links = this.pairLinks(this.fabric.pairOf(a.pair));
        if (a.op === 'cut' && a.from !== undefined) links.byName[a.link].select(a.from, a.to);
        return;
      }
      case 'switchover':
      case 'shift': {
        const p = this.fabric.pairOf(a.pair);
        if (a.op === 'shift' && p.cfg.kind === 'shmc') throw new CommandError('bad_action', `shift: ${a.pair} carries no traffic (shelf managers)`);
        return;
      }
      case 'upgrade':
        this.fabric.node(a.node);
        parseVersion(a.version);
        return;
      default:
        this.fabric.node(a.node);
    }
  }

  /**
   * Schedules an action at absolute time `atMs` (default now). Names are checked now.
   * @throws CommandError for unparsable text, unknown nodes or pairs, or a time in the past.
   *   Refusals at run time are recorded in the timeline, not thrown.
   */
  apply(action: SimAction | string, atMs: number = this.fabric.now()): SimAction {
    const a = typeof action === 'string' ? parseAction(action) : action;
    this.validate(a);
    const clock = this.fabric.clock;
    if (!(atMs >= clock.now())) throw new CommandError('bad_action', `action "${formatAction(a)}" at ${atMs} ms is in the past (now ${clock.now()} ms)`);
    clock.setTimeout(() => this.execute(a, true), atMs - clock.now());
    return a;
  }

  /**
   * Runs an action now and records it.
   * @throws CommandError when it is refused (also recorded)
   */
  perform(a: SimAction): void {
    this.validate(a);
    const err = this.execute(a, true);
    if (err) throw err;
  }

  /** Runs an action; records it (when `record`); returns the refusal (CommandError) if any. */
  execute(a: SimAction, record: boolean): CommandError | null {
    const now = this.fabric.now();
    const text = formatAction(a);
    let err: CommandError | null = null;
    try {
      this.run(a, now);
      if (record) this.recorder?.action(now, text);
    } catch (e) {
      if (!(e instanceof CommandError)) throw e;
      err = e;
      if (record) this.recorder?.action(now, text, `${e.code}: ${e.message}`);
    }
    this.recorder?.audit();
    return err;
  }

  /** Turns the interlock of every pair on or off. */
  setInterlock(on: boolean): void {
    this.interlockOff = !on;
    for (const p of this.fabric.pairNames()) this.fabric.backplane(p).setInterlock(on);
  }

  private run(a: SimAction, now: number): void {
    switch (a.op) {
      case 'cut':
      case 'restore':
      case 'delay':
      case 'jitter':
      case 'flap':
      case 'lossy':
        return this.runLink(a, now);
      case 'interlock':
        return this.setInterlock(a.on);
      case 'switchover':
        return this.switchover(a.pair, now);
      case 'shift':
        return this.shift(a.pair, a.percent, now);
      default:
        return this.runNode(a, now);
    }
  }

  private runNode(a: NodeAction, now: number): void {
    const n = this.nodes.node(a.node);
    const c = this.fabric.controller(a.node);
    switch (a.op) {
      case 'crash':
        this.nodes.fault(n, now);
        c.hardwareReset('crash');
        return;
      case 'power-off':
      case 'deactivate':
      case 'extract':
      case 'fail':
        this.nodes.fault(n, now);
        c.powerOff(a.op === 'extract' ? 'extracted' : a.op === 'fail' ? 'failed' : 'off', a.op);
        return;
      case 'power-on':
      case 'activate':
      case 'insert':
      case 'repair':
        this.nodes.pairAction(this.pairNameOf(n), now);
        c.powerOn(a.op);
        return;
      case 'hang':
        return this.nodes.hang(n, now);
      case 'stall-control':
        return this.nodes.stallControl(n, now);
      case 'pause':
        return this.nodes.pause(n, now, a.ms, () => this.recorder?.audit());
      case 'heal':
        return this.nodes.heal(n);
      case 'cut-uplink':
      case 'restore-uplink':
        return this.nodes.setUplink(n, a.op === 'restore-uplink', now);
      case 'stick-healthy':
        if (a.level !== 'off') this.nodes.fault(n, now);
        this.fabric.pairOfNode(n.name).backplane.stickHealthy(n.name, a.level === 'off' ? null : a.level);
        return;
      case 'clock-jump':
        n.control.jump(a.ms);
        n.data.jump(a.ms);
        return;
      case 'ntp-slew':
        n.control.setSlewPpm(a.ppm);
        n.data.setSlewPpm(a.ppm);
        return;
      case 'upgrade':
        this.nodes.fault(n, now);
        c.upgrade(parseVersion(a.version));
        return;
    }
  }

  private runLink(a: LinkAction, now: number): void {
    const p = this.fabric.pairOf(a.pair);
    this.nodes.pairAction(p.cfg.name, now);
    const link = this.pairLinks(p).byName[a.link];
    if (a.op === 'restore') {
      link.restore();
      return;
    }
    for (const d of link.select(a.op === 'cut' ? a.from : undefined, a.op === 'cut' ? a.to : undefined)) {
      if (a.op === 'cut') d.cut = true;
      else if (a.op === 'delay') d.delayMs = a.ms;
      else if (a.op === 'jitter') d.jitterMs = a.ms;
      else if (a.op === 'flap') d.flap = { periodMs: a.periodMs, since: now };
      else if (a.op === 'lossy') d.lossPct = a.percent;
    }
  }

  /** Planned switchover: the members' fault marks are cleared (an operator request, not a fault). */
  private switchover(target: string, now: number): void {
    const p = this.fabric.pairOf(target);
    this.nodes.pairAction(p.cfg.name, now);
    this.fabric.switchover(target, () => {
      for (const m of p.cfg.members) this.nodes.node(m).lastFaultAt = null;
    });
  }

  /** Blue/green: `target` (a share, or the pair: the green node's home share) keeps `percent` of its new flows. */
  private shift(target: string, percent: number, now: number): void {
    const p = this.fabric.pairOf(target);
    this.nodes.pairAction(p.cfg.name, now);
    let share = target;
    if (!p.shares.includes(share)) {
      // The pair: the green node's (newest version; the second member on a tie) home share keeps PERCENT of its flows.
      const [m0, m1] = p.cfg.members;
      const v0 = this.fabric.controller(m0).softwareVersion;
      const v1 = this.fabric.controller(m1).softwareVersion;
      const green = v0.major > v1.major || (v0.major === v1.major && v0.minor > v1.minor) ? m0 : m1;
      share = `${p.cfg.name}/${green}`;
    }
    p.router.shift(share, percent);
  }

  private pairNameOf(n: SimNode): string {
    return this.fabric.pairOfNode(n.name).cfg.name;
  }

  private pairLinks(p: FabricPair): SimPairLinks {
    const l = this.links?.get(p.cfg.name);
    if (!l) throw new CommandError('bad_action', `pair ${p.cfg.name} runs on real links: link faults are simulated only`);
    return l;
  }
}
