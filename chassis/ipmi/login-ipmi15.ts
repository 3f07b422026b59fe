/**
 * Server side of the IPMI 1.5 login (IPMI v2.0 §22.16–§22.17; research §A.2): Get Session
 * Challenge (session-less) and Activate Session (sent under the temporary session ID with an MD5
 * auth code). MD5 only; straight password and MD2 are refused, auth type NONE only with the
 * insecure option. A wrong password makes Activate Session drop silently (the spec's rule for bad
 * auth codes), counted and logged as auth-failed.
 *
 * Sequence numbers: the console's first in-session request carries the BMC's initial inbound
 * number; the BMC's Activate Session response carries the console's initial outbound number and
 * its later messages count up from there. (ipmi_sim repeats the initial number in the first
 * in-session response; FreeIPMI then drops that response as a duplicate and retransmits after a
 * second, so atcasim does not copy it.)
 */
import { AuthType, CompletionCode, isSessionPrivilege } from './codes.ts';
import type { SessionPrivilege } from './codes.ts';
import { bytesEqual } from './crypto.ts';
import type { LoginHost } from './login-host.ts';
import { encodeResponse, responseTo } from './message.ts';
import type { IpmiRequest } from './message.ts';
import type { Peer, Session } from './session.ts';
import { IPMI15_WINDOW } from './session.ts';
import { SequenceWindow } from './sequence-window.ts';
import { encodeSession15, md5AuthCode } from './session15.ts';
import type { Session15Packet } from './session15.ts';
import { canLogIn } from './users.ts';

/** Get Session Challenge (06h/39h) outside a session: returns completion code and data. */
export function handleSessionChallenge(host: LoginHost, req: IpmiRequest, peer: Peer, now: number): { cc: number; data: Uint8Array } {
  const none = new Uint8Array(0);
  if (req.data.length !== 17) return { cc: CompletionCode.RequestDataLengthInvalid, data: none };
  const authType = req.data[0]! & 0x0f;
  const allowed = host.ipmi15 && (authType === AuthType.Md5 || (authType === AuthType.None && host.authNone));
  if (!allowed) {
    host.drop('authtype', peer, now, `Get Session Challenge with auth type ${authType} refused`);
    return { cc: CompletionCode.InvalidDataField, data: none };
  }
  const raw = req.data.subarray(1, 17);
  const end = raw.indexOf(0);
  const name = Buffer.from(end < 0 ? raw : raw.subarray(0, end)).toString('latin1');
  if (name === '') {
    host.drop('unknown-user', peer, now, 'null user name');
    return { cc: 0x82, data: none }; // null user name not enabled
  }
  const user = host.users.findByName(name);
  if (!canLogIn(user)) {
    host.drop('unknown-user', peer, now, `user "${name}" cannot log in`);
    host.log.info({ category: 'unknown-user', user: name, peer: peer.address }, 'Get Session Challenge for an unknown or disabled user');
    return { cc: 0x81, data: none }; // invalid user name
  }
  const s = host.sessions.addHalfOpen('ipmi15', peer, now);
  s.authType = authType;
  s.userId = user.id;
  s.userName = user.name;
  s.password = user.password.slice();
  s.challenge = host.randomBytes(16);
  const data = new Uint8Array(20);
  new DataView(data.buffer).setUint32(0, s.id, true);
  data.set(s.challenge, 4);
  return { cc: CompletionCode.Ok, data };
}

/**
 * Activate Session (06h/3Ah) under temp session `temp`: checks the auth code, then creates the
 * session. @returns the complete response datagram, or undefined to stay silent
 */
export function handleActivateSession(host: LoginHost, pkt: Session15Packet, req: IpmiRequest, temp: Session, now: number): Uint8Array | undefined {
  const peer = temp.peer;
  if (pkt.authType !== temp.authType) {
    host.drop('authtype', peer, now, 'Activate Session auth type differs from the challenge');
    return undefined;
  }
  if (temp.authType === AuthType.Md5) {
    const expect = md5AuthCode(temp.password, pkt.sessionId, pkt.message, pkt.sequence);
    if (!pkt.authCode || !bytesEqual(expect, pkt.authCode)) {
      host.drop('auth-failed', peer, now, `bad MD5 auth code for user "${temp.userName}"`);
      host.log.warn({ category: 'auth-failed', user: temp.userName, peer: peer.address }, 'IPMI 1.5 login failed: wrong password');
      host.sessions.remove(temp, 'failed');
      return undefined;
    }
  }
  if (req.data.length !== 22 || (req.data[0]! & 0x0f) !== temp.authType || !bytesEqual(req.data.subarray(2, 18), temp.challenge ?? new Uint8Array(0))) {
    host.drop('malformed', peer, now, 'Activate Session data does not match the challenge');
    host.sessions.remove(temp, 'failed');
    return undefined;
  }
  const requested = req.data[1]! & 0x0f;
  const initialOutbound = new DataView(req.data.buffer, req.data.byteOffset).getUint32(18, true) || 1;
  const reply = (cc: number, data: Uint8Array = new Uint8Array(0)) =>
    encodeSession15(temp.authType, initialOutbound, temp.id, encodeResponse(responseTo(req, cc, data)), temp.password);

  const user = host.users.get(temp.userId);
  if (!canLogIn(user)) {
    host.sessions.remove(temp, 'failed');
    return reply(0x81);
  }
  const limit = Math.min(user.privilege, host.channelPrivilegeLimit);
  if (!isSessionPrivilege(requested)) {
    host.sessions.remove(temp, 'failed');
    return reply(CompletionCode.InvalidDataField);
  }
  if (requested > limit) {
    host.log.info({ category: 'privilege-refused', user: user.name, requested, limit }, 'Activate Session above the privilege limit refused');
    host.sessions.remove(temp, 'failed');
    return reply(0x86); // requested maximum privilege exceeds the user and/or channel limit
  }
  if (!host.sessions.hasActiveRoom()) {
    host.drop('session-limit', peer, now, 'all session slots in use');
    host.sessions.remove(temp, 'failed');
    return reply(0x81); // no session slot available
  }
  if (!host.sessions.hasRoomForUser(user.id)) {
    host.drop('session-limit', peer, now, `session limit reached for user "${user.name}"`);
    host.sessions.remove(temp, 'failed');
    return reply(0x82); // no slot available for this user
  }
  const initialInbound = (new DataView(host.randomBytes(4).buffer).getUint32(0, true) >>> 1) + 1; // 1..2^31
  host.sessions.remove(temp, 'closed');
  const s = host.sessions.addActive('ipmi15', peer, now);
  s.authType = temp.authType;
  s.userId = user.id;
  s.userName = user.name;
  s.password = temp.password;
  s.maxPrivilege = requested as SessionPrivilege;
  s.privilege = Math.min(2, requested) as SessionPrivilege;
  s.window15 = new SequenceWindow(IPMI15_WINDOW.behind, IPMI15_WINDOW.ahead, initialInbound - 1);
  s.outSeq15 = (initialOutbound + 1) >>> 0 || 1;
  host.log.info({ category: 'login', user: s.userName, authType: s.authType, maxPrivilege: s.maxPrivilege, peer: peer.address }, 'IPMI 1.5 session opened');
  const data = new Uint8Array(10);
  const dv = new DataView(data.buffer);
  data[0] = s.authType;
  dv.setUint32(1, s.id, true);
  dv.setUint32(5, initialInbound, true);
  data[9] = requested;
  return reply(CompletionCode.Ok, data);
}
