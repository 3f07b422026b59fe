/**
 * The IPMI-over-LAN server core: one datagram in, zero or more datagrams out, no sockets and no
 * timers (the UDP adapter is chassis/io/udp-ipmi.ts; time comes in as `now`, expiry runs in
 * `tick(now)`). It fronts several management controllers by IPMB address (the shelf manager at
 * 20h answers the LAN; board IPMCs are reached by bridging).
 *
 * Path of a datagram (IPMI v2.0 §13; OpenIPMI lanserv_ipmi.c; research §A, §F):
 *   RMCP header → ASF Presence Ping → Pong
 *               → IPMI 1.5 wrapper: session-less pre-session commands, Activate Session under the
 *                 temp ID, or an active 1.5 session (MD5 auth code, ±8 window)
 *               → RMCP+ wrapper: Open Session / RAKP 1 / RAKP 3, session-less Get Channel Cipher
 *                 Suites / Auth Caps, or an active RMCP+ session: integrity (HMAC) → sequence
 *                 window → decrypt (AES-CBC-128) → window advanced → IPMI message
 *   IPMI message → checksums → dispatcher (LAN-channel commands, then the 20h controller's table)
 *   → response wrapped in the same session (+ the raw response of a tracked bridged request).
 * Garbage gets no reply, one categorised (rate-limited) log entry and a counter; no state changes.
 */
import type { Logger } from '../../board/common/logger.ts';
import { DecodeError } from '../../board/common/errors.ts';
import { ConfAlg, DEFAULT_CIPHER_SUITES, IntegrityAlg, resolveCipherSuites } from './cipher-suites.ts';
import type { CipherSuite } from './cipher-suites.ts';
import { AuthType, CompletionCode, NetFn, PayloadType, isSessionPrivilege } from './codes.ts';
import type { SessionPrivilege } from './codes.ts';
import { bridgeCommands } from './commands/bridge.ts';
import { channelCommands } from './commands/channel.ts';
import { sessionCommands } from './commands/session.ts';
import { transportCommands } from './commands/transport.ts';
import { userCommands } from './commands/user.ts';
import { CommandTable } from './controller.ts';
import type { CommandContext, Controller } from './controller.ts';
import { aesDecrypt, aesEncrypt, bytesEqual, integrityParams } from './crypto.ts';
import { dispatch, findCommand } from './dispatcher.ts';
import { DEFAULT_LAN_CONFIG, defaultAlertDestinations } from './lan-services.ts';
import type { LanConfig, LanServices } from './lan-services.ts';
import { handleActivateSession, handleSessionChallenge } from './login-ipmi15.ts';
import type { DropCategory, LoginHost } from './login-host.ts';
import { handleOpenSession, handleRakp1, handleRakp3 } from './login-rmcpplus.ts';
import { decodeRequest, encodeResponse, responseTo } from './message.ts';
import type { IpmiRequest } from './message.ts';
import { decodeRmcpPlus, encodeRmcpPlus, verifyIntegrity } from './rmcpplus.ts';
import type { RmcpPlusPacket } from './rmcpplus.ts';
import { RMCP_HEADER_LENGTH, RmcpClass, decodeAsfPing, decodeRmcpHeader, encodeAsfPong } from './rmcp.ts';
import type { Peer, Session } from './session.ts';
import { DEFAULT_SESSION_LIMITS, RmcpSessionTable } from './rmcp-session-table.ts';
import type { RemovalReason, SessionLimits } from './rmcp-session-table.ts';
import { decodeSession15, encodeSession15, md5AuthCode } from './session15.ts';
import type { Session15Packet } from './session15.ts';
import { assertHasAdministrator } from './users.ts';
import type { UserStore } from './users.ts';

/** Largest datagram accepted (IPMI messages are small; SOL packets stay below it: chassis/ipmi/sol). */
export const MAX_DATAGRAM = 1024;
/** IPMB address of the shelf manager, the LAN-facing controller. */
export const SHELF_MANAGER_ADDRESS = 0x20;

