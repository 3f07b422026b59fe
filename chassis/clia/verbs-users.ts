/**
 * clia `user`: the shelf manager's LAN-channel users (Pigeon Point `user`), through the standard
 * user commands (IPMI v2.0 §22.26–§22.30: Get/Set User Access, Get/Set User Name, Set User
 * Password) on channel 1:
 *
 *   user [list]                        every user slot with a name (ID, name, enabled, privilege)
 *   user add ID NAME PRIV [PASSWORD]   name, privilege limit, password, enabled
 *   user passwd ID [PASSWORD]          new password
 *   user priv ID PRIV                  privilege limit (callback, user, operator, admin, none)
 *   user enable ID | user disable ID
 *   user delete ID                     disabled, no access, name cleared
 *
 * A password left out is read from the terminal without echo (or one line of stdin when it is not
 * a terminal): `flags.readSecret`. The shelf refuses weak passwords (exit 1, its reason).
 */
import { UsageError, type Verb } from './verb-kit.ts';

const PRIV_NAMES: Record<number, string> = { 1: 'CALLBACK', 2: 'USER', 3: 'OPERATOR', 4: 'ADMINISTRATOR', 15: 'NO ACCESS' };
const PRIV_BY_WORD: Record<string, number> = { callback: 1, user: 2, operator: 3, admin: 4, administrator: 4, none: 15, no_access: 15 };

function userId(text: string | undefined, verb: string): number {
  const id = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || id < 1 || id > 63) throw new UsageError(`user ${verb}: ID must be a user ID 1..63`);
  return id;
}

function privilege(text: string | undefined): number {
  const p = PRIV_BY_WORD[(text ?? '').toLowerCase()] ?? (/^\d+$/.test(text ?? '') ? Number(text) : NaN);
  if (![1, 2, 3, 4, 15].includes(p)) throw new UsageError(`user: "${text ?? ''}" is not a privilege (callback, user, operator, admin, none or 1–4, 15)`);
  return p;
}

async function secret(given: string | undefined, readSecret: ((prompt: string) => Promise<string>) | undefined, id: number): Promise<string> {
  if (given !== undefined) return given;
  if (!readSecret) throw new UsageError('user: give the password');
  return readSecret(`Password for user ${id}: `);
}

/** The verbs of this file. */
export const USER_VERBS: Readonly<Record<string, Verb>> = {
  user: {
    usage: 'user [list] | user add ID NAME PRIV [PASSWORD] | user passwd ID [PASSWORD] | user priv ID PRIV | user enable|disable|delete ID',
    summary: 'LAN-channel users: list, add, change password or privilege, enable, disable, delete',
    run: async (api, args, flags) => {
      const op = args[0] ?? 'list';
      if (op === 'list') {
        if (args.length > 1) throw new UsageError(`user list: unexpected argument "${args[1]}"`);
        const first = await api.user(1);
        const users = [first];
        for (let id = 2; id <= first.max; id++) users.push(await api.user(id));
        const shown = users.filter((u) => u.name !== '' || u.enabled);
        const text =
          `${'ID'.padEnd(4)}${'Name'.padEnd(17)}${'Enabled'.padEnd(9)}${'IPMI Msg'.padEnd(10)}Channel Priv Limit\n` +
          shown.map((u) => `${String(u.id).padEnd(4)}${u.name.padEnd(17)}${(u.enabled ? 'yes' : 'no').padEnd(9)}${(u.ipmiMessaging ? 'yes' : 'no').padEnd(10)}${PRIV_NAMES[u.privilege] ?? `0x${u.privilege.toString(16)}`}\n`).join('');
        return { text, json: shown.map((u) => ({ id: u.id, name: u.name, enabled: u.enabled, ipmi_messaging: u.ipmiMessaging, privilege: (PRIV_NAMES[u.privilege] ?? String(u.privilege)).toLowerCase().replace(' ', '_') })) };
      }
      const id = userId(args[1], op);
      const done = (what: string) => ({ text: `user ${op} ${id}: ${what}\n`, json: { id, command: op, done: true } });
      switch (op) {
        case 'add': {
          const name = args[2];
          if (!name || args.length > 5) throw new UsageError('user add ID NAME PRIV [PASSWORD]');
          const priv = privilege(args[3]);
          const password = await secret(args[4], flags.readSecret, id);
          await api.setUserName(id, name);
          await api.setUserPassword(id, 2, password);
          await api.setUserAccess(id, priv);
          await api.setUserPassword(id, 1);
          return done(`user "${name}" added with privilege ${PRIV_NAMES[priv]}, enabled`);
        }
        case 'passwd': {
          if (args.length > 3) throw new UsageError('user passwd ID [PASSWORD]');
          await api.setUserPassword(id, 2, await secret(args[2], flags.readSecret, id));
          return done('password changed');
        }
        case 'priv': {
          if (args.length !== 3) throw new UsageError('user priv ID PRIV');
          const priv = privilege(args[2]);
          await api.setUserAccess(id, priv);
          return done(`privilege limit now ${PRIV_NAMES[priv]}`);
        }
        case 'enable':
        case 'disable':
          if (args.length !== 2) throw new UsageError(`user ${op} ID`);
          await api.setUserPassword(id, op === 'enable' ? 1 : 0);
          return done(op === 'enable' ? 'enabled' : 'disabled');
        case 'delete':
          if (args.length !== 2) throw new UsageError('user delete ID');
          await api.setUserPassword(id, 0);
          await api.setUserAccess(id, 15);
          await api.setUserName(id, '');
          return done('deleted');
        default:
          throw new UsageError(`user: "${op}" is not list, add, passwd, priv, enable, disable or delete`);
      }
    },
  },
};
