/**
 * The consoles' serial edge: each board console (chassis/consoles) is wired to a serial port
 * opened through the `serialport` package — in `atcasim start` the emulator's end of a socat PTY
 * pair (./pty.ts), in tests a `@serialport/binding-mock` port — with the line settings of the
 * shelf YAML (baud rate, data bits, parity, stop bits; default 115200 8N1). The user's end of each
 * PTY is linked at a stable name, `$XDG_RUNTIME_DIR/atcasim/<fru>` (e.g. …/atcasim/slot3,
 * …/atcasim/shmc-a), or, when XDG_RUNTIME_DIR is unset, in a `consoles` folder beside the database.
 *
 * Output the serial side cannot take (nobody reading the PTY for a long time) is dropped beyond
 * 64 KiB in flight, as a UART overruns, rather than piling up in memory. A socat that dies is
 * logged; the console stays reachable over SOL.
 */
import { existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SerialPort, SerialPortMock } from 'serialport';
import type { Logger } from '../../board/common/logger.ts';
import type { ConsoleConfig } from '../config/types.ts';
import { openPtyPair, type PtyPair } from './pty.ts';

/** A console's serial port: the platform binding's, or @serialport/binding-mock's (SerialPortMock, tests). */
export type ConsolePort = SerialPort | SerialPortMock;

/** The console side a serial port is wired to (BoardConsole satisfies it). */
export interface SerialConsoleSide {
  readonly name: string;
  attach(sink: (bytes: Uint8Array) => void): () => void;
  input(bytes: Uint8Array): void;
}

/** Output bytes allowed in flight to a serial port before further output is dropped. */
export const SERIAL_OUT_LIMIT = 64 * 1024;

/**
 * Opens a serial port at `path` with the line settings of `line`.
 * @param mock open it through @serialport/binding-mock (SerialPortMock; create the mock port
 *   first with `SerialPortMock.binding.createPort(path)`) [false: the platform binding, bindings-cpp]
 * @throws Error when the port cannot be opened (no such device, permission)
 */
export function openConsolePort(path: string, line: ConsoleConfig, mock = false): Promise<ConsolePort> {
  const settings = { path, baudRate: line.baud, dataBits: line.dataBits, parity: line.parity, stopBits: line.stopBits, autoOpen: false } as const;
  const port: ConsolePort = mock ? new SerialPortMock(settings) : new SerialPort(settings);
  return new Promise((resolvePort, reject) => {
    port.open((err) => (err ? reject(err) : resolvePort(port)));
  });
}

/** A serial port wired to a console. */
export interface SerialLink {
  readonly port: ConsolePort;
  /** Output bytes dropped because the port could not take them. */
  readonly dropped: number;
  /** Unwires and closes the port (idempotent). */
  close(): Promise<void>;
}

/**
 * Wires an open port to a console: bytes read go to `side.input`, console output is written to
 * the port (dropped past SERIAL_OUT_LIMIT in flight). Port errors are logged, never thrown.
 */
