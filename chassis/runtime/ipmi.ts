/**
 * The IPMI part of the emulator: which LanServer serves the shelf, and the administrator account
 * a new database gets.
 *
 * The LanServer is built by an `IpmiFactory`. The shelf's full command set (chassis, sensor/event,
 * storage, PICMG, bridging to every IPMC) is the IPMI shelf helper's `createShelfIpmi`; until that
 * factory is wired in, `baseIpmiFactory` below serves the LAN protocol (sessions, users, channel,
 * LAN configuration, bridging) with the App commands (Get Device ID, GUID, self test, global
 * enables) and the watchdog commands at the shelf manager, and the App commands at every IPM
 * controller (boards, fan trays, PEMs), addressed by their IPMB-0 addresses. Everything else
 * answers C1h (invalid command), as docs/ipmi.md says.
 */
import { randomFillSync } from 'node:crypto';
import type { Logger } from '../../board/common/logger.ts';
import type { FruConfig, IpmiSettings, ShelfConfig } from '../config/types.ts';
import { IpmiWatchdog } from '../ha/watchdog.ts';
import { registerAppCommands } from '../ipmi/commands/app.ts';
import { registerWatchdogCommands } from '../ipmi/commands/watchdog.ts';
import { Controller, type ControllerInfo } from '../ipmi/controller.ts';
import { ipmiGuidV1 } from '../ipmi/guid.ts';
import { LanServer } from '../ipmi/lan-server.ts';
import { provisionAdministrator, type ProvisionResult, type UserStore } from '../ipmi/users.ts';
import type { WatchdogPort } from '../ipmi/watchdog-port.ts';
import type { Shelf } from '../model/shelf.ts';
import type { Platform } from '../platform.ts';

/** IPMI options of `start` (flags over the shelf YAML's `ipmi` section). */
export interface IpmiRuntimeOptions {
  /** Bind address [config ipmi.bind, 127.0.0.1]. */
  bind?: string;
  /** UDP port; 0 picks a free one [config ipmi.port, 6230]. */
  port?: number;
  /** IPMI 1.5 (MD5) sessions [config ipmi.ipmi15, true]; `--no-ipmi15` sets false. */
  ipmi15?: boolean;
  /** RMCP+ cipher suites offered [config ipmi.cipher_suites, 3,17]. */
  cipherSuites?: number[];
  /** UNSAFE: offer cipher suite 0 (no authentication) [false]. */
  insecureCipher0?: boolean;
}

/** What an IPMI factory receives. */
export interface IpmiContext {
  shelf: Shelf;
  config: ShelfConfig;
  users: UserStore;
  platform: Platform;
  /** Settings in force (YAML merged with flags). */
  settings: IpmiSettings & { insecureCipher0: boolean };
  /** Cryptographically strong random bytes. */
  randomBytes: (n: number) => Uint8Array;
  log: Logger;
}

/** Builds the shelf's LanServer. @throws TypeError / CommandError as LanServer does */
export type IpmiFactory = (ctx: IpmiContext) => LanServer;

/** node:crypto random bytes (RAKP nonces, session IDs, generated passwords). */
export function cryptoRandomBytes(n: number): Uint8Array {
  return randomFillSync(new Uint8Array(n));
}

