/**
 * An IPMI-over-LAN client (remote console side) for `atcasim clia`: RMCP+ session setup as the
 * initiator (Open Session, RAKP 1–4; IPMI v2.0 §13.17–§13.31), then authenticated and encrypted
 * requests, with bridging to the IPM controllers behind the shelf manager (Send Message with
 * tracking, §22.7: the bridged response arrives as a second message in the session), and Close
 * Session. Cipher suite 17 by default (RAKP-HMAC-SHA256, HMAC-SHA256-128, AES-CBC-128); 3 also.
 *
 * The codecs and crypto are the server's (chassis/ipmi: rakp.ts, crypto.ts, rmcpplus.ts,
 * message.ts), so client and server share one implementation checked against captures. The client
 * checks the BMC's RAKP2 auth code and RAKP4 integrity check value before trusting the session,
 * like ipmitool does; a wrong password is noticed at RAKP2.
 *
 * I/O through ports: a DatagramTransport (the CLI gives it a UDP socket) and the Clock (timeouts
 * and retries). Each request is retried with a fresh session sequence number (the server drops
 * duplicates), matched to its response by rqSeq and command.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import { DecodeError } from '../../board/common/errors.ts';
import { CIPHER_SUITES, ConfAlg, IntegrityAlg, type CipherSuite } from '../ipmi/cipher-suites.ts';
import { PayloadType } from '../ipmi/codes.ts';
import {
  aesDecrypt,
  aesEncrypt,
  bytesEqual,
  deriveKey,
  integrityParams,
  rakp2AuthCode,
  rakp3AuthCode,
  rakp4Icv,
  sessionIntegrityKey,
  type RakpParams,
} from '../ipmi/crypto.ts';
import { decodeResponse, encodeRequest, type IpmiResponse } from '../ipmi/message.ts';
import { decodeOpenSessionResponse, decodeRakp2, decodeRakpShort, encodeOpenSessionRequest, encodeRakp1, encodeRakpShort } from '../ipmi/rakp.ts';
import { decodeRmcpPlus, encodeRmcpPlus, verifyIntegrity } from '../ipmi/rmcpplus.ts';
import { utf8 } from '../ipmi/users.ts';

/** A datagram socket connected to the BMC. */
export interface DatagramTransport {
  send(bytes: Uint8Array): void;
  /** Registers the receiver of every datagram from the BMC. */
  onMessage(fn: (bytes: Uint8Array) => void): void;
  close(): Promise<void>;
}

/** Connection settings. */
export interface ClientOptions {
  user: string;
  password: string;
  /** RMCP+ cipher suite: 17 (default) or 3. */
  cipherSuite?: 3 | 17;
  /** Requested privilege; default: the highest the user has (Open Session asks for 0, "highest",
   * and the session runs at what the BMC grants — ADMINISTRATOR for an administrator). */
  privilege?: 1 | 2 | 3 | 4;
  /** Timeout of one attempt, ms (default 1000). */
  timeoutMs?: number;
  /** Attempts per request (default 3). */
  attempts?: number;
  /** Random bytes for the console random number and AES IVs. */
  randomBytes: (n: number) => Uint8Array;
  clock: Clock;
}

/** A failure to talk to the BMC at all (no answer, login refused): `atcasim clia` exits 2. */
export class ConnectionError extends Error {
  readonly kind = 'connection' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionError';
  }
}

/** RMCP+ status texts (IPMI v2.0 Table 13-15) for login errors. */
const RMCP_STATUS: Record<number, string> = {
  0x01: 'insufficient resources for session',
  0x02: 'invalid session ID',
  0x04: 'invalid authentication algorithm',
  0x05: 'invalid integrity algorithm',
  0x09: 'invalid role',
  0x0a: 'unauthorized role or privilege level requested',
  0x0d: 'unauthorized name',
  0x0f: 'invalid integrity check value',
  0x10: 'invalid confidentiality algorithm',
  0x11: 'no cipher suite match',
  0x12: 'illegal or unrecognized parameter',
};