/** Options of the LAN server. Defaults in brackets. */
export interface LanServerOptions {
  /** Users of the LAN channel; must contain an enabled administrator (else CommandError). */
  users: UserStore;
  /** Controllers behind the server; one must be at `frontAddress`. */
  controllers: readonly Controller[];
  /** IPMB address answering the LAN [20h]. */
  frontAddress?: number;
  /** Logger (a child `chassis.ipmi.lan` is made). */
  log: Logger;
  /** Cryptographically strong random bytes (the Platform's cryptoRandom; tests and simulated runs pass a seeded one). */
  randomBytes: (n: number) => Uint8Array;
  /** IPMI 1.5 sessions (MD5 only) [true]; `--no-ipmi15` turns them off. */
  ipmi15?: boolean;
  /** RMCP+ cipher suites offered [3, 17]; 1, 2, 15, 16 may be added. */
  cipherSuites?: readonly number[];
  /** UNSAFE: also offer cipher suite 0 (no authentication: any password logs in) [false]. */
  insecureCipher0?: boolean;
  /** UNSAFE: accept IPMI 1.5 auth type NONE (no password check) [false]. */
  insecureAuthNone?: boolean;
  /** LAN channel number [1]. */
  channel?: number;
  /** Channel privilege limit [4 = administrator]. */
  channelPrivilegeLimit?: SessionPrivilege;
  /** Session limits and timeouts [DEFAULT_SESSION_LIMITS]. */
  limits?: Partial<SessionLimits>;
  /** BMC key KG for two-key RMCP+ logins (≤ 20 bytes) [none]. */
  kg?: Uint8Array;
  /** LAN configuration values for Get LAN Configuration Parameters [DEFAULT_LAN_CONFIG]. */
  lanConfig?: Partial<LanConfig>;
}

/** Counters of the server (for tests, the UI and the fuzz test's bound checks). */
export interface LanServerStats {
  datagrams: number;
  replies: number;
  dropped: Partial<Record<DropCategory, number>>;
  activeSessions: number;
  halfOpenSessions: number;
}

/**
 * Handles one payload type other than IPMI messages inside active RMCP+ sessions (SOL, payload
 * type 01h: IPMI v2.0 §15; registered by chassis/ipmi/sol). The LAN server has checked integrity,
 * the sequence window and decrypted the payload before calling it.
 */
export interface SessionPayloadHandler {
  /**
   * @returns payloads of the same type to send back at once, in order (wrapped in the session)
   * @throws DecodeError for a malformed payload (dropped and counted; the window does not advance)
   */
  handlePayload(session: Session, payload: Uint8Array, now: number): Uint8Array[];
}

/** The UDP edge as seen by the server, for datagrams sent outside a reply (SOL output). */
export interface LanTransport {
  /** The local UDP port the server is bound to (Activate Payload reports it). */
  localPort: number;
  /** Sends one datagram to `peer`; must not throw. */
  send(bytes: Uint8Array, peer: Peer): void;
}

const LOG_WINDOW_MS = 10_000;
const LOG_PER_WINDOW = 10;

/**
 * The LAN server. Construct with `LanServerOptions`; feed datagrams to `handleDatagram(bytes, peer,
 * now)` (returns the reply datagrams, never throws) and call `tick(now)` for timeouts. Controllers
 * can be swapped at run time with `setController` (e.g. after a shelf-manager switchover the new
 * active ShMC takes address 20h; open sessions continue).
 */
export class LanServer implements LanServices, LoginHost {
  readonly channel: number;
  readonly channelPrivilegeLimit: SessionPrivilege;
  readonly users: UserStore;
  readonly cipherSuites: readonly CipherSuite[];
  readonly ipmi15: boolean;
  readonly authNone: boolean;
  readonly kg: Uint8Array | undefined;
  readonly sessions: RmcpSessionTable;
  readonly lanConfig: LanConfig;
  readonly log: Logger;
  /** The LAN-channel commands (session, channel, user, bridging, LAN configuration). */
  readonly lanCommands = new CommandTable();

  private readonly controllers = new Map<number, Controller>();
  private readonly frontAddress: number;
  private readonly random: (n: number) => Uint8Array;
  private readonly counters: LanServerStats = { datagrams: 0, replies: 0, dropped: {}, activeSessions: 0, halfOpenSessions: 0 };
  private readonly logWindows = new Map<DropCategory, { start: number; logged: number; suppressed: number }>();
  private readonly payloadHandlers = new Map<number, SessionPayloadHandler>();
  private readonly sessionEndListeners = new Set<(s: Session, why: RemovalReason) => void>();
  private lanTransport: LanTransport | undefined;

