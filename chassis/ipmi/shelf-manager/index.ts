/**
 * The shelf manager's IPMI-over-LAN face, what ipmitool, FreeIPMI and clia talk to:
 * `createShelfIpmi` builds the LanServer of a Shelf (the model, chassis/model/shelf.ts) — the logical
 * shelf manager at 20h (the active ShMC; a Controller per ShMC, swapped in with
 * LanServer.setController when the active ShMC changes) and one IPM controller per FRU at its
 * IPMB-0 address (ShMCs 10h/12h, boards 82h…, fan trays 52h…, PEMs 58h…) for bridging
 * (`ipmitool -t 0x86 -b 0 …`, FreeIPMI --bridge-sensors/--bridge-fru). It opens no socket: the
 * composition root binds the server (chassis/io/udp-ipmi.ts UdpIpmiAdapter, handed in through the
 * runtime's `ipmi.listen`; the split shelf attaches it to its bus instead).
 *
 * Command families (chassis/ipmi/commands/): app + watchdog (every controller; watchdog on the
 * ShMCs and boards), chassis, SEL, SDR repository, Platform Event and OEM (20h only), sensors, Set/Get Event
 * Receiver, FRU inventory and PICMG (every controller), device SDR (IPM controllers), HPM.1 firmware
 * upgrade (every controller, chassis/ipmi/hpm). See docs/ipmi-commands.md.
 *
 * Stable interface for the runtime (`atcasim start`):
 *   createShelfIpmi(shelf, users, platform, options?) → ShelfIpmi
 * Hooks the runtime may fill (ShelfIpmiOptions): `ha.switchover`, `ha.shmStatus`, `watchdog(shmc)`,
 * `consolePath(fru)`.
 */
import type { Logger } from '../../../board/common/logger.ts';
import type { Shelf } from '../../model/shelf.ts';
import type { Platform } from '../../platform.ts';
import { acpiCommands } from '../commands/acpi.ts';
import { registerAppCommands } from '../commands/app.ts';
import { chassisCommands } from '../commands/chassis.ts';
import { oemCommands } from '../commands/oem.ts';
import { oemShelfCommands } from '../commands/oem-shelf.ts';
import { pefCommands, type PefTarget } from '../commands/pef.ts';
import { picmgCommands } from '../commands/picmg.ts';
import { deviceSdrCommands, eventReceiverCommands, eventReceiverConfigCommands, sensorCommands } from '../commands/sensor-event.ts';
import { fruCommands, sdrRepositoryCommands, selCommands } from '../commands/storage.ts';
import { registerWatchdogCommands } from '../commands/watchdog.ts';
import { hpmCommands } from '../hpm/commands.ts';
import { shelfHpmTargets } from '../hpm/shelf-hpm.ts';
import { Controller } from '../controller.ts';
import { LanServer } from '../lan-server.ts';
import type { LanConfig } from '../lan-services.ts';
import type { SessionLimits } from '../rmcp-session-table.ts';
import { PefConfig } from '../pef/pef-config.ts';
import { PefEngine, type AlertPort } from '../pef/pef-engine.ts';
import type { UserStore } from '../users.ts';
import type { WatchdogPort } from '../watchdog-port.ts';
import { PicmgExtras } from './extras.ts';
import { controllerWatchdog, hasWatchdog } from './controller-watchdog.ts';
import { controllerInfo } from './identity.ts';
import { ShmRoles, type ShelfIpmiHaHooks } from './shm-roles.ts';
import { makeTarget, type ShelfServices } from './target.ts';

export type { ShelfIpmiHaHooks } from './shm-roles.ts';
export type { HaAlarm, ShmStatus, ShelfServices, ShelfTarget, SwitchoverReason } from './target.ts';
export { OEM_IANA } from './oem-protocol.ts';

