/**
 * The control socket of a running shelf: a Unix domain socket beside its SQLite database
 * (`<db file>.ctl`, chassis/runtime/control-ops.ts `controlSocketPath`) that other `atcasim`
 * processes of the same user (`atcasim status`, `atcasim lb`) talk to in JSON lines. The
 * operations and the protocol are ControlOps' (chassis/runtime/control-ops.ts); this file only
 * moves lines.
 *
 * The socket is created with mode 0600 (the umask is narrowed while it is bound, so there is no
 * moment it is open to others): only its owner (and root) can connect. A stale socket left by a
 * killed shelf is removed at start; one that still answers is refused (another shelf serves this
 * database). The socket is removed when the server stops, and at process exit.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { controlSocketPath, MAX_CONTROL_LINE, type ControlOps } from '../runtime/control-ops.ts';

/** Options of ControlServer.start. */
export interface ControlServerOptions {
  /** The shelf's database file; the socket is `<dbPath>.ctl`. */
  dbPath: string;
  ops: ControlOps;
  /** Told about refused connections' protocol errors (optional). */
  log?: { warn(obj: object, msg: string): void };
}

/** Longest socket path Linux accepts (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/** A listening control socket. */
export class ControlServer {
  private readonly onExit = (): void => this.unlink();
  private stopped = false;

  private constructor(
    /** The socket's path. */
    readonly path: string,
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
  ) {
    process.on('exit', this.onExit);
  }

  /**
   * Binds `<dbPath>.ctl` (mode 0600) and serves `ops` on it.
   * @throws Error when the path is too long for a Unix socket, is taken by something that is not
   *   a socket, is served by another live process, or cannot be bound (its errno message)
   */
  static async start(o: ControlServerOptions): Promise<ControlServer> {
    const path = controlSocketPath(o.dbPath);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH) throw new Error(`control socket ${path}: path longer than ${MAX_SOCKET_PATH} bytes (give --db a shorter path)`);
    await removeStale(path);
    const sockets = new Set<Socket>();
    const server = createServer((sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      serveConnection(sock, o);
    });
    const old = process.umask(0o177);
    try {
      await new Promise<void>((res, rej) => {
        server.once('error', rej);
        server.listen(path, () => {
          server.off('error', rej);
          res();
        });
      });
    } finally {
      process.umask(old);
    }
    chmodSync(path, 0o600);
    return new ControlServer(path, server, sockets);
  }

  /** Stops listening, ends open connections and removes the socket. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((res) => this.server.close(() => res()));
    this.unlink();
    process.off('exit', this.onExit);
  }

  private unlink(): void {
    try {
      if (lstatSync(this.path).isSocket()) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** Serves one connection: each line answered in order; a bad line does not end it. */
function serveConnection(sock: Socket, o: ControlServerOptions): void {
  sock.setEncoding('utf8');
  let buf = '';
  let chain = Promise.resolve();
  sock.on('error', () => sock.destroy());
  sock.on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim() === '') continue;
      chain = chain.then(async () => {
        const answer = await o.ops.handleLine(line);
        if (!sock.destroyed) sock.write(`${answer}\n`);
      });
    }
    if (buf.length > MAX_CONTROL_LINE) {
      buf = '';
      o.log?.warn({ category: 'control' }, `control socket: request line longer than ${MAX_CONTROL_LINE} bytes; connection closed`);
      chain = chain.then(() => {
        sock.end(`${JSON.stringify({ id: null, ok: false, error: `bad request: line longer than ${MAX_CONTROL_LINE} bytes` })}\n`);
      });
    }
  });
}

/**
 * Removes a socket file nobody answers on.
 * @throws Error when `path` is not a socket, or a live process answers on it
 */
async function removeStale(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return; // nothing there
  }
  if (!isSocket) throw new Error(`control socket ${path}: exists and is not a socket (remove it)`);
  const alive = await new Promise<boolean>((res) => {
    const c = connect(path);
    c.once('connect', () => {
      c.destroy();
      res(true);
    });
    c.once('error', () => res(false));
  });
  if (alive) throw new Error(`control socket ${path}: another running shelf serves it`);
  unlinkSync(path);
}
