/**
 * The consoles' serial edge: each board console (chassis/consoles) is wired to a serial port
 * opened through the `serialport` package — in `atcasim start` the emulator's end of a socat PTY
 * pair (./pty.ts), in tests a `@serialport/binding-mock` port — with the line settings of the
 * shelf YAML (baud rate, data bits, parity, stop bits; default 115200 8N1). The user's end of each
 * PTY is linked at a stable name, `$XDG_RUNTIME_DIR/atcasim/<fru>` (e.g. …/atcasim/slot3,
 * …/atcasim/shmc-a), or, when XDG_RUNTIME_DIR is unset, in a `consoles` folder beside the database.
 *
 * One running emulator owns a links folder: it claims it with an owner file (`.owner`: its pid,
 * its process start time and its database, created atomically with link(2)), and a claim whose
 * process has ended is stale and taken over. A second emulator that finds the folder owned by a
 * running one leaves those links alone and links its consoles in a per-database folder inside it
 * (`…/atcasim/<db name>-<hash>/slot3`; the ready line, `clia console` and the TUI show the paths
 * it really used). At a stop an emulator removes only the links that still point at its own PTYs,
 * then its owner file, then the folder when that is left empty.
 *
 * Output the serial side cannot take (nobody reading the PTY for a long time) is dropped beyond
 * 64 KiB in flight, as a UART overruns, rather than piling up in memory. A socat that dies is
 * logged; the console stays reachable over SOL.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { SerialPort, SerialPortMock } from 'serialport';
import type { Logger } from '../../board/common/logger.ts';
import type { ConsoleConfig } from '../config/types.ts';
import { openPtyPair, type PtyPair } from './pty.ts';
import { processAlive } from './shmc-process.ts';

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

/** The link folders of a database: the shared stable one, and its own for when another run owns that. */
export interface ConsoleLinkDirs {
  /** consoleLinkDir: `$XDG_RUNTIME_DIR/atcasim` or `<db folder>/consoles`. */
  linkDir: string;
  /** `<linkDir>/<db name>-<8 hex digits of SHA-1 of the absolute db path>`, e.g. …/atcasim/atcasim-1a2b3c4d. */
  fallbackLinkDir: string;
  /** The absolute database path (named in the owner file). */
  db: string;
}

/**
 * The stable-link folder of a database and its per-database fallback (used when a running emulator
 * of another database owns the stable one).
 * @param dbPath the database file
 */
export function consoleLinkDirs(dbPath: string, env: NodeJS.ProcessEnv = process.env): ConsoleLinkDirs {
  const linkDir = consoleLinkDir(dbPath, env);
  const abs = resolve(dbPath);
  const name = basename(abs, extname(abs)).replace(/[^A-Za-z0-9._-]/g, '_') || 'db';
  const tag = createHash('sha1').update(abs).digest('hex').slice(0, 8);
  return { linkDir, fallbackLinkDir: join(linkDir, `${name}-${tag}`), db: abs };
}

/** Name of the owner file in a links folder. */
export const LINK_OWNER_FILE = '.owner';

/** Contents of a links folder's owner file (JSON). */
export interface LinkDirOwner {
  /** Process ID of the emulator that owns the folder. */
  pid: number;
  /** Its start time (Linux /proc/PID/stat field 22, clock ticks since boot), to tell a reused pid; absent without /proc. */
  start?: number;
  /** Its database, for messages. */
  db?: string;
  /** Random claim token (two claims of one process differ). */
  token: string;
}

/** Start time of `pid` in clock ticks since boot (Linux /proc/PID/stat field 22); undefined without /proc. */
function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after "(comm)" start at field 3; comm may contain spaces and parentheses
    const n = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

