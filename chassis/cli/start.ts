/**
 * `atcasim start` (what `npm start` runs): the whole emulated shelf with live traffic, the IPMI
 * LAN server, and the TUI — or, with `--headless`, JSON log lines on stdout for CI and servers.
 *
 *   atcasim start [--config FILE] [--db FILE] [--headless] [--replay FILE] [--rate PPS]
 *                 [--session-capacity N] [--hot-swap-step DURATION] [--stats-interval DURATION]
 *                 [--log-level LEVEL] [--log-file FILE]
 *                 [--ipmi-port N] [--ipmi-bind ADDR] [--no-ipmi15] [--ipmi-cipher-suites LIST]
 *                 [--ipmi-insecure-cipher0] [--admin-user NAME] [--admin-password PW]
 *                 [--snmp-port N]
 *
 * This file is the wall-clock edge: it opens the SQLite database, reads the shelf YAML and the
 * capture, creates the pino loggers, the SystemClock and the UDP socket, then hands them to the
 * emulator composition (chassis/runtime/emulator.ts) and to the TUI (ui/app.ts). Headless, it
 * logs one `"event":"ready"` line once everything serves, then a `"event":"stats"` line every
 * `--stats-interval`. Ctrl-C, `q` (TUI), SIGTERM and SIGHUP stop it cleanly (database closed,
 * exit 0). Exit 2: bad flags, bad `--config` (file:line:column), a database that cannot be used,
 * an unreadable `--replay` file, an administrator password the policy refuses, an IPMI address
 * that cannot be bound, an SNMP agent nobody could read or that cannot start (docs/snmp.md). docs/start.md is the user's reference.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CommandError, ConfigError } from '../../board/common/errors.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { parseDuration } from '../config/duration.ts';
import { parseShelfConfig } from '../config/shelf-config.ts';
import { memoryInput, type TrafficInput } from '../dataplane/traffic.ts';
import { CaptureFileReader } from '../io/capture-file.ts';
import { nodeCryptoRandom } from '../io/crypto-random.ts';
import { PetSender } from '../io/pet-sender.ts';
import { DEFAULT_SHELF_NAME, defaultDbPath, readDefaultShelfYaml } from '../io/data-dir.ts';
import { readSecret } from '../io/read-secret.ts';
import { createLoggers, isLogLevel, LOG_LEVELS, type LogLevel, type ProcessLoggers } from '../io/logger.ts';
import { ControlServer } from '../io/control-server.ts';
import { consoleLinkDirs, ptyConsoleExpose } from '../io/serial-console.ts';
import { onShutdownSignals } from '../io/signals.ts';
import { databaseInUse, SqliteStore } from '../io/sqlite-store.ts';
import { SystemClock } from '../io/system-clock.ts';
import { UdpIpmiAdapter } from '../io/udp-ipmi.ts';
import { StoreError } from '../persistence/store.ts';
import { BUNDLED_CAPTURE_NAME, BUNDLED_CAPTURE_PATH } from '../runtime/assets.ts';
import { runControlLine } from '../runtime/control.ts';
import { ControlOps } from '../runtime/control-ops.ts';
import { Emulator, probeInput, type IpmiListen } from '../runtime/emulator.ts';
import { logEmulatorEvents } from '../runtime/event-log.ts';
import { ServiceLog } from '../runtime/service-log.ts';
import { registerShelfOps } from '../runtime/shelf-control-ops.ts';
import { registerLbOps } from '../runtime/lb-ops.ts';
import { statusSnapshot, type ShelfStatus } from '../runtime/status-snapshot.ts';
import { statsLine } from '../runtime/stats-line.ts';
import type { CliContext } from './context.ts';
import { readConfigText } from './read-file.ts';
import { liveHaFactory } from './live-ha.ts';
import { checkLiveFlags, liveReadyFields, openLive, ProbeRelays, startLive } from './live-setup.ts';
import type { LiveAttachment } from '../io/live-attach.ts';
import { snmpPortOf, startSnmpEndpoint, type SnmpEndpoint } from './snmp-setup.ts';
import { SplitSetup } from './split-setup.ts';

/** Options as commander hands them over. */
export interface StartOptions {
  config?: string;
  db?: string;
  headless?: boolean;
  replay?: string;
  rate?: number;
  sessionCapacity?: number;
  hotSwapStep?: number;
  statsInterval: number;
  logLevel: LogLevel;
  logFile?: string;
  ipmiPort?: number;
  ipmiBind?: string;
  ipmi15: boolean;
  ipmiCipherSuites?: number[];
  ipmiInsecureCipher0?: boolean;
  adminUser?: string;
  adminPassword?: string;
  /** `--snmp-port` (docs/snmp.md): serve SNMP on this UDP port (0 = a free one) [the YAML's snmp.port; none]. */
  snmpPort?: number;
  stdinCommands?: boolean;
  /** `--no-ha` sets false: no HA pairs (switchover and hang answer "not available"). */
  ha?: boolean;
  /** `--split` (docs/split.md): the ShMC pair as two `atcasim shmc` processes on the shelf bus. */
  split?: boolean;
  /** Split: bus address [127.0.0.1:0]. Set by `atcasim shelf --listen`. */
  splitListen?: { host: string; port: number };
  /** Split: start both shmc processes [true]; `atcasim shelf` waits for the user's instead. */
  splitSpawn?: boolean;
  /** The verb named in error and warning lines ["start"; `atcasim shelf` passes "shelf"]. */
  verb?: string;
  /** `--live` (docs/live.md): attach to the lab of `atcasim net up` (live shelf by default). */
  live?: boolean;
  /** `--prefix`: the lab's name prefix [atcasim]. */
  prefix?: string;
}

