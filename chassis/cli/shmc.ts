/**
 * `atcasim shmc` — one shelf manager of the split shelf (docs/split.md):
 *
 *   atcasim shmc --node a|b --shelf HOST:PORT --peer-listen HOST:PORT --peer HOST:PORT
 *                --ipmi-port PORT --maint-port PORT --db FILE [--admin-password PW]
 *                [--log-file FILE] [--log-level LEVEL]
 *
 * The administrator password comes from --admin-password or, where it does not show in `ps`, from
 * the environment variable ATCASIM_ADMIN_PASSWORD (the flag wins when both are given). It is sent to
 * the shelf in the registration apart from the flags (`hello.adminPassword`), so that a restart after
 * a watchdog reset passes it to the new process through its environment, never on its command line.
 *
 * The wall-clock edge of chassis/split/shmc-node.ts: it opens its own SQLite database, the UDP
 * flow to the peer (chassis/io/udp-pair-link.ts: heartbeats, session sync, management-state
 * mirror; the same adapter the single-process shelf's pairs run on), the maintenance port,
 * and the bus connection to the shelf (registration with its flags, lines, watchdog, relayed IPMI);
 * it binds the shelf address (`--ipmi-port`, UDP) only while it is the active ShMC. JSON log lines
 * go to stdout (or --log-file). Losing the bus is losing power: the process exits (status 3).
 * SIGTERM / SIGINT stop it cleanly (exit 0). Exit 2: bad flags, a port or database that cannot be
 * used, a shelf that cannot be reached or refuses the registration.
 */
