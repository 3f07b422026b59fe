/**
 * The IPMI user record (IPMI v2.0 §6.9, §22.26–§22.30) and the `UserStore` port, below the IPMI
 * layer so that the shelf's store (chassis/persistence/user-store.ts) can implement the port
 * without importing chassis/ipmi: IDs 1..15, a name of up to 16 bytes, a password of up to 20
 * bytes kept recoverable (RAKP keys its HMACs with the password, §13.31, so it cannot be stored
 * hashed), a channel privilege limit and flags; plus the field checks every implementation applies.
 * The login rules, the password policy and provisioning are the IPMI layer's (chassis/ipmi/users.ts,
 * which re-exports what is here).
 */
import { CommandError } from '../../board/common/errors.ts';

/** Privilege limit "no access" (0Fh, IPMI v2.0 §22.26 Set User Access). */
const NO_ACCESS = 0x0f;

/** Highest user ID (IDs are 1..MAX_USERS). */
export const MAX_USERS = 15;
/** Longest user name in bytes. */
export const MAX_NAME_LENGTH = 16;
/** Longest password in bytes (IPMI 2.0 20-byte passwords). */
export const MAX_PASSWORD_LENGTH = 20;
/** Channel privilege limit of a user: 1 callback … 4 administrator, 0Fh no access. */
export type UserPrivilegeLimit = 1 | 2 | 3 | 4 | 0x0f;

/** One user slot. Returned objects are snapshots; change users through the store. */
export interface IpmiUser {
  /** 1..15 */
  id: number;
  /** ASCII name, 0..16 bytes ('' = empty slot / null user). */
  name: string;
  /** Password bytes, 0..20 (trailing zero bytes stripped). */
  password: Uint8Array;
  /** Privilege limit on the LAN channel. */
  privilege: UserPrivilegeLimit;
  /** Enabled (Set User Password operation "enable user"). Disabled users cannot log in. */
  enabled: boolean;
  /** IPMI messaging allowed on the channel (Set User Access b4). Users without it cannot log in. */
  ipmiMessaging: boolean;
  /** Link authentication enabled (Set User Access b5; informational). */
  linkAuth: boolean;
  /** Call-in restricted (Set User Access b6; informational). */
  callinRestricted: boolean;
}

/** Fields `UserStore.update` may change. */
export type UserUpdate = Partial<Omit<IpmiUser, 'id'>>;

/**
 * Persistent user table port. Implementations must keep names unique among non-empty names and
 * may persist lazily (the SQLite store flushes on its tick).
 */
export interface UserStore {
  /** The user with this ID (1..15), or undefined for an ID out of range. Empty slots are returned with name ''. */
  get(id: number): IpmiUser | undefined;
  /** The user whose name equals `name` exactly (case-sensitive), or undefined ('' never matches). */
  findByName(name: string): IpmiUser | undefined;
  /** All 15 slots in ID order. */
  list(): IpmiUser[];
  /**
   * Changes fields of user `id`.
   * @throws CommandError('user_id_invalid') for an ID outside 1..15,
   *         CommandError('user_name_taken') when another user already has `name`,
   *         CommandError('user_field_invalid') for an over-long name or password
   */
  update(id: number, changes: UserUpdate): IpmiUser;
}

/** An empty user slot. */
export function emptyUser(id: number): IpmiUser {
  return {
    id,
    name: '',
    password: new Uint8Array(0),
    privilege: NO_ACCESS,
    enabled: false,
    ipmiMessaging: false,
    linkAuth: false,
    callinRestricted: false,
  };
}

/** Strips trailing zero bytes (IPMI pads passwords with NULs). */
export function trimPassword(pw: Uint8Array): Uint8Array {
  let n = pw.length;
  while (n > 0 && pw[n - 1] === 0) n--;
  return pw.slice(0, n);
}

/** The bytes of an ASCII/UTF-8 name or password. */
export function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function byteLength(s: string): number {
  return utf8(s).length;
}

/** Validates a user field change. @throws CommandError('user_field_invalid') */
export function validateUserUpdate(changes: UserUpdate): void {
  if (changes.name !== undefined && byteLength(changes.name) > MAX_NAME_LENGTH) {
    throw new CommandError('user_field_invalid', `user name longer than ${MAX_NAME_LENGTH} bytes`);
  }
  if (changes.name !== undefined && changes.name.includes('\0')) throw new CommandError('user_field_invalid', 'user name contains NUL');
  if (changes.password !== undefined && changes.password.length > MAX_PASSWORD_LENGTH) {
    throw new CommandError('user_field_invalid', `password longer than ${MAX_PASSWORD_LENGTH} bytes`);
  }
  if (changes.privilege !== undefined && ![1, 2, 3, 4, 0x0f].includes(changes.privilege)) {
    throw new CommandError('user_field_invalid', `privilege limit ${changes.privilege} is not 1..4 or 0Fh`);
  }
}