/** The shelf manager's IPMB address (the LAN-facing controller). */
export const BMC_ADDRESS = 0x20;
/** Software ID of a remote console. */
const CONSOLE_SWID = 0x81;

interface Pending {
  match: (r: IpmiResponse) => boolean;
  resolve: (r: IpmiResponse) => void;
}

/** One RMCP+ session to the shelf manager. */
export class IpmiClient {
  private readonly suite: CipherSuite;
  private readonly consoleSid: number;
  private bmcSid = 0;
  private k1: Uint8Array = new Uint8Array(0);
  private k2: Uint8Array = new Uint8Array(0);
  private seq = 1;
  private rqSeq = 0;
  private open = false;
  private readonly pending = new Set<Pending>();
  /** The session's privilege level once connected (2 USER, 3 OPERATOR, 4 ADMINISTRATOR). */
  privilege = 0;
  private setupWaiter: ((payloadType: number, payload: Uint8Array) => void) | undefined;

  constructor(
    private readonly transport: DatagramTransport,
    private readonly opts: ClientOptions,
  ) {
    const suite = CIPHER_SUITES.get(opts.cipherSuite ?? 17);
    if (!suite || (suite.id !== 17 && suite.id !== 3)) throw new TypeError(`cipher suite ${opts.cipherSuite} is not supported by clia (3, 17)`);
    this.suite = suite;
    const r = opts.randomBytes(4);
    this.consoleSid = ((r[0]! | (r[1]! << 8) | (r[2]! << 16) | (r[3]! << 24)) >>> 0) || 0xa0a2a3a4;
    transport.onMessage((b) => this.receive(b));
  }

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? 1000;
  }

  private get attempts(): number {
    return this.opts.attempts ?? 3;
  }

  private receive(bytes: Uint8Array): void {
    try {
      if (bytes.length < 5 || bytes[4] !== 0x06) return; // not RMCP+
      const pkt = decodeRmcpPlus(bytes);
      if (pkt.payloadType >= PayloadType.OpenSessionResponse && pkt.payloadType <= PayloadType.Rakp4) {
        this.setupWaiter?.(pkt.payloadType, pkt.payload.slice());
        return;
      }
      if (!this.open || pkt.payloadType !== PayloadType.Ipmi || pkt.sessionId !== this.consoleSid) return;
      const integ = integrityParams(this.suite.integrity);
      if (integ && !verifyIntegrity(bytes, pkt, this.suite.integrity, this.k1, integ.length)) return;
      const plain = pkt.encrypted ? aesDecrypt(this.k2, pkt.payload) : pkt.payload;
      if (!plain) return;
      const r = decodeResponse(plain);
      for (const p of this.pending) {
        if (p.match(r)) {
          this.pending.delete(p);
          p.resolve(r);
          return;
        }
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      // garbage from the network: ignore
    }
  }

  private timer(ms: number, fn: () => void): TimerId {
    return this.opts.clock.setTimeout(fn, ms);
  }

  /** Sends a session-setup payload and waits for the expected reply type. */
  private async exchange(type: number, payload: Uint8Array): Promise<Uint8Array> {
    const want = type + 1;
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      const reply = await new Promise<Uint8Array | undefined>((resolve) => {
        const t = this.timer(this.timeoutMs, () => {
          this.setupWaiter = undefined;
          resolve(undefined);
        });
        this.setupWaiter = (pt, p) => {
          if (pt !== want) return;
          this.opts.clock.clearTimeout(t);
          this.setupWaiter = undefined;
          resolve(p);
        };
        this.transport.send(encodeRmcpPlus({ payloadType: type, encrypted: false, sessionId: 0, sequence: 0, payload }));
      });
      if (reply) return reply;
    }
    throw new ConnectionError(`no answer from the shelf manager (RMCP+ session setup, ${this.attempts} attempts)`);
  }

  /**
   * Opens the session: Open Session, RAKP 1–4, Set Session Privilege Level.
   * @throws ConnectionError when the BMC does not answer, refuses the login or fails the RAKP checks
   */
  async connect(): Promise<void> {
    const asked = this.opts.privilege ?? 0;
    const os = decodeOpenSessionResponse(
      await this.exchange(
        PayloadType.OpenSessionRequest,
        encodeOpenSessionRequest({ tag: 0, maxPrivilege: asked, consoleSid: this.consoleSid, auth: this.suite.auth, integrity: this.suite.integrity, conf: this.suite.conf }),
      ),
    );
    if (os.status !== 0) throw new ConnectionError(`open session refused: ${RMCP_STATUS[os.status] ?? `status ${os.status}`}`);
    this.bmcSid = os.bmcSid!;
    const priv = asked || Math.min(4, Math.max(2, os.maxPrivilege));
    const rm = this.opts.randomBytes(16);
    const name = utf8(this.opts.user);
    const role = 0x10 | priv; // name-only lookup, as ipmitool and FreeIPMI send
    const r2 = decodeRakp2(await this.exchange(PayloadType.Rakp1, encodeRakp1({ tag: 1, bmcSid: this.bmcSid, consoleRandom: rm, role, userName: name })));
    if (r2.status !== 0) throw new ConnectionError(`login refused: ${RMCP_STATUS[r2.status] ?? `RAKP status ${r2.status}`}`);
    const params: RakpParams = {
      authAlg: this.suite.auth,
      consoleSid: this.consoleSid,
      bmcSid: this.bmcSid,
      consoleRandom: rm,
      bmcRandom: r2.bmcRandom!,
      bmcGuid: r2.bmcGuid!,
      role,
      userName: name,
    };
    const pw = utf8(this.opts.password);
    if (!bytesEqual(rakp2AuthCode(params, pw), r2.authCode!)) throw new ConnectionError('login refused: wrong password (RAKP 2 auth code does not match)');
    const r4 = decodeRakpShort(await this.exchange(PayloadType.Rakp3, encodeRakpShort({ tag: 2, status: 0, sessionId: this.bmcSid, code: rakp3AuthCode(params, pw) })));
    if (r4.status !== 0) throw new ConnectionError(`login refused: ${RMCP_STATUS[r4.status] ?? `RAKP status ${r4.status}`}`);
    const sik = sessionIntegrityKey(params, pw);
    if (!bytesEqual(rakp4Icv(params, sik), r4.code)) throw new ConnectionError('login failed: RAKP 4 integrity check value does not match');
    this.k1 = deriveKey(this.suite.auth, sik, 1);
    this.k2 = deriveKey(this.suite.auth, sik, 2);
    this.open = true;
    // Set Session Privilege Level: the level asked for, or — automatically — the highest the user
    // may have (a USER or OPERATOR account is refused 80h/81h above its limit; step down).
    const levels = this.opts.privilege ? [this.opts.privilege] : [4, 3];
    for (const level of levels) {
      if (level <= 2) break; // sessions start at USER
      const r = await this.request(0x06, 0x3b, [level]);
      if (r.cc === 0) {
        this.privilege = level;
        return;
      }
      if (this.opts.privilege || (r.cc !== 0x80 && r.cc !== 0x81)) throw new ConnectionError(`privilege level ${level} refused (completion code ${r.cc.toString(16)}h)`);
    }
    this.privilege = 2;
  }

  private packet(rsSA: number, netFn: number, cmd: number, data: Uint8Array, rqSeq: number): Uint8Array {
    const msg = encodeRequest({ rsSA, netFn, rsLUN: 0, rqSA: CONSOLE_SWID, rqSeq, rqLUN: 0, cmd, data });
    const encrypted = this.suite.conf === ConfAlg.AesCbc128;
    const payload = encrypted ? aesEncrypt(this.k2, this.opts.randomBytes(16), msg) : msg;
    const integrity = this.suite.integrity !== IntegrityAlg.None ? { alg: this.suite.integrity, k1: this.k1 } : undefined;
    const seq = this.seq++;
    return encodeRmcpPlus({ payloadType: PayloadType.Ipmi, encrypted, sessionId: this.bmcSid, sequence: seq, payload }, integrity);
  }

  /** Sends `build(rqSeq)` until a response matching `match` arrives. */
  private async roundTrip(build: (rqSeq: number) => Uint8Array, match: (r: IpmiResponse, rqSeq: number) => boolean, what: string, attempts = this.attempts): Promise<IpmiResponse> {
    if (!this.open) throw new ConnectionError('no session');
    const rqSeq = this.rqSeq;
    this.rqSeq = (this.rqSeq + 1) & 0x3f;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const r = await new Promise<IpmiResponse | undefined>((resolve) => {
        const p: Pending = {
          match: (x) => match(x, rqSeq),
          resolve: (x) => {
            this.opts.clock.clearTimeout(t);
            resolve(x);
          },
        };
        const t = this.timer(this.timeoutMs, () => {
          this.pending.delete(p);
          resolve(undefined);
        });
        this.pending.add(p);
        this.transport.send(build(rqSeq));
      });
      if (r) return r;
    }
    throw new ConnectionError(`no answer from the shelf manager to ${what} (${attempts} attempt${attempts === 1 ? '' : 's'})`);
  }

  /**
   * Sends a request to the shelf manager (20h), or — with `target` — bridged to the IPM controller
   * at that IPMB-0 address (Send Message, tracking). Resolves with the (final) response; a non-zero
   * completion code is a normal result (`atcasim clia` exits 1 for it). `once`: send a single
   * attempt (for commands that must not run twice, such as a switchover).
   * @throws ConnectionError when nothing answers
   */
  async request(netFn: number, cmd: number, data: number[] | Uint8Array = [], opts: { target?: number; once?: boolean } = {}): Promise<{ cc: number; data: Uint8Array }> {
    const attempts = opts.once ? 1 : this.attempts;
    const body = Uint8Array.from(data);
    const target = opts.target ?? BMC_ADDRESS;
    if (target === BMC_ADDRESS) {
      const r = await this.roundTrip(
        (q) => this.packet(BMC_ADDRESS, netFn, cmd, body, q),
        (x, q) => x.rqSeq === q && x.cmd === cmd && x.netFn === (netFn | 1),
        `NetFn ${netFn.toString(16)}h cmd ${cmd.toString(16)}h`,
        attempts,
      );
      return { cc: r.cc, data: r.data };
    }
    // Bridged: Send Message (06h/34h) with tracking to channel 0 (IPMB-0); the IPMC's response
    // comes as a second message carrying the same inner rqSeq and command.
    const innerSeq = this.rqSeq;
    this.rqSeq = (this.rqSeq + 1) & 0x3f;
    const inner = encodeRequest({ rsSA: target, netFn, rsLUN: 0, rqSA: BMC_ADDRESS, rqSeq: innerSeq, rqLUN: 0, cmd, data: body });
    const wrapper = Uint8Array.from([0x40, ...inner]);
    let sendCc: number | undefined;
    const r = await this.roundTrip(
      (q) => this.packet(BMC_ADDRESS, 0x06, 0x34, wrapper, q),
      (x, q) => {
        if (x.netFn === 0x07 && x.cmd === 0x34 && x.rqSeq === q) {
          if (x.cc !== 0) {
            sendCc = x.cc;
            return true;
          }
          return false; // CC 00: the bridged response follows
        }
        return x.rqSeq === innerSeq && x.cmd === cmd && x.netFn === (netFn | 1);
      },
      `bridged NetFn ${netFn.toString(16)}h cmd ${cmd.toString(16)}h to ${target.toString(16)}h`,
      attempts,
    );
    if (sendCc !== undefined) return { cc: sendCc, data: new Uint8Array(0) };
    return { cc: r.cc, data: r.data };
  }

  /** Closes the session (best effort) and the transport. */
  async close(): Promise<void> {
    if (this.open) {
      const sid = this.bmcSid;
      try {
        await this.request(0x06, 0x3c, [sid & 0xff, (sid >> 8) & 0xff, (sid >> 16) & 0xff, (sid >>> 24) & 0xff]);
      } catch {
        // the session expires on the BMC anyway
      }
      this.open = false;
    }
    await this.transport.close();
  }
}
