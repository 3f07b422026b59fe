/**
 * UDP edge of the HA links: heartbeats and session-sync datagrams between the members of a pair
 * as real datagrams, one UDP flow per node and share (a sync datagram names no share, a heartbeat
 * does; one flow per share keeps both unambiguous, as keepalived and conntrackd keep one per
 * instance). The codecs and the classification of what arrives are the HA layer's
 * (chassis/ha/pair-link.ts `DatagramPairLink`); this file only binds, sends and receives.
 *
 * - `UdpFlow`: one bound socket sending to one peer address; what arrives is handed on as bytes.
 *   The split shelf's `atcasim shmc` (chassis/cli/shmc.ts) runs its peer flow on it
 *   (`--peer-listen` → `--peer`: heartbeats, sync and the management-state mirror).
 * - `openUdpPairLinks(pairs, {host})`: the live shelf (`atcasim start`): for every pair, member and
 *   share a flow bound on HOST (127.0.0.1) at a free port, connected to the peer member's flow of
 *   the same share; datagrams from any other source are dropped (counted). A `PairLinkFactory` for
 *   the HA fabric; `close()` releases every socket.
 *
 * Errors after binding are logged (category socket-error) and never thrown; a send that fails is
 * counted (the HA protocols repair losses: missed heartbeats, sync retransmission).
 */
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import type { Logger } from '../../board/common/logger.ts';
import { nullLogger } from '../../board/common/logger.ts';
import type { PairConfig } from '../config/ha.ts';
import { sharesOfPair } from '../ha/ha-fabric.ts';
import { DatagramPairLink } from '../ha/pair-link.ts';
import type { PairLink, PairLinkFactory, PairLinkReceiver, PairLinks } from '../ha/pair-link.ts';

/** A UDP address. */
export interface HostPort {
  host: string;
  port: number;
}

/** Counters of a flow. */
export interface UdpFlowStats {
  sent: number;
  received: number;
  /** Datagrams from an address other than the peer's (dropped; only with `onlyFromPeer`). */
  foreign: number;
  /** Sends that failed, or were asked for before the peer address was known. */
  sendErrors: number;
}

/** See the module header. */
export class UdpFlow {
  readonly stats: UdpFlowStats = { sent: 0, received: 0, foreign: 0, sendErrors: 0 };
  private peer: HostPort | undefined;
  private handler: ((bytes: Uint8Array) => void) | undefined;
  private closed = false;

  private constructor(private readonly socket: Socket, readonly address: HostPort, private readonly log: Logger, private readonly onlyFromPeer: boolean) {
    socket.on('message', (msg, rinfo) => {
      if (this.onlyFromPeer && (!this.peer || rinfo.port !== this.peer.port || rinfo.address !== this.peer.host)) {
        this.stats.foreign++;
        return;
      }
      this.stats.received++;
      this.handler?.(msg);
    });
    socket.on('error', (e) => this.log.warn({ category: 'socket-error', err: e.message, port: address.port }, 'HA link socket error'));
  }

  /**
   * Binds a flow at `bind` (port 0: a free one; an IPv6 literal binds udp6).
   * @param o.onlyFromPeer drop datagrams that do not come from the peer address (default false)
   * @throws the bind error (EADDRINUSE, EADDRNOTAVAIL, EACCES …)
   */
  static open(bind: HostPort, o: { log?: Logger; onlyFromPeer?: boolean } = {}): Promise<UdpFlow> {
    return new Promise((resolve, reject) => {
      const s = createSocket({ type: bind.host.includes(':') ? 'udp6' : 'udp4' });
      s.once('error', (e) => {
        s.close();
        reject(e);
      });
      s.bind(bind.port, bind.host, () => {
        s.removeAllListeners('error');
        const a = s.address();
        resolve(new UdpFlow(s, { host: bind.host, port: a.port }, o.log ?? nullLogger, o.onlyFromPeer === true));
      });
    });
  }

  /** Sets the peer address datagrams go to (and, with onlyFromPeer, the only one accepted). */
  connect(peer: HostPort): void {
    this.peer = { ...peer };
  }