export function linkSerialPort(port: ConsolePort, side: SerialConsoleSide, log: Logger): SerialLink {
  let inFlight = 0;
  let dropped = 0;
  let closed = false;
  const onData = (b: Buffer) => side.input(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
  port.on('data', onData);
  port.on('error', (e: Error) => log.warn({ category: 'console', console: side.name, err: e.message }, 'serial port error'));
  port.on('close', () => {
    if (!closed) log.warn({ category: 'console', console: side.name }, 'serial port closed (socat gone?); the console stays reachable over SOL');
  });
  const detach = side.attach((bytes) => {
    if (closed || !port.isOpen) return;
    if (inFlight + bytes.length > SERIAL_OUT_LIMIT) {
      dropped += bytes.length;
      return;
    }
    inFlight += bytes.length;
    port.write(Buffer.from(bytes), () => {
      inFlight -= bytes.length;
    });
  });
  return {
    port,
    get dropped() {
      return dropped;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      detach();
      port.off('data', onData);
      if (port.isOpen) await new Promise<void>((r) => port.close(() => r()));
    },
  };
}

/**
 * The stable-link folder: `$XDG_RUNTIME_DIR/atcasim`, else `consoles` beside the database.
 * @param dbPath the database file (for the fallback)
 */
export function consoleLinkDir(dbPath: string, env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR;
  // the XDG base directory spec ignores relative paths
  return xdg && xdg.startsWith('/') ? join(xdg, 'atcasim') : join(dirname(resolve(dbPath)), 'consoles');
}

/** One exposed console. */
export interface ExposedConsole {
  name: string;
  /** The user's end of the PTY (/dev/pts/N). */
  path: string;
  /** The stable link to it, when it could be made. */
  link?: string;
  /** socat's process ID. */
  pid: number;
}

/** The consoles of a run, exposed on PTYs. */
export interface ExposedConsoles {
  readonly consoles: readonly ExposedConsole[];
  /** Folder of the stable links. */
  readonly linkDir: string;
  /** Closes the ports, ends socat, removes the links that still point at this run's PTYs (idempotent). */
  stop(): Promise<void>;
}

/** Options of exposeConsolesOnPtys. */
export interface ExposeOptions {
  /** The consoles and their line settings. */
  consoles: ReadonlyArray<{ side: SerialConsoleSide; line: ConsoleConfig }>;
  /** Folder for the stable links (consoleLinkDir). */
  linkDir: string;
  log: Logger;
  /** socat executable [socat]. */
  socat?: string;
}

function makeLink(dir: string, name: string, target: string, log: Logger): string | undefined {
  const link = join(dir, name);
  try {
    let st;
    try {
      st = lstatSync(link);
    } catch {
      st = undefined;
    }
    if (st && !st.isSymbolicLink()) {
      log.warn({ category: 'console', link }, `${link} exists and is not a symbolic link; stable name not made`);
      return undefined;
    }
    if (st) {
      const old = readlinkSync(link);
      if (existsSync(old)) log.warn({ category: 'console', link, old }, `${link} pointed at ${old} (another atcasim running?); it now points at this run's console`);
    }
    const tmp = `${link}.${process.pid}.tmp`;
    try {
      unlinkSync(tmp);
    } catch {
      // no leftover
    }
    symlinkSync(target, tmp);
    renameSync(tmp, link);
    return link;
  } catch (e) {
    log.warn({ category: 'console', link, err: String(e) }, 'stable console link not made');
    return undefined;
  }
}

/**
 * Exposes every console on a socat PTY pair: opens the emulator's end with `serialport` (line
 * settings from the YAML), wires it to the console, and links the user's end at a stable name.
 * Consoles are set up in parallel.
 * @throws Error when socat or a PTY cannot be set up (everything made so far is undone)
 */
export async function exposeConsolesOnPtys(o: ExposeOptions): Promise<ExposedConsoles> {
  const log = o.log.child({ module: 'chassis.io.serial-console' });
  mkdirSync(o.linkDir, { recursive: true, mode: 0o700 });
  const pairs: PtyPair[] = [];
  const links: SerialLink[] = [];
  const made: ExposedConsole[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(links.map((l) => l.close().catch(() => {})));
    await Promise.all(pairs.map((p) => p.close().catch(() => {})));
    for (const c of made) {
      if (!c.link) continue;
      try {
        if (readlinkSync(c.link) === c.path) unlinkSync(c.link);
      } catch {
        // already gone or replaced by another run
      }
    }
  };
  try {
    await Promise.all(
      o.consoles.map(async ({ side, line }) => {
        let link: SerialLink | undefined;
        const pair = await openPtyPair({
          name: side.name,
          log,
          ...(o.socat ? { socat: o.socat } : {}),
          openDevice: async (path) => {
            const port = await openConsolePort(path, line);
            link = linkSerialPort(port, side, log);
            links.push(link);
          },
        });
        pairs.push(pair);
        void pair.exited.then(({ code, signal }) => {
          if (!stopped) log.warn({ category: 'console', console: side.name, code, signal }, 'socat of a console exited; the PTY is gone (SOL still works)');
        });
        const stable = makeLink(o.linkDir, side.name, pair.userPath, log);
        made.push({ name: side.name, path: pair.userPath, ...(stable ? { link: stable } : {}), pid: pair.pid });
      }),
    );
  } catch (e) {
    await stop();
    throw e;
  }
  const order = new Map(o.consoles.map((c, i) => [c.side.name, i]));
  made.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  log.info({ category: 'console', linkDir: o.linkDir, consoles: Object.fromEntries(made.map((c) => [c.name, c.path])) }, 'consoles on PTYs');
  return { consoles: made, linkDir: o.linkDir, stop };
}

/**
 * The `expose` edge of the emulator's consoles part (chassis/runtime/consoles.ts ConsoleExpose)
 * for `atcasim start`: every console on a socat PTY, stable links in `linkDir`.
 */
export function ptyConsoleExpose(linkDir: string, log: Logger, socat?: string) {
  return async (consoles: ReadonlyArray<{ side: SerialConsoleSide; line: ConsoleConfig }>) => {
    const ex = await exposeConsolesOnPtys({ consoles, linkDir, log, ...(socat ? { socat } : {}) });
    return {
      paths: Object.fromEntries(ex.consoles.map((c) => [c.name, c.path])),
      links: Object.fromEntries(ex.consoles.filter((c) => c.link).map((c) => [c.name, c.link!])),
      stop: () => ex.stop(),
    };
  };
}