function readOwner(file: string): LinkDirOwner | undefined {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Partial<LinkDirOwner>;
    return typeof o.pid === 'number' && typeof o.token === 'string' ? (o as LinkDirOwner) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True while the owner's process runs: it exists (kill(pid, 0)), is no zombie, and — where both
 * start times are known — started when the owner file says (a reused pid is another process).
 */
export function linkOwnerAlive(o: LinkDirOwner): boolean {
  if (!Number.isInteger(o.pid) || o.pid <= 0 || !processAlive(o.pid)) return false;
  if (o.start === undefined) return true;
  const now = processStart(o.pid);
  return now === undefined || now === o.start;
}

/** What claiming a links folder gave. */
export type LinkDirClaim =
  | { ok: true; dir: string; token: string; /** the stale claim taken over, if any */ replaced?: LinkDirOwner }
  | { ok: false; dir: string; /** the running emulator that owns the folder */ owner: LinkDirOwner };

/**
 * Claims `dir` (created with mode 0700 if missing) for this process: writes the owner file
 * atomically (a complete temporary file hard-linked into place, which fails when one exists).
 * An owner file whose process has ended — or that cannot be read — is stale and replaced.
 * @returns ok:false with the owner when a running process (this one included) owns the folder
 * @throws Error when the folder cannot be made or written (permissions, read-only file system)
 */
export function claimLinkDir(dir: string, db?: string): LinkDirClaim {
  const file = join(dir, LINK_OWNER_FILE);
  const start = processStart(process.pid);
  const me: LinkDirOwner = { pid: process.pid, ...(start !== undefined ? { start } : {}), ...(db !== undefined ? { db } : {}), token: randomBytes(8).toString('hex') };
  let replaced: LinkDirOwner | undefined;
  for (let attempt = 0; ; attempt++) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${LINK_OWNER_FILE}.${process.pid}.${me.token}.tmp`);
    try {
      writeFileSync(tmp, `${JSON.stringify(me)}\n`, { mode: 0o600 });
      linkSync(tmp, file);
      return { ok: true, dir, token: me.token, ...(replaced ? { replaced } : {}) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOENT: the folder was removed under us (another run's stop); EEXIST: someone owns it
      if ((code !== 'EEXIST' && code !== 'ENOENT') || attempt >= 8) throw e;
      if (code === 'EEXIST') {
        const owner = readOwner(file);
        if (owner && linkOwnerAlive(owner)) return { ok: false, dir, owner };
        // stale: move it aside, and put it back if what moved was a fresh claim made meanwhile
        const aside = join(dir, `${LINK_OWNER_FILE}.stale.${process.pid}.${me.token}`);
        try {
          renameSync(file, aside);
          const moved = readOwner(aside);
          if (moved && moved.token !== owner?.token && linkOwnerAlive(moved)) {
            try {
              linkSync(aside, file);
            } catch {
              // a third claim won meanwhile; the loop reads it
            }
          } else if (owner) {
            replaced = owner;
          }
          unlinkSync(aside);
        } catch {
          // another run moved it first; try again
        }
      }
    } finally {
      try {
        unlinkSync(tmp);
      } catch {
        // not written
      }
    }
  }
}

/**
 * Gives up a claim: removes the owner file if it still holds `token`, then the folder if it is
 * empty (and its parent, for a per-database folder, if that is empty too). Never throws.
 */
export function releaseLinkDir(dir: string, token: string, alsoEmptyParent = false): void {
  const file = join(dir, LINK_OWNER_FILE);
  try {
    if (readOwner(file)?.token === token) unlinkSync(file);
  } catch {
    // gone already
  }
  for (const d of alsoEmptyParent ? [dir, dirname(dir)] : [dir]) {
    try {
      rmdirSync(d); // only an empty folder goes (ENOTEMPTY otherwise)
    } catch {
      return;
    }
  }
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
  /** Folder of the stable links this run made (`linkDir`, or `fallbackLinkDir` when another run owns that); undefined: no links. */
  readonly linkDir: string | undefined;
  /** Closes the ports, ends socat, removes the links that still point at this run's PTYs, its owner file and the folder if left empty (idempotent). */
  stop(): Promise<void>;
}

/** Options of exposeConsolesOnPtys. */
export interface ExposeOptions {
  /** The consoles and their line settings. */
  consoles: ReadonlyArray<{ side: SerialConsoleSide; line: ConsoleConfig }>;
  /** Folder for the stable links (consoleLinkDir). */
  linkDir: string;
  /** Folder used when a running emulator owns `linkDir` (consoleLinkDirs); absent: no stable links then. */
  fallbackLinkDir?: string;
  /** The database, written to the owner file (for the other run's messages). */
  db?: string;
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
      // this run owns the folder: a link left in it is from a run that has ended
      const old = readlinkSync(link);
      if (existsSync(old)) log.info({ category: 'console', link, old }, `${link} pointed at ${old}, left by an earlier run that has ended; it now points at this run's console`);
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

function ownerText(o: LinkDirOwner): string {
  return `pid ${o.pid}${o.db ? `, database ${o.db}` : ''}`;
}

/**
 * Claims the links folder: `linkDir`, or `fallbackLinkDir` when a running emulator owns `linkDir`.
 * Logs what it chose; never throws (undefined: no stable links this run).
 */
function claimLinks(o: ExposeOptions, log: Logger): { dir: string; token: string; nested: boolean } | undefined {
  try {
    const first = claimLinkDir(o.linkDir, o.db);
    if (first.ok) {
      if (first.replaced) log.info({ category: 'console', linkDir: o.linkDir, stale_pid: first.replaced.pid }, `console links folder ${o.linkDir} was claimed by a run that has ended (${ownerText(first.replaced)}); taken over`);
      return { dir: first.dir, token: first.token, nested: false };
    }
    if (!o.fallbackLinkDir) {
      log.warn({ category: 'console', linkDir: o.linkDir, owner_pid: first.owner.pid }, `console links in ${o.linkDir} belong to another running atcasim (${ownerText(first.owner)}); this run makes no stable links`);
      return undefined;
    }
    const second = claimLinkDir(o.fallbackLinkDir, o.db);
    if (!second.ok) {
      log.warn({ category: 'console', linkDir: o.fallbackLinkDir, owner_pid: second.owner.pid }, `console links in ${o.linkDir} and ${o.fallbackLinkDir} belong to other running atcasims (${ownerText(first.owner)}; ${ownerText(second.owner)}); this run makes no stable links`);
      return undefined;
    }
    log.warn(
      { category: 'console', linkDir: o.fallbackLinkDir, shared_link_dir: o.linkDir, owner_pid: first.owner.pid },
      `console links in ${o.linkDir} belong to another running atcasim (${ownerText(first.owner)}) and are left alone; this run's consoles are linked in ${o.fallbackLinkDir}`,
    );
    return { dir: second.dir, token: second.token, nested: true };
  } catch (e) {
    log.warn({ category: 'console', linkDir: o.linkDir, err: String(e) }, 'console links folder cannot be used; no stable links this run');
    return undefined;
  }
}

/**
 * Exposes every console on a socat PTY pair: opens the emulator's end with `serialport` (line
 * settings from the YAML), wires it to the console, and links the user's end at a stable name in
 * the links folder this run claims (see the module comment). Consoles are set up in parallel.
 * @throws Error when socat or a PTY cannot be set up (everything made so far is undone)
 */
export async function exposeConsolesOnPtys(o: ExposeOptions): Promise<ExposedConsoles> {
  const log = o.log.child({ module: 'chassis.io.serial-console' });
  const claim = claimLinks(o, log);
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
    if (claim) releaseLinkDir(claim.dir, claim.token, claim.nested);
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
        const stable = claim ? makeLink(claim.dir, side.name, pair.userPath, log) : undefined;
        made.push({ name: side.name, path: pair.userPath, ...(stable ? { link: stable } : {}), pid: pair.pid });
      }),
    );
  } catch (e) {
    await stop();
    throw e;
  }
  const order = new Map(o.consoles.map((c, i) => [c.side.name, i]));
  made.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  log.info({ category: 'console', linkDir: claim?.dir ?? null, consoles: Object.fromEntries(made.map((c) => [c.name, c.path])) }, 'consoles on PTYs');
  return { consoles: made, linkDir: claim?.dir, stop };
}

/**
 * The `expose` edge of the emulator's consoles part (chassis/runtime/consoles.ts ConsoleExpose)
 * for `atcasim start`: every console on a socat PTY, stable links in `dirs` — a folder, or a
 * database's ConsoleLinkDirs (consoleLinkDirs: the stable folder, else the per-database one when
 * another running emulator owns it).
 */
export function ptyConsoleExpose(dirs: string | ConsoleLinkDirs, log: Logger, socat?: string) {
  const d = typeof dirs === 'string' ? { linkDir: dirs } : dirs;
  return async (consoles: ReadonlyArray<{ side: SerialConsoleSide; line: ConsoleConfig }>) => {
    const ex = await exposeConsolesOnPtys({ consoles, ...d, log, ...(socat ? { socat } : {}) });
    return {
      paths: Object.fromEntries(ex.consoles.map((c) => [c.name, c.path])),
      links: Object.fromEntries(ex.consoles.filter((c) => c.link).map((c) => [c.name, c.link!])),
      stop: () => ex.stop(),
    };
  };
}
