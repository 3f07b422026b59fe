/**
 * The split part of a shelf process (docs/split.md), used by `atcasim start --split` and
 * `atcasim shelf`: the bus server, the split shelf (chassis/split/split-shelf.ts), the ShMC
 * process supervisor, the fields the ready line gains, and the shutdown of the children.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import type { Clock } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import { nodeCryptoRandom } from '../io/crypto-random.ts';
import { desAvailable, SnmpStartError } from '../io/snmp-agent.ts';
import { listenBus, type BusServer } from '../io/split-bus.ts';
import { ShmcSupervisor } from '../io/shmc-process.ts';
import type { Emulator, IpmiListen } from '../runtime/emulator.ts';
import type { HaFactory } from '../runtime/ha-seam.ts';
import type { ShmcNode } from '../split/bus-codec.ts';
import { shmcArgv } from '../split/shmc-flags.ts';
import { splitHaFactory } from '../split/split-ha.ts';
import { SplitShelf } from '../split/split-shelf.ts';
import { engineIdOf } from '../snmp/engine-id.ts';
import { SnmpFeed } from '../snmp/feed.ts';
import { SnmpBusRelay } from '../split/snmp-relay.ts';

/** A free port on 127.0.0.1 (bound once and released: a small race with other programs remains). */
export async function freePort(kind: 'udp' | 'tcp', host = '127.0.0.1'): Promise<number> {
  if (kind === 'udp') {
    return new Promise((resolve, reject) => {
      const s = createSocket('udp4');
      s.once('error', reject);
      s.bind(0, host, () => {
        const p = s.address().port;
        s.close(() => resolve(p));
      });
    });
  }
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const a = srv.address();
      const p = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(p));
    });
  });
}

/** Options of the split part of a start. */
export interface SplitSetupOptions {
  log: Logger;
  clock: Clock;
  /** Bus address; port 0 = a free one. */
  listen: { host: string; port: number };
  /** Start both shmc processes (start --split) or wait for the user's (atcasim shelf). */
  spawnShmcs: boolean;
  /** The shelf's database path (the ShMCs' databases and logs go beside it). */
  dbPath: string;
  /** Administrator password the ShMCs get (their maintenance ports' control operations). */
  adminPassword?: string;
}

/** The split part of a shelf process (see the module header). */
export class SplitSetup {
  readonly split: SplitShelf;
  readonly supervisor: ShmcSupervisor;
  private bus: BusServer | undefined;
  private ipmiPort = 0;
  private readonly ha: Record<string, number> = {};
  private readonly maint: Partial<Record<ShmcNode, number>> = {};
  private readonly pids: Partial<Record<ShmcNode, number>> = {};
  private detachLan: (() => void) | undefined;
  private snmp: { feed: SnmpFeed; relay: SnmpBusRelay; address: string } | undefined;

  constructor(private readonly o: SplitSetupOptions) {
    this.supervisor = new ShmcSupervisor(o.log, { registered: (node, pid) => this.split.registration(node as ShmcNode)?.pid === pid });
    this.split = new SplitShelf({
      clock: o.clock,
      log: o.log.child({ module: 'chassis.split' }),
      ha: this.ha,
      wallNow: () => Date.now(),
      restart: (reg) => void this.supervisor.restart(reg),
      kill: (reg) => void this.supervisor.kill(reg),
    });
  }

  /** The HA factory: processor pairs in-process (`inner`; none with --no-ha), the ShMC pair external. */
  haFactory(inner: HaFactory | undefined): HaFactory {
    return splitHaFactory(inner, this.split);
  }

  /** Replaces the UDP listener: the LAN server is reached through the active ShMC. Port 0 picks a free UDP port. */
  readonly listen: IpmiListen = async (server, s) => {
    this.ipmiPort = s.port === 0 ? await freePort('udp', s.bind) : s.port;
    this.detachLan = this.split.attachLan(server, this.ipmiPort);
    return { address: s.bind, port: this.ipmiPort, stop: async () => this.detachLan?.() };
  };