/** Options of the shelf's IPMI face. Defaults in brackets. */
export interface ShelfIpmiOptions {
  /** IPMI 1.5 (MD5) sessions [shelf.config.ipmi.ipmi15]; `--no-ipmi15` turns them off. */
  ipmi15?: boolean;
  /** RMCP+ cipher suites offered [shelf.config.ipmi.cipherSuites: 3, 17]. */
  cipherSuites?: readonly number[];
  /** UNSAFE: offer cipher suite 0 (no authentication) [false]. */
  insecureCipher0?: boolean;
  /** Session limits; idleTimeoutMs defaults to shelf.config.ipmi.idleTimeoutMs. */
  limits?: Partial<SessionLimits>;
  /** LAN configuration values (Get LAN Configuration Parameters). */
  lanConfig?: Partial<LanConfig>;
  /** The watchdog each ShMC's and board's controller addresses (Reset/Set/Get Watchdog Timer): the
   * one its HA firmware kicks. A ShMC or board without one gets a built-in IpmiWatchdog on the
   * platform clock that the HA layer does not own (controller-watchdog.ts: its expiry resets the
   * board's payload). */
  watchdog?: (fru: string) => WatchdogPort | undefined;
  /** Serial-console path of a FRU for the OEM Get Console Path (`clia console`); undefined = none. */
  consolePath?: (fru: string) => string | undefined;
  /** Stable link to a FRU's console, answered after the path by Get Console Path; undefined = none. */
  consoleLink?: (fru: string) => string | undefined;
  /** HA hooks (switchover, shelf-manager status); without them a built-in fallback uses the Shelf's roles. */
  ha?: ShelfIpmiHaHooks;
  /** BMC key KG for two-key logins [none]. */
  kg?: Uint8Array;
  /** Where PEF alerts (PETs) go out [none: alerts are logged, not sent]; chassis/io/pet-sender.ts. */
  alerts?: AlertPort;
}

/** What createShelfIpmi returns. */
export interface ShelfIpmi {
  /** The LAN server (feed it datagrams, or bind it with chassis/io's UdpIpmiAdapter). */
  readonly server: LanServer;
  /** Services shared by the controllers (switchover, status, extras). */
  readonly services: ShelfServices;
  /** Points 20h at the active ShMC's controller now (done automatically on role and hot-swap events). */
  sync(): void;
  /** Platform Event Filtering of the shelf manager (its configuration is `pef.config`). */
  readonly pef: PefEngine;
  /** Stops following the shelf's events (call before closing the shelf). */
  close(): void;
}


/** The shelf manager's PEF: its configuration, the engine over the SEL and the target of its commands. */
function buildPef(shelf: Shelf, shmc: string, platform: Platform, log: Logger, lan: () => LanConfig, alerts: AlertPort | undefined): { pef: PefEngine; pefTarget: PefTarget } {
  const config = new PefConfig();
  const device = shelf.fruConfig(shmc).device;
  const source = {
    guid: () => controllerInfo(shelf.config, shelf.fruConfig(shmc), true).guid,
    entity: (address: number) => {
      const fru = shelf.resolveAddress(address);
      const cfg = fru === undefined ? undefined : shelf.fruConfig(fru);
      return { entityId: cfg?.entityId ?? 0, entityInstance: cfg?.entityInstance ?? 0 };
    },
    manufacturerId: device.manufacturerId,
    systemId: device.productId,
  };
  // the LAN server is built after the engine; PEF reads its configuration only when a record arrives
  const pef = new PefEngine(config, lan, source, platform.clock, log.child({ module: 'chassis.ipmi.pef' }), alerts);
  const pefTarget: PefTarget = {
    config,
    engine: pef,
    selTime: () => shelf.sel.time(),
    lastAddTime: () => shelf.sel.info().lastAddTime,
    lastRecordId: () => shelf.sel.records().at(-1)?.recordId ?? 0xffff,
  };
  return { pef, pefTarget };
}

/**
 * Builds the LanServer of `shelf`.
 * @param users   the LAN channel's users (PersistentUserStore over the shelf's Store in the runtime)
 * @param platform clock, logger and `cryptoRandom` (RMCP+ random numbers and session IDs; the
 *                 LAN server's log is a child `chassis.ipmi.lan`)
 * @throws CommandError('ipmi_no_administrator') when `users` has no enabled administrator;
 *         TypeError for invalid options (unknown cipher suite, suite 0 without insecureCipher0)
 */
