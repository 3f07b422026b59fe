/**
 * In-process IPMI clients for unit and security tests: an RMCP+ client (Open Session, RAKP 1–4,
 * authenticated/encrypted requests) and an IPMI 1.5 client (challenge, activate, MD5), driving a
 * LanServer through handleDatagram. They check the server's RAKP2 auth code and RAKP4 ICV like a
 * real console would. The codecs are the product's (checked against captures in
 * test/unit/chassis/ipmi/crypto.test.ts); the end-to-end tests use real ipmitool and FreeIPMI instead.
 */
import { CIPHER_SUITES, ConfAlg, IntegrityAlg } from '../../chassis/ipmi/cipher-suites.ts';
import type { CipherSuite } from '../../chassis/ipmi/cipher-suites.ts';
import { AuthType, PayloadType } from '../../chassis/ipmi/codes.ts';
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
} from '../../chassis/ipmi/crypto.ts';
import type { RakpParams } from '../../chassis/ipmi/crypto.ts';
import type { LanServer } from '../../chassis/ipmi/lan-server.ts';
import { decodeResponse, encodeRequest } from '../../chassis/ipmi/message.ts';
import type { IpmiResponse } from '../../chassis/ipmi/message.ts';
import {
  decodeOpenSessionResponse,
  decodeRakp2,
  decodeRakpShort,
  encodeOpenSessionRequest,
  encodeRakp1,
  encodeRakpShort,
} from '../../chassis/ipmi/rakp.ts';
import type { OpenSessionResponse } from '../../chassis/ipmi/rakp.ts';
import { decodeRmcpPlus, encodeRmcpPlus, verifyIntegrity } from '../../chassis/ipmi/rmcpplus.ts';
import type { Peer } from '../../chassis/ipmi/session.ts';
import { decodeSession15, encodeSession15, md5AuthCode } from '../../chassis/ipmi/session15.ts';
import { utf8 } from '../../chassis/ipmi/users.ts';

/** A datagram transport to the server. */
export interface Wire {
  server: LanServer;
  peer: Peer;
  now: () => number;
}

/** Sends one datagram, returns the replies. */
export function send(w: Wire, bytes: Uint8Array): Uint8Array[] {
  return w.server.handleDatagram(bytes, w.peer, w.now());
}

/** Session-less RMCP+ IPMI request (e.g. Get Channel Cipher Suites as ipmitool sends it). */
export function sessionlessRmcpPlus(netFn: number, cmd: number, data: number[], rqSeq = 1): Uint8Array {
  const msg = encodeRequest({ rsSA: 0x20, netFn, rsLUN: 0, rqSA: 0x81, rqSeq, rqLUN: 0, cmd, data: Uint8Array.from(data) });
  return encodeRmcpPlus({ payloadType: PayloadType.Ipmi, encrypted: false, sessionId: 0, sequence: 0, payload: msg });
}

/** Session-less IPMI 1.5 request (auth type NONE, session 0). */
export function sessionless15(netFn: number, cmd: number, data: number[], rqSeq = 1): Uint8Array {
  return encodeSession15(AuthType.None, 0, 0, encodeRequest({ rsSA: 0x20, netFn, rsLUN: 0, rqSA: 0x81, rqSeq, rqLUN: 0, cmd, data: Uint8Array.from(data) }));
}

/** Decodes the IPMI response of a session-less reply in either framing. */
export function decodeSessionlessReply(bytes: Uint8Array): IpmiResponse {
  if (bytes[4] === AuthType.RmcpPlus) return decodeResponse(decodeRmcpPlus(bytes).payload);
  return decodeResponse(decodeSession15(bytes).message);
}

/** Outcome of an RMCP+ login attempt. */
export interface LoginResult {
  ok: boolean;
  /** Which step failed: 'open' | 'rakp2' | 'rakp2-hmac' | 'rakp4' | 'silent'. */
  failedAt?: string;
  status?: number;
  open?: OpenSessionResponse;
}

/** An RMCP+ console. */
export class RmcpPlusClient {
  readonly consoleSid = 0xa0a2a3a4;
  bmcSid = 0;
  suite: CipherSuite;
  k1: Uint8Array = new Uint8Array(0);
  k2: Uint8Array = new Uint8Array(0);
  /** Next sequence number to send (ipmitool starts at 3; any number >= 1 is valid). */
  seq = 1;
  private rqSeq = 0;
  private iv = 0;

  /**
   * @param role RAKP1 role byte (default 14h: name-only lookup, ADMINISTRATOR, as both clients send)
   */
  constructor(
    readonly wire: Wire,
    readonly user: string,
    readonly password: string,
    suiteId = 3,
    readonly role = 0x14,
    readonly requestedMax = 0,
  ) {
    this.suite = CIPHER_SUITES.get(suiteId)!;
  }

