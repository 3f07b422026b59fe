/**
 * What the LAN-channel commands (session, channel, user, bridging, LAN configuration) need from
 * the LAN server: channel policy, users, sessions, the controllers behind the server and the LAN
 * configuration. The LAN server implements it; command families receive it at registration.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { CipherSuite } from './cipher-suites.ts';
import type { SessionPrivilege } from './codes.ts';
import type { Controller } from './controller.ts';
import type { Session } from './session.ts';
import type { RmcpSessionTable } from './rmcp-session-table.ts';
import type { UserStore } from './users.ts';

/** LAN configuration values reported by Get LAN Configuration Parameters (IPMI v2.0 §23.2). */
export interface LanConfig {
  /** IPv4 address, dotted quad. Default '0.0.0.0' (the UDP adapter fills in the bound address). */
  ipAddress: string;
  /** Address source: 0 unspecified, 1 static, 2 DHCP, 3 BIOS, 4 other. Default 1. */
  ipSource: number;
  subnetMask: string;
  /** MAC address "aa:bb:cc:dd:ee:ff". */
  macAddress: string;
  defaultGateway: string;
  defaultGatewayMac: string;
  backupGateway: string;
  backupGatewayMac: string;
  /** SNMP community string (≤ 18 bytes). */
  communityString: string;
  /** IPv4 header TTL, flags, precedence/TOS bytes (param 7). */
  ipHeader: readonly [number, number, number];
  /** 802.1q VLAN ID, 0 = disabled. */
  vlanId: number;
  vlanPriority: number;
  /** LAN alert destinations (params 18, 19); index 0 is the volatile destination, 1..N non-volatile. */
  alertDestinations: AlertDestination[];
}

/** One LAN alert destination (IPMI v2.0 Table 23-4, parameters 18 and 19). */
export interface AlertDestination {
  /** b2:0 destination type: 0 PET trap, 6 OEM 1, 7 OEM 2. */
  type: number;
  /** Acknowledged PET (b7 of the type byte). */
  acknowledge: boolean;
  /** Acknowledge timeout / retry interval, seconds. */
  ackTimeoutSec: number;
  /** Retries (b2:0). */
  retries: number;
  /** Gateway selector: 0 default, 1 backup. */
  gateway: number;
  /** IPv4 address, dotted quad ('0.0.0.0' = unset). */
  ip: string;
  /** MAC address "aa:bb:cc:dd:ee:ff". */
  mac: string;
}

/** Non-volatile LAN alert destinations (parameter 17), besides the volatile destination 0. */
export const ALERT_DESTINATIONS = 4;

/** A fresh table of alert destinations: PET traps to nowhere (0.0.0.0). */
export function defaultAlertDestinations(): AlertDestination[] {
  return Array.from({ length: ALERT_DESTINATIONS + 1 }, () => ({ type: 0, acknowledge: false, ackTimeoutSec: 3, retries: 3, gateway: 0, ip: '0.0.0.0', mac: '00:00:00:00:00:00' }));
}

/** Defaults of `LanConfig`. */
export const DEFAULT_LAN_CONFIG: LanConfig = {
  ipAddress: '0.0.0.0',
  ipSource: 1,
  subnetMask: '0.0.0.0',
  macAddress: '00:00:00:00:00:00',
  defaultGateway: '0.0.0.0',
  defaultGatewayMac: '00:00:00:00:00:00',
  backupGateway: '0.0.0.0',
  backupGatewayMac: '00:00:00:00:00:00',
  communityString: 'public',
  ipHeader: [0x40, 0x40, 0x10],
  vlanId: 0,
  vlanPriority: 0,
  alertDestinations: [],
};

/** LAN-server state and policy visible to the LAN-channel commands. */
export interface LanServices {
  /** LAN channel number (1). */
  readonly channel: number;
  /** Channel privilege limit (Get Channel Access). */
  readonly channelPrivilegeLimit: SessionPrivilege;
  readonly users: UserStore;
  /** Offered RMCP+ cipher suites, sorted by ID. */
  readonly cipherSuites: readonly CipherSuite[];
  /** IPMI 1.5 (MD5) logins enabled. */
  readonly ipmi15: boolean;
  /** IPMI 1.5 auth type NONE enabled (insecure option). */
  readonly authNone: boolean;
  /** A BMC key (KG) is configured (two-key login). */
  readonly kgSet: boolean;
  readonly sessions: RmcpSessionTable;
  readonly lanConfig: LanConfig;
  /** The controller at an IPMB address, if the server fronts one there. */
  controllerAt(address: number): Controller | undefined;
  /** The LAN-facing controller (the shelf address, 20h). */
  frontController(): Controller;
  /** Closes a session that is not the one the current request came through. */
  closeSession(s: Session): void;
  readonly log: Logger;
}
