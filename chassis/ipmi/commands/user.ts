/**
 * User commands of the LAN channel (IPMI v2.0 §22.26–§22.30) against the `UserStore`: Get/Set
 * User Access, Get/Set User Name, Set User Password (disable, enable, set, test) — what
 * `ipmitool user list|set name|set password|priv|enable|disable|test` and `channel getaccess` use.
 */
import { CommandError } from '../../../board/common/errors.ts';
import { CompletionCode, IpmiError, NetFn, expectLength } from '../codes.ts';
import type { CommandDef } from '../controller.ts';
import type { LanServices } from '../lan-services.ts';
import { MAX_USERS, passwordProblem, trimPassword } from '../users.ts';
import type { UserPrivilegeLimit, UserUpdate } from '../users.ts';
import { lanChannel } from './session.ts';

function userId(lan: LanServices, b: number): number {
  const id = b & 0x3f;
  if (id < 1 || id > MAX_USERS) throw new IpmiError(CompletionCode.InvalidDataField, `user ID ${id} is not 1..${MAX_USERS}`);
  return id;
}

function apply(lan: LanServices, id: number, changes: UserUpdate): void {
  try {
    lan.users.update(id, changes);
  } catch (e) {
    if (e instanceof CommandError) throw new IpmiError(CompletionCode.InvalidDataField, e.message);
    throw e;
  }
}

/** The user command definitions bound to the LAN server. */
export function userCommands(lan: LanServices): CommandDef[] {
  return [
    {
      netFn: NetFn.App,
      cmd: 0x44,
      name: 'Get User Access',
      handler: (req, ctx) => {
        expectLength(req.data, 2);
        lanChannel(lan, ctx, req.data[0]!);
        const u = lan.users.get(userId(lan, req.data[1]!))!;
        const all = lan.users.list();
        const enabledCount = all.filter((x) => x.enabled).length;
        return Uint8Array.of(
          MAX_USERS,
          (u.enabled ? 0x40 : 0x80) | (enabledCount & 0x3f), // b7:6 01 enabled / 10 disabled
          0, // no fixed names
          (u.callinRestricted ? 0x40 : 0) | (u.linkAuth ? 0x20 : 0) | (u.ipmiMessaging ? 0x10 : 0) | (u.privilege & 0x0f),
        );
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x43,
      name: 'Set User Access',
      handler: (req, ctx) => {
        expectLength(req.data, 3, 4);
        const b0 = req.data[0]!;
        lanChannel(lan, ctx, b0);
        const id = userId(lan, req.data[1]!);
        const priv = req.data[2]! & 0x0f;
        if (![1, 2, 3, 4, 0x0f].includes(priv)) throw new IpmiError(CompletionCode.InvalidDataField, `privilege limit ${priv}`);
        const changes: UserUpdate = { privilege: priv as UserPrivilegeLimit };
        if (b0 & 0x80) {
          changes.callinRestricted = (b0 & 0x40) !== 0;
          changes.linkAuth = (b0 & 0x20) !== 0;
          changes.ipmiMessaging = (b0 & 0x10) !== 0;
        }
        apply(lan, id, changes);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x45,
      name: 'Set User Name',
      handler: (req) => {
        expectLength(req.data, 17);
        const id = userId(lan, req.data[0]!);
        const raw = req.data.subarray(1, 17);
        const end = raw.indexOf(0);
        const bytes = end < 0 ? raw : raw.subarray(0, end);
        if (bytes.some((b) => b < 0x20 || b > 0x7e)) throw new IpmiError(CompletionCode.InvalidDataField, 'user name must be printable ASCII');
        apply(lan, id, { name: Buffer.from(bytes).toString('latin1') });
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x46,
      name: 'Get User Name',
      handler: (req) => {
        expectLength(req.data, 1);
        const u = lan.users.get(userId(lan, req.data[0]!))!;
        const out = new Uint8Array(16);
        out.set(Buffer.from(u.name, 'latin1').subarray(0, 16));
        return out;
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x47,
      name: 'Set User Password',
      handler: (req) => {
        if (req.data.length < 2) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'short request');
        const id = userId(lan, req.data[0]!);
        const twenty = (req.data[0]! & 0x80) !== 0;
        const op = req.data[1]! & 0x03;
        const size = twenty ? 20 : 16;
        const u = lan.users.get(id)!;
        if (op === 0 || op === 1) {
          if (req.data.length !== 2 && req.data.length !== 2 + size) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'bad length');
          apply(lan, id, { enabled: op === 1 });
          return;
        }
        expectLength(req.data, 2 + size);
        const given = trimPassword(req.data.subarray(2, 2 + size));
        if (op === 2) {
          const problem = passwordProblem(u.name, given);
          if (problem) {
            lan.log.info({ category: 'password-rejected', user: id, reason: problem }, 'Set User Password refused');
            throw new IpmiError(CompletionCode.InvalidDataField, problem);
          }
          apply(lan, id, { password: given });
          lan.log.info({ category: 'password-changed', user: id }, 'user password changed');
          return;
        }
        // op 3: test password
        if (!twenty && u.password.length > 16) throw new IpmiError(0x81, 'wrong password size');
        const stored = u.password;
        const same = stored.length === given.length && stored.every((b, i) => b === given[i]);
        if (!same) throw new IpmiError(0x80, 'password test failed');
      },
    },
  ];
}