  /** Where every arriving datagram goes (one handler). */
  onDatagram(fn: (bytes: Uint8Array) => void): void {
    this.handler = fn;
  }

  /** Sends one datagram to the peer (counted as an error before `connect` or after `close`). */
  send(bytes: Uint8Array): void {
    const peer = this.peer;
    if (!peer || this.closed) {
      this.stats.sendErrors++;
      return;
    }
    this.stats.sent++;
    this.socket.send(bytes, peer.port, peer.host, (err) => {
      if (err) this.stats.sendErrors++;
    });
  }

  /** Closes the socket (idempotent). */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

/** One flow of the live shelf's links, for logs and tests. */
export interface UdpLinkEndpoint {
  pair: string;
  share: string;
  node: string;
  address: HostPort;
  peer: HostPort;
}

/** The live shelf's pair links over UDP (see the module header). */
export class UdpPairLinks implements PairLinkFactory {
  private constructor(private readonly flows: ReadonlyArray<UdpLinkEndpoint & { flow: UdpFlow }>, private readonly byPair: ReadonlyMap<string, PairLinks>) {}

  /**
   * Binds every flow of `pairs` on `host` at free ports and connects each to its peer's.
   * @throws the first bind error (every socket bound so far is closed)
   */
  static async open(pairs: readonly PairConfig[], o: { host?: string; log?: Logger } = {}): Promise<UdpPairLinks> {
    const host = o.host ?? '127.0.0.1';
    const log = (o.log ?? nullLogger).child({ module: 'chassis.io.udp-pair-link' });
    const flows: Array<UdpLinkEndpoint & { flow: UdpFlow }> = [];
    const byPair = new Map<string, PairLinks>();
    try {
      for (const p of pairs) {
        const ends = new Map<string, DatagramPairLink>();
        const bound = new Map<string, UdpFlow>();
        for (const node of p.members) {
          for (const share of sharesOfPair(p)) {
            const flow = await UdpFlow.open({ host, port: 0 }, { log, onlyFromPeer: true });
            bound.set(`${node}|${share}`, flow);
            flows.push({ pair: p.name, share, node, address: flow.address, peer: { host, port: 0 }, flow });
          }
          ends.set(node, new DatagramPairLink((share, bytes) => bound.get(`${node}|${share}`)?.send(bytes)));
        }
        for (const f of flows.filter((x) => x.pair === p.name)) {
          const peerNode = p.members[0] === f.node ? p.members[1] : p.members[0];
          const peerFlow = bound.get(`${peerNode}|${f.share}`)!;
          f.peer = peerFlow.address;
          f.flow.connect(peerFlow.address);
          const end = ends.get(f.node)!;
          f.flow.onDatagram((bytes) => end.deliver(f.share, bytes));
        }
        byPair.set(p.name, {
          endpoint: (node: string): PairLink => {
            const e = ends.get(node);
            if (!e) throw new TypeError(`pair ${p.name}: ${node} is not a member`);
            return e;
          },
          connect: (node: string, rx: PairLinkReceiver): void => ends.get(node)?.connect(rx),
        });
      }
    } catch (e) {
      await Promise.all(flows.map((f) => f.flow.close()));
      throw e;
    }
    return new UdpPairLinks(flows, byPair);
  }

  links(pair: PairConfig): PairLinks {
    const l = this.byPair.get(pair.name);
    if (!l) throw new TypeError(`no UDP links were opened for pair ${pair.name}`);
    return l;
  }

  /** Every flow: pair, share, node, its address and its peer's. */
  endpoints(): UdpLinkEndpoint[] {
    return this.flows.map(({ pair, share, node, address, peer }) => ({ pair, share, node, address, peer }));
  }

  /** Datagrams sent and received over every flow. */
  stats(): UdpFlowStats {
    const t: UdpFlowStats = { sent: 0, received: 0, foreign: 0, sendErrors: 0 };
    for (const f of this.flows) for (const k of Object.keys(t) as Array<keyof UdpFlowStats>) t[k] += f.flow.stats[k];
    return t;
  }

  /** Closes every socket. */
  async close(): Promise<void> {
    await Promise.all(this.flows.map((f) => f.flow.close()));
  }
}
