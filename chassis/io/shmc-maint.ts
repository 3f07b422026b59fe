/**
 * A shelf manager's maintenance port (`atcasim shmc --maint-port PORT`, docs/split.md): TCP on
 * loopback, one JSON request per line, one JSON answer per line.
 *
 *   {"op":"status"}                                         → the ShMC's status (role, pid, takeover …)
 *   {"op":"block-heartbeats","on":true,"password":"PW"}     → {"ok":true}: drop heartbeat datagrams
 *                                                             to and from the peer (a test switch)
 * Control operations need the administrator password given with --admin-password; a wrong one is
 * answered {"error":{"code":"denied",…}}. Garbage lines get {"error":{"code":"bad_request",…}}.
 * `maintRequest` is the client (`atcasim clia shmstatus --json --maint HOST:PORT`, tests).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { LineSplitter } from '../split/bus-codec.ts';

/** A maintenance request. */
export type MaintRequest = { op: 'status' } | { op: 'block-heartbeats'; on: boolean; password: string };

/** Handlers of the maintenance server. */
export interface MaintHandlers {
  status(): unknown;
  blockHeartbeats(on: boolean): void;
  /** Checks the administrator password. */
  passwordOk(pw: string): boolean;
}

/** Answers one request line. Never throws. */
export function answerMaint(line: string, h: MaintHandlers): unknown {
  let req: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(line);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    req = v as Record<string, unknown>;
  } catch {
    return { error: { code: 'bad_request', message: 'expected one JSON object per line' } };
  }
  if (req.op === 'status') return h.status();
  if (req.op === 'block-heartbeats') {
    if (typeof req.on !== 'boolean') return { error: { code: 'bad_request', message: '"on" must be true or false' } };
    if (typeof req.password !== 'string' || !h.passwordOk(req.password)) return { error: { code: 'denied', message: 'control operations need the administrator password' } };
    h.blockHeartbeats(req.on);
    return { ok: true, heartbeats_blocked: req.on };
  }
  return { error: { code: 'bad_request', message: `unknown op ${JSON.stringify(req.op)} (status, block-heartbeats)` } };
}

/**
 * Listens on `host:port`.
 * @throws what binding throws
 */
export async function listenMaint(host: string, port: number, h: MaintHandlers): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    const split = new LineSplitter();
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      for (const line of split.push(chunk)) {
        let out: string;
        try {
          out = JSON.stringify(answerMaint(line, h));
        } catch (e) {
          out = JSON.stringify({ error: { code: 'internal', message: String(e) } });
        }
        if (sock.writable) sock.write(`${out}\n`);
      }
    });
    sock.on('error', () => sock.destroy());
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address();
  return {
    port: typeof a === 'object' && a ? a.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Sends one request and returns the parsed answer.
 * @throws Error on connection failure, timeout (`timeoutMs`, default 2000) or a non-JSON answer
 */
export function maintRequest(host: string, port: number, req: MaintRequest, timeoutMs = 2000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host, port });
    const split = new LineSplitter();
    const timer = globalThis.setTimeout(() => {
      sock.destroy();
      reject(new Error(`no answer from the maintenance port ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(`${JSON.stringify(req)}\n`));
    sock.on('data', (chunk: string) => {
      const lines = split.push(chunk);
      if (lines.length === 0) return;
      clearTimeout(timer);
      sock.destroy();
      try {
        resolve(JSON.parse(lines[0]!));
      } catch {
        reject(new Error(`maintenance port ${host}:${port} answered garbage`));
      }
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`maintenance port ${host}:${port}: ${e.message}`));
    });
  });
}
