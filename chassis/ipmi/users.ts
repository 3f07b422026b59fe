/**
 * IPMI users of the LAN channel (IPMI v2.0 §6.9, §22.26–§22.30): IDs 1..15, a name of up to 16
 * bytes, a password of up to 20 bytes kept recoverable (RAKP keys its HMACs with the password,
 * §13.31, so it cannot be stored hashed), a channel privilege limit and flags.
 *
 * `UserStore` is the port: the in-memory implementation here backs tests and simulated runs; the
 * shelf's SQLite store implements the same shape. User 1 is the null/anonymous user and stays
 * disabled unless configured (research §G). There is no built-in account: `provisionAdministrator`
 * creates the first administrator from explicit inputs or a random password.
 */
import { CommandError } from '../../board/common/errors.ts';
import { Privilege } from './codes.ts';

/** Highest user ID (IDs are 1..MAX_USERS). */
export const MAX_USERS = 15;
/** Longest user name in bytes. */
export const MAX_NAME_LENGTH = 16;
/** Longest password in bytes (IPMI 2.0 20-byte passwords). */
export const MAX_PASSWORD_LENGTH = 20;
/** Shortest password atcasim accepts (research §G: refuse short passwords). */
export const MIN_PASSWORD_LENGTH = 8;

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
    privilege: Privilege.NoAccess,
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

/**
 * Password policy for passwords set by people (provisioning, Set User Password): 8..20 bytes and
 * not equal to the user name (research §G).
 * @returns undefined when acceptable, else the reason
 */
export function passwordProblem(name: string, password: Uint8Array): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `password shorter than ${MIN_PASSWORD_LENGTH} bytes`;
  if (password.length > MAX_PASSWORD_LENGTH) return `password longer than ${MAX_PASSWORD_LENGTH} bytes`;
  if (password.includes(0)) return 'password contains a NUL byte';
  if (name !== '' && Buffer.from(password).toString('utf8') === name) return 'password equals the user name';
  return undefined;
}

/** True when a user can log in at all: named, enabled, messaging allowed, a privilege, a password. */
export function canLogIn(u: IpmiUser | undefined): u is IpmiUser {
  return !!u && u.name !== '' && u.enabled && u.ipmiMessaging && u.privilege !== Privilege.NoAccess && u.password.length > 0;
}

/** In-memory `UserStore` (tests, simulated runs, and the reference for the SQLite store). */
export class InMemoryUserStore implements UserStore {
  private readonly users: IpmiUser[];

  /** @param initial users to place in their slots (IDs 1..15); the rest start empty */
  constructor(initial: Array<Partial<IpmiUser> & { id: number }> = []) {
    this.users = Array.from({ length: MAX_USERS }, (_, i) => emptyUser(i + 1));
    for (const u of initial) {
      const { id, ...rest } = u;
      this.update(id, rest);
    }
  }

  get(id: number): IpmiUser | undefined {
    const u = this.users[id - 1];
    return u && Number.isInteger(id) ? copy(u) : undefined;
  }

  findByName(name: string): IpmiUser | undefined {
    if (name === '') return undefined;
    const u = this.users.find((x) => x.name === name);
    return u ? copy(u) : undefined;
  }

  list(): IpmiUser[] {
    return this.users.map(copy);
  }

  update(id: number, changes: UserUpdate): IpmiUser {
    if (!Number.isInteger(id) || id < 1 || id > MAX_USERS) throw new CommandError('user_id_invalid', `user ID ${id} is not 1..${MAX_USERS}`);
    validateUserUpdate(changes);
    if (changes.name) {
      const other = this.users.find((x) => x.name === changes.name && x.id !== id);
      if (other) throw new CommandError('user_name_taken', `user name "${changes.name}" is already user ${other.id}`);
    }
    const u = this.users[id - 1]!;
    Object.assign(u, changes);
    if (changes.password) u.password = trimPassword(changes.password);
    return copy(u);
  }
}

function copy(u: IpmiUser): IpmiUser {
  return { ...u, password: u.password.slice() };
}

/** The enabled administrators who can log in, in user-ID order. */
export function administrators(store: Pick<UserStore, 'list'>): IpmiUser[] {
  return store.list().filter((u) => canLogIn(u) && u.privilege === Privilege.Administrator);
}

/** True when the store has an enabled administrator who can log in. */
export function hasAdministrator(store: UserStore): boolean {
  return administrators(store).length > 0;
}

/**
 * Throws unless the store has an administrator who can log in (the LAN server refuses to start
 * without one: there are no default credentials).
 * @throws CommandError('ipmi_no_administrator')
 */
export function assertHasAdministrator(store: UserStore): void {
  if (!hasAdministrator(store)) {
    throw new CommandError(
      'ipmi_no_administrator',
      'no enabled IPMI administrator: provision one with --admin-user/--admin-password or ATCASIM_ADMIN_PASSWORD',
    );
  }
}

/** Inputs of first-start provisioning, in priority order for the password. */
export interface ProvisionInput {
  /** `--admin-user`; default "admin". */
  adminUser?: string;
  /** `--admin-password`. */
  adminPassword?: string;
  /** `ATCASIM_ADMIN_PASSWORD` from the environment. */
  envPassword?: string;
  /** Source of randomness for a generated password (the Platform's cryptoRandom). */
  randomBytes: (n: number) => Uint8Array;
}

/** What provisioning did. */
export interface ProvisionResult {
  /** False when the store already had an administrator (nothing changed). */
  created: boolean;
  user?: IpmiUser;
  /** Set only when the password was generated: print it once, it is not shown again. */
  generatedPassword?: string;
}

const PASSWORD_ALPHABET = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** A random password of `length` characters from an unambiguous alphabet (rejection sampling). */
export function randomPassword(randomBytes: (n: number) => Uint8Array, length = 16): string {
  let out = '';
  const limit = 256 - (256 % PASSWORD_ALPHABET.length);
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < limit && out.length < length) out += PASSWORD_ALPHABET[b % PASSWORD_ALPHABET.length];
    }
  }
  return out;
}

/**
 * First-start provisioning: when the store has no administrator, creates one named `adminUser`
 * (default "admin") in its existing slot or the first empty slot from ID 2 (ID 1 is the null
 * user), with the password from `adminPassword`, else `envPassword`, else a random 16-character
 * password returned in `generatedPassword`.
 * @throws CommandError('user_field_invalid') when the given name or password breaks the policy
 *         (8..20 bytes, not the user name), CommandError('users_full') when no slot is free
 */
export function provisionAdministrator(store: UserStore, input: ProvisionInput): ProvisionResult {
  if (hasAdministrator(store)) return { created: false };
  const name = input.adminUser ?? 'admin';
  if (name === '' || byteLength(name) > MAX_NAME_LENGTH) throw new CommandError('user_field_invalid', `administrator name must be 1..${MAX_NAME_LENGTH} bytes`);
  const given = input.adminPassword ?? input.envPassword;
  const password = given ?? randomPassword(input.randomBytes);
  const problem = passwordProblem(name, utf8(password));
  if (problem) throw new CommandError('user_field_invalid', `administrator password rejected: ${problem}`);
  const slot = store.findByName(name) ?? store.list().find((u) => u.id >= 2 && u.name === '');
  if (!slot) throw new CommandError('users_full', 'no free user slot for the administrator');
  const user = store.update(slot.id, {
    name,
    password: utf8(password),
    privilege: Privilege.Administrator,
    enabled: true,
    ipmiMessaging: true,
    linkAuth: false,
    callinRestricted: false,
  });
  return given === undefined ? { created: true, user, generatedPassword: password } : { created: true, user };
}