import type { Command } from 'commander';
import { createSocket, type Socket } from 'node:dgram';
import type { Logger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { resolveHaConfig } from '../config/ha.ts';
import type { HaConfig } from '../config/ha.ts';
import { StallCompensatedClock } from '../../board/common/stall-clock.ts';
import { createLoggers, isLogLevel } from '../io/logger.ts';
import { onShutdownSignals } from '../io/signals.ts';
import { connectBus, type BusClient } from '../io/split-bus.ts';
import { listenMaint } from '../io/shmc-maint.ts';
import { ShmcStore } from '../io/shmc-store.ts';
import { SystemClock } from '../io/system-clock.ts';
import { UdpFlow } from '../io/udp-pair-link.ts';
import { ShmcSnmpEndpoint } from '../io/snmp-shmc.ts';
import type { ShmcNode, ToShmc } from '../split/bus-codec.ts';
import { parseShmcArgv, shmcArgv, type ShmcFlags } from '../split/shmc-flags.ts';
import { ShmcRuntime } from '../split/shmc-node.ts';
import type { CliContext } from './context.ts';

const FLAG_NAMES = ['node', 'shelf', 'peerListen', 'peer', 'ipmiPort', 'maintPort', 'db', 'adminPassword', 'logFile', 'logLevel'] as const;
const kebab = (s: string) => `--${s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Retries `fn` while it fails with EADDRINUSE (the previous incarnation's port is being freed), up to `ms`. */
async function retryInUse<T>(fn: () => Promise<T>, ms = 5000): Promise<T> {
  const t0 = performance.now();
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || performance.now() - t0 > ms) throw e;
      await sleep(50);
    }
  }
}

function bindUdp(host: string, port: number): Promise<Socket> {
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

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('shmc')
    .description('run one shelf manager of the split shelf (atcasim start --split runs two; docs/split.md)')
    .requiredOption('--node <a|b>', 'which ShMC: a (shmc-a) or b (shmc-b)')
    .requiredOption('--shelf <host:port>', 'the shelf process\'s bus address (atcasim shelf --listen)')
    .requiredOption('--peer-listen <host:port>', 'UDP address for heartbeats, sync and mirroring from the peer')
    .requiredOption('--peer <host:port>', 'the peer ShMC\'s --peer-listen address')
    .requiredOption('--ipmi-port <port>', 'the shelf address (UDP), bound while this ShMC is active')
    .requiredOption('--maint-port <port>', 'maintenance port (TCP, JSON lines: status for clia shmstatus --maint)')
    .requiredOption('--db <file>', 'this ShMC\'s own database')
    .option('--admin-password <pw>', 'administrator password (control operations on the maintenance port; else $ATCASIM_ADMIN_PASSWORD, which does not show in ps)')
    .option('--log-file <file>', 'log to this file instead of stdout')
    .option('--log-level <level>', 'log verbosity (info)')
    .action(async (o: Record<string, string>) => {
      const argv: string[] = [];
      for (const k of FLAG_NAMES) if (o[k] !== undefined) argv.push(kebab(k), String(o[k]));
      let flags: ShmcFlags;
      try {
        flags = parseShmcArgv(argv, { env: process.env });
      } catch (e) {
        ctx.stderr.write(`atcasim shmc: ${(e as Error).message}\n`);
        ctx.setExit(2);
        return;
      }
      ctx.setExit(await runShmc(flags, ctx));
    });
}

/**
 * Runs one ShMC until it is stopped or loses the bus.
 * @returns exit status (0 stopped by a signal, 2 start-up error, 3 bus lost)
 */
export async function runShmc(f: ShmcFlags, ctx: CliContext): Promise<number> {
  const node = `shmc-${f.node}` as const;
  const fail = (m: string) => {
    ctx.stderr.write(`atcasim shmc (${node}): ${m}\n`);
    return 2;
  };
  const level = f.logLevel && isLogLevel(f.logLevel) ? f.logLevel : 'info';
  const loggers = createLoggers({ level, destination: f.logFile ? { kind: 'file', path: f.logFile } : { kind: 'stdout' } });
  const log = loggers.log.child({ node });
  let store: ShmcStore;
  try {
    store = new ShmcStore(f.db);
  } catch (e) {
    return fail(`database ${f.db}: ${(e as Error).message}`);
  }
  const closers: Array<() => void | Promise<void>> = [() => store.close()];
  const cleanup = async () => {
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch {
        // closing what is already closed
      }
    }
  };

  let peer: UdpFlow;
  try {
    peer = await retryInUse(() => UdpFlow.open(f.peerListen, { log }));
  } catch (e) {
    await cleanup();
    return fail(`--peer-listen ${f.peerListen.host}:${f.peerListen.port}: ${(e as Error).message}`);
  }
  peer.connect(f.peer);
  closers.push(() => peer.close());

  // SNMP (docs/snmp.md): settings, rows and notifications come over the bus; served while active.
  const snmp = new ShmcSnmpEndpoint(new SystemClock(), log);
  closers.push(() => snmp.stop());

  let runtime: ShmcRuntime | undefined;
  let maint: { port: number; close(): Promise<void> };
  try {
    maint = await retryInUse(() =>
      listenMaint(f.shelf.host, f.maintPort, {
        status: () => ({ ...(runtime?.status() ?? { node, role: 'booting' }), pid: process.pid, ipmi_port: f.ipmiPort, shelf_address_bound: runtime?.shelfAddressBound ?? false, snmp: snmp.address ?? null, garbage: runtime?.garbage ?? 0 }),
        blockHeartbeats: (on) => runtime?.blockHeartbeats(on),
        passwordOk: (pw) => f.adminPassword !== undefined && pw === f.adminPassword,
      }),
    );
  } catch (e) {
    await cleanup();
    return fail(`--maint-port ${f.maintPort}: ${(e as Error).message}`);
  }
  closers.push(() => maint.close());

  // Bus: register, wait for the welcome.
  const reg = await registerOnBus(f, node, log, (m) => (ShmcSnmpEndpoint.takes(m) ? snmp.onBus(m) : runtime?.onBus(m)));
  if (typeof reg === 'string') {
    await cleanup();
    return fail(reg);
  }
  const { bus, first, lost } = reg;
  closers.push(() => bus.close());

  let cfg;
  try {
    cfg = resolveHaConfig(first.ha as Partial<HaConfig>);
  } catch (e) {
    await cleanup();
    return fail(`the shelf's HA timing is unusable: ${(e as Error).message}`);
  }
  const base = new SystemClock();
  const clock = new StallCompensatedClock(base, cfg.globalStallMs);
  closers.push(() => clock.dispose());

  // The shelf address, bound while active.
  const shelfAddress = new ShelfAddress(f.shelf.host, f.ipmiPort, log, (msg, address, port) => runtime?.onIpmiDatagram(msg, address, port));
  closers.push(() => shelfAddress.close());

  runtime = new ShmcRuntime({
    node,
    cfg,
    clock,
    random: new SeededRandom((process.pid * 2654435761) >>> 0),
    log,
    wallNow: () => Date.now(),
    bus: (m) => bus.send(m),
    sendPeer: (bytes) => peer.send(bytes),
    shelfAddress: (b) => {
      shelfAddress.want(b);
      snmp.want(b);
    },
    sendIpmi: (address, port, datagrams) => shelfAddress.send(address, port, datagrams),
    state: store,
  });
  const rt = runtime;
  closers.push(() => rt.stop());
  peer.onDatagram((msg) => rt.onPeerDatagram(msg));
  clock.onStall((s) => {
    log.warn({ category: 'global-stall', gap_ms: Math.round(s.gapMs) }, 'process stalled: HA timers compensated');
    rt.rebase();
  });
  rt.start();
  loggers.events.info({ event: 'ready', node, pid: process.pid, maint: maint.port, peer_listen: `${f.peerListen.host}:${f.peerListen.port}`, ipmi_port: f.ipmiPort }, 'ready');

  const code = await untilStopped(lost, log);
  await cleanup();
  loggers.flush();
  return code;
}

