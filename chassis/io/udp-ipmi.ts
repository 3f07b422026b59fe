/**
 * UDP edge of the IPMI LAN server: binds a datagram socket (default 127.0.0.1:6230; port 0 picks a
 * free port and `start()` reports it), hands each datagram to `LanServer.handleDatagram` with the
 * sender and the Clock's time, sends the replies back to the sender, and runs `LanServer.tick` on
 * a timer from the Clock port (at the next deadline it reports, at least once a second). It is
 * also the server's LanTransport, for datagrams sent outside a reply (SOL output).
 * Send and receive errors are logged and never stop the emulator.
 */
import { createSocket } from 'node:dgram';
import type { RemoteInfo, Socket } from 'node:dgram';
import type { Clock, TimerId } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { LanServer } from '../ipmi/lan-server.ts';

/** Default IPMI port of atcasim (623 needs root; 6230 does not). */
export const DEFAULT_IPMI_PORT = 6230;
/** Default bind address: loopback only. */
export const DEFAULT_IPMI_BIND = '127.0.0.1';

/** Options of the UDP adapter. */
export interface UdpIpmiOptions {
  /** Address to bind [127.0.0.1]; an IPv6 literal binds udp6. */
  host?: string;
  /** UDP port [6230]; 0 = any free port. */
  port?: number;
  /** Time source and timers. */
  clock: Clock;
  log: Logger;
  /** Longest pause between two ticks, ms [1000]. */
  maxTickMs?: number;
}

/** Bound address of a running adapter. */
export interface BoundAddress {
  address: string;
  port: number;
}

/**
 * One UDP socket serving one LanServer. `start()` binds and returns the address; `stop()` closes.
 * Errors after binding are logged (category socket-error / send-error) and never thrown.
 */
export class UdpIpmiAdapter {
  private socket: Socket | undefined;
  private timer: TimerId | undefined;
  private bound: BoundAddress | undefined;
  private detachTransport: (() => void) | undefined;
  private readonly log: Logger;

  constructor(
    private readonly server: LanServer,
    private readonly opts: UdpIpmiOptions,
  ) {
    this.log = opts.log.child({ module: 'chassis.io.udp-ipmi' });
    const port = opts.port ?? DEFAULT_IPMI_PORT;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError(`IPMI port must be 0..65535, got ${port}`);
  }

  /** The bound address once started. */
  get address(): BoundAddress | undefined {
    return this.bound;
  }

  /**
   * Binds the socket and starts ticking.
   * @returns the bound address (the real port when 0 was asked)
   * @throws Error when the address cannot be bound (in use, permission)
   */
  async start(): Promise<BoundAddress> {
    if (this.socket) throw new Error('UDP IPMI adapter already started');
    const host = this.opts.host ?? DEFAULT_IPMI_BIND;
    const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', reuseAddr: false });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => {
        socket.close();
        this.socket = undefined;
        reject(e);
      };
      socket.once('error', onError);
      socket.bind(this.opts.port ?? DEFAULT_IPMI_PORT, host, () => {
        socket.off('error', onError);
        resolve();
      });
    });
    socket.on('error', (e) => this.log.warn({ category: 'socket-error', err: e.message }, 'IPMI socket error (continuing)'));
    socket.on('message', (msg, rinfo) => this.onMessage(msg, rinfo));
    const a = socket.address();
    this.bound = { address: a.address, port: a.port };
    if (a.family === 'IPv4' && a.address !== '0.0.0.0' && this.server.lanConfig.ipAddress === '0.0.0.0') {
      this.server.updateLanConfig({ ipAddress: a.address });
    }
    // datagrams the server sends outside a reply (SOL output, chassis/ipmi/sol) leave through this socket
    this.detachTransport = this.server.attachTransport({ localPort: a.port, send: (bytes, peer) => this.sendTo(bytes, peer.port, peer.address) });
    this.schedule(0);
    this.log.info({ category: 'listening', address: a.address, port: a.port }, 'IPMI LAN server listening');
    return this.bound;
  }

  /** Stops ticking and closes the socket (idempotent). */
  async stop(): Promise<void> {
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.detachTransport?.();
    this.detachTransport = undefined;
    const s = this.socket;
    this.socket = undefined;
    this.bound = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private onMessage(msg: Buffer, rinfo: RemoteInfo): void {
    const socket = this.socket;
    if (!socket) return;
    let replies: Uint8Array[];
    try {
      replies = this.server.handleDatagram(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength), { address: rinfo.address, port: rinfo.port }, this.opts.clock.now());
    } catch (e) {
      // handleDatagram never throws by contract; keep the socket alive regardless.
      this.log.error({ category: 'internal', err: String(e) }, 'LAN server threw');
      return;
    }
    for (const r of replies) this.sendTo(r, rinfo.port, rinfo.address);
  }

  private sendTo(bytes: Uint8Array, port: number, address: string): void {
    const socket = this.socket;
    if (!socket) return;
    try {
      socket.send(bytes, port, address, (err) => {
        if (err) this.log.warn({ category: 'send-error', err: err.message, peer: `${address}:${port}` }, 'IPMI reply not sent');
      });
    } catch (e) {
      this.log.warn({ category: 'send-error', err: String(e) }, 'IPMI reply not sent');
    }
  }

  private schedule(delay: number): void {
    this.timer = this.opts.clock.setTimeout(() => {
      if (!this.socket) return;
      const now = this.opts.clock.now();
      let next: number | undefined;
      try {
        next = this.server.tick(now);
      } catch (e) {
        this.log.error({ category: 'internal', err: String(e) }, 'LAN server tick threw');
      }
      const max = this.opts.maxTickMs ?? 1000;
      this.schedule(next === undefined ? max : Math.min(max, Math.max(10, next - now)));
    }, delay);
  }
}
