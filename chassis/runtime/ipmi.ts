/**
 * The IPMI part of the emulator: which LanServer serves the shelf, the administrator account a
 * new database gets, and one request run at a controller without a session (`callController`,
 * what `Emulator.ipmi` and a scenario's `ipmi` action use).
 *
 * The LanServer is built by an `IpmiFactory`; the default is the IPMI shelf face
 * (chassis/ipmi/shelf-manager `createShelfIpmi`: the logical shelf manager at 20h following the active
 * ShMC, an IPM controller per FRU at its IPMB-0 address for bridging, and the App, watchdog,
 * chassis, sensor/event, storage, PICMG and OEM command families against the Shelf). Its hooks
 * are filled from the emulator: the console path of each FRU (the ready line's `consoles`), and —
 * once the HA part is wired — the HA layer's switchover and shelf-manager status.
 */
import { CommandError } from '../../board/common/errors.ts';
import { nullLogger, type Logger } from '../../board/common/logger.ts';
import type { IpmiSettings, ShelfConfig } from '../config/types.ts';
import { dispatch } from '../ipmi/dispatcher.ts';
import { createShelfIpmi, type ShelfIpmiHaHooks } from '../ipmi/shelf-manager/index.ts';
import type { LanServer } from '../ipmi/lan-server.ts';
import type { AlertPort } from '../ipmi/pef/pef-engine.ts';
import { administrators, provisionAdministrator, type ProvisionResult, type UserStore } from '../ipmi/users.ts';
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
  /** Serial-console path of a FRU, when consoles exist (docs/consoles.md). */
  consolePath: (fru: string) => string | undefined;
  /** The stable link to a FRU's console ($XDG_RUNTIME_DIR/atcasim/slot3, else beside the database), when made. */
  consoleLink?: (fru: string) => string | undefined;
  /** HA hooks (switchover, shelf-manager status) once the HA part is wired. */
  ha?: ShelfIpmiHaHooks;
  /** Where PEF alerts (PETs) go out (chassis/io/pet-sender.ts); none = logged only. */
  alerts?: AlertPort;
  log: Logger;
}

/** A built IPMI face: its LanServer, and how to stop following the shelf. */
export interface IpmiFace {
  server: LanServer;
  /** Unsubscribes from the shelf (called before the shelf closes). */
  close(): void;
}

/** Builds the shelf's IPMI face. @throws TypeError / CommandError as LanServer does */
export type IpmiFactory = (ctx: IpmiContext) => IpmiFace;

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

/** The default factory: the IPMI shelf face (chassis/ipmi/shelf-manager). */
export const shelfIpmiFactory: IpmiFactory = (ctx) => {
  const face = createShelfIpmi(ctx.shelf, ctx.users, ctx.platform, {
    ipmi15: ctx.settings.ipmi15,
    cipherSuites: ctx.settings.cipherSuites,
    insecureCipher0: ctx.settings.insecureCipher0,
    limits: { idleTimeoutMs: ctx.settings.idleTimeoutMs },
    consolePath: ctx.consolePath,
    ...(ctx.consoleLink ? { consoleLink: ctx.consoleLink } : {}),
    ...(ctx.ha ? { ha: ctx.ha } : {}),
    ...(ctx.alerts ? { alerts: ctx.alerts } : {}),
  });
  return { server: face.server, close: () => face.close() };
};

/** One IPMI request as a LAN client addresses it (IPMI v2.0 §13.8: rsSA, NetFn, cmd, data). */
export interface IpmiCall {
  /** IPMB address of the controller: 20h = the logical shelf manager (the active ShMC), 82h… boards. */
  address: number;
  netFn: number;
  cmd: number;
  /** Request data bytes. */
  data: Uint8Array;
}

/** Completion code and response data of an IpmiCall. */
export interface IpmiAnswer {
  cc: number;
  data: Uint8Array;
}