export function createShelfIpmi(shelf: Shelf, users: UserStore, platform: Platform, options: ShelfIpmiOptions = {}): ShelfIpmi {
  const log: Logger = platform.log.child({ module: 'chassis.ipmi.shelf' });
  const roles = new ShmRoles(shelf, log, options.ha);
  const extras = new PicmgExtras(shelf);
  const services: ShelfServices = {
    shelf,
    extras,
    log,
    switchover: (reason) => {
      const r = roles.switchover(reason);
      sync();
      return r;
    },
    shmStatus: () => roles.status(),
    consolePath: (fru) => options.consolePath?.(fru),
    consoleLink: (fru) => options.consoleLink?.(fru),
    haAlarms: () => options.ha?.alarms?.() ?? [],
    alarmPanel: { operator: 0 },
  };
  const shmcs = roles.shmcs();
  if (shmcs.length === 0) throw new TypeError('the shelf has no shelf manager (ShMC)');
  const watchdogs = new Map(
    shelf
      .fruNames()
      .filter((n) => hasWatchdog(shelf.fruConfig(n)))
      .map((n) => [n, options.watchdog?.(n) ?? options.ha?.watchdog?.(n) ?? controllerWatchdog(shelf, n, platform)]),
  );

  const { pef, pefTarget } = buildPef(shelf, shmcs[0]!, platform, log, () => server.lanConfig, options.alerts);

  const logical = new Map<string, Controller>();
  for (const name of shmcs) {
    const c = new Controller(shelf.shelfManagerAddress, controllerInfo(shelf.config, shelf.fruConfig(name), true));
    const t = makeTarget(services, name, shelf.shelfManagerAddress, true);
    registerAppCommands(c.commands);
    registerWatchdogCommands(c.commands, watchdogs.get(name)!);
    c.commands.registerAll([
      ...chassisCommands(t),
      ...acpiCommands(t),
      ...sensorCommands(t),
      ...eventReceiverCommands(t),
      ...eventReceiverConfigCommands(t),
      ...fruCommands(t),
      ...sdrRepositoryCommands(t),
      ...selCommands(t),
      ...picmgCommands(t),
      ...oemCommands(t),
      ...oemShelfCommands(t),
      ...pefCommands(pefTarget),
    ]);
    logical.set(name, c);
  }
  const physical = new Map<string, Controller>();
  for (const name of shelf.fruNames()) {
    const cfg = shelf.fruConfig(name);
    const c = new Controller(cfg.ipmbAddress, controllerInfo(shelf.config, cfg, false));
    const t = makeTarget(services, name, cfg.ipmbAddress, false);
    registerAppCommands(c.commands);
    const wd = watchdogs.get(name);
    if (wd) registerWatchdogCommands(c.commands, wd);
    c.commands.registerAll([...acpiCommands(t), ...sensorCommands(t), ...eventReceiverConfigCommands(t), ...deviceSdrCommands(t), ...fruCommands(t), ...picmgCommands(t)]);
    physical.set(name, c);
  }
  // HPM.1 firmware upgrade (chassis/ipmi/hpm): one target per FRU, at its address and, for a ShMC, at 20h
  const hpm = shelfHpmTargets(shelf, (fru) => [physical.get(fru)!, ...(logical.has(fru) ? [logical.get(fru)!] : [])], options.ha?.payloadFirmware);
  for (const [name, c] of [...physical, ...logical]) c.commands.registerAll(hpmCommands(hpm.get(name)!, name, log));

  let front = roles.answering();
  const installed = [...physical.entries()].filter(([n]) => shelf.state(n) !== 0).map(([, c]) => c);
  const server = new LanServer({
    users,
    controllers: [logical.get(front)!, ...installed],
    log: platform.log,
    randomBytes: platform.cryptoRandom,
    ipmi15: options.ipmi15 ?? shelf.config.ipmi.ipmi15,
    cipherSuites: options.cipherSuites ?? shelf.config.ipmi.cipherSuites,
    insecureCipher0: options.insecureCipher0 ?? false,
    limits: { idleTimeoutMs: shelf.config.ipmi.idleTimeoutMs, ...options.limits },
    ...(options.lanConfig ? { lanConfig: options.lanConfig } : {}),
    ...(options.kg ? { kg: options.kg } : {}),
  });

  function sync(): void {
    const want = roles.answering();
    if (want !== front) {
      front = want;
      server.setController(logical.get(want)!);
      log.info({ category: 'shelf-manager', active: want }, 'shelf address 20h now answered by the active ShMC');
    }
  }

  const offs = [
    shelf.on('role', () => sync()),
    shelf.on('sel.added', (e) => pef.onRecord(e.record, e.selTime)),
    shelf.on('hotswap', (e) => {
      const c = physical.get(e.fru);
      if (c) {
        // an IPMC that is not installed does not answer on IPMB-0
        if (e.to === 0) server.removeController(c.address);
        else if (e.from === 0) server.setController(c);
      }
      if (shelf.fruConfig(e.fru).kind === 'shmc') roles.onShmcStateChange(e.fru, e.to);
      sync();
    }),
  ];
  let closed = false;
  return {
    server,
    services,
    sync,
    pef,
    close: () => {
      if (closed) return;
      closed = true;
      for (const off of offs) off();
    },
  };
}