  /** Runs Open Session + RAKP 1–4; on success also sends Set Session Privilege Level(role) like ipmitool. */
  login(opts: { setPrivilege?: boolean; password?: string; insist?: boolean; kg?: Uint8Array } = {}): LoginResult {
    const open = this.exchange(
      PayloadType.OpenSessionRequest,
      encodeOpenSessionRequest({ tag: 0, maxPrivilege: this.requestedMax, consoleSid: this.consoleSid, auth: this.suite.auth, integrity: this.suite.integrity, conf: this.suite.conf }),
    );
    if (!open) return { ok: false, failedAt: 'silent' };
    const os = decodeOpenSessionResponse(open);
    if (os.status !== 0) return { ok: false, failedAt: 'open', status: os.status, open: os };
    this.bmcSid = os.bmcSid!;
    const rm = Uint8Array.from({ length: 16 }, (_, i) => (i * 13 + 5) & 0xff);
    const name = utf8(this.user);
    const r2b = this.exchange(PayloadType.Rakp1, encodeRakp1({ tag: 1, bmcSid: this.bmcSid, consoleRandom: rm, role: this.role, userName: name }));
    if (!r2b) return { ok: false, failedAt: 'silent', open: os };
    const r2 = decodeRakp2(r2b);
    if (r2.status !== 0) return { ok: false, failedAt: 'rakp2', status: r2.status, open: os };
    const params: RakpParams = {
      authAlg: this.suite.auth,
      consoleSid: this.consoleSid,
      bmcSid: this.bmcSid,
      consoleRandom: rm,
      bmcRandom: r2.bmcRandom!,
      bmcGuid: r2.bmcGuid!,
      role: this.role,
      userName: name,
    };
    const pw = utf8(opts.password ?? this.password);
    // a real console stops here; `insist` sends RAKP3 anyway to test the BMC's check
    if (!bytesEqual(rakp2AuthCode(params, pw), r2.authCode!) && !opts.insist) return { ok: false, failedAt: 'rakp2-hmac', open: os };
    const r4b = this.exchange(PayloadType.Rakp3, encodeRakpShort({ tag: 2, status: 0, sessionId: this.bmcSid, code: rakp3AuthCode(params, pw) }));
    if (!r4b) return { ok: false, failedAt: 'silent', open: os };
    const r4 = decodeRakpShort(r4b);
    if (r4.status !== 0) return { ok: false, failedAt: 'rakp4', status: r4.status, open: os };
    const sik = sessionIntegrityKey(params, pw, opts.kg);
    if (!bytesEqual(rakp4Icv(params, sik), r4.code)) return { ok: false, failedAt: 'rakp4-icv', open: os };
    this.k1 = deriveKey(this.suite.auth, sik, 1);
    this.k2 = deriveKey(this.suite.auth, sik, 2);
    if (opts.setPrivilege !== false && (this.role & 0x0f) > 2) {
      const r = this.request(0x06, 0x3b, [this.role & 0x0f]);
      if (!r || r.cc !== 0) return { ok: false, failedAt: 'set-privilege', status: r?.cc, open: os };
    }
    return { ok: true, open: os };
  }

  private exchange(type: number, payload: Uint8Array): Uint8Array | undefined {
    const replies = send(this.wire, encodeRmcpPlus({ payloadType: type, encrypted: false, sessionId: 0, sequence: 0, payload }));
    if (replies.length === 0) return undefined;
    const pkt = decodeRmcpPlus(replies[0]!);
    if (pkt.payloadType !== type + 1) throw new Error(`expected payload type ${type + 1}, got ${pkt.payloadType}`);
    return pkt.payload;
  }

  /** Builds an in-session request packet (advances this.seq unless `seq` is given). */
  packet(netFn: number, cmd: number, data: number[] | Uint8Array, opts: { seq?: number; rsSA?: number } = {}): Uint8Array {
    const msg = encodeRequest({ rsSA: opts.rsSA ?? 0x20, netFn, rsLUN: 0, rqSA: 0x81, rqSeq: this.rqSeq++ & 0x3f, rqLUN: 0, cmd, data: Uint8Array.from(data) });
    const encrypted = this.suite.conf === ConfAlg.AesCbc128;
    const iv = Uint8Array.from({ length: 16 }, (_, i) => (this.iv + i * 17) & 0xff);
    this.iv++;
    const payload = encrypted ? aesEncrypt(this.k2, iv, msg) : msg;
    const integrity = this.suite.integrity !== IntegrityAlg.None ? { alg: this.suite.integrity, k1: this.k1 } : undefined;
    const seq = opts.seq ?? this.seq++;
    return encodeRmcpPlus({ payloadType: PayloadType.Ipmi, encrypted, sessionId: this.bmcSid, sequence: seq, payload }, integrity);
  }

