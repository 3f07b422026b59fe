/**
 * Test fixtures for the IPMI LAN server: the reference users (admin/adminpass ADMINISTRATOR,
 * oper/operpass OPERATOR, viewer/viewpass USER, user 1 disabled — as ../shared/ipmi/sim/lan.conf),
 * controller identities with PICMG-style values (manufacturer 0x00315A), a fake watchdog port,
 * an in-process server on a SimClock, and a UDP server on a free port for real ipmitool/FreeIPMI.
 */
import { randomFillSync } from 'node:crypto';
import { captureLogger } from '../../board/common/logger.ts';
import type { Logger, LogRecord } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { SimClock } from '../../board/common/sim-clock.ts';
import { SystemClock } from '../../chassis/io/system-clock.ts';
import { UdpIpmiAdapter } from '../../chassis/io/udp-ipmi.ts';
import { registerAppCommands } from '../../chassis/ipmi/commands/app.ts';
import { registerWatchdogCommands } from '../../chassis/ipmi/commands/watchdog.ts';
import { Controller } from '../../chassis/ipmi/controller.ts';
import type { ControllerInfo } from '../../chassis/ipmi/controller.ts';
import { ipmiGuidV1 } from '../../chassis/ipmi/guid.ts';
import { LanServer } from '../../chassis/ipmi/lan-server.ts';
import type { LanServerOptions } from '../../chassis/ipmi/lan-server.ts';
import { InMemoryUserStore, utf8 } from '../../chassis/ipmi/users.ts';
import type { WatchdogPort, WatchdogSettings, WatchdogState } from '../../chassis/ipmi/watchdog-port.ts';

/** The reference users of ../shared/ipmi/sim/lan.conf. */
export const TEST_USERS = [
  { id: 2, name: 'admin', password: 'adminpass', privilege: 4 as const },
  { id: 3, name: 'oper', password: 'operpass', privilege: 3 as const },
  { id: 4, name: 'viewer', password: 'viewpass', privilege: 2 as const },
];

/** A user store holding TEST_USERS (user 1 left empty and disabled). */
export function testUserStore(): InMemoryUserStore {
  return new InMemoryUserStore(
    TEST_USERS.map((u) => ({ id: u.id, name: u.name, password: utf8(u.password), privilege: u.privilege, enabled: true, ipmiMessaging: true })),
  );
}

/** Identity of a test controller (PICMG manufacturer 0x00315A; product = 1 for the ShMC, 2+ for boards). */
export function controllerInfo(productId: number, guidNode: number): ControllerInfo {
  return {
    deviceId: 0,
    deviceRevision: 1,
    providesDeviceSdrs: false,
    firmwareMajor: productId === 1 ? 2 : 1,
    firmwareMinor: productId === 1 ? 10 : 5,
    deviceSupport: productId === 1 ? 0xbf : 0x29,
    manufacturerId: 0x00315a,
    productId,
    auxFirmware: new Uint8Array(4),
    guid: ipmiGuidV1({ timeMs: Date.UTC(2024, 0, 15, 12, 0, 0), clockSeq: 0x1203, node: Uint8Array.of(0x03, 0x00, 0x31, 0x5a, 0x00, guidNode) }),
  };
}

/** A watchdog port that counts down on a clock (100 ms units), with an `ownedByHa` switch. */
export class FakeWatchdog implements WatchdogPort {
  ownedByHa = false;
  private settings: WatchdogSettings | undefined;
  private startedAt: number | undefined;
  private flags = 0;
  readonly calls: string[] = [];

  constructor(private readonly now: () => number) {}

  set(s: WatchdogSettings): void {
    this.calls.push('set');
    this.settings = s;
    this.flags &= ~s.clearFlags;
    if (!s.dontStop) this.startedAt = undefined;
  }

  reset(): 'ok' | 'uninitialized' {
    this.calls.push('reset');
    if (!this.settings) return 'uninitialized';
    this.startedAt = this.now();
    return 'ok';
  }

  get(): WatchdogState {
    const s = this.settings;
    const running = this.startedAt !== undefined;
    const initial = s?.countdown ?? 0;
    const elapsed = running ? Math.floor((this.now() - this.startedAt!) / 100) : 0;
    return {
      use: s?.use ?? 0,
      dontLog: s?.dontLog ?? false,
      running,
      pretimeoutInterrupt: s?.pretimeoutInterrupt ?? 0,
      timeoutAction: s?.timeoutAction ?? 0,
      pretimeoutSec: s?.pretimeoutSec ?? 0,
      expirationFlags: this.flags,
      countdown: initial,
      present: Math.max(0, initial - elapsed),
    };
  }
}

/** The shelf manager (20h, with watchdog) and two board IPMCs (82h hub, 86h node). */
export function testControllers(watchdog: WatchdogPort): Controller[] {
  const shmc = new Controller(0x20, controllerInfo(1, 0x20));
  registerAppCommands(shmc.commands);
  registerWatchdogCommands(shmc.commands, watchdog);
  const hub = new Controller(0x82, controllerInfo(2, 0x82));
  registerAppCommands(hub.commands);
  const node = new Controller(0x86, controllerInfo(3, 0x86));
  registerAppCommands(node.commands);
  return [shmc, hub, node];
}

/** Deterministic "random" bytes for in-process tests. */
export function seededBytes(seed: number): (n: number) => Uint8Array {
  const r = new SeededRandom(seed);
  return (n) => Uint8Array.from({ length: n }, () => r.int(256));
}

/** An in-process server on a SimClock with a capturing logger. */
export function makeTestServer(overrides: Partial<LanServerOptions> = {}, seed = 1) {
  const clock = new SimClock(1_000_000);
  const records: LogRecord[] = [];
  const log = captureLogger(records);
  const watchdog = new FakeWatchdog(() => clock.now());
  const users = testUserStore();
  const server = new LanServer({
    users,
    controllers: testControllers(watchdog),
    log,
    randomBytes: seededBytes(seed),
    ...overrides,
  });
  return { server, clock, log, records, watchdog, users };
}

/** A UDP server on 127.0.0.1 and a free port, with the system clock (for real ipmitool/FreeIPMI). */
export async function startUdpTestServer(overrides: Partial<LanServerOptions> = {}, log: Logger = captureLogger()) {
  const clock = new SystemClock();
  const watchdog = new FakeWatchdog(() => clock.now());
  const users = testUserStore();
  const server = new LanServer({
    users,
    controllers: testControllers(watchdog),
    log,
    randomBytes: (n) => randomFillSync(new Uint8Array(n)),
    ...overrides,
  });
  const adapter = new UdpIpmiAdapter(server, { host: '127.0.0.1', port: 0, clock, log });
  const { port } = await adapter.start();
  return { server, adapter, port, watchdog, users, stop: () => adapter.stop() };
}
