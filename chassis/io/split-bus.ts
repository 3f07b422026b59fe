/**
 * The TCP edge of the split shelf's local bus (chassis/split/bus-codec.ts: JSON lines on loopback):
 * `listenBus` for the shelf process, `connectBus` for a shmc process. TCP_NODELAY on both ends
 * (lines, heartbeats of the watchdog, relayed IPMI datagrams are small and latency-bound).
 * A connection that closes or errors is reported once (`onClose`); garbage lines are reported and
 * dropped, the connection stays up.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { decodeBusMessage, encodeBusMessage, LineSplitter } from '../split/bus-codec.ts';
import type { BusMessage, ToShelf, ToShmc } from '../split/bus-codec.ts';
import type { BusConnection } from '../split/split-shelf.ts';

/** Handlers of the shelf's bus server. */
export interface BusServerHandlers {
  message(conn: BusConnection, m: ToShelf): void;
  close(conn: BusConnection): void;
  garbage(conn: BusConnection, err: string): void;
}

/** A listening bus server. */
export interface BusServer {
  host: string;
  port: number;
  /** Closes the server and every connection. */
  close(): Promise<void>;
}

function wire<T extends BusMessage>(sock: Socket, onMessage: (m: T) => void, onGarbage: (err: string) => void, onClose: () => void): void {
  const split = new LineSplitter();
  sock.setEncoding('utf8');
  sock.setNoDelay(true);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  sock.on('data', (chunk: string) => {
    for (const line of split.push(chunk)) {
      let m: BusMessage;
      try {
        m = decodeBusMessage(line);
      } catch (e) {
        onGarbage((e as Error).message);
        continue;
      }
      onMessage(m as T);
    }
  });
  sock.on('error', () => close());
  sock.on('close', () => close());
}

/**
 * Listens for shmc processes on `host:port` (port 0 = a free one).
 * @throws what binding throws (EADDRINUSE …)
 */
export async function listenBus(host: string, port: number, h: BusServerHandlers): Promise<BusServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    const conn: BusConnection = {
      label: `${sock.remoteAddress}:${sock.remotePort}`,
      send: (m: ToShmc) => {
        if (!sock.destroyed && sock.writable) sock.write(encodeBusMessage(m));
      },
      close: () => sock.destroy(),
    };
    wire<ToShelf>(sock, (m) => h.message(conn, m), (err) => h.garbage(conn, err), () => {
      sockets.delete(sock);
      h.close(conn);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address();
  const bound = typeof a === 'object' && a ? a.port : port;
  return {
    host,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A shmc's connection to the shelf. */
export interface BusClient {
  send(m: ToShelf): void;
  close(): void;
}

/**
 * Connects to the shelf's bus.
 * @throws the connection error (ECONNREFUSED …) when it cannot connect
 */
export async function connectBus(host: string, port: number, h: { message(m: ToShmc): void; close(): void; garbage(err: string): void }): Promise<BusClient> {
  const sock = connect({ host, port });
  await new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.once('connect', () => {
      sock.off('error', reject);
      resolve();
    });
  });
  wire<ToShmc>(sock, (m) => h.message(m), (err) => h.garbage(err), () => h.close());
  return {
    send: (m) => {
      if (!sock.destroyed && sock.writable) sock.write(encodeBusMessage(m));
    },
    close: () => sock.destroy(),
  };
}
