/**
 * The hardware lines between the two members of a redundant pair, modelled on PICMG shelf-manager
 * redundancy (Pigeon Point ShMM cross-connected PRESENT / HEALTHY / switchover lines and the
 * ShMM-1500R FPGA that lets only one of the pair be active; ../shared/research/ha.md §3.2, §5.1).
 *
 * Per node: PRESENT (board inserted), HEALTHY (asserted by software after init; cleared by the
 * hardware on reset or power loss), and one ACTIVE line per channel. A channel is what a member
 * machine arbitrates: the ShMC pair has one ('shmc'); a processor-board pair has one per share
 * ('lb1/slot3', 'lb1/slot4'), since each board is active for its own share and standby for its
 * buddy's. The interlock (per backplane) lets a node assert a channel's ACTIVE only while the
 * peer's ACTIVE for that channel is low; turning it off is the documented way to allow two actives
 * (ha.md S24). Lines change instantly (no propagation delay) and cannot be partitioned.
 *
 * The backplane also keeps, per channel, the highest activation epoch ever claimed (an epoch
 * register in shared shelf hardware, as a shelf FRU record would hold it): a node that was down
 * when its peer took over still activates with a higher epoch, so epochs never repeat.
 *
 * Faults: `stickHealthy(node, 'low'|'high')` overrides what the node drives; power states
 * 'off' | 'reset' | 'failed' drop HEALTHY and every ACTIVE in hardware at the same instant (and
 * forget the software's intent, so the node must assert them again after it boots); 'extracted'
 * also drops PRESENT.
 *
 * Pure: no timers, no I/O. Listeners run synchronously after every effective change.
 */
import { CommandError } from '../../board/common/errors.ts';

/** Hardware state of a node's payload as the backplane sees it. */
export type NodePower = 'on' | 'off' | 'reset' | 'failed' | 'extracted';

/** Effective line levels of one node for one channel. */
export interface LineState {
  present: boolean;
  healthy: boolean;
  active: boolean;
}

/** One effective change: `node`'s lines (all channels) before and after. */
export interface LineChange {
  node: string;
  /** Channel → ACTIVE level, plus node-wide PRESENT/HEALTHY. */
  before: NodeLines;
  after: NodeLines;
}

/** All of a node's effective lines. */
export interface NodeLines {
  present: boolean;
  healthy: boolean;
  /** ACTIVE per channel. */
  active: Record<string, boolean>;
  power: NodePower;
}

/**
 * What a node controller needs from the backplane (in-process: `Backplane`; the split shelf
 * (docs/split.md) can implement it over its shelf connection).
 */
export interface BackplanePort {
  /** Effective lines of `node` for `channel`. @throws CommandError('unknown_node'|'unknown_channel'). */
  lines(node: string, channel: string): LineState;
  /** True while the hardware interlock is on. */
  readonly interlock: boolean;
  /** Software drives HEALTHY (no effect while the node is not powered on). */
  setHealthy(node: string, healthy: boolean): void;
  /**
   * Software asserts ACTIVE for `channel` with its activation `epoch`. @returns false when refused:
   * the node is not powered on, or the interlock is on and the peer's ACTIVE for the channel is high.
   */
  claimActive(node: string, channel: string, epoch?: number): boolean;
  /** Highest activation epoch ever claimed on `channel` (the shelf's epoch register; 0 if none). */
  epochOf(channel: string): number;
  /** Software releases ACTIVE for `channel`. */
  releaseActive(node: string, channel: string): void;
  /** Subscribes to effective changes; returns an unsubscribe function. */
  onChange(fn: (c: LineChange) => void): () => void;
  /** Hardware: the node's payload power state (anything but 'on' drops HEALTHY and ACTIVE at once). */
  setPower(node: string, power: NodePower): void;
}

interface NodeHw {
  power: NodePower;
  healthyIntent: boolean;
  activeIntent: Set<string>;
  stuck: 'low' | 'high' | null;
}

/** The in-process backplane of one pair. */
export class Backplane implements BackplanePort {
  private readonly hw = new Map<string, NodeHw>();
  private readonly listeners = new Set<(c: LineChange) => void>();
  private interlockOn = true;
  private readonly epochs = new Map<string, number>();
  /** Claims refused by the interlock (for reports). */
  refusedClaims = 0;

  /**
   * @param nodes    the two members, e.g. ['shmc-a', 'shmc-b'] or ['slot3', 'slot4']
   * @param channels what is arbitrated, e.g. ['shmc'] or ['lb1/slot3', 'lb1/slot4']
   * @throws CommandError('bad_pair') unless exactly two distinct nodes and at least one channel
   */
  constructor(readonly nodes: readonly [string, string], readonly channels: readonly string[]) {
    if (nodes[0] === nodes[1]) throw new CommandError('bad_pair', `backplane: the two nodes must differ (${nodes[0]})`);
    if (channels.length === 0) throw new CommandError('bad_pair', 'backplane: at least one channel');
    for (const n of nodes) this.hw.set(n, { power: 'off', healthyIntent: false, activeIntent: new Set(), stuck: null });
  }