  /** Decodes and verifies one in-session reply. @throws Error when the reply fails integrity */
  decode(bytes: Uint8Array): IpmiResponse {
    const pkt = decodeRmcpPlus(bytes);
    if (pkt.sessionId !== this.consoleSid) throw new Error('reply for another session');
    const integ = integrityParams(this.suite.integrity);
    if (integ && !verifyIntegrity(bytes, pkt, this.suite.integrity, this.k1, integ.length)) throw new Error('reply fails integrity');
    const plain = pkt.encrypted ? aesDecrypt(this.k2, pkt.payload) : pkt.payload;
    if (!plain) throw new Error('reply does not decrypt');
    return decodeResponse(plain);
  }

  /** Sends a request; returns the first response (undefined when the server stayed silent). */
  request(netFn: number, cmd: number, data: number[] | Uint8Array = [], opts: { rsSA?: number } = {}): IpmiResponse | undefined {
    return this.requestAll(netFn, cmd, data, opts)[0];
  }

  /** Sends a request; returns every response datagram decoded (bridging adds a second one). */
  requestAll(netFn: number, cmd: number, data: number[] | Uint8Array = [], opts: { rsSA?: number } = {}): IpmiResponse[] {
    return send(this.wire, this.packet(netFn, cmd, data, opts)).map((b) => this.decode(b));
  }
}

/** An IPMI 1.5 console (MD5, or NONE when `authType` is 0). */
export class Ipmi15Client {
  sessionId = 0;
  private inSeq = 0;
  private rqSeq = 0;
  readonly initialOutbound = 0x1000;

  constructor(
    readonly wire: Wire,
    readonly user: string,
    readonly password: string,
    readonly authType: number = AuthType.Md5,
  ) {}

  /** Challenge + Activate (+ Set Session Privilege Level when `privilege` > USER). */
  login(privilege = 4, opts: { password?: string } = {}): { ok: boolean; cc?: number; failedAt?: string } {
    const name = new Uint8Array(16);
    name.set(utf8(this.user));
    const ch = send(this.wire, sessionless15(0x06, 0x39, [this.authType, ...name]));
    if (ch.length === 0) return { ok: false, failedAt: 'silent' };
    const chr = decodeSessionlessReply(ch[0]!);
    if (chr.cc !== 0) return { ok: false, failedAt: 'challenge', cc: chr.cc };
    const temp = new DataView(chr.data.buffer, chr.data.byteOffset).getUint32(0, true);
    const challenge = chr.data.slice(4, 20);
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, this.initialOutbound, true);
    const msg = encodeRequest({ rsSA: 0x20, netFn: 0x06, rsLUN: 0, rqSA: 0x81, rqSeq: this.rqSeq++, rqLUN: 0, cmd: 0x3a, data: Uint8Array.from([this.authType, privilege, ...challenge, ...out]) });
    const pw = utf8(opts.password ?? this.password);
    const act = send(this.wire, encodeSession15(this.authType, 0, temp, msg, pw));
    if (act.length === 0) return { ok: false, failedAt: 'silent' };
    const ap = decodeSession15(act[0]!);
    if (this.authType === AuthType.Md5 && !bytesEqual(md5AuthCode(pw, ap.sessionId, ap.message, ap.sequence), ap.authCode!)) {
      throw new Error('Activate Session reply has a bad auth code');
    }
    const ar = decodeResponse(ap.message);
    if (ar.cc !== 0) return { ok: false, failedAt: 'activate', cc: ar.cc };
    const dv = new DataView(ar.data.buffer, ar.data.byteOffset);
    this.sessionId = dv.getUint32(1, true);
    this.inSeq = dv.getUint32(5, true);
    if (privilege > 2) {
      const r = this.request(0x06, 0x3b, [privilege]);
      if (!r || r.cc !== 0) return { ok: false, failedAt: 'set-privilege', cc: r?.cc };
    }
    return { ok: true };
  }

  /** Builds an in-session packet (advances the sequence unless `seq` is given). */
  packet(netFn: number, cmd: number, data: number[] | Uint8Array, seq?: number, password?: string): Uint8Array {
    const msg = encodeRequest({ rsSA: 0x20, netFn, rsLUN: 0, rqSA: 0x81, rqSeq: this.rqSeq++ & 0x3f, rqLUN: 0, cmd, data: Uint8Array.from(data) });
    return encodeSession15(this.authType, seq ?? this.inSeq++, this.sessionId, msg, utf8(password ?? this.password));
  }

  /** Decodes and verifies one in-session reply. */
  decode(bytes: Uint8Array): IpmiResponse {
    const p = decodeSession15(bytes);
    if (this.authType === AuthType.Md5 && !bytesEqual(md5AuthCode(utf8(this.password), p.sessionId, p.message, p.sequence), p.authCode!)) {
      throw new Error('reply has a bad MD5 auth code');
    }
    return decodeResponse(p.message);
  }

  request(netFn: number, cmd: number, data: number[] | Uint8Array = []): IpmiResponse | undefined {
    return this.requestAll(netFn, cmd, data)[0];
  }

  requestAll(netFn: number, cmd: number, data: number[] | Uint8Array = []): IpmiResponse[] {
    return send(this.wire, this.packet(netFn, cmd, data)).map((b) => this.decode(b));
  }
}
