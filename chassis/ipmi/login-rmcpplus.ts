/**
 * Server side of the RMCP+ login (IPMI v2.0 §13.17–§13.23): Open Session, RAKP 1 → 2, RAKP 3 → 4.
 * Each function takes a request payload and returns the response payload to send session-less
 * (session ID 0, sequence 0, unauthenticated), or undefined to stay silent.
 *
 * Rules (research §A.3–§A.7, §S1–§S8):
 * - Open Session answers with the privilege actually granted (FreeIPMI needs it without
 *   `-W opensesspriv`); no suite match → 11h; suite 0 only with the insecure option.
 * - RAKP1: unknown, disabled or name-less user → 0Dh with no auth code. Name-only lookup (role
 *   b4) is accepted, but the session limit is min(requested role, user limit, channel limit), so
 *   a USER account asking for ADMINISTRATOR gets a USER session (Set Session Privilege Level
 *   ADMINISTRATOR then fails with 81h). Role lookup (b4 = 0) requires the user's limit to reach
 *   the requested role, else 0Dh.
 * - RAKP3 with a wrong auth code → RAKP4 0Fh, the login is dropped and logged as auth-failed.
 * - Active-session limits (total, per user) are checked at RAKP1 and again at RAKP3 → 01h.
 */
import { ConfAlg } from './cipher-suites.ts';
import type { CipherSuite } from './cipher-suites.ts';
import { RmcpPlusStatus } from './codes.ts';
import type { SessionPrivilege } from './codes.ts';
import { bytesEqual, deriveKey, rakp2AuthCode, rakp3AuthCode, rakp4Icv, sessionIntegrityKey } from './crypto.ts';
import type { RakpParams } from './crypto.ts';
import type { LoginHost } from './login-host.ts';
import {
  decodeOpenSessionRequest,
  decodeRakp1,
  decodeRakpShort,
  encodeOpenSessionResponse,
  encodeRakp2,
  encodeRakpShort,
} from './rakp.ts';
import type { AlgorithmProposal } from './rakp.ts';
import type { Peer, Session } from './session.ts';
import { canLogIn } from './users.ts';

function samePeer(a: Peer, b: Peer): boolean {
  return a.address === b.address && a.port === b.port;
}

function matches(p: AlgorithmProposal, alg: number): boolean {
  return p.alg === undefined || p.alg === alg;
}

