/**
 * The RMCP+ wrapper and the Open Session/RAKP payloads (chassis/ipmi/rmcpplus.ts, rakp.ts) against
 * captured bytes: decoding a captured datagram and encoding it again gives the same bytes (with its
 * HMAC trailer), plus malformed inputs with their typed errors.
 */
import { describe, expect, it } from 'vitest';
import { deriveKey, sessionIntegrityKey } from '../../../../chassis/ipmi/crypto.ts';
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
} from '../../../../chassis/ipmi/rakp.ts';
import { decodeRmcpPlus, encodeRmcpPlus } from '../../../../chassis/ipmi/rmcpplus.ts';
import { utf8 } from '../../../../chassis/ipmi/users.ts';
import { hex, readIpmiCapture, toHex } from '../../../support/ipmi-captures.ts';

const PASSWORD = utf8('adminpass');

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
