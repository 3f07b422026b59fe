/**
 * Wire codecs against captured bytes: decoding a captured datagram and encoding it again gives
 * the same bytes (RMCP/ASF, IPMI 1.5 with its MD5 auth code, RMCP+ with its HMAC trailer, the
 * Open Session/RAKP payloads, IPMI messages), plus malformed inputs with their typed errors.
 */
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../board/common/errors.ts';
import { deriveKey, sessionIntegrityKey } from '../../../chassis/ipmi/crypto.ts';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse, ipmiChecksum, responseTo } from '../../../chassis/ipmi/message.ts';
import {
  decodeOpenSessionRequest,
  decodeOpenSessionResponse,
  decodeRakp1,
  decodeRakp2,
  decodeRakpShort,
  encodeOpenSessionRequest,
  encodeOpenSessionResponse,
  encodeRakp1,
  encodeRakp2,
  encodeRakpShort,
} from '../../../chassis/ipmi/rakp.ts';
import { decodeAsfPing, decodeRmcpHeader, encodeAsfPing, encodeAsfPong } from '../../../chassis/ipmi/rmcp.ts';
import { decodeRmcpPlus, encodeRmcpPlus } from '../../../chassis/ipmi/rmcpplus.ts';
import { decodeSession15, encodeSession15 } from '../../../chassis/ipmi/session15.ts';
import { utf8 } from '../../../chassis/ipmi/users.ts';
import { hex, readIpmiCapture, toHex } from './support/pcap.ts';

const PASSWORD = utf8('adminpass');

describe('RMCP and ASF', () => {
  const frames = readIpmiCapture('lan15_session');

  it('decodes the captured ping and rebuilds ping and pong byte for byte', () => {
    expect(decodeRmcpHeader(frames[0]!.payload)).toEqual({ sequence: 0xff, msgClass: 6, ack: false });
    const ping = decodeAsfPing(frames[0]!.payload)!;
    expect(toHex(encodeAsfPing(ping.tag))).toBe(toHex(frames[0]!.payload));
    expect(toHex(encodeAsfPong(ping.tag))).toBe(toHex(frames[1]!.payload));
  });

  it('rejects short headers and other versions with DecodeError("rmcp")', () => {
    expect(() => decodeRmcpHeader(Uint8Array.of(6, 0, 0xff))).toThrow(/rmcp: header/);
    expect(() => decodeRmcpHeader(Uint8Array.of(5, 0, 0xff, 7))).toThrow(DecodeError);
    expect(() => decodeAsfPing(Uint8Array.of(6, 0, 0xff, 6, 0, 0))).toThrow(/asf: header/);
  });
});

describe('IPMI messages', () => {
  it('round-trips requests and responses, with checksums that sum to zero', () => {
    const req = { rsSA: 0x20, netFn: 0x06, rsLUN: 0, rqSA: 0x81, rqSeq: 0x3f, rqLUN: 2, cmd: 0x3b, data: Uint8Array.of(4) };
    const b = encodeRequest(req);
    expect(toHex(b.subarray(0, 7))).toBe('2018c881fe3b04'); // rqSeq 3Fh << 2 | rqLUN 2
    const sum = (from: number, to: number) => b.subarray(from, to).reduce((a, x) => (a + x) & 0xff, 0);
    expect([sum(0, 3), sum(3, b.length)]).toEqual([0, 0]);
    expect(ipmiChecksum(b, 3, b.length - 1)).toBe(b[b.length - 1]);
    expect(decodeRequest(b)).toEqual(req);
    const rsp = responseTo(req, 0, Uint8Array.of(4));
    const rb = encodeResponse(rsp);
    expect(decodeResponse(rb)).toEqual(rsp);
    expect([rsp.rqSA, rsp.netFn, rsp.rqLUN, rsp.rsSA, rsp.rqSeq, rsp.cmd]).toEqual([0x81, 0x07, 2, 0x20, 0x3f, 0x3b]);
  });

  it('reproduces the captured Set Session Privilege Level request and response', () => {
    expect(toHex(encodeRequest(decodeRequest(hex('2018c881103b0430'))))).toBe('2018c881103b0430');
    expect(toHex(encodeResponse(decodeResponse(hex('811c6320103b000491'))))).toBe('811c6320103b000491');
  });

  it('throws DecodeError for short messages and bad checksums', () => {
    expect(() => decodeRequest(hex('2018c88110'))).toThrow(/ipmi-msg: length/);
    expect(() => decodeRequest(hex('2018c981103b0430'))).toThrow(/checksum1/);
    expect(() => decodeRequest(hex('2018c881103b0431'))).toThrow(/checksum2/);
    expect(() => decodeResponse(hex('811c6320103b' + '95'))).toThrow(/cc/);
  });
});