/** A commander argument parser for an integer flag in [min, max]. @throws InvalidArgumentError otherwise */
export function intArg(name: string, min: number, max: number): (v: string) => number {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new InvalidArgumentError(`${name} must be an integer ${min}..${max}`);
    return Number(v);
  };
}

/**
 * A commander argument parser for a duration flag: "250ms", "1.5s", "2m", or a bare number of
 * seconds; returns ms. @throws InvalidArgumentError below `min` ms or unparsable
 */
export function durationArg(name: string, min: number): (v: string) => number {
  return (v: string): number => {
    const ms = parseDuration(v) ?? (/^\d+(\.\d+)?$/.test(v) ? Number(v) * 1000 : undefined);
    if (ms === undefined || ms < min) throw new InvalidArgumentError(`${name}: "${v}" is not a duration ≥ ${min} ms (write 250ms, 1.5s, 2m)`);
    return ms;
  };
}

function suitesArg(v: string): number[] {
  const parts = v.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d{1,2}$/.test(p))) throw new InvalidArgumentError(`"${v}" is not a comma list of cipher suite numbers (e.g. 3,17)`);
  return parts.map(Number);
}

function rateArg(v: string): number {
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !(n > 0) || n > 100_000_000) throw new InvalidArgumentError(`--rate must be a packet rate > 0 (packets/s), got "${v}"`);
  return n;
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('start')
    .description('run the emulated shelf with live traffic, IPMI and the terminal UI (--headless: JSON log lines)')
    .option('--config <file>', 'shelf YAML (replaces the shelf stored in the database)')
    .option('--db <file>', `database file (default ${defaultDbPath()})`)
    .option('--headless', 'no TUI: JSON log lines on stdout, a "ready" line, then a stats line every --stats-interval')
    .option('--replay <file>', 'loop this capture (pcap/pcapng) instead of the bundled one')
    .option('--rate <pps>', 'replay at this many packets/s (default: paced to the capture time stamps)', rateArg)
    .option('--session-capacity <n>', 'session-table entries per processor board (default 1500000: ~72 MB per board)', intArg('--session-capacity', 1, 1 << 26))
    .option('--hot-swap-step <duration>', 'time of each automatic M-state step (default: the shelf YAML, 1s)', durationArg('--hot-swap-step', 0))
    .addOption(new Option('--stats-interval <duration>', 'headless: time between stats lines (250ms, 5s; a bare number is seconds)').argParser(durationArg('--stats-interval', 100)).default(5000, '5s'))
    .addOption(new Option('--log-level <level>', 'log verbosity').choices([...LOG_LEVELS]).default('info'))
    .option('--log-file <file>', 'TUI mode: log file (default atcasim.log beside the database)')
    .option('--ipmi-port <port>', 'IPMI UDP port; 0 picks a free one (default 6230)', intArg('--ipmi-port', 0, 65535))
    .option('--ipmi-bind <addr>', 'IPMI bind address, an IPv4 or IPv6 literal (default 127.0.0.1)', (v: string) => {
      if (!isIP(v)) throw new InvalidArgumentError(`"${v}" is not an IP address (e.g. 127.0.0.1, 0.0.0.0, ::1)`);
      return v;
    })
    .option('--no-ipmi15', 'refuse IPMI 1.5 (MD5) sessions; RMCP+ only')
    .option('--ipmi-cipher-suites <list>', 'RMCP+ cipher suites offered (default 3,17)', suitesArg)
    .option('--ipmi-insecure-cipher0', 'UNSAFE: offer cipher suite 0 (no authentication: any password logs in)')
    .option('--admin-user <name>', 'first start: administrator name (default admin)')
    .option('--admin-password <pw>', 'first start: administrator password, "-" to type it without echo (else $ATCASIM_ADMIN_PASSWORD, else a random one printed once)')
    .option('--snmp-port <port>', 'serve SNMP (read-only v2c/v3, the shelf YAML\'s snmp section) on this UDP port; 0 picks a free one (default: snmp.port, else none)', intArg('--snmp-port', 0, 65535))
    .option('--no-ha', 'run without the HA pairs (no arbitration, watchdogs or session sync)')
    .option('--split', 'run the shelf-manager pair as two `atcasim shmc` processes (kill -9 / kill -STOP them; docs/split.md)')
    .option('--live', 'attach the hubs and boards to the live lab of `atcasim net up` (default --config: the live shelf; no replay)')
    .option('--prefix <name>', 'with --live: the lab\'s name prefix (as given to net up)')
    .option('--stdin-commands', 'headless: read operator commands (open-handle slot3, fault slot5, …) from stdin, one per line; each is answered with a JSON "command" line after it committed')
    .action(async (o: StartOptions) => {
      ctx.setExit(await runStart(o, ctx));
    });
}

