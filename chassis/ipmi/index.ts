/**
 * Public API of the IPMI-over-LAN server (what the composition root and the command families of
 * the shelf model use). See docs/ipmi.md for the user-facing description.
 *
 * Wiring, in short:
 *   const shmc = new Controller(0x20, info);            // one per IPMB address (20h, 82h, 84h…)
 *   registerAppCommands(shmc.commands);                  // Get Device ID, GUID, self test, enables
 *   registerWatchdogCommands(shmc.commands, watchdogPort);
 *   shmc.commands.register({ netFn: NetFn.Chassis, cmd: 0x01, name: 'Get Chassis Status', handler });
 *   const server = new LanServer({ users, controllers: [shmc, ...ipmcs], log, randomBytes });
 *   await new UdpIpmiAdapter(server, { host, port, clock, log }).start();   // chassis/io/udp-ipmi.ts
 */
export { LanServer, MAX_DATAGRAM, SHELF_MANAGER_ADDRESS } from './lan-server.ts';
export type { LanServerOptions, LanServerStats } from './lan-server.ts';
export { CommandTable, Controller } from './controller.ts';
export type { CommandContext, CommandDef, CommandHandler, CommandResult, ControllerInfo, RegisteredCommand } from './controller.ts';
export { AuthType, CompletionCode, IpmiError, NetFn, Privilege, expectLength, isSessionPrivilege, privilegeName } from './codes.ts';
export type { SessionPrivilege } from './codes.ts';
export { PRIVILEGE_TABLE, commandKey, minimumPrivilege } from './privilege-table.ts';
export { dispatch, MAX_RESPONSE_DATA } from './dispatcher.ts';
export { appCommands, deviceIdData, registerAppCommands } from './commands/app.ts';
export { decodeWatchdogSet, registerWatchdogCommands, watchdogCommands } from './commands/watchdog.ts';
export type { WatchdogPort, WatchdogSettings, WatchdogState } from './watchdog-port.ts';
export {
  InMemoryUserStore,
  MAX_USERS,
  assertHasAdministrator,
  canLogIn,
  hasAdministrator,
  passwordProblem,
  provisionAdministrator,
  randomPassword,
  utf8,
} from './users.ts';
export type { IpmiUser, ProvisionInput, ProvisionResult, UserPrivilegeLimit, UserStore, UserUpdate } from './users.ts';
export { formatIpmiGuid, ipmiGuidV1, randomIpmiGuid } from './guid.ts';
export { DEFAULT_CIPHER_SUITES } from './cipher-suites.ts';
export { DEFAULT_SESSION_LIMITS } from './rmcp-session-table.ts';
export type { SessionLimits } from './rmcp-session-table.ts';
export { DEFAULT_LAN_CONFIG } from './lan-services.ts';
export type { LanConfig } from './lan-services.ts';
export type { Peer, Session } from './session.ts';
export { decodeRequest, decodeResponse, encodeRequest, encodeResponse, responseTo } from './message.ts';
export type { IpmiRequest, IpmiResponse } from './message.ts';
