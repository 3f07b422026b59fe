/**
 * The IPMI layer's `UserStore` (chassis/ipmi/users.ts) over the shelf's Store: every `update`
 * writes through synchronously, so when the IPMI command that caused it (Set User Password, Set
 * User Name, Set User Access) is answered, the change has been committed — it survives `kill -9`
 * (management changes persist: docs/shelf.md "The database"). Empty slots are not stored; reads fill
 * them in.
 */
import { CommandError } from '../../board/common/errors.ts';
import { MAX_USERS, emptyUser, trimPassword, validateUserUpdate, type IpmiUser, type UserStore, type UserUpdate } from './user-record.ts';
import type { IpmiUserRecord, Store } from './store.ts';

function toUser(r: IpmiUserRecord): IpmiUser {
  return { ...r, password: Uint8Array.from(r.password) };
}

/** UserStore backed by a Store (memory or SQLite). */
export class PersistentUserStore implements UserStore {
  constructor(private readonly store: Store) {}

  get(id: number): IpmiUser | undefined {
    if (!Number.isInteger(id) || id < 1 || id > MAX_USERS) return undefined;
    const r = this.store.getUser(id);
    return r ? toUser(r) : emptyUser(id);
  }

  findByName(name: string): IpmiUser | undefined {
    if (name === '') return undefined;
    const r = this.store.listUsers().find((u) => u.name === name);
    return r && toUser(r);
  }

  list(): IpmiUser[] {
    const stored = new Map(this.store.listUsers().map((u) => [u.id, u]));
    return Array.from({ length: MAX_USERS }, (_, i) => {
      const r = stored.get(i + 1);
      return r ? toUser(r) : emptyUser(i + 1);
    });
  }

  /**
   * Changes fields of user `id` and commits before returning.
   * @throws CommandError('user_id_invalid' | 'user_name_taken' | 'user_field_invalid')
   */
  update(id: number, changes: UserUpdate): IpmiUser {
    if (!Number.isInteger(id) || id < 1 || id > MAX_USERS) throw new CommandError('user_id_invalid', `user ID ${id} is not 1..${MAX_USERS}`);
    validateUserUpdate(changes);
    return this.store.transaction(() => {
      if (changes.name) {
        const other = this.store.listUsers().find((u) => u.name === changes.name && u.id !== id);
        if (other) throw new CommandError('user_name_taken', `user name "${changes.name}" is already user ${other.id}`);
      }
      const cur = this.get(id)!;
      const next: IpmiUser = { ...cur, ...changes, id };
      if (changes.password) next.password = trimPassword(changes.password);
      this.store.setUser(next);
      return toUser(next);
    });
  }
}