  /**
   * @throws TypeError for invalid options (unknown cipher suite, suite 0 without the insecure
   *         option, no controller at the front address, bad limits or KG)
   * @throws CommandError('ipmi_no_administrator') when the user store has no enabled administrator
   */
  constructor(opts: LanServerOptions) {
    this.log = opts.log.child({ module: 'chassis.ipmi.lan' });
    this.users = opts.users;
    assertHasAdministrator(this.users);
    this.random = opts.randomBytes;
    this.ipmi15 = opts.ipmi15 ?? true;
    this.authNone = opts.insecureAuthNone ?? false;
    this.cipherSuites = resolveCipherSuites(opts.cipherSuites ?? DEFAULT_CIPHER_SUITES, opts.insecureCipher0 ?? false);
    this.channel = opts.channel ?? 1;
    if (!Number.isInteger(this.channel) || this.channel < 1 || this.channel > 0x0b) throw new TypeError(`LAN channel must be 1..11, got ${this.channel}`);
    const limit = opts.channelPrivilegeLimit ?? 4;
    if (!isSessionPrivilege(limit)) throw new TypeError(`channel privilege limit must be 1..4, got ${limit}`);
    this.channelPrivilegeLimit = limit;
    if (opts.kg && opts.kg.length > 20) throw new TypeError('KG must be at most 20 bytes');
    this.kg = opts.kg && opts.kg.some((b) => b !== 0) ? opts.kg.slice() : undefined;
    this.lanConfig = { ...DEFAULT_LAN_CONFIG, alertDestinations: defaultAlertDestinations(), ...opts.lanConfig };
    this.sessions = new RmcpSessionTable({ ...DEFAULT_SESSION_LIMITS, ...opts.limits }, () => this.randomU32(), (s, why) => this.onSessionRemoved(s, why));
    this.frontAddress = opts.frontAddress ?? SHELF_MANAGER_ADDRESS;
    for (const c of opts.controllers) this.setController(c);
    if (!this.controllers.has(this.frontAddress)) throw new TypeError(`no controller at the front address ${this.frontAddress.toString(16)}h`);
    this.lanCommands.registerAll([
      ...sessionCommands(this),
      ...channelCommands(this),
      ...userCommands(this),
      ...bridgeCommands(this),
      ...transportCommands(this),
    ]);
    if (this.cipherSuites.some((s) => s.id === 0)) this.log.warn({ category: 'insecure-config' }, 'cipher suite 0 enabled: logins need no password');
    if (this.authNone) this.log.warn({ category: 'insecure-config' }, 'IPMI 1.5 auth type NONE enabled: logins need no password');
  }

  // ---------------------------------------------------------------------------------------------
  // Controllers

  /** Adds or replaces the controller at `c.address` (e.g. the peer ShMC after a switchover). */
  setController(c: Controller): void {
    this.controllers.set(c.address, c);
  }

  /** Removes the controller at `address` (not the front one). @returns whether it existed */
  removeController(address: number): boolean {
    if (address === this.frontAddress) throw new TypeError('the front controller cannot be removed; replace it with setController');
    return this.controllers.delete(address);
  }

  controllerAt(address: number): Controller | undefined {
    return this.controllers.get(address);
  }

  frontController(): Controller {
    return this.controllers.get(this.frontAddress)!;
  }

  /** Changes LAN configuration values (the UDP adapter sets the bound address). */
  updateLanConfig(changes: Partial<LanConfig>): void {
    Object.assign(this.lanConfig, changes);
  }

  get kgSet(): boolean {
    return this.kg !== undefined;
  }

  systemGuid(): Uint8Array {
    return this.frontController().info.guid;
  }

  randomBytes(n: number): Uint8Array {
    const b = this.random(n);
    if (b.length !== n) throw new TypeError(`randomBytes(${n}) returned ${b.length} bytes`);
    return b;
  }

  closeSession(s: Session): void {
    this.sessions.remove(s, 'closed');
  }

  /**
   * Ends every session and half-open login (the split shelf, when another ShMC process takes the
   * shelf address: a real shelf manager's sessions die with it). Clients must log in again.
   * @returns how many active sessions ended
   */
  endAllSessions(why: RemovalReason = 'failover'): number {
    return this.sessions.removeAll(why);
  }