/** One-line description of a start-up failure, or undefined for an unexpected error. */
function startupError(e: unknown): string | undefined {
  if (e instanceof ConfigError) return e.message;
  if (e instanceof StoreError) return `database ${e.message}`;
  if (e instanceof CommandError) return e.message;
  if (e instanceof RangeError || e instanceof TypeError) return e.message;
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string' && (err.syscall === 'bind' || err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL' || err.code === 'EACCES')) {
    return `cannot serve IPMI: ${err.message}${err.code === 'EADDRINUSE' ? ' (another atcasim running? pick another --ipmi-port, or 0 for a free one)' : ''}`;
  }
  return undefined;
}

/** A traffic input over a capture file on disk (streamed through a 1 MiB buffer). */
function fileInput(path: string): TrafficInput {
  return { name: path, size: statSync(path).size, open: (h) => new CaptureFileReader(path, h) };
}

/** What the user named, read before anything is created. */
interface StartInputs {
  dbPath: string;
  configInput?: { yaml: string; source: string };
  traffic: TrafficInput;
  label: string;
}

/** The started shelf and what serving it needs. */
interface RunningStart {
  o: StartOptions;
  ctx: CliContext;
  /** `atcasim start` or `atcasim shelf`, for error lines. */
  me: string;
  em: Emulator;
  split: SplitSetup | undefined;
  /** The SNMP agent of a single-process shelf (in split mode the ShMCs serve it: `split`). */
  snmp: SnmpEndpoint | undefined;
  /** `--live`: the TAPs and the live path. */
  live: LiveAttachment | undefined;
  loggers: ProcessLoggers;
  clock: SystemClock;
  /** Clock time at start-up (uptime in the shutdown line, stats lines). */
  t0: number;
  dbPath: string;
  /** Shown on the TUI's message line (a generated or ignored administrator password). */
  adminNote: string | undefined;
  /** The control socket `<db>.ctl` (chassis/io/control-server.ts). */
  control: ControlServer;
  /** The HA status now (`atcasim status`, the TUI's `a`). */
  status: () => ShelfStatus;
}

/**
 * Runs the verb until the emulator is stopped.
 * @returns the exit status (0 clean shutdown, 2 start-up error)
 */
