/**
 * The client of a running shelf's control socket (chassis/io/control-server.ts): one request,
 * one answer, over a fresh connection to `<db file>.ctl`. Used by `atcasim status`, `atcasim lb`
 * and tests. Imports nothing heavy (no SQLite, no emulator), so a verb that only asks a running
 * shelf starts fast.
 */
import { connect } from 'node:net';
import { controlSocketPath, type ControlResponse } from '../runtime/control-ops.ts';

/**
 * Why a call failed:
 *   no-shelf   no socket at the path, or nobody listens on it (a shelf killed without clean-up)
 *   denied     the socket belongs to another user (mode 0600)
 *   timeout    no answer within the time given
 *   refused    the shelf answered `ok: false` (its one-line `error` is the message)
 *   protocol   the answer was not a protocol line, or the connection ended before it
 */
export type ControlErrorCode = 'no-shelf' | 'denied' | 'timeout' | 'refused' | 'protocol';

/** A failed control call; `message` is one line meant for the user. */
export class ControlError extends Error {
  constructor(
    readonly code: ControlErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

let nextId = 1;

/**
 * Sends `{"id","op","args"}` to the shelf running on database `dbPath` and waits for its answer.
 * @param dbPath the shelf's database file (as given to `atcasim start --db`), resolved by the caller
 * @param timeoutMs connect + answer time limit [2000]
 * @returns the answer's `result`
 * @throws ControlError (codes above), e.g. "no shelf running for /x/a.db (no control socket /x/a.db.ctl)"
 */
export function callControl(dbPath: string, op: string, args: Record<string, unknown> = {}, timeoutMs = 2000): Promise<unknown> {
  const path = controlSocketPath(dbPath);
  const id = nextId++;
  return new Promise<unknown>((resolve, reject) => {
    const sock = connect(path);
    let buf = '';
    let done = false;
    const finish = (err: ControlError | undefined, result?: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(result);
    };
    const timer = setTimeout(() => finish(new ControlError('timeout', `no answer from the shelf on ${path} within ${timeoutMs} ms`)), timeoutMs);
    sock.setEncoding('utf8');
    sock.once('connect', () => sock.write(`${JSON.stringify({ id, op, args })}\n`));
    sock.on('error', (e: NodeJS.ErrnoException) => finish(connectError(e, dbPath, path)));
    sock.on('data', (chunk: string) => {
      buf += chunk;
      const i = buf.indexOf('\n');
      if (i < 0) return;
      let answer: ControlResponse;
      try {
        answer = JSON.parse(buf.slice(0, i)) as ControlResponse;
      } catch {
        finish(new ControlError('protocol', `the shelf on ${path} answered something that is not JSON`));
        return;
      }
      if (answer.ok === true) finish(undefined, answer.result);
      else if (answer.ok === false) finish(new ControlError('refused', String(answer.error)));
      else finish(new ControlError('protocol', `the shelf on ${path} answered without "ok"`));
    });
    sock.on('close', () => finish(new ControlError('protocol', `the shelf on ${path} closed the connection without an answer`)));
  });
}

/** The user's words for a failed connect. */
function connectError(e: NodeJS.ErrnoException, dbPath: string, path: string): ControlError {
  switch (e.code) {
    case 'ENOENT':
      return new ControlError('no-shelf', `no shelf running for ${dbPath} (no control socket ${path}; start one with atcasim start --db ${dbPath})`);
    case 'ECONNREFUSED':
      return new ControlError('no-shelf', `no shelf running for ${dbPath} (nobody listens on ${path}; a stopped shelf left it behind)`);
    case 'EACCES':
    case 'EPERM':
      return new ControlError('denied', `permission denied on ${path}: only the user who started that shelf can use it`);
    case 'ENOTSOCK':
      return new ControlError('no-shelf', `${path} is not a control socket`);
    default:
      return new ControlError('protocol', `cannot reach the shelf on ${path}: ${e.message}`);
  }
}
