/**
 * Pseudo-terminal pairs for the board consoles, made by socat:
 *
 *   socat -d -d pty,raw,echo=0,wait-slave pty,raw,echo=0
 *
 * socat creates the first PTY (the emulator's end, opened through `serialport` by `openDevice`),
 * waits until that end is opened (`wait-slave`), then creates the second PTY (the user's end,
 * where picocom/screen/minicom attach) and relays bytes both ways. Both paths are read from
 * socat's "PTY is /dev/pts/N" notices on stderr.
 *
 * Cleanup: socat runs in its own process group (a terminal's Ctrl-C or hang-up goes to the
 * emulator, which closes its ports and then ends socat) and `close()` ends it (SIGTERM, SIGKILL
 * after a grace period). If the emulator dies
 * without closing (SIGKILL), the kernel closes its end of the first PTY; because of `wait-slave`
 * socat holds no descriptor of its own on that end, so its read fails with EIO ("PTY closed"), it
 * treats that as end of file and exits — no socat is left behind (checked with socat 1.7.4). The
 * user's end keeps socat's own descriptor open, so users attaching and detaching never end it.
 * The one window left: a SIGKILL between spawning socat and opening the first end leaves that
 * socat waiting for the slave; the window is the time of one `open()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../../board/common/logger.ts';

/** A socat PTY pair (see the module comment). */
export interface PtyPair {
  /** The emulator's end (opened by `openDevice`), e.g. `/dev/pts/4`. */
  readonly devicePath: string;
  /** The user's end, e.g. `/dev/pts/5`. */
  readonly userPath: string;
  /** socat's process ID. */
  readonly pid: number;
  /** Resolves when socat has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends socat (idempotent): SIGTERM, then SIGKILL after `graceMs` [2000]. */
  close(graceMs?: number): Promise<void>;
}

/** Options of openPtyPair. Defaults in brackets. */
export interface PtyPairOptions {
  /** Opens the emulator's end once socat created it (e.g. a SerialPort); the user's end appears after that. */
  openDevice(path: string): Promise<void>;
  log: Logger;
  /** Name for logs (`slot3`). */
  name?: string;
  /** socat executable [socat]. */
  socat?: string;
  /** Time to wait for both PTYs, ms [10000]. */
  timeoutMs?: number;
}

const PTY_LINE = /PTY is (\S+)/;

/**
 * Starts socat and opens the emulator's end.
 * @returns the pair once socat relays between both ends
 * @throws Error when socat cannot be started (not installed), exits early, or stays silent past
 *   the timeout (it is killed), and whatever `openDevice` throws (socat is killed)
 */
export function openPtyPair(o: PtyPairOptions): Promise<PtyPair> {
  const log = o.log;
  const timeoutMs = o.timeoutMs ?? 10_000;
  let child: ChildProcess;
  try {
    // own process group: a Ctrl-C or hang-up of the terminal reaches the emulator, which then ends socat in order
    child = spawn(o.socat ?? 'socat', ['-d', '-d', 'pty,raw,echo=0,wait-slave', 'pty,raw,echo=0'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  } catch (e) {
    return Promise.reject(new Error(`cannot start socat: ${(e as Error).message}`));
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let closing: Promise<void> | undefined;
  const close = (graceMs = 2000): Promise<void> => {
    if (closing) return closing;
    closing = (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        let t: NodeJS.Timeout | undefined;
        const killed = new Promise<void>((resolve) => {
          t = setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, graceMs);
        });
        await Promise.race([exited, killed]);
        clearTimeout(t);
        await exited;
      }
    })();
    return closing;
  };
  return new Promise<PtyPair>((resolve, reject) => {
    const paths: string[] = [];
    let stderr = '';
    let done = false;
    let opened: Promise<void> | undefined;
    const fail = (e: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void close().then(() => reject(e));
    };
    const timer = setTimeout(() => fail(new Error(`socat did not create the PTY pair within ${timeoutMs} ms; stderr: ${stderr.slice(-500)}`)), timeoutMs);
    child.once('error', (e) => fail(new Error(`cannot start socat: ${e.message}`)));
    child.once('exit', (code, signal) => fail(new Error(`socat exited (${signal ?? code}) before the PTY pair was ready; stderr: ${stderr.slice(-500)}`)));
    let buf = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      if (!done) stderr += chunk;
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (done) {
          log.debug({ category: 'pty', console: o.name, socat: line.trim() }, 'socat');
          continue;
        }
        const m = PTY_LINE.exec(line);
        if (!m) continue;
        paths.push(m[1]!);
        if (paths.length === 1 && !opened) {
          opened = o.openDevice(m[1]!);
          opened.catch((e: unknown) => fail(e instanceof Error ? e : new Error(String(e))));
        } else if (paths.length === 2) {
          // socat made the user's end once the emulator's end was open; wait for openDevice to finish too
          void opened!.then(() => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            log.debug({ category: 'pty', console: o.name, device: paths[0], user: paths[1], pid: child.pid }, 'PTY pair ready');
            resolve({ devicePath: paths[0]!, userPath: paths[1]!, pid: child.pid!, exited, close });
          }, () => {});
        }
      }
    });
  });
}
