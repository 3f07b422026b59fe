/**
 * The links between the two members of a pair, as a node controller sees them: it sends its
 * heartbeats and its session-sync datagrams on a `PairLink`, and whatever its peer sent arrives at
 * its `PairLinkReceiver` (the peer's NodeController). One heartbeat therefore travels
 *
 *   NodeController.sendHeartbeats → PairLink.sendHeartbeat → (the transport) →
 *   peer NodeController.receiveHeartbeat → its control clock → the pair-member machine
 *
 * and nothing else stands between the two controllers. Transports implement `PairLinks`:
 * - UDP datagrams, one socket per node and share (chassis/io/udp-pair-link.ts): the live shelf
 *   (`atcasim start`) and, for the ShMC pair, the split shelf's `atcasim shmc` processes;
 * - in-process links with injectable faults in simulated time (chassis/sim/links.ts): scenarios,
 *   chaos and the tests.
 * `DatagramPairLink` is the byte side both UDP users share: the heartbeat and sync codecs applied on
 * the way out, classification and decoding on the way in (a datagram that is neither is handed to
 * `other`, e.g. the split shelf's management-state mirror; undecodable ones are counted, never
 * thrown). A sync datagram carries no share name: each share has its own datagram flow.
 *
 * Pure: no I/O, no timers.
 */
import type { PairConfig } from '../config/ha.ts';
import { heartbeatCodec } from './heartbeat.ts';
import type { Heartbeat } from './heartbeat.ts';
import { syncCodec } from './sync-codec.ts';
import type { SyncDatagram } from './sync-types.ts';

/** What a node sends to its peer. */
export interface PairLink {
  /** One heartbeat (its share is `hb.share`). */
  sendHeartbeat(hb: Heartbeat): void;
  /** One session-sync datagram of `share`. */
  sendSync(share: string, d: SyncDatagram): void;
}

/** Where the peer's datagrams arrive (NodeController implements it). */
export interface PairLinkReceiver {
  receiveHeartbeat(hb: Heartbeat): void;
  receiveSync(share: string, d: SyncDatagram): void;
}

/** The links of one pair: an endpoint per member. */
export interface PairLinks {
  /** The link `node` sends on (delivered to its peer's receiver). @throws CommandError for a non-member */
  endpoint(node: string): PairLink;
  /** Sets the receiver of what arrives for `node` (called once per member, after its controller exists). */
  connect(node: string, rx: PairLinkReceiver): void;
}

/** Builds each pair's links (one call per pair, while the HA fabric is built). */
export interface PairLinkFactory {
  links(pair: PairConfig): PairLinks;
  /** Releases what the links hold (sockets); optional. */
  close?(): void | Promise<void>;
}

/** Counters of a DatagramPairLink. */
export interface DatagramLinkStats {
  heartbeatsSent: number;
  syncSent: number;
  heartbeatsReceived: number;
  syncReceived: number;
  /** Datagrams handed to `other` (not heartbeat or sync). */
  other: number;
  /** Datagrams that could not be decoded (dropped). */
  garbage: number;
}

const TAG0 = 0x41; // 'A'
const HEARTBEAT_TAG = 0x48; // 'AH' heartbeat.ts
const SYNC_TAG = 0x53; // 'AS' sync-codec.ts

/**
 * A PairLink over a datagram transport: `send(share, bytes)` puts bytes on the share's flow to the
 * peer; the transport hands what arrives on a share's flow to `deliver(share, bytes)`.
 */
export class DatagramPairLink implements PairLink {
  readonly stats: DatagramLinkStats = { heartbeatsSent: 0, syncSent: 0, heartbeatsReceived: 0, syncReceived: 0, other: 0, garbage: 0 };
  private rx: PairLinkReceiver | undefined;

  /**
   * @param send   writes one datagram on the flow of `share` to the peer
   * @param other  receives datagrams of a share's flow that are neither heartbeat nor sync
   *               (default: counted as garbage)
   */
  constructor(private readonly send: (share: string, bytes: Uint8Array) => void, private readonly other?: (share: string, bytes: Uint8Array) => void) {}

  /** Sets the receiver (the node's controller). */
  connect(rx: PairLinkReceiver): void {
    this.rx = rx;
  }

  sendHeartbeat(hb: Heartbeat): void {
    this.stats.heartbeatsSent++;
    this.send(hb.share, heartbeatCodec.encode(hb));
  }

  sendSync(share: string, d: SyncDatagram): void {
    this.stats.syncSent++;
    this.send(share, syncCodec.encode(d));
  }

  /** Sends a datagram of another protocol on the share's flow (e.g. the split shelf's mirror). */
  sendOther(share: string, bytes: Uint8Array): void {
    this.send(share, bytes);
  }

  /**
   * A datagram arrived on the flow of `share`: heartbeats and sync datagrams are decoded and handed
   * to the receiver, others to `other`; anything undecodable is counted in `stats.garbage`.
   */
  deliver(share: string, bytes: Uint8Array): void {
    const kind = bytes.length >= 3 && bytes[0] === TAG0 ? bytes[1] : undefined;
    try {
      if (kind === HEARTBEAT_TAG) {
        const hb = heartbeatCodec.decode(bytes).value;
        this.stats.heartbeatsReceived++;
        this.rx?.receiveHeartbeat(hb);
      } else if (kind === SYNC_TAG) {
        const d = syncCodec.decode(bytes).value;
        this.stats.syncReceived++;
        this.rx?.receiveSync(share, d);
      } else if (this.other) {
        this.stats.other++;
        this.other(share, bytes);
      } else {
        this.stats.garbage++;
      }
    } catch {
      this.stats.garbage++;
    }
  }
}