  /**
   * SNMP in split mode (docs/snmp.md): the active ShMC's process runs the agent on `port` (0 = a
   * free one, picked here so that both ShMCs serve the same address); the rows and notifications
   * reach it over the bus (chassis/split/snmp-relay.ts). Call before `launch`, so the ShMCs get the
   * settings when they register.
   * @throws SnmpStartError when a DES user is configured and Node cannot run DES
   */
  async serveSnmp(em: Emulator, port: number): Promise<void> {
    const settings = em.config.snmp;
    const des = settings.users.find((u) => u.priv === 'des');
    if (des && !desAvailable()) throw new SnmpStartError(`${des.at}: snmp.users: user "${des.name}" uses DES, which this Node runtime cannot run: use priv: aes, or start Node with --openssl-legacy-provider (NODE_OPTIONS)`);
    const p = port === 0 ? await freePort('udp', settings.bind) : port;
    const relay = new SnmpBusRelay(this.split, { settings, engineId: engineIdOf(em.config), bind: settings.bind, port: p });
    const feed = new SnmpFeed(em.shelf, this.o.clock, relay);
    this.snmp = { feed, relay, address: `${settings.bind.includes(':') ? `[${settings.bind}]` : settings.bind}:${p}` };
    this.o.log.info({ category: 'snmp', address: this.snmp.address }, `SNMP served by the active ShMC on ${this.snmp.address}`);
  }

  /** The SNMP address the active ShMC serves (the ready line's `snmp`), if SNMP is on. */
  get snmpAddress(): string | undefined {
    return this.snmp?.address;
  }

  /**
   * Once the emulator runs: opens the bus, starts the ShMCs (spawnShmcs) and waits until one is
   * active (at most `waitMs`).
   * @throws Error when the bus cannot listen, a ShMC cannot be started, or none turns active in time
   */
  async launch(em: Emulator, waitMs = 30_000): Promise<void> {
    Object.assign(this.ha, em.config.ha.timing);
    for (const [k, v] of Object.entries(this.ha)) if (typeof v !== 'number') delete this.ha[k];
    this.bus = await listenBus(this.o.listen.host, this.o.listen.port, {
      message: (c, m) => this.split.onMessage(c, m),
      close: (c) => this.split.onClose(c),
      garbage: (c, e) => this.split.onGarbage(c, e),
    });
    this.o.log.info({ category: 'split', bus: `${this.bus.host}:${this.bus.port}` }, `shelf bus listening on ${this.bus.host}:${this.bus.port}`);
    if (!this.o.spawnShmcs) return;
    const host = '127.0.0.1';
    const peer = { a: await freePort('udp'), b: await freePort('udp') };
    this.maint['shmc-a'] = await freePort('tcp');
    this.maint['shmc-b'] = await freePort('tcp');
    // the administrator of record (a password given for a database that already has one is not
    // applied, and start says so: the ShMCs must not use it either)
    const pw = this.split.administratorPassword(this.o.adminPassword) ?? this.o.adminPassword ?? Buffer.from(nodeCryptoRandom(8)).toString('hex');
    for (const n of ['a', 'b'] as const) {
      const other = n === 'a' ? 'b' : 'a';
      const argv = shmcArgv({
        node: n,
        shelf: { host, port: this.bus.port },
        peerListen: { host, port: peer[n] },
        peer: { host, port: peer[other] },
        ipmiPort: this.ipmiPort,
        maintPort: this.maint[`shmc-${n}`]!,
        db: `${this.o.dbPath}.shmc-${n}.db`,
      });
      // The password goes in the child's environment (ATCASIM_ADMIN_PASSWORD), never on its argv.
      const child = this.supervisor.spawn(argv, pw);
      this.pids[`shmc-${n}`] = child.pid;
    }
    const t0 = performance.now();
    while (this.split.shmStatus().role !== 'active') {
      if (performance.now() - t0 > waitMs) throw new Error(`no shelf manager turned active within ${waitMs} ms (see ${this.o.dbPath}.shmc-*.db.log)`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Fields the ready line gains. */
  readyFields(): Record<string, unknown> {
    return {
      split: true,
      bus: this.bus ? `${this.bus.host}:${this.bus.port}` : null,
      pids: { shelf: process.pid, 'shmc-a': this.pids['shmc-a'] ?? null, 'shmc-b': this.pids['shmc-b'] ?? null },
      maint: { 'shmc-a': this.maint['shmc-a'] ?? null, 'shmc-b': this.maint['shmc-b'] ?? null },
    };
  }

  /** Ends the ShMC processes and the bus. Never throws. */
  async stop(): Promise<void> {
    this.snmp?.feed.stop();
    this.snmp?.relay.stop();
    this.split.stop();
    await this.supervisor.stopAll();
    await this.bus?.close();
  }
}