function u32(buf: Uint8Array, p: number): number {
  return (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0;
}

/** The RAKP parameters of a session after RAKP1. */
export function rakpParams(s: Session): RakpParams {
  const r = s.rakp!;
  return {
    authAlg: s.suite!.auth,
    consoleSid: s.consoleSid,
    bmcSid: s.id,
    consoleRandom: r.consoleRandom,
    bmcRandom: r.bmcRandom,
    bmcGuid: s.bmcGuid,
    role: r.role,
    userName: r.userName,
  };
}

/** Handles an Open Session Request payload. */
export function handleOpenSession(host: LoginHost, payload: Uint8Array, peer: Peer, now: number): Uint8Array | undefined {
  if (payload.length < 1) {
    host.drop('malformed', peer, now, 'empty Open Session Request');
    return undefined;
  }
  const tag = payload[0]!;
  const consoleSid = payload.length >= 8 ? u32(payload, 4) : 0;
  const refuse = (status: number, detail: string) => {
    host.drop(status === RmcpPlusStatus.NoCipherSuiteMatch ? 'cipher-suite' : status === RmcpPlusStatus.InsufficientResources ? 'session-limit' : 'malformed', peer, now, detail);
    return encodeOpenSessionResponse({ tag, status, maxPrivilege: 0, consoleSid });
  };
  let req;
  try {
    req = decodeOpenSessionRequest(payload);
  } catch (e) {
    return refuse(RmcpPlusStatus.IllegalParameter, String((e as Error).message));
  }
  if (req.consoleSid === 0) return refuse(RmcpPlusStatus.InvalidSessionId, 'console session ID 0');
  if (req.maxPrivilege > 4) return refuse(RmcpPlusStatus.IllegalParameter, `requested privilege ${req.maxPrivilege}`);
  const suite: CipherSuite | undefined = host.cipherSuites.find(
    (s) => matches(req.auth, s.auth) && matches(req.integrity, s.integrity) && matches(req.conf, s.conf),
  );
  if (!suite) {
    return refuse(
      RmcpPlusStatus.NoCipherSuiteMatch,
      `no offered cipher suite matches auth ${req.auth.alg ?? '*'} integrity ${req.integrity.alg ?? '*'} conf ${req.conf.alg ?? '*'}`,
    );
  }
  if (!host.sessions.hasActiveRoom()) return refuse(RmcpPlusStatus.InsufficientResources, 'all session slots in use');
  const granted = (req.maxPrivilege === 0 ? host.channelPrivilegeLimit : Math.min(req.maxPrivilege, host.channelPrivilegeLimit)) as SessionPrivilege;
  const s = host.sessions.addHalfOpen('rmcp+', peer, now);
  s.consoleSid = req.consoleSid;
  s.suite = suite;
  s.openMaxPrivilege = granted;
  s.bmcGuid = host.systemGuid().slice();
  if (suite.id === 0) host.log.warn({ category: 'insecure-login', peer: peer.address }, 'RMCP+ cipher suite 0 (no authentication) negotiated');
  return encodeOpenSessionResponse({
    tag: req.tag,
    status: RmcpPlusStatus.Ok,
    maxPrivilege: granted,
    consoleSid: req.consoleSid,
    bmcSid: s.id,
    auth: suite.auth,
    integrity: suite.integrity,
    conf: suite.conf,
  });
}

/** Finds the half-open RMCP+ login a RAKP message refers to (same peer), or undefined (silent drop). */
function pendingLogin(host: LoginHost, payload: Uint8Array, peer: Peer, now: number, what: string): Session | undefined {
  if (payload.length < 8) {
    host.drop('malformed', peer, now, `${what} shorter than 8 bytes`);
    return undefined;
  }
  const s = host.sessions.get(u32(payload, 4));
  if (!s || s.kind !== 'rmcp+') {
    host.drop('unknown-session', peer, now, `${what} for an unknown session`);
    return undefined;
  }
  if (!samePeer(s.peer, peer)) {
    host.drop('wrong-peer', peer, now, `${what} from another address than the Open Session`);
    return undefined;
  }
  return s;
}

/** Handles a RAKP Message 1 payload; returns RAKP Message 2. */
export function handleRakp1(host: LoginHost, payload: Uint8Array, peer: Peer, now: number): Uint8Array | undefined {
  const s = pendingLogin(host, payload, peer, now, 'RAKP1');
  if (!s) return undefined;
  if (s.state !== 'open' && s.state !== 'rakp2') {
    host.drop('state', peer, now, 'RAKP1 for an active session');
    return undefined;
  }
  const tag = payload[0]!;
  const fail = (status: number, category: 'malformed' | 'unknown-user' | 'session-limit', detail: string) => {
    host.drop(category, peer, now, detail);
    host.sessions.remove(s, 'failed');
    return encodeRakp2({ tag, status, consoleSid: s.consoleSid });
  };
  if (payload.length >= 28 && payload[27]! > 16) return fail(RmcpPlusStatus.InvalidNameLength, 'malformed', `user name length ${payload[27]}`);
  let r;
  try {
    r = decodeRakp1(payload);
  } catch (e) {
    return fail(RmcpPlusStatus.IllegalParameter, 'malformed', String((e as Error).message));
  }
  const requested = r.role & 0x0f;
  const nameOnly = (r.role & 0x10) !== 0;
  if (requested < 1 || requested > 4) return fail(RmcpPlusStatus.InvalidRole, 'malformed', `requested role ${requested}`);
  const name = Buffer.from(r.userName).toString('latin1');
  const user = host.users.findByName(name);
  if (!canLogIn(user) || (!nameOnly && user.privilege < requested)) {
    host.log.info({ category: 'unknown-user', user: name, peer: peer.address }, 'RAKP1 for an unknown, disabled or unauthorized user');
    return fail(RmcpPlusStatus.UnauthorizedName, 'unknown-user', `user "${name}" cannot log in`);
  }
  if (!host.sessions.hasRoomForUser(user.id)) {
    return fail(RmcpPlusStatus.InsufficientResources, 'session-limit', `session limit reached for user "${name}"`);
  }
  s.userId = user.id;
  s.userName = user.name;
  s.maxPrivilege = Math.min(requested, user.privilege, host.channelPrivilegeLimit, s.openMaxPrivilege) as SessionPrivilege;
  s.rakp = {
    tag,
    consoleRandom: r.consoleRandom,
    bmcRandom: host.randomBytes(16),
    role: r.role,
    userName: r.userName,
    password: user.password.slice(),
  };
  s.state = 'rakp2';
  const p = rakpParams(s);
  return encodeRakp2({
    tag,
    status: RmcpPlusStatus.Ok,
    consoleSid: s.consoleSid,
    bmcRandom: p.bmcRandom,
    bmcGuid: p.bmcGuid,
    authCode: rakp2AuthCode(p, s.rakp.password),
  });
}

/** Handles a RAKP Message 3 payload; returns RAKP Message 4 (the session becomes active on success). */
export function handleRakp3(host: LoginHost, payload: Uint8Array, peer: Peer, now: number): Uint8Array | undefined {
  const s = pendingLogin(host, payload, peer, now, 'RAKP3');
  if (!s) return undefined;
  let r;
  try {
    r = decodeRakpShort(payload);
  } catch {
    host.drop('malformed', peer, now, 'RAKP3 truncated');
    return undefined;
  }
  if (s.state === 'active') {
    // A repeated RAKP3 (the console lost RAKP4): answer again only if it proves the password.
    if (s.rakp?.rakp4 && bytesEqual(rakp3AuthCode(rakpParams(s), s.rakp.password), r.code)) return s.rakp.rakp4;
    host.drop('state', peer, now, 'RAKP3 for an active session');
    return undefined;
  }
  if (s.state !== 'rakp2' || !s.rakp) {
    host.drop('state', peer, now, 'RAKP3 before RAKP1');
    return undefined;
  }
  if (r.status !== 0) {
    host.log.info({ category: 'login-abandoned', user: s.userName, status: r.status, peer: peer.address }, 'console aborted the RAKP exchange');
    host.sessions.remove(s, 'failed');
    return undefined;
  }
  const p = rakpParams(s);
  const expected = rakp3AuthCode(p, s.rakp.password);
  const ok = s.suite!.auth === 0 ? true : bytesEqual(expected, r.code);
  if (!ok) {
    host.drop('auth-failed', peer, now, `bad RAKP3 auth code for user "${s.userName}"`);
    host.log.warn({ category: 'auth-failed', user: s.userName, peer: peer.address }, 'RMCP+ login failed: wrong password');
    host.sessions.remove(s, 'failed');
    return encodeRakpShort({ tag: r.tag, status: RmcpPlusStatus.InvalidIntegrityCheckValue, sessionId: s.consoleSid, code: new Uint8Array(0) });
  }
  if (!host.sessions.hasRoomForUser(s.userId)) {
    host.drop('session-limit', peer, now, `session limit reached for user "${s.userName}"`);
    host.sessions.remove(s, 'failed');
    return encodeRakpShort({ tag: r.tag, status: RmcpPlusStatus.InsufficientResources, sessionId: s.consoleSid, code: new Uint8Array(0) });
  }
  const sik = sessionIntegrityKey(p, s.rakp.password, host.kg);
  s.k1 = deriveKey(s.suite!.auth, sik, 1);
  s.k2 = s.suite!.conf === ConfAlg.AesCbc128 ? deriveKey(s.suite!.auth, sik, 2) : new Uint8Array(0);
  s.privilege = Math.min(2, s.maxPrivilege) as SessionPrivilege;
  host.sessions.activate(s, now);
  host.log.info({ category: 'login', user: s.userName, suite: s.suite!.id, maxPrivilege: s.maxPrivilege, peer: peer.address }, 'RMCP+ session opened');
  const rakp4 = encodeRakpShort({ tag: r.tag, status: RmcpPlusStatus.Ok, sessionId: s.consoleSid, code: rakp4Icv(p, sik) });
  s.rakp.rakp4 = rakp4;
  return rakp4;
}