  // ---------------------------------------------------------------------------------------------
  // Hooks for payloads other than IPMI messages (SOL, docs/consoles.md)

  /** Registers (or, with undefined, removes) the handler of an RMCP+ payload type other than IPMI (01h SOL). */
  setPayloadHandler(type: number, handler: SessionPayloadHandler | undefined): void {
    if (type === PayloadType.Ipmi || type >= PayloadType.OpenSessionRequest) throw new TypeError(`payload type ${type} is handled by the server itself`);
    if (handler) this.payloadHandlers.set(type, handler);
    else this.payloadHandlers.delete(type);
  }

  /** Connects the UDP edge for datagrams sent outside a reply. @returns detach */
  attachTransport(t: LanTransport): () => void {
    this.lanTransport = t;
    return () => {
      if (this.lanTransport === t) this.lanTransport = undefined;
    };
  }

  /** The attached UDP edge, if any. */
  get transport(): LanTransport | undefined {
    return this.lanTransport;
  }

  /**
   * Sends a payload of `type` to the console of an active RMCP+ session outside a reply (wrapped,
   * encrypted and authenticated as the session's cipher suite says).
   * @returns false when no transport is attached or the session is gone
   */
  sendPayload(s: Session, type: number, payload: Uint8Array): boolean {
    const t = this.lanTransport;
    if (!t || !s.active || s.kind !== 'rmcp+' || this.sessions.get(s.id) !== s) return false;
    t.send(this.wrapRmcpPlus(s, payload, type), s.peer);
    this.counters.replies++;
    return true;
  }

  /** Calls `fn` whenever a session leaves the table (closed, idle, evicted …). @returns unsubscribe */
  onSessionEnd(fn: (s: Session, why: RemovalReason) => void): () => void {
    this.sessionEndListeners.add(fn);
    return () => this.sessionEndListeners.delete(fn);
  }

  // ---------------------------------------------------------------------------------------------
  // Entry points

  /**
   * Handles one UDP datagram from `peer` at time `now` (ms).
   * @returns the datagrams to send back to `peer`, in order (empty: stay silent). Never throws.
   */
  handleDatagram(bytes: Uint8Array, peer: Peer, now: number): Uint8Array[] {
    this.counters.datagrams++;
    let out: Uint8Array[];
    try {
      out = this.route(bytes, peer, now);
    } catch (e) {
      if (e instanceof DecodeError) this.drop('malformed', peer, now, e.message);
      else {
        this.drop('internal', peer, now, String(e));
        this.log.error({ category: 'internal', err: String((e as Error)?.stack ?? e) }, 'LAN server error on a datagram');
      }
      out = [];
    }
    this.counters.replies += out.length;
    return out;
  }

  /** Expires half-open logins and idle sessions. @returns the next time (ms) tick should run, or undefined */
  tick(now: number): number | undefined {
    return this.sessions.expire(now);
  }

  /** Counters and table sizes. */
  stats(): LanServerStats {
    return {
      ...this.counters,
      dropped: { ...this.counters.dropped },
      activeSessions: this.sessions.active().length,
      halfOpenSessions: this.sessions.halfOpenCount(),
    };
  }

  /**
   * A login refused for want of a session slot is the operator's business, not noise: logged at
   * warn with the limits in force and what the clients print for it (ipmitool "insufficient
   * resources for session", FreeIPMI "BMC busy"), so a client that keeps retrying can be explained.
   */
  private logSessionLimit(peer: Peer, detail: string): void {
    const l = this.sessions.limits;
    this.log.warn(
      {
        category: 'login-refused',
        reason: 'session-limit',
        peer: `${peer.address}:${peer.port}`,
        detail,
        active: this.sessions.active().length,
        max_sessions: l.maxSessions,
        max_sessions_per_user: l.maxSessionsPerUser,
        idle_timeout_ms: l.idleTimeoutMs,
      },
      `IPMI login refused: ${detail} (at most ${l.maxSessions} sessions, ${l.maxSessionsPerUser} per user; an idle session closes after ${Math.round(l.idleTimeoutMs / 1000)} s). ` +
        'ipmitool says "insufficient resources for session", FreeIPMI "BMC busy"; close sessions (ipmitool session info all) or wait',
    );
  }

