/**
 * Session commands of the LAN channel (IPMI v2.0 §22.13–§22.20): Get Channel Authentication
 * Capabilities (outside and inside a session — ipmi_sim refused it in session, research §S.2),
 * Set Session Privilege Level, Close Session, Get Session Info. Get Session Challenge and Activate
 * Session are handled by the IPMI 1.5 login (login15.ts); inside a session they answer D5h.
 */
import { AuthType, CompletionCode, IpmiError, NetFn, Privilege, expectLength, isSessionPrivilege } from '../codes.ts';
import type { CommandContext, CommandDef } from '../controller.ts';
import type { LanServices } from '../lan-services.ts';
import type { Session } from '../session.ts';
import { canLogIn } from '../users.ts';

/** Resolves a channel byte (0Eh = the channel the request came in on) to the LAN channel, or throws CCh. */
export function lanChannel(lan: LanServices, ctx: CommandContext, channelByte: number): number {
  const ch = channelByte & 0x0f;
  const resolved = ch === 0x0e ? ctx.channel : ch;
  if (resolved !== lan.channel) throw new IpmiError(CompletionCode.InvalidDataField, `channel ${ch} is not the LAN channel`);
  return resolved;
}

/** Get Channel Authentication Capabilities response data (8 bytes). */
export function authCapsData(lan: LanServices, channel: number, v2: boolean): Uint8Array {
  let types = 0;
  if (lan.ipmi15) types |= 1 << AuthType.Md5;
  if (lan.ipmi15 && lan.authNone) types |= 1 << AuthType.None;
  if (v2) types |= 0x80;
  const anyNamed = lan.users.list().some((u) => canLogIn(u));
  const status =
    (lan.kgSet ? 0x20 : 0) | // KG non-zero
    // b4 = 0: per-message authentication enabled; b3 = 0: user-level authentication enabled
    (anyNamed ? 0x04 : 0); // non-null user names exist; null users (b1) and anonymous login (b0) never
  const ext = v2 ? 0x02 | (lan.ipmi15 ? 0x01 : 0) : 0;
  return Uint8Array.of(channel, types, status, ext, 0, 0, 0, 0);
}

function sessionInfoData(lan: LanServices, s: Session | undefined): Uint8Array {
  const slots = lan.sessions.limits.maxSessions & 0x3f;
  const active = lan.sessions.active().length & 0x3f;
  if (!s) return Uint8Array.of(0, slots, active);
  const out = new Uint8Array(18);
  out[0] = s.handle;
  out[1] = slots;
  out[2] = active;
  out[3] = s.userId & 0x3f;
  out[4] = s.privilege & 0x0f;
  out[5] = ((s.kind === 'rmcp+' ? 1 : 0) << 4) | (lan.channel & 0x0f);
  const ip = s.peer.address.replace(/^::ffff:/, '').split('.').map(Number);
  if (ip.length === 4 && ip.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) out.set(ip, 6);
  // bytes 10..15: console MAC address, unknown to a UDP server → zero
  out[16] = s.peer.port & 0xff; // port, LS byte first
  out[17] = (s.peer.port >> 8) & 0xff;
  return out;
}

function requireSession(ctx: CommandContext): Session {
  if (!ctx.session) throw new IpmiError(CompletionCode.NotSupportedInPresentState, 'needs a session');
  return ctx.session;
}

/** The session command definitions bound to the LAN server. */
export function sessionCommands(lan: LanServices): CommandDef[] {
  return [
    {
      netFn: NetFn.App,
      cmd: 0x38,
      name: 'Get Channel Authentication Capabilities',
      handler: (req, ctx) => {
        expectLength(req.data, 2);
        const channel = lanChannel(lan, ctx, req.data[0]!);
        const priv = req.data[1]! & 0x0f;
        if (priv < Privilege.Callback || priv > Privilege.Oem) throw new IpmiError(CompletionCode.InvalidDataField, `privilege ${priv}`);
        return authCapsData(lan, channel, (req.data[0]! & 0x80) !== 0);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x39,
      name: 'Get Session Challenge',
      handler: () => {
        throw new IpmiError(CompletionCode.NotSupportedInPresentState, 'Get Session Challenge inside a session');
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x3a,
      name: 'Activate Session',
      handler: () => {
        throw new IpmiError(CompletionCode.NotSupportedInPresentState, 'Activate Session inside an active session');
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x3b,
      name: 'Set Session Privilege Level',
      handler: (req, ctx) => {
        expectLength(req.data, 1);
        const s = requireSession(ctx);
        const want = req.data[0]! & 0x0f;
        if (want === 0) return Uint8Array.of(s.privilege);
        if (want === Privilege.Oem) throw new IpmiError(0x80, 'OEM privilege not available');
        if (!isSessionPrivilege(want)) throw new IpmiError(CompletionCode.InvalidDataField, `privilege ${want}`);
        if (want > s.maxPrivilege) {
          lan.log.info({ category: 'privilege-refused', user: s.userName, want, max: s.maxPrivilege }, 'session privilege above the limit refused');
          throw new IpmiError(0x81, 'requested level exceeds the user or channel privilege limit');
        }
        s.privilege = want;
        return Uint8Array.of(want);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x3c,
      name: 'Close Session',
      handler: (req, ctx) => {
        expectLength(req.data, 4, 5);
        const s = requireSession(ctx);
        const id = (req.data[0]! | (req.data[1]! << 8) | (req.data[2]! << 16) | (req.data[3]! << 24)) >>> 0;
        let target: Session | undefined;
        if (id === 0) {
          if (req.data.length !== 5) throw new IpmiError(CompletionCode.RequestDataLengthInvalid, 'session handle missing');
          target = lan.sessions.active().find((x) => x.handle === req.data[4]);
          if (!target) throw new IpmiError(0x88, 'invalid session handle');
        } else {
          target = lan.sessions.get(id);
          if (!target || !target.active) throw new IpmiError(0x87, 'invalid session ID');
        }
        if (target === s) {
          s.closeAfterReply = true;
          return;
        }
        if (ctx.privilege < Privilege.Administrator) throw new IpmiError(CompletionCode.InsufficientPrivilege, 'closing another session needs ADMINISTRATOR');
        lan.closeSession(target);
      },
    },
    {
      netFn: NetFn.App,
      cmd: 0x3d,
      name: 'Get Session Info',
      handler: (req, ctx) => {
        expectLength(req.data, 1, 5);
        const index = req.data[0]!;
        const active = lan.sessions.active();
        if (index === 0x00) {
          expectLength(req.data, 1);
          return sessionInfoData(lan, requireSession(ctx));
        }
        if (index === 0xfe) {
          expectLength(req.data, 2);
          const s = active.find((x) => x.handle === req.data[1]);
          if (!s) throw new IpmiError(CompletionCode.InvalidDataField, 'no session with that handle');
          return sessionInfoData(lan, s);
        }
        if (index === 0xff) {
          expectLength(req.data, 5);
          const id = (req.data[1]! | (req.data[2]! << 8) | (req.data[3]! << 16) | (req.data[4]! << 24)) >>> 0;
          const s = active.find((x) => x.id === id);
          if (!s) throw new IpmiError(CompletionCode.InvalidDataField, 'no session with that ID');
          return sessionInfoData(lan, s);
        }
        expectLength(req.data, 1);
        if (index > lan.sessions.limits.maxSessions) throw new IpmiError(CompletionCode.InvalidDataField, `index ${index} beyond the slot count`);
        // the Nth active session; an index past the active ones reports handle 0 (no session there)
        return sessionInfoData(lan, active[index - 1]);
      },
    },
  ];
}