/**
 * Registers on the shelf bus (`hello` with the flags) and waits up to 10 s for the welcome.
 * @returns the bus, the welcome and a promise of the bus's loss; or the failure message
 */
async function registerOnBus(f: ShmcFlags, node: ShmcNode, log: Logger, onBus: (m: ToShmc) => void): Promise<{ bus: BusClient; first: Extract<ToShmc, { t: 'welcome' }>; lost: Promise<void> } | string> {
  let welcome: (m: ToShmc) => void = () => {};
  const welcomed = new Promise<ToShmc>((r) => (welcome = r));
  let busLost: () => void = () => {};
  const lost = new Promise<void>((r) => (busLost = r));
  let bus: BusClient;
  try {
    bus = await connectBus(f.shelf.host, f.shelf.port, {
      message: (m) => {
        if (m.t === 'welcome' || m.t === 'refused') welcome(m);
        else onBus(m);
      },
      close: () => busLost(),
      garbage: (err) => log.warn({ category: 'bus-garbage', err }, 'bus line refused'),
    });
  } catch (e) {
    return `cannot reach the shelf at ${f.shelf.host}:${f.shelf.port}: ${(e as Error).message}`;
  }
  bus.send({ t: 'hello', node, pid: process.pid, argv: shmcArgv(f), ...(f.adminPassword !== undefined ? { adminPassword: f.adminPassword } : {}) });
  // (a timer left pending would keep the process alive for its 10 s after the bus is lost)
  let welcomeTimer: ReturnType<typeof setTimeout> | undefined;
  const noWelcome = new Promise<null>((r) => (welcomeTimer = setTimeout(() => r(null), 10_000)));
  const first = await Promise.race([welcomed, lost.then(() => undefined), noWelcome]);
  clearTimeout(welcomeTimer);
  if (!first || first.t !== 'welcome') {
    bus.close();
    return first === undefined ? 'the shelf closed the bus' : first === null ? 'no welcome from the shelf within 10 s' : `the shelf refused the registration: ${(first as { reason: string }).reason}`;
  }
  return { bus, first, lost };
}

/** Resolves with the exit status: 0 on SIGTERM / SIGINT, 3 when the bus (the power) is lost. */
function untilStopped(lost: Promise<void>, log: Logger): Promise<number> {
  return new Promise<number>((resolve) => {
    const off = onShutdownSignals((sig) => {
      off();
      log.info({ category: 'shutdown', signal: sig }, 'stopping');
      resolve(0);
    });
    void lost.then(() => {
      off();
      log.warn({ category: 'shutdown' }, 'bus to the shelf lost (power lost): exiting');
      resolve(3);
    });
  });
}

/**
 * The shelf address (UDP `--ipmi-port`), bound while this ShMC is active: `want(true)` binds it,
 * retrying while the previous active (stopped, being reset) still holds it; `want(false)` releases it.
 */
class ShelfAddress {
  private sock: Socket | undefined;
  private wanted = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly log: Logger,
    private readonly onDatagram: (msg: Uint8Array, address: string, port: number) => void,
  ) {}

  want(bound: boolean): void {
    this.wanted = bound;
    if (bound) void this.bind();
    else if (this.sock) {
      this.sock.close();
      this.sock = undefined;
      this.log.info({ category: 'listening', port: this.port }, 'shelf address released');
    }
  }

  send(address: string, port: number, datagrams: Uint8Array[]): void {
    for (const d of datagrams) this.sock?.send(d, port, address);
  }

  close(): void {
    this.wanted = false;
    this.sock?.close();
  }

  private async bind(): Promise<void> {
    while (this.wanted && !this.sock) {
      try {
        const s = await bindUdp(this.host, this.port);
        if (!this.wanted) {
          s.close();
          return;
        }
        this.sock = s;
        s.on('message', (msg, rinfo) => this.onDatagram(msg, rinfo.address, rinfo.port));
        s.on('error', (e) => this.log.warn({ category: 'socket-error', err: e.message }, 'shelf address socket error'));
        this.log.info({ category: 'listening', port: this.port }, `shelf address ${this.host}:${this.port} bound`);
      } catch (e) {
        // The previous active (stopped, being reset) may still hold it: try again shortly.
        this.log.debug({ category: 'listening', err: (e as Error).message }, 'shelf address not free yet');
        await sleep(25);
      }
    }
  }
}
