/**
 * IPMI users of the LAN channel (IPMI v2.0 §6.9, §22.26–§22.30): who can log in, the password
 * policy, the in-memory user table and first-start provisioning. The user record, its field checks
 * and the `UserStore` port are in chassis/persistence/user-record.ts (re-exported here), so the
 * shelf's store implements the port without importing this layer.
 *
 * The in-memory implementation here backs tests and simulated runs; the shelf's SQLite store
 * (chassis/persistence/user-store.ts) implements the same port. User 1 is the null/anonymous user and stays
 * disabled unless configured (research §G). There is no built-in account: `provisionAdministrator`
 * creates the first administrator from explicit inputs or a random password.
 */
import { CommandError } from '../../board/common/errors.ts';
import { MAX_NAME_LENGTH, MAX_PASSWORD_LENGTH, MAX_USERS, emptyUser, trimPassword, utf8, validateUserUpdate, type IpmiUser, type UserStore, type UserUpdate } from '../persistence/user-record.ts';
import { Privilege } from './codes.ts';

export {
  MAX_NAME_LENGTH,
  MAX_PASSWORD_LENGTH,
  MAX_USERS,
  emptyUser,
  trimPassword,
  utf8,
  validateUserUpdate,
  type IpmiUser,
  type UserPrivilegeLimit,
  type UserStore,
  type UserUpdate,
} from '../persistence/user-record.ts';

/** Shortest password atcasim accepts (research §G: refuse short passwords). */
export const MIN_PASSWORD_LENGTH = 8;

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
  if (name === '' || utf8(name).length > MAX_NAME_LENGTH) throw new CommandError('user_field_invalid', `administrator name must be 1..${MAX_NAME_LENGTH} bytes`);
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