describe('IPMI 1.5 session wrapper', () => {
  const frames = readIpmiCapture('lan15_session').filter((f) => f.payload[3] === 0x07);

  it('decodes every captured packet and re-encodes it identically (MD5 auth codes recomputed with the password)', () => {
    expect(frames.length).toBeGreaterThan(20);
    for (const f of frames) {
      const p = decodeSession15(f.payload);
      expect(toHex(encodeSession15(p.authType, p.sequence, p.sessionId, p.message, PASSWORD))).toBe(toHex(f.payload));
    }
  });

  it('rejects unknown auth types, truncated auth codes and wrong length bytes', () => {
    const ok = frames[0]!.payload;
    const bad = ok.slice();
    bad[4] = 3;
    expect(() => decodeSession15(bad)).toThrow(/authtype/);
    expect(() => decodeSession15(ok.subarray(0, 10))).toThrow(/ipmi15: header/);
    const len = ok.slice();
    len[13] = 0x30;
    expect(() => decodeSession15(len)).toThrow(/msg_len/);
    const authed = frames.find((f) => f.payload[4] === 2)!.payload;
    expect(() => decodeSession15(authed.subarray(0, 20))).toThrow(/authcode/);
  });
});

describe('RMCP+ wrapper and session-setup payloads', () => {
  const frames = readIpmiCapture('lanplus_C3_session');
  const rmcpp = frames.filter((f) => f.payload[4] === 0x06);
  const payload = (type: number) => decodeRmcpPlus(rmcpp.find((f) => (f.payload[5]! & 0x3f) === type)!.payload).payload;

  it('re-encodes the captured Open Session and RAKP payloads byte for byte', () => {
    const osq = payload(0x10);
    const q = decodeOpenSessionRequest(osq);
    expect(toHex(encodeOpenSessionRequest({ tag: q.tag, maxPrivilege: q.maxPrivilege, consoleSid: q.consoleSid, auth: q.auth.alg!, integrity: q.integrity.alg!, conf: q.conf.alg! }))).toBe(toHex(osq));
    const osr = payload(0x11);
    expect(toHex(encodeOpenSessionResponse(decodeOpenSessionResponse(osr)))).toBe(toHex(osr));
    expect(toHex(encodeRakp1(decodeRakp1(payload(0x12))))).toBe(toHex(payload(0x12)));
    expect(toHex(encodeRakp2(decodeRakp2(payload(0x13))))).toBe(toHex(payload(0x13)));
    expect(toHex(encodeRakpShort(decodeRakpShort(payload(0x14))))).toBe(toHex(payload(0x14)));
    expect(toHex(encodeRakpShort(decodeRakpShort(payload(0x15))))).toBe(toHex(payload(0x15)));
  });

  it('re-encodes every captured in-session packet identically (integrity pad and HMAC-SHA1-96 trailer)', () => {
    const q = decodeOpenSessionRequest(payload(0x10));
    const r = decodeOpenSessionResponse(payload(0x11));
    const r1 = decodeRakp1(payload(0x12));
    const r2 = decodeRakp2(payload(0x13));
    const params = { authAlg: 1, consoleSid: q.consoleSid, bmcSid: r.bmcSid!, consoleRandom: r1.consoleRandom, bmcRandom: r2.bmcRandom!, bmcGuid: r2.bmcGuid!, role: r1.role, userName: r1.userName };
    const k1 = deriveKey(1, sessionIntegrityKey(params, PASSWORD), 1);
    const inSession = rmcpp.filter((f) => (f.payload[5]! & 0x3f) === 0 && decodeRmcpPlus(f.payload).sessionId !== 0);
    for (const f of inSession) {
      const p = decodeRmcpPlus(f.payload);
      const again = encodeRmcpPlus({ payloadType: p.payloadType, encrypted: p.encrypted, sessionId: p.sessionId, sequence: p.sequence, payload: p.payload }, { alg: 1, k1 });
      expect(toHex(again)).toBe(toHex(f.payload));
    }
  });

  it('parses wildcard algorithm proposals and rejects malformed ones', () => {
    const b = encodeOpenSessionRequest({ tag: 1, maxPrivilege: 4, consoleSid: 9, auth: 1, integrity: 1, conf: 1 });
    b[16 + 3] = 0; // integrity payload length 0 = any
    expect(decodeOpenSessionRequest(b).integrity.alg).toBeUndefined();
    b[24] = 7; // wrong payload type
    expect(() => decodeOpenSessionRequest(b)).toThrow(/conf_payload/);
    expect(() => decodeOpenSessionRequest(b.subarray(0, 20))).toThrow(/open_session_length/);
    const r1 = encodeRakp1({ tag: 1, bmcSid: 2, consoleRandom: new Uint8Array(16), role: 0x14, userName: utf8('admin') });
    expect(() => decodeRakp1(r1.subarray(0, r1.length - 1))).toThrow(/rakp1_name_length/);
  });

  it('rejects OEM payloads, wrong auth types, payloads past the end and trailing bytes', () => {
    const good = encodeRmcpPlus({ payloadType: 0, encrypted: false, sessionId: 0, sequence: 0, payload: hex('2018c88104540e008099') });
    expect(decodeRmcpPlus(good).payload.length).toBe(10);
    const oem = good.slice();
    oem[5] = 0x02;
    expect(() => decodeRmcpPlus(oem)).toThrow(/payload_type/);
    const at = good.slice();
    at[4] = 0x02;
    expect(() => decodeRmcpPlus(at)).toThrow(/authtype/);
    expect(() => decodeRmcpPlus(good.subarray(0, good.length - 1))).toThrow(/payload_length/);
    expect(() => decodeRmcpPlus(Uint8Array.from([...good, 0]))).toThrow(/trailer/);
  });
});