/** Merges the YAML's `ipmi` section with the command-line flags. */
export function ipmiSettings(config: ShelfConfig, o: IpmiRuntimeOptions): IpmiSettings & { insecureCipher0: boolean } {
  return {
    ...config.ipmi,
    ...(o.bind !== undefined ? { bind: o.bind } : {}),
    ...(o.port !== undefined ? { port: o.port } : {}),
    ...(o.ipmi15 !== undefined ? { ipmi15: o.ipmi15 } : {}),
    ...(o.cipherSuites !== undefined ? { cipherSuites: o.cipherSuites } : {}),
    insecureCipher0: o.insecureCipher0 ?? false,
  };
}

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Identity of a controller from the FRU's `device` keys (deterministic GUID per shelf and FRU). */
function identity(config: ShelfConfig, fru: FruConfig, shelfManager: boolean): ControllerInfo {
  const key = shelfManager ? 'shelf-manager' : fru.name;
  const a = fnv(`${config.chassisFru.serial}/${key}`);
  const node = Uint8Array.of(0x03 | ((a >>> 24) & 0xfc), (a >>> 16) & 0xff, (a >>> 8) & 0xff, a & 0xff, fnv(config.name) & 0xff, fru.ipmbAddress & 0xff);
  return {
    deviceId: fru.device.deviceId,
    deviceRevision: fru.device.revision,
    providesDeviceSdrs: !shelfManager,
    firmwareMajor: fru.device.firmwareMajor,
    firmwareMinor: fru.device.firmwareMinor,
    deviceSupport: shelfManager ? 0xbf : 0x29,
    manufacturerId: fru.device.manufacturerId,
    productId: fru.device.productId,
    auxFirmware: new Uint8Array(4),
    guid: ipmiGuidV1({ timeMs: Date.UTC(2024, 0, 15, 12, 0, 0), clockSeq: (a >>> 8) & 0x3fff, node }),
  };
}

/** A watchdog port over the HA layer's IpmiWatchdog, not owned by HA (no HA machine yet). */
function watchdogPort(w: IpmiWatchdog): WatchdogPort {
  return {
    get ownedByHa() {
      return false;
    },
    set: (s) => w.set(s),
    reset: () => w.reset(),
    get: () => w.get(),
  };
}

/**
 * The interim factory (see the module comment): LAN protocol + App commands everywhere +
 * watchdog commands at the shelf manager.
 */
export const baseIpmiFactory: IpmiFactory = (ctx) => {
  const { config, settings } = ctx;
  const shmc = config.frus.find((f) => f.kind === 'shmc');
  if (!shmc) throw new TypeError('the shelf has no shelf manager: IPMI needs one');
  const front = new Controller(config.shelfManager.address, identity(config, shmc, true));
  registerAppCommands(front.commands);
  registerWatchdogCommands(front.commands, watchdogPort(new IpmiWatchdog(ctx.platform.clock)));
  const controllers = [front];
  for (const f of config.frus) {
    if (f.ipmbAddress === config.shelfManager.address) continue;
    const c = new Controller(f.ipmbAddress, identity(config, f, false));
    registerAppCommands(c.commands);
    controllers.push(c);
  }
  return new LanServer({
    users: ctx.users,
    controllers,
    log: ctx.log,
    randomBytes: ctx.randomBytes,
    ipmi15: settings.ipmi15,
    cipherSuites: settings.cipherSuites,
    insecureCipher0: settings.insecureCipher0,
    limits: { idleTimeoutMs: settings.idleTimeoutMs },
  });
};

/** Administrator inputs of a first start (issue 5: no well-known default password). */
export interface AdminOptions {
  /** `--admin-user` [admin]. */
  user?: string;
  /** `--admin-password`. */
  password?: string;
  /** `ATCASIM_ADMIN_PASSWORD`. */
  envPassword?: string;
}

/**
 * Creates the administrator when the user table has none (a new database): from the flags, the
 * environment, else a random 16-character password (returned in `generatedPassword`, to be shown
 * once). Does nothing on a database that has one.
 * @throws CommandError('user_field_invalid' | 'users_full') for a name/password the policy refuses
 */
export function provisionAdmin(users: UserStore, o: AdminOptions, randomBytes: (n: number) => Uint8Array): ProvisionResult {
  return provisionAdministrator(users, {
    ...(o.user !== undefined ? { adminUser: o.user } : {}),
    ...(o.password !== undefined ? { adminPassword: o.password } : {}),
    ...(o.envPassword !== undefined && o.envPassword !== '' ? { envPassword: o.envPassword } : {}),
    randomBytes,
  });
}