  get interlock(): boolean {
    return this.interlockOn;
  }

  /** The other member. @throws CommandError('unknown_node'). */
  peerOf(node: string): string {
    this.node(node);
    return this.nodes[0] === node ? this.nodes[1] : this.nodes[0];
  }

  lines(node: string, channel: string): LineState {
    if (!this.channels.includes(channel)) throw new CommandError('unknown_channel', `backplane: unknown channel ${channel}`);
    const l = this.nodeLines(node);
    return { present: l.present, healthy: l.healthy, active: l.active[channel]! };
  }

  /** All effective lines of a node. @throws CommandError('unknown_node'). */
  nodeLines(node: string): NodeLines {
    const h = this.node(node);
    const on = h.power === 'on';
    const active: Record<string, boolean> = {};
    for (const c of this.channels) active[c] = on && h.activeIntent.has(c);
    return {
      present: h.power !== 'extracted',
      healthy: h.stuck === 'high' ? true : h.stuck === 'low' ? false : on && h.healthyIntent,
      active,
      power: h.power,
    };
  }

  /** The level HEALTHY would have without a stuck fault (for the I6 audit). */
  drivenHealthy(node: string): boolean {
    const h = this.node(node);
    return h.power === 'on' && h.healthyIntent;
  }

  setHealthy(node: string, healthy: boolean): void {
    this.mutate(node, (h) => {
      if (h.power === 'on') h.healthyIntent = healthy;
    });
  }

  claimActive(node: string, channel: string, epoch = 0): boolean {
    if (!this.channels.includes(channel)) throw new CommandError('unknown_channel', `backplane: unknown channel ${channel}`);
    const h = this.node(node);
    if (h.power !== 'on') return false;
    if (!h.activeIntent.has(channel) && this.interlockOn && this.lines(this.peerOf(node), channel).active) {
      this.refusedClaims++;
      return false;
    }
    if (epoch > (this.epochs.get(channel) ?? 0)) this.epochs.set(channel, epoch);
    if (!h.activeIntent.has(channel)) this.mutate(node, (x) => x.activeIntent.add(channel));
    return true;
  }

  epochOf(channel: string): number {
    if (!this.channels.includes(channel)) throw new CommandError('unknown_channel', `backplane: unknown channel ${channel}`);
    return this.epochs.get(channel) ?? 0;
  }

  releaseActive(node: string, channel: string): void {
    if (!this.channels.includes(channel)) throw new CommandError('unknown_channel', `backplane: unknown channel ${channel}`);
    this.mutate(node, (h) => h.activeIntent.delete(channel));
  }

  /**
   * Hardware: sets the node's payload power state. Anything but 'on' clears HEALTHY and every
   * ACTIVE (and the software's intent) at the same instant.
   */
  setPower(node: string, power: NodePower): void {
    this.mutate(node, (h) => {
      h.power = power;
      if (power !== 'on') {
        h.healthyIntent = false;
        h.activeIntent.clear();
      }
    });
  }

  /** Hardware fault: HEALTHY reads `level` whatever the node drives; null clears the fault. */
  stickHealthy(node: string, level: 'low' | 'high' | null): void {
    this.mutate(node, (h) => {
      h.stuck = level;
    });
  }

  /** The stuck-HEALTHY fault of a node, if any. */
  stuckHealthy(node: string): 'low' | 'high' | null {
    return this.node(node).stuck;
  }

  /** Turns the interlock on or off (off allows two ACTIVEs: ha.md S24). Emits no line change. */
  setInterlock(on: boolean): void {
    if (this.interlockOn === on) return;
    this.interlockOn = on;
    // Listeners re-read the interlock with the lines; report it as a change of both nodes.
    for (const n of this.nodes) {
      const l = this.nodeLines(n);
      this.emit({ node: n, before: l, after: l });
    }
  }

  onChange(fn: (c: LineChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private node(node: string): NodeHw {
    const h = this.hw.get(node);
    if (!h) throw new CommandError('unknown_node', `backplane: unknown node ${node}`);
    return h;
  }

  private mutate(node: string, f: (h: NodeHw) => void): void {
    const h = this.node(node);
    const before = this.nodeLines(node);
    f(h);
    const after = this.nodeLines(node);
    if (!sameLines(before, after)) this.emit({ node, before, after });
  }

  private emit(c: LineChange): void {
    for (const fn of [...this.listeners]) fn(c);
  }
}

function sameLines(a: NodeLines, b: NodeLines): boolean {
  if (a.present !== b.present || a.healthy !== b.healthy || a.power !== b.power) return false;
  for (const k of Object.keys(a.active)) if (a.active[k] !== b.active[k]) return false;
  return true;
}