export async function runStart(o: StartOptions, ctx: CliContext): Promise<number> {
  const me = `atcasim ${o.verb ?? 'start'}`;
  const fail = (msg: string): number => {
    ctx.stderr.write(`${me}: ${msg}\n`);
    return 2;
  };
  if (o.adminPassword !== undefined) {
    // keep the password out of `ps` (Linux: the title overwrites the command line /proc shows)
    process.title = me;
    if (o.adminPassword === '-') {
      try {
        o.adminPassword = await readSecret('Administrator password: ');
      } catch (e) {
        return fail((e as Error).message);
      }
    } else if (process.env.npm_lifecycle_event !== 'npx' && /\batcasim\b/.test(process.env.npm_lifecycle_script ?? '')) { // npm start / npm run: npm echoed the script's command line
      ctx.stderr.write(`${me}: note: npm printed this command line with the password; give it as --admin-password - (asked without echo) or in ATCASIM_ADMIN_PASSWORD\n`);
    }
  }
  const inputs = readStartInputs(o, fail);
  if (typeof inputs === 'number') return inputs;
  // --live: the lab's TAPs first, so a missing or busy one refuses before anything is made
  const taps = o.live && inputs.configInput ? openLive(o, inputs.configInput.yaml, inputs.configInput.source) : undefined;
  if (typeof taps === 'string') return fail(taps);
  const opened = openLogAndStore(o, inputs.dbPath, fail);
  if (typeof opened === 'number') {
    taps?.close();
    return opened;
  }
  const { loggers, store } = opened;
  const clock = new SystemClock();
  const t0 = clock.now();
  const started = await startEmulator(o, inputs, store, loggers.log, clock, fail, o.live ? new ProbeRelays() : undefined);
  if (typeof started === 'number') {
    taps?.close();
    return started;
  }
  const { em, split, snmp } = started;
  let live: LiveAttachment | undefined;
  if (o.live) {
    const r = startLive(em, o, clock, loggers.log, loggers.events, taps!);
    if (typeof r !== 'string') started.relays?.attach(r);
    if (typeof r === 'string') {
      loggers.log.error({ category: 'startup', err: r }, 'live attachment failed');
      await snmp?.stop();
      await split?.stop();
      await em.stop();
      taps?.close();
      return fail(r);
    }
    live = r;
  }
  const status = shelfStatusOf(em, clock, t0);
  const control = await startControl(em, store, inputs.dbPath, loggers.log, status);
  if (typeof control === 'string') {
    live?.close();
    await snmp?.stop();
    await split?.stop();
    await em.stop();
    return fail(control);
  }
  const adminNote = announceStart(o, ctx, me, em, loggers, inputs);
  return await serveUntilStopped({ o, ctx, me, em, split, snmp, live, loggers, clock, t0, dbPath: inputs.dbPath, adminNote, control, status });
}

/** The HA status of the running shelf, built on each call (the control socket's `status`, the TUI's `a`). */
function shelfStatusOf(em: Emulator, clock: SystemClock, t0: number): () => ShelfStatus {
  const service = new ServiceLog();
  em.shelf.on('hotswap', (e) => service.onHotSwap(e));
  return () => {
    const now = clock.now();
    const lostByAge = em.ha?.lostByAge?.();
    return statusSnapshot({ view: em.view(), pairs: em.config.ha.pairs, ...(lostByAge ? { lostByAge } : {}), service, now, uptimeMs: now - t0 });
  };
}

/**
 * The control socket `<db>.ctl` with the operations other `atcasim` processes use (`status`,
 * `lb`, …): every part's ops are registered here, on one ControlOps.
 * @returns the server, or the one-line reason it could not start
 */
async function startControl(em: Emulator, store: SqliteStore, dbPath: string, log: ProcessLoggers['log'], status: () => ShelfStatus): Promise<ControlServer | string> {
  const ops = new ControlOps();
  registerLbOps(ops, { config: em.config, dataPlane: em.dataPlane, store, nowMs: () => Date.now() });
  registerShelfOps(ops, em, status);
  try {
    return await ControlServer.start({ dbPath, ops, log });
  } catch (e) {
    const m = (e as Error).message;
    log.error({ category: 'startup', err: m }, 'control socket: start-up failed');
    return m;
  }
}

/**
 * Checks the flags against each other and reads the inputs the user named (the shelf YAML, the
 * capture), before anything is created.
 * @returns the inputs, or the exit status of a refusal (2, the message written by `fail`)
 */
