/**
 * The UDP socket under the SNMP agent, bound before net-snmp sees it and guarded.
 *
 * Why: net-snmp (npm 3.29) decodes a datagram and answers it synchronously inside the socket's
 * 'message' listener; some crafted PDUs that decode (an OID whose first sub-identifier is written
 * in two octets, `84 06`; a GetBulk with an unusable varbind) make its request handlers throw
 * RangeError/TypeError there — an uncaught exception that ends the process (docs/snmp.md). The
 * agent takes a `dgramModule` option: ours hands it the already bound socket, with every
 * 'message' listener wrapped so that an exception is counted and reported, never thrown out.
 * Binding first also gives real errors (EADDRINUSE) before start-up completes and the port that
 * `--snmp-port 0` got (net-snmp turns port 0 into 161).
 */
import { createSocket, type Socket } from 'node:dgram';
import type { DgramModule } from 'net-snmp';

/** A bound UDP socket. @throws the bind error (EADDRINUSE, EADDRNOTAVAIL, EACCES) */
export function bindUdpSocket(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
    s.once('error', (e) => {
      s.close();
      reject(e);
    });
    s.bind(port, host, () => {
      s.removeAllListeners('error');
      resolve(s);
    });
  });
}

/**
 * A dgramModule for net-snmp whose createSocket returns `socket` (already bound: the agent's own
 * bind call is ignored), calling `onThrow` for each exception a 'message' listener throws.
 */
export function guardedDgram(socket: Socket, onThrow: (e: unknown, datagram: Buffer) => void): DgramModule {
  const on = socket.on.bind(socket);
  const patched = socket as Socket & { on: Socket['on']; bind: Socket['bind'] };
  patched.on = ((event: string, fn: (...args: unknown[]) => void) => {
    if (event !== 'message') return on(event as 'error', fn as (e: Error) => void);
    return on('message', (msg: Buffer, rinfo) => {
      try {
        fn(msg, rinfo);
      } catch (e) {
        onThrow(e, msg);
      }
    });
  }) as Socket['on'];
  patched.bind = (() => socket) as unknown as Socket['bind'];
  return { createSocket: () => socket };
}
