/**
 * The simulated links between the two members of a pair: the `PairLinks` port of the node
 * controllers (chassis/ha/pair-link.ts) in simulated time, with the faults the scenarios inject.
 *
 * `FaultyLink` is one link (heartbeat or session sync) with its faults: cut (both ways or one way
 * A->B), added delay, random jitter, flapping (alternately down and up every PERIOD, starting
 * down), random loss in percent. A sender calls `send(from, to, deliver)`; the link decides
 * whether the datagram is lost and, if not, calls `deliver` after the one-way latency on its Clock.
 *
 * `SimPairLinks` puts a pair's heartbeats on one FaultyLink and its sync datagrams on another and
 * delivers them straight to the peer's controller (`receiveHeartbeat` / `receiveSync`); with `wire`
 * every datagram goes through the codecs on the way. The live shelf and the split shelf use UDP
 * instead (chassis/io/udp-pair-link.ts); the controllers do not see the difference.
 *
 * Time: the Clock given (simulated). Randomness: the Random given (loss, jitter), so a seeded run is
 * deterministic. No I/O.
 */
import type { Clock } from '../../board/common/clock.ts';
import { CommandError } from '../../board/common/errors.ts';
import type { Random } from '../../board/common/random.ts';
import { heartbeatCodec } from '../ha/heartbeat.ts';
import type { PairLink, PairLinkReceiver, PairLinks } from '../ha/pair-link.ts';
import { syncCodec } from '../ha/sync-codec.ts';

/** Which link of a pair. */
export type LinkKind = 'heartbeat' | 'sync';

/** Fault state of one direction of a link. */
export interface LinkDirection {
  cut: boolean;
  /** Added one-way delay, ms. */
  delayMs: number;
  /** Extra random delay, uniformly 0..jitterMs, ms. */
  jitterMs: number;
  /** Random loss, percent 0..100. */
  lossPct: number;
  /** Flapping: down during even periods since `since`, up during odd ones. */
  flap: { periodMs: number; since: number } | null;
}

/** A fresh (healthy) direction. */
export function healthyDirection(): LinkDirection {
  return { cut: false, delayMs: 0, jitterMs: 0, lossPct: 0, flap: null };
}

/** One link between two nodes (two directions). */
export class FaultyLink {
  private readonly dirs = new Map<string, LinkDirection>();
  /** Datagrams offered / dropped (reports). */
  sent = 0;
  dropped = 0;

  /**
   * @param name      'heartbeat' or 'sync' (messages)
   * @param nodes     the two members
   * @param clock     delivery clock
   * @param random    loss and jitter draws
   * @param latencyMs base one-way latency, ms (default 0.1)
   */
  constructor(
    readonly name: LinkKind,
    readonly nodes: readonly [string, string],
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly latencyMs = 0.1,
  ) {
    for (const [a, b] of [[nodes[0], nodes[1]], [nodes[1], nodes[0]]] as const) this.dirs.set(`${a}>${b}`, healthyDirection());
  }

  /** The direction from → to. @throws CommandError('bad_action') for nodes not on this link. */
  dir(from: string, to: string): LinkDirection {
    const d = this.dirs.get(`${from}>${to}`);
    if (!d) throw new CommandError('bad_action', `${this.name} link: no direction ${from}->${to} (nodes ${this.nodes.join(', ')})`);
    return d;
  }

  /** Directions matching an optional one-way spec (both when `from` is undefined). @throws CommandError('bad_action') */
  select(from?: string, to?: string): LinkDirection[] {
    if (from === undefined) return [...this.dirs.values()];
    return [this.dir(from, to ?? '')];
  }

  /** Heals both directions (every fault cleared). */
  restore(): void {
    for (const k of [...this.dirs.keys()]) this.dirs.set(k, healthyDirection());
  }

  /** True when any fault is set on either direction. */
  impaired(): boolean {
    for (const d of this.dirs.values()) if (d.cut || d.delayMs || d.jitterMs || d.lossPct || d.flap) return true;
    return false;
  }

  /** True when a datagram sent now from → to would be dropped by a cut or a flap (loss aside). */
  isDown(from: string, to: string): boolean {
    const d = this.dir(from, to);
    return d.cut || (d.flap !== null && Math.floor((this.clock.now() - d.flap.since) / d.flap.periodMs) % 2 === 0);
  }

  /** Offers a datagram: dropped, or `deliver` runs after latency + delay + jitter. */
  send(from: string, to: string, deliver: () => void): void {
    const d = this.dir(from, to);
    this.sent++;
    if (this.isDown(from, to)) {
      this.dropped++;
      return;
    }
    if (d.lossPct > 0 && this.random.next() * 100 < d.lossPct) {
      this.dropped++;
      return;
    }
    const delay = this.latencyMs + d.delayMs + (d.jitterMs > 0 ? this.random.next() * d.jitterMs : 0);
    this.clock.setTimeout(deliver, delay);
  }
}

/**
 * A pair's simulated links: heartbeats on `heartbeat`, session sync on `sync`, each delivered to
 * the peer's receiver after the link's latency (or dropped by its faults).
 */
export class SimPairLinks implements PairLinks {
  private readonly rx = new Map<string, PairLinkReceiver>();
  private readonly ends = new Map<string, PairLink>();

  /**
   * @param heartbeat the pair's heartbeat link
   * @param sync      the pair's sync link (same two nodes)
   * @param wire      encode and decode every datagram through the codecs (slower; tests the wire)
   */
  constructor(readonly heartbeat: FaultyLink, readonly sync: FaultyLink, private readonly wire = false) {}

  /** Both links, by name. */
  get byName(): Record<LinkKind, FaultyLink> {
    return { heartbeat: this.heartbeat, sync: this.sync };
  }

  endpoint(node: string): PairLink {
    const [a, b] = this.heartbeat.nodes;
    if (node !== a && node !== b) throw new CommandError('unknown_node', `${node} is not on the links of ${a} and ${b}`);
    let end = this.ends.get(node);
    if (end) return end;
    const to = node === a ? b : a;
    end = {
      sendHeartbeat: (hb) => {
        const payload = this.wire ? heartbeatCodec.encode(hb) : null;
        this.heartbeat.send(node, to, () => this.rx.get(to)!.receiveHeartbeat(payload ? heartbeatCodec.decode(payload).value : hb));
      },
      sendSync: (share, d) => {
        const payload = this.wire ? syncCodec.encode(d) : null;
        this.sync.send(node, to, () => this.rx.get(to)!.receiveSync(share, payload ? syncCodec.decode(payload).value : d));
      },
    };
    this.ends.set(node, end);
    return end;
  }

  connect(node: string, rx: PairLinkReceiver): void {
    this.rx.set(node, rx);
  }
}