function readStartInputs(o: StartOptions, fail: (msg: string) => number): StartInputs | number {
  if (o.stdinCommands && !o.headless) return fail('--stdin-commands needs --headless (the TUI owns the terminal)');
  const liveRefusal = checkLiveFlags(o);
  if (liveRefusal !== undefined) return fail(liveRefusal);
  const dbPath = resolve(o.db ?? defaultDbPath());
  if (existsSync(dbPath) && statSync(dbPath).isDirectory()) return fail(`--db ${dbPath}: is a directory, not a database file (give --db a file path)`);
  // Inputs the user named: read before anything is created.
  let configInput: { yaml: string; source: string } | undefined;
  if (o.config !== undefined) {
    try {
      configInput = { yaml: readConfigText(o.config, 'shelf YAML file'), source: o.config };
    } catch (e) {
      if (e instanceof ConfigError) return fail(e.message);
      throw e;
    }
    // Checked before the database is opened, so a refused start leaves no new database behind.
    try {
      parseShelfConfig(configInput.yaml, configInput.source);
    } catch (e) {
      if (e instanceof ConfigError) return fail(e.message);
      throw e;
    }
  }
  let traffic: TrafficInput;
  let label: string;
  if (o.replay !== undefined) {
    if (!existsSync(o.replay) || !statSync(o.replay).isFile()) return fail(`--replay ${o.replay}: no such capture file`);
    try {
      accessSync(o.replay, constants.R_OK);
    } catch (e) {
      return fail(`--replay ${o.replay}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    traffic = fileInput(o.replay);
    // Refused here with exit 2 rather than left out by the emulator (which would then have no traffic).
    const problem = probeInput(traffic);
    if (problem !== undefined) return fail(`--replay ${o.replay}: ${problem}`);
    label = o.replay;
  } else {
    traffic = memoryInput(BUNDLED_CAPTURE_NAME, readFileSync(BUNDLED_CAPTURE_PATH));
    label = BUNDLED_CAPTURE_NAME;
  }
  return { dbPath, ...(configInput ? { configInput } : {}), traffic, label };
}

/**
 * Creates the loggers (stdout headless, else the log file) and opens the database.
 * @returns both, or the exit status (2) when the log file cannot be opened or the database is in
 *   use or unusable
 */
function openLogAndStore(o: StartOptions, dbPath: string, fail: (msg: string) => number): { loggers: ProcessLoggers; store: SqliteStore } | number {
  let loggers: ProcessLoggers;
  const logFile = o.logFile ?? join(dirname(dbPath), 'atcasim.log');
  try {
    loggers = createLoggers({ level: isLogLevel(o.logLevel) ? o.logLevel : 'info', destination: o.headless ? { kind: 'stdout' } : { kind: 'file', path: logFile } });
  } catch (e) {
    return fail(`cannot open the log file ${logFile}: ${(e as Error).message}`);
  }
  const { log } = loggers;

  // Two emulators on one database would overwrite each other's shelf state.
  if (existsSync(dbPath) && databaseInUse(dbPath)) return fail(`${dbPath} is in use by another running emulator (stop it, or give another --db)`);
  let store: SqliteStore;
  try {
    store = SqliteStore.open(dbPath);
  } catch (e) {
    const m = startupError(e);
    if (m === undefined) throw e;
    log.error({ category: 'startup', err: m }, 'cannot open the database');
    return fail(m);
  }
  return { loggers, store };
}

/**
 * The composition root of a wall-clock shelf: the Platform (SystemClock, pino, node:crypto
 * randomness from chassis/io), the UDP IPMI adapter (or, with --split, the split part and its
 * ShMC processes), the consoles on PTYs and the HA pairs, handed to `Emulator.start`.
 * @returns the running emulator (and split part), or the exit status (2) of a start-up failure
 */
async function startEmulator(
  o: StartOptions,
  inputs: StartInputs,
  store: SqliteStore,
  log: ProcessLoggers['log'],
  clock: SystemClock,
  fail: (msg: string) => number,
  relays?: ProbeRelays,
): Promise<{ em: Emulator; split: SplitSetup | undefined; snmp: SnmpEndpoint | undefined; relays: ProbeRelays | undefined } | number> {
  const { dbPath, configInput, traffic, label } = inputs;
  const platform = { clock, log, random: new SeededRandom(Date.now() >>> 0), cryptoRandom: nodeCryptoRandom };
  // --split: the ShMC pair runs in two shmc processes on the shelf bus (docs/split.md).
  const split = o.split
    ? new SplitSetup({
        log,
        clock,
        listen: o.splitListen ?? { host: '127.0.0.1', port: 0 },
        spawnShmcs: o.splitSpawn !== false,
        dbPath,
        ...((o.adminPassword ?? process.env.ATCASIM_ADMIN_PASSWORD) ? { adminPassword: o.adminPassword ?? process.env.ATCASIM_ADMIN_PASSWORD } : {}),
      })
    : undefined;
  const listen: IpmiListen = async (server, s) => {
    const a = new UdpIpmiAdapter(server, { host: s.bind, port: s.port, clock, log });
    const b = await a.start();
    return { address: b.address, port: b.port, stop: () => a.stop() };
  };
  let em: Emulator;
  try {
    em = await Emulator.start({
      platform,
      store,
      ownsStore: true,
      ...(configInput ? { configInput } : {}),
      defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
      wallTimeMs: Date.now(),
      ...(o.sessionCapacity !== undefined ? { sessionCapacity: o.sessionCapacity } : {}),
      ...(relays ? { probe: relays.port } : {}),
      ...(o.hotSwapStep !== undefined ? { hotSwapStepMs: o.hotSwapStep } : {}),
      traffic: o.live ? false : { inputs: [traffic], label, pacing: o.rate !== undefined ? { mode: 'rate', pps: o.rate } : { mode: 'capture' } },
      admin: {
        ...(o.adminUser !== undefined ? { user: o.adminUser } : {}),
        ...(o.adminPassword !== undefined ? { password: o.adminPassword } : {}),
        ...(process.env.ATCASIM_ADMIN_PASSWORD ? { envPassword: process.env.ATCASIM_ADMIN_PASSWORD } : {}),
      },
      ipmi: {
        options: {
          ...(o.ipmiBind !== undefined ? { bind: o.ipmiBind } : {}),
          ...(o.ipmiPort !== undefined ? { port: o.ipmiPort } : {}),
          ...(o.ipmi15 === false ? { ipmi15: false } : {}),
          ...(o.ipmiCipherSuites !== undefined ? { cipherSuites: o.ipmiCipherSuites } : {}),
          ...(o.ipmiInsecureCipher0 ? { insecureCipher0: true } : {}),
        },
        listen: split ? split.listen : listen,
        // PEF alerts as SNMPv1 PETs to the LAN alert destinations (UDP 162)
        alerts: new PetSender({ log }),
      },
      // serial consoles on socat PTYs, linked at $XDG_RUNTIME_DIR/atcasim/<fru> (else beside the database;
      // in a per-database folder inside it when another running emulator owns those names)
      consoles: { expose: ptyConsoleExpose(consoleLinkDirs(dbPath), log) },
      // the redundant pairs (docs/ha.md): wall clock, stalls of the whole process compensated,
      // heartbeats and sync over UDP
      ...(o.ha !== false || split ? { ha: split ? split.haFactory(o.ha !== false ? liveHaFactory(log) : undefined) : liveHaFactory(log) } : {}),
    });
  } catch (e) {
    // Emulator.start closed the store (ownsStore) and stopped what it had started.
    const m = startupError(e);
    if (m === undefined) throw e;
    log.error({ category: 'startup', err: m }, 'start-up failed');
    return fail(m);
  }

  // SNMP (docs/snmp.md): the port from --snmp-port or the YAML in force; refused when nobody could read it
  const snmpPort = snmpPortOf(em.config, o.snmpPort);
  let snmp: SnmpEndpoint | undefined;
  try {
    if (snmpPort.refusal) throw new RangeError(snmpPort.refusal);
    if (snmpPort.port !== undefined && split) await split.serveSnmp(em, snmpPort.port);
    else if (snmpPort.port !== undefined) snmp = await startSnmpEndpoint(em, snmpPort.port, clock, log);
  } catch (e) {
    const m = e instanceof RangeError || (e as Error).name === 'SnmpStartError' ? (e as Error).message : `cannot serve SNMP: ${(e as Error).message}`;
    log.error({ category: 'startup', err: m }, 'SNMP: start-up failed');
    await split?.stop();
    await em.stop();
    return fail(m);
  }

  if (split) {
    try {
      await split.launch(em);
    } catch (e) {
      log.error({ category: 'startup', err: String(e) }, 'split shelf: start-up failed');
      await split.stop();
      await em.stop();
      return fail(`split shelf: ${(e as Error).message}`);
    }
  }
  return { em, split, snmp, relays };
}

/**
 * Logs what started (shelf, origin, capacity, traffic; the insecure-cipher warning) and tells the
 * user about the administrator: a generated password once on stderr and in the event log, an
 * ignored one as a warning.
 * @returns the note for the TUI's message line (generated or ignored password), if any
 */
function announceStart(o: StartOptions, ctx: CliContext, me: string, em: Emulator, loggers: ProcessLoggers, inputs: StartInputs): string | undefined {
  const { log, events } = loggers;
  const r = em.resolved;
  log.info(
    { category: 'startup', db: inputs.dbPath, config: r.source, origin: r.origin, replaced: r.replaced, session_capacity: em.dataPlane.sessionCapacity, traffic: inputs.label },
    `shelf "${em.config.name}" from ${r.origin === 'stored' ? 'the database' : r.source}`,
  );
  if (o.ipmiInsecureCipher0) log.warn({ category: 'insecure-config' }, 'cipher suite 0 offered (--ipmi-insecure-cipher0): logins need no password');
  let adminNote: string | undefined;
  if (em.admin.generatedPassword !== undefined) {
    const name = em.admin.user?.name ?? 'admin';
    adminNote = `IPMI administrator "${name}" created with password ${em.admin.generatedPassword} — shown once; change it with ipmitool user set password`;
    ctx.stderr.write(`\n*** ${adminNote} ***\n\n`);
    events.warn({ event: 'admin_password', user: name, password: em.admin.generatedPassword }, adminNote);
  } else if (em.admin.created) {
    events.info({ event: 'admin_created', user: em.admin.user?.name ?? 'admin' }, 'IPMI administrator created from the given password');
  } else if (em.admin.ignored !== undefined) {
    // A password given for an existing database is not applied (never silently): say so — on
    // stderr headless, on the TUI's message line otherwise — and in the log.
    adminNote = em.admin.ignored;
    if (o.headless) ctx.stderr.write(`${me}: warning: ${adminNote}\n`);
    events.warn({ event: 'admin_password_ignored' }, adminNote);
  }
  return adminNote;
}

/** What the shutdown path and the front ends share while the shelf serves. */
interface ServeState {
  statsTimer: unknown;
  tui: { destroy(): void } | undefined;
  shuttingDown: boolean;
  /** Run at shutdown, before the emulator stops (e.g. closing the stdin reader). */
  onClose: Array<() => void>;
}

/**
 * Serves until Ctrl-C, `q`, SIGTERM/SIGHUP or an internal error: headless (ready line, stats
 * lines, stdin commands) or the TUI (ui/app.ts, imported only here), then stops everything.
 * @returns the exit status: 0 clean, 1 after a TUI or internal error (SIGHUP of the TUI: the
 *   process ends by the signal itself)
 */
function serveUntilStopped(run: RunningStart): Promise<number> {
  const { o, ctx, me, em, split, loggers, clock, t0 } = run;
  const { log, events } = loggers;
  const unlog = logEmulatorEvents(em, log);

  return new Promise<number>((resolveExit) => {
    const state: ServeState = { statsTimer: undefined, tui: undefined, shuttingDown: false, onClose: [] };
    const shutdown = (reason: string) => {
      if (state.shuttingDown) return;
      state.shuttingDown = true;
      if (state.statsTimer !== undefined) clock.clearTimeout(state.statsTimer);
      state.tui?.destroy();
      for (const c of state.onClose) c();
      void (async () => {
        unlog();
        run.live?.close();
        await run.control.stop();
        await run.snmp?.stop();
        await split?.stop();
        await em.stop();
        events.info({ event: 'shutdown', reason, uptime_s: Math.round((clock.now() - t0) / 100) / 10 }, `stopped (${reason}); database closed`);
        loggers.flush();
        offSignals();
        process.off('uncaughtException', onCrash);
        if (reason === 'SIGHUP' && !o.headless) {
          // The terminal is gone: end as the default SIGHUP action would (status 129), without
          // Node's exit-time terminal reset, which aborts on a vanished tty (write EIO).
          process.kill(process.pid, 'SIGHUP');
          return;
        }
        resolveExit(reason === 'tui-error' || reason === 'internal-error' ? 1 : 0);
      })();
    };
    // A bug must not leave the terminal in raw mode or the database open: restore, log, stop, exit 1.
    const onCrash = (e: Error) => {
      state.tui?.destroy();
      state.tui = undefined;
      log.error({ category: 'internal', err: e.stack ?? String(e) }, 'internal error; shutting down');
      ctx.stderr.write(`${me}: internal error: ${e.stack ?? String(e)}\n`);
      shutdown('internal-error');
    };
    process.on('uncaughtException', onCrash);
    const offSignals = onShutdownSignals(
      (sig) => shutdown(sig),
      (sig) => log.warn({ category: 'shutdown', signal: sig }, 'already shutting down'),
    );
    if (o.headless) serveHeadless(run, state);
    else serveTui(run, state, shutdown);
  });
}

/** Headless: the ready line, a stats line every --stats-interval, and --stdin-commands. */
function serveHeadless(run: RunningStart, state: ServeState): void {
  const { o, em, split, loggers, clock, t0, dbPath } = run;
  const { log, events } = loggers;
  events.info({ event: 'ready', ipmi: em.endpoints.ipmi ?? null, snmp: run.snmp?.address ?? split?.snmpAddress ?? null, consoles: em.endpoints.consoles, console_links: em.endpoints.consoleLinks ?? {}, db: dbPath, control: run.control.path, ...(split ? split.readyFields() : {}), ...liveReadyFields(run.live, o.prefix) }, 'ready');
  const stats = () => {
    em.sampleTraffic();
    events.info({ ...statsLine(em.view(), clock.now() - t0), ...(run.live ? { live: { ...run.live.path.stats(), ports: run.live.portStats() } } : {}) }, 'stats');
    state.statsTimer = clock.setTimeout(stats, o.statsInterval);
  };
  state.statsTimer = clock.setTimeout(stats, o.statsInterval);
  if (o.stdinCommands) {
    const rl = createInterface({ input: process.stdin, terminal: false });
    rl.on('line', (line) => {
      if (state.shuttingDown) return;
      try {
        const r = runControlLine(line, em.commands);
        if (r) events.info(r, r.message);
      } catch (e) {
        log.error({ category: 'control', err: String(e), line }, 'control command failed');
        events.info({ event: 'command', line: line.trim(), ok: false, code: 'internal', message: String(e) }, 'internal error');
      }
    });
    state.onClose.push(() => rl.close());
  }
}

/** The TUI (ui/app.ts, loaded by dynamic import only here), then the ready line in the log. */
function serveTui(run: RunningStart, state: ServeState, shutdown: (reason: string) => void): void {
  const { ctx, em, split, loggers, clock, adminNote } = run;
  const { log } = loggers;
  void import('../../ui/app.ts')
    .then(({ TuiApp }) => {
      if (state.shuttingDown) return;
      const app = new TuiApp({
        source: { view: () => em.view(), rsTable: (slot) => em.rsTable(slot), commands: em.commands, subscribe: (fn) => em.subscribe(fn), status: run.status },
        clock,
        log,
        onQuit: () => shutdown('quit'),
        ...(adminNote ? { message: { text: adminNote, level: 'info' as const } } : {}),
      });
      state.tui = app;
      // A terminal that vanished (pty closed, tmux killed) fails writes with EIO/EPIPE: that is a
      // hang-up, not an internal error.
      process.stdout.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EIO' && e.code !== 'EPIPE') throw e;
        shutdown('SIGHUP');
      });
      app.start();
      log.info({ event: 'ready', ipmi: em.endpoints.ipmi ?? null, snmp: run.snmp?.address ?? split?.snmpAddress ?? null, consoles: em.endpoints.consoles, console_links: em.endpoints.consoleLinks ?? {}, tui: true, control: run.control.path, ...(split ? split.readyFields() : {}), ...liveReadyFields(run.live, run.o.prefix) }, 'ready');
    })
    .catch((e: unknown) => {
      log.error({ category: 'tui', err: String(e) }, 'the TUI could not start');
      ctx.stderr.write(`atcasim start: the TUI could not start (${String(e)}); use --headless\n`);
      shutdown('tui-error');
    });
}