/**
 * Runs `req` at the controller answering IPMB `req.address` of `server` (20h: its front controller),
 * as the LAN server's dispatcher would for an administrator on the LAN channel (1) outside any
 * session: the controller's own command tables, no LAN-session commands, no SEL events emitted
 * to a session. Requester: software ID 81h, sequence 0, LUN 0.
 * @param now the clock's time (ms) handed to the command handlers
 * @returns the completion code and data; D3h (destination unavailable) when no controller answers
 *   at that address
 * @throws CommandError('no_ipmi') when there is no server (an emulator started without IPMI)
 */
export function callController(server: LanServer | undefined, req: IpmiCall, now: number): IpmiAnswer {
  if (!server) throw new CommandError('no_ipmi', 'the IPMI server is not running');
  const controller = req.address === 0x20 ? server.frontController() : server.controllerAt(req.address);
  if (!controller) return { cc: 0xd3, data: new Uint8Array(0) };
  const r = dispatch([controller.commands], { rsSA: req.address, netFn: req.netFn, rsLUN: 0, rqSA: 0x81, rqSeq: 0, rqLUN: 0, cmd: req.cmd, data: req.data }, {
    controller, now, channel: 1, privilege: 4, session: undefined, log: nullLogger, emit: () => {},
  });
  return { cc: r.cc, data: r.data };
}

/** Administrator inputs of a first start (no well-known default password: docs/ipmi.md "Users and passwords"). */
export interface AdminOptions {
  /** `--admin-user` [admin]. */
  user?: string;
  /** `--admin-password`. */
  password?: string;
  /** `ATCASIM_ADMIN_PASSWORD`. */
  envPassword?: string;
}

/** What provisioning did at this start, plus the given inputs it did not apply. */
export interface AdminProvision extends ProvisionResult {
  /**
   * Set when an administrator password (or name) was given but the database already had an
   * administrator, so it was not applied: a one-line warning naming the input and how to change
   * the password. Absent when nothing was given, the administrator was created from it, or the
   * given password is already that administrator's.
   */
  ignored?: string;
}

/**
 * Creates the administrator when the user table has none (a new database): from the flags, the
 * environment, else a random 16-character password (returned in `generatedPassword`, to be shown
 * once). Does nothing on a database that has one — and then says so in `ignored` when a password
 * or name was given that is not already the stored administrator's (it is never changed
 * silently: other tooling may log in with the stored one).
 * @throws CommandError('user_field_invalid' | 'users_full') for a name/password the policy refuses
 */
export function provisionAdmin(users: UserStore, o: AdminOptions, randomBytes: (n: number) => Uint8Array): AdminProvision {
  const r = provisionAdministrator(users, {
    ...(o.user !== undefined ? { adminUser: o.user } : {}),
    ...(o.password !== undefined ? { adminPassword: o.password } : {}),
    ...(o.envPassword !== undefined && o.envPassword !== '' ? { envPassword: o.envPassword } : {}),
    randomBytes,
  });
  if (r.created) return r;
  const ignored = ignoredAdminInput(users, o);
  return ignored ? { ...r, ignored } : r;
}

/**
 * The warning for administrator inputs a start with an existing administrator does not apply
 * (see AdminProvision.ignored); undefined when there is nothing to say.
 */
export function ignoredAdminInput(users: UserStore, o: AdminOptions): string | undefined {
  const source = o.password !== undefined ? '--admin-password' : o.envPassword ? 'ATCASIM_ADMIN_PASSWORD' : undefined;
  const password = o.password ?? (o.envPassword || undefined);
  const name = o.user ?? 'admin';
  const admins = administrators(users);
  const named = admins.find((u) => u.name === name);
  const userIgnored = o.user !== undefined && !named;
  const passwordIgnored = password !== undefined && !(named && Buffer.from(named.password).equals(Buffer.from(password, 'utf8')));
  if (!userIgnored && !passwordIgnored) return undefined;
  const what = [userIgnored ? `administrator name "${name}" from --admin-user` : undefined, passwordIgnored ? `admin password from ${source}` : undefined].filter(Boolean).join(' and ');
  const target = named ?? admins[0];
  const change = target ? `ipmitool user set password ${target.id} NEWPASSWORD` : 'ipmitool user set password ID NEWPASSWORD';
  return `${what} ignored: the database already has IPMI users (change it with \`${change}\` or start over with \`atcasim db reset\`)`;
}
