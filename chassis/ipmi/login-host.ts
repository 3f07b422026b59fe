/**
 * What the login handshakes (login-rmcpplus.ts, login-ipmi15.ts) need from the LAN server:
 * the session table, users, channel policy, randomness, the shelf GUID and a drop/log sink.
 */
import type { Logger } from '../../board/common/logger.ts';
import type { CipherSuite } from './cipher-suites.ts';
import type { SessionPrivilege } from './codes.ts';
import type { Peer } from './session.ts';
import type { RmcpSessionTable } from './rmcp-session-table.ts';
import type { UserStore } from './users.ts';

/** Categories of dropped or refused traffic (counted; logged rate-limited). */
export type DropCategory =
  | 'oversize'
  | 'malformed'
  | 'rmcp-class'
  | 'asf'
  | 'checksum'
  | 'payload-type'
  | 'unknown-session'
  | 'wrong-peer'
  | 'state'
  | 'integrity'
  | 'unauthenticated'
  | 'sequence'
  | 'decrypt'
  | 'auth-failed'
  | 'unknown-user'
  | 'session-limit'
  | 'cipher-suite'
  | 'authtype'
  | 'internal';

/** Login-side view of the LAN server. */
export interface LoginHost {
  readonly sessions: RmcpSessionTable;
  readonly users: UserStore;
  readonly cipherSuites: readonly CipherSuite[];
  readonly channelPrivilegeLimit: SessionPrivilege;
  readonly ipmi15: boolean;
  readonly authNone: boolean;
  /** BMC key for two-key logins, undefined when not configured. */
  readonly kg: Uint8Array | undefined;
  readonly log: Logger;
  /** Cryptographically strong random bytes. */
  randomBytes(n: number): Uint8Array;
  /** The shelf's system GUID (IPMI byte order), sent in RAKP 2. */
  systemGuid(): Uint8Array;
  /** Counts a dropped/refused datagram and logs it (rate-limited). */
  drop(category: DropCategory, peer: Peer, now: number, detail: string): void;
}