  drop(category: DropCategory, peer: Peer, now: number, detail: string): void {
    this.counters.dropped[category] = (this.counters.dropped[category] ?? 0) + 1;
    let w = this.logWindows.get(category);
    if (!w || now - w.start >= LOG_WINDOW_MS || now < w.start) {
      if (w && w.suppressed > 0) this.log.warn({ category, suppressed: w.suppressed }, 'similar datagrams not logged');
      w = { start: now, logged: 0, suppressed: 0 };
      this.logWindows.set(category, w);
    }
    if (w.logged < LOG_PER_WINDOW) {
      w.logged++;
      if (category === 'session-limit') this.logSessionLimit(peer, detail);
      else this.log.debug({ category, peer: `${peer.address}:${peer.port}`, detail }, 'datagram dropped');
    } else {
      w.suppressed++;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Routing

  private route(bytes: Uint8Array, peer: Peer, now: number): Uint8Array[] {
    if (bytes.length > MAX_DATAGRAM) {
      this.drop('oversize', peer, now, `${bytes.length} bytes`);
      return [];
    }
    const rmcp = decodeRmcpHeader(bytes);
    if (rmcp.ack) {
      this.drop('rmcp-class', peer, now, 'RMCP ACK (never requested)');
      return [];
    }
    if (rmcp.msgClass === RmcpClass.Asf) {
      const ping = decodeAsfPing(bytes);
      if (!ping) {
        this.drop('asf', peer, now, 'ASF message other than Presence Ping');
        return [];
      }
      return [encodeAsfPong(ping.tag)];
    }
    if (rmcp.msgClass !== RmcpClass.Ipmi) {
      this.drop('rmcp-class', peer, now, `RMCP class ${rmcp.msgClass}`);
      return [];
    }
    if (bytes.length <= RMCP_HEADER_LENGTH) throw new DecodeError('ipmi', 'authtype', RMCP_HEADER_LENGTH, 'no session header');
    if (bytes[RMCP_HEADER_LENGTH] === AuthType.RmcpPlus) return this.routeRmcpPlus(bytes, peer, now);
    return this.route15(bytes, peer, now);
  }

  /** Runs a request through the LAN tables and the front controller. */
  private run(req: IpmiRequest, session: Session | undefined, now: number, emitted: Uint8Array[]): Uint8Array {
    const front = this.frontController();
    const ctx: CommandContext = {
      controller: front,
      now,
      channel: this.channel,
      privilege: session?.active ? session.privilege : 0,
      session: session?.active ? session : undefined,
      log: this.log,
      emit: (m) => {
        if (emitted.length < 4) emitted.push(m);
      },
    };
    const r = dispatch([this.lanCommands, front.commands], req, ctx);
    return encodeResponse(responseTo(req, r.cc, r.data));
  }

  /** Pre-session request: only commands whose privilege is 0 run; others get D5h with no data. */
  private runPreSession(req: IpmiRequest, now: number): Uint8Array {
    const cmd = findCommand([this.lanCommands, this.frontController().commands], req.netFn, req.cmd);
    if (!cmd || cmd.privilege !== 0) return encodeResponse(responseTo(req, CompletionCode.NotSupportedInPresentState));
    return this.run(req, undefined, now, []);
  }

  private decodeMessage(msg: Uint8Array, peer: Peer, now: number): IpmiRequest | undefined {
    try {
      return decodeRequest(msg);
    } catch (e) {
      if (e instanceof DecodeError) {
        this.drop('checksum', peer, now, e.message);
        return undefined;
      }
      throw e;
    }
  }

  // --- IPMI 1.5 --------------------------------------------------------------------------------

  private route15(bytes: Uint8Array, peer: Peer, now: number): Uint8Array[] {
    const pkt = decodeSession15(bytes);
    if (pkt.sessionId === 0) {
      if (pkt.authType !== AuthType.None) {
        this.drop('authtype', peer, now, 'session-less packet with an auth code');
        return [];
      }
      const req = this.decodeMessage(pkt.message, peer, now);
      if (!req) return [];
      if (req.netFn === NetFn.App && req.cmd === 0x39) {
        const r = handleSessionChallenge(this, req, peer, now);
        return [encodeSession15(AuthType.None, 0, 0, encodeResponse(responseTo(req, r.cc, r.data)))];
      }
      return [encodeSession15(AuthType.None, 0, 0, this.runPreSession(req, now))];
    }
    const s = this.sessions.get(pkt.sessionId);
    if (!s || s.kind !== 'ipmi15') {
      this.drop('unknown-session', peer, now, `1.5 session ${pkt.sessionId.toString(16)}`);
      return [];
    }
    if (s.state === 'challenge') {
      if (s.peer.address !== peer.address || s.peer.port !== peer.port) {
        this.drop('wrong-peer', peer, now, 'Activate Session from another address than the challenge');
        return [];
      }
      const req = this.decodeMessage(pkt.message, peer, now);
      if (!req) return [];
      if (req.netFn !== NetFn.App || req.cmd !== 0x3a) {
        this.drop('state', peer, now, 'temporary session used for something else than Activate Session');
        return [];
      }
      const reply = handleActivateSession(this, pkt, req, s, now);
      return reply ? [reply] : [];
    }
    return this.inSession15(s, pkt, peer, now);
  }

  private inSession15(s: Session, pkt: Session15Packet, peer: Peer, now: number): Uint8Array[] {
    if (pkt.authType !== s.authType) {
      this.drop('authtype', peer, now, `auth type ${pkt.authType} in a session using ${s.authType}`);
      return [];
    }
    if (s.authType === AuthType.Md5) {
      const expect = md5AuthCode(s.password, s.id, pkt.message, pkt.sequence);
      if (!pkt.authCode || !bytesEqual(expect, pkt.authCode)) {
        this.drop('integrity', peer, now, 'bad MD5 auth code');
        return [];
      }
    }
    const window = s.window15!;
    if (!window.check(pkt.sequence)) {
      this.drop('sequence', peer, now, `1.5 sequence ${pkt.sequence} outside the window or repeated`);
      return [];
    }
    window.accept(pkt.sequence); // after the auth code check, never before (spoofing)
    s.lastActivity = now;
    const req = this.decodeMessage(pkt.message, peer, now);
    if (!req) return [];
    const emitted: Uint8Array[] = [];
    const resp = this.run(req, s, now, emitted);
    const out = [resp, ...emitted].map((m) => encodeSession15(s.authType, s.takeOutSeq15(), s.id, m, s.password));
    if (s.closeAfterReply) this.sessions.remove(s, 'closed');
    return out;
  }

  // --- RMCP+ -----------------------------------------------------------------------------------

  private routeRmcpPlus(bytes: Uint8Array, peer: Peer, now: number): Uint8Array[] {
    const pkt = decodeRmcpPlus(bytes);
    const setup = pkt.payloadType >= PayloadType.OpenSessionRequest && pkt.payloadType <= PayloadType.Rakp4;
    if (setup) {
      if (pkt.sessionId !== 0 || pkt.encrypted || pkt.authenticated) {
        this.drop('malformed', peer, now, 'session setup payload with a session ID or security flags');
        return [];
      }
      let reply: Uint8Array | undefined;
      let type: number;
      if (pkt.payloadType === PayloadType.OpenSessionRequest) {
        reply = handleOpenSession(this, pkt.payload, peer, now);
        type = PayloadType.OpenSessionResponse;
      } else if (pkt.payloadType === PayloadType.Rakp1) {
        reply = handleRakp1(this, pkt.payload, peer, now);
        type = PayloadType.Rakp2;
      } else if (pkt.payloadType === PayloadType.Rakp3) {
        reply = handleRakp3(this, pkt.payload, peer, now);
        type = PayloadType.Rakp4;
      } else {
        this.drop('payload-type', peer, now, `payload type ${pkt.payloadType} from a console`);
        return [];
      }
      return reply ? [encodeRmcpPlus({ payloadType: type, encrypted: false, sessionId: 0, sequence: 0, payload: reply })] : [];
    }
    if (pkt.payloadType !== PayloadType.Ipmi) {
      const handler = this.payloadHandlers.get(pkt.payloadType);
      if (!handler || pkt.sessionId === 0) {
        this.drop('payload-type', peer, now, `payload type ${pkt.payloadType} not supported${handler ? ' outside a session' : ''}`);
        return [];
      }
      const s = this.sessions.get(pkt.sessionId);
      if (!s || s.kind !== 'rmcp+' || !s.active) {
        this.drop('unknown-session', peer, now, `RMCP+ session ${pkt.sessionId.toString(16)}`);
        return [];
      }
      return this.inSessionRmcpPlus(s, bytes, pkt, peer, now, handler);
    }
    if (pkt.sessionId === 0) {
      if (pkt.encrypted || pkt.authenticated) {
        this.drop('malformed', peer, now, 'session-less payload with security flags');
        return [];
      }
      const req = this.decodeMessage(pkt.payload, peer, now);
      if (!req) return [];
      const resp = this.runPreSession(req, now);
      return [encodeRmcpPlus({ payloadType: PayloadType.Ipmi, encrypted: false, sessionId: 0, sequence: 0, payload: resp })];
    }
    const s = this.sessions.get(pkt.sessionId);
    if (!s || s.kind !== 'rmcp+' || !s.active) {
      this.drop('unknown-session', peer, now, `RMCP+ session ${pkt.sessionId.toString(16)}`);
      return [];
    }
    return this.inSessionRmcpPlus(s, bytes, pkt, peer, now);
  }

  private inSessionRmcpPlus(s: Session, bytes: Uint8Array, pkt: RmcpPlusPacket, peer: Peer, now: number, handler?: SessionPayloadHandler): Uint8Array[] {
    const suite = s.suite!;
    const integ = integrityParams(suite.integrity);
    const wantAuth = suite.integrity !== IntegrityAlg.None;
    const wantEnc = suite.conf !== ConfAlg.None;
    if (pkt.authenticated !== wantAuth || pkt.encrypted !== wantEnc) {
      this.drop('unauthenticated', peer, now, 'payload security flags do not match the cipher suite');
      return [];
    }
    if (integ && !verifyIntegrity(bytes, pkt, suite.integrity, s.k1, integ.length)) {
      this.drop('integrity', peer, now, 'bad integrity AuthCode');
      return [];
    }
    const window = pkt.authenticated ? s.authWindow : s.unauthWindow;
    if (!window.check(pkt.sequence)) {
      this.drop('sequence', peer, now, `sequence ${pkt.sequence} outside the window or repeated`);
      return [];
    }
    let plain: Uint8Array | undefined = pkt.payload;
    if (pkt.encrypted) {
      plain = aesDecrypt(s.k2, pkt.payload);
      if (!plain) {
        this.drop('decrypt', peer, now, 'bad AES-CBC payload or pad');
        return [];
      }
    }
    if (handler) {
      const replies = handler.handlePayload(s, plain, now); // throws DecodeError for a malformed payload
      window.accept(pkt.sequence);
      s.lastActivity = now;
      return replies.map((p) => this.wrapRmcpPlus(s, p, pkt.payloadType));
    }
    const req = this.decodeMessage(plain, peer, now);
    if (!req) return [];
    window.accept(pkt.sequence); // only after integrity (and, without integrity, a well-formed message)
    s.lastActivity = now;
    const emitted: Uint8Array[] = [];
    const resp = this.run(req, s, now, emitted);
    const out = [resp, ...emitted].map((m) => this.wrapRmcpPlus(s, m));
    if (s.closeAfterReply) this.sessions.remove(s, 'closed');
    return out;
  }

  private wrapRmcpPlus(s: Session, msg: Uint8Array, payloadType: number = PayloadType.Ipmi): Uint8Array {
    const suite = s.suite!;
    const encrypted = suite.conf === ConfAlg.AesCbc128;
    const payload = encrypted ? aesEncrypt(s.k2, this.randomBytes(16), msg) : msg;
    const integrity = suite.integrity !== IntegrityAlg.None ? { alg: suite.integrity, k1: s.k1 } : undefined;
    return encodeRmcpPlus(
      { payloadType, encrypted, sessionId: s.consoleSid, sequence: s.nextOutSeq(!!integrity), payload },
      integrity,
    );
  }

  // ---------------------------------------------------------------------------------------------

  private randomU32(): number {
    const b = this.randomBytes(4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  }

  private onSessionRemoved(s: Session, why: RemovalReason): void {
    for (const fn of [...this.sessionEndListeners]) {
      try {
        fn(s, why);
      } catch (e) {
        this.log.error({ category: 'internal', err: String(e) }, 'session-end listener failed');
      }
    }
    if (s.active) this.log.info({ category: 'session-end', user: s.userName, handle: s.handle, reason: why }, 'session ended');
    else if (why === 'evicted') this.log.debug({ category: 'half-open-evicted', peer: s.peer.address }, 'half-open login evicted');
  }
}
