/**
 * Byte-exact crypto vectors from real sessions (../shared/ipmi/captures, password "adminpass"):
 * RAKP 2/3 auth codes, RAKP 4 ICV, HMAC-SHA1-96 of every in-session packet, AES-CBC-128 of every
 * payload (lanplus_C3_session: ipmitool suite 3; freeipmi_lan20_opensesspriv: FreeIPMI suite 3;
 * lanplus_C2_session: suite 2), and the IPMI 1.5 MD5 auth codes of lan15_session.
 * The expected values are the ones on the wire; ours are computed from the capture's inputs.
 */
import { describe, expect, it } from 'vitest';
import { AuthAlg } from '../../../../chassis/ipmi/cipher-suites.ts';
import { aesDecrypt, aesEncrypt, deriveKey, integrityCode, rakp2AuthCode, rakp3AuthCode, rakp4Icv, sessionIntegrityKey } from '../../../../chassis/ipmi/crypto.ts';
import type { RakpParams } from '../../../../chassis/ipmi/crypto.ts';
import { decodeRequest, decodeResponse } from '../../../../chassis/ipmi/message.ts';
import { decodeOpenSessionRequest, decodeOpenSessionResponse, decodeRakp1, decodeRakp2, decodeRakpShort } from '../../../../chassis/ipmi/rakp.ts';
import { decodeRmcpPlus, verifyIntegrity } from '../../../../chassis/ipmi/rmcpplus.ts';
import { decodeSession15, md5AuthCode } from '../../../../chassis/ipmi/session15.ts';
import { utf8 } from '../../../../chassis/ipmi/users.ts';
import { readIpmiCapture, toHex } from '../../../support/ipmi-captures.ts';
import type { UdpFrame } from '../../../support/ipmi-captures.ts';

const PASSWORD = utf8('adminpass');
const SIM_PORT = 9001;

interface RmcpPlusLogin {
  params: RakpParams;
  rakp2Code: Uint8Array;
  rakp3Code: Uint8Array;
  rakp4Icv: Uint8Array;
  session: UdpFrame[];
  conf: number;
}

/** Pulls the login exchange and the in-session frames out of an RMCP+ capture. */
function rmcpPlusLogin(name: string): RmcpPlusLogin {
  const frames = readIpmiCapture(name);
  const payloadOf = (type: number) => {
    const f = frames.find((x) => x.payload[4] === 0x06 && (x.payload[5]! & 0x3f) === type);
    if (!f) throw new Error(`${name}: no payload type ${type}`);
    return decodeRmcpPlus(f.payload).payload;
  };
  const osReq = decodeOpenSessionRequest(payloadOf(0x10));
  const osRsp = decodeOpenSessionResponse(payloadOf(0x11));
  const r1 = decodeRakp1(payloadOf(0x12));
  const r2 = decodeRakp2(payloadOf(0x13));
  const r3 = decodeRakpShort(payloadOf(0x14));
  const r4 = decodeRakpShort(payloadOf(0x15));
  expect(osRsp.status).toBe(0);
  expect(r2.status).toBe(0);
  return {
    params: {
      authAlg: osRsp.auth!,
      consoleSid: osReq.consoleSid,
      bmcSid: osRsp.bmcSid!,
      consoleRandom: r1.consoleRandom,
      bmcRandom: r2.bmcRandom!,
      bmcGuid: r2.bmcGuid!,
      role: r1.role,
      userName: r1.userName,
    },
    rakp2Code: r2.authCode!,
    rakp3Code: r3.code,
    rakp4Icv: r4.code,
    conf: osRsp.conf!,
    session: frames.filter((x) => x.payload[4] === 0x06 && (x.payload[5]! & 0x3f) === 0x00 && decodeRmcpPlus(x.payload).sessionId !== 0),
  };
}

describe.each([
  ['lanplus_C3_session', 'ipmitool suite 3'],
  ['freeipmi_lan20_opensesspriv', 'FreeIPMI suite 3'],
  ['lanplus_C2_session', 'ipmitool suite 2'],
])('RMCP+ key exchange of %s (%s)', (name) => {
  const v = rmcpPlusLogin(name);
  const sik = sessionIntegrityKey(v.params, PASSWORD);
  const k1 = deriveKey(v.params.authAlg, sik, 1);
  const k2 = deriveKey(v.params.authAlg, sik, 2);

  it('computes the RAKP2 and RAKP3 auth codes on the wire from the password', () => {
    expect(v.params.authAlg).toBe(AuthAlg.HmacSha1);
    expect(toHex(rakp2AuthCode(v.params, PASSWORD))).toBe(toHex(v.rakp2Code));
    expect(toHex(rakp3AuthCode(v.params, PASSWORD))).toBe(toHex(v.rakp3Code));
  });

  it('computes the RAKP4 ICV from the SIK (12 bytes for HMAC-SHA1-96)', () => {
    expect(v.rakp4Icv.length).toBe(12);
    expect(toHex(rakp4Icv(v.params, sik))).toBe(toHex(v.rakp4Icv));
  });

  it('a wrong password gives different auth codes', () => {
    expect(toHex(rakp2AuthCode(v.params, utf8('adminpasS')))).not.toBe(toHex(v.rakp2Code));
  });

  it('verifies the HMAC-SHA1-96 trailer of every in-session packet in both directions, and rejects a flipped bit', () => {
    expect(v.session.length).toBeGreaterThanOrEqual(4);
    for (const f of v.session) {
      const pkt = decodeRmcpPlus(f.payload);
      expect(pkt.authenticated).toBe(true);
      expect(verifyIntegrity(f.payload, pkt, 0x01, k1, 12)).toBe(true);
      const bad = f.payload.slice();
      bad[20] = bad[20]! ^ 0x01;
      expect(verifyIntegrity(bad, decodeRmcpPlus(bad), 0x01, k1, 12)).toBe(false);
    }
  });

  it('every payload decodes (AES-CBC-128 with K2 when encrypted) to an IPMI message with good checksums', () => {
    let first: Uint8Array | undefined;
    for (const f of v.session) {
      const pkt = decodeRmcpPlus(f.payload);
      expect(pkt.encrypted).toBe(v.conf === 1);
      const plain = pkt.encrypted ? aesDecrypt(k2, pkt.payload) : pkt.payload;
      expect(plain).toBeDefined();
      if (f.dstPort === SIM_PORT) {
        const req = decodeRequest(plain!);
        first ??= plain;
        expect(req.rsSA).toBe(0x20);
      } else {
        // 81h: the console; 20h: ipmitool's own IPMB address, used in bridged (sdr list) exchanges
        expect([0x81, 0x20]).toContain(decodeResponse(plain!).rqSA);
      }
    }
    // first request of every session: Set Session Privilege Level ADMINISTRATOR
    const r = decodeRequest(first!);
    expect([r.netFn, r.cmd, toHex(r.data)]).toEqual([0x06, 0x3b, '04']);
    if (name !== 'freeipmi_lan20_opensesspriv') expect(toHex(first!)).toBe('2018c881043b043c');
  });
});

describe('AES-CBC-128 confidentiality trailer', () => {
  const v = rmcpPlusLogin('lanplus_C3_session');
  const k2 = deriveKey(1, sessionIntegrityKey(v.params, PASSWORD), 2);

  it('decrypts the first captured request with pad 01..07 and pad length 07', () => {
    const pkt = decodeRmcpPlus(v.session[0]!.payload);
    expect(toHex(aesDecrypt(k2, pkt.payload)!)).toBe('2018c881043b043c');
    // 8 bytes + 7 pad + 1 length = one block; IV + 16 bytes on the wire
    expect(pkt.payload.length).toBe(32);
  });

  it('round-trips with our own IV, and rejects a bad pad or a short payload', () => {
    const iv = Uint8Array.from({ length: 16 }, (_, i) => i * 7);
    for (const n of [0, 1, 8, 15, 16, 17, 40]) {
      const msg = Uint8Array.from({ length: n }, (_, i) => (i * 31) & 0xff);
      const enc = aesEncrypt(k2, iv, msg);
      expect(enc.length % 16).toBe(0);
      expect(toHex(aesDecrypt(k2, enc)!)).toBe(toHex(msg));
    }
    expect(aesDecrypt(k2, new Uint8Array(16))).toBeUndefined();
    expect(aesDecrypt(k2, new Uint8Array(33))).toBeUndefined();
    const enc = aesEncrypt(k2, iv, utf8('hello'));
    enc[enc.length - 1] = enc[enc.length - 1]! ^ 0xff; // garbles the pad
    expect(aesDecrypt(k2, enc)).toBeUndefined();
  });
});

describe('integrity codes', () => {
  it('HMAC-SHA256-128 is 16 bytes and differs from HMAC-SHA1-96', () => {
    const k1 = new Uint8Array(32).fill(3);
    const a = integrityCode(0x04, k1, utf8('abc'));
    expect(a.length).toBe(16);
    expect(toHex(integrityCode(0x01, k1.subarray(0, 20), utf8('abc')))).not.toBe(toHex(a.subarray(0, 12)));
  });
});

describe('IPMI 1.5 MD5 auth codes of lan15_session', () => {
  const frames = readIpmiCapture('lan15_session');
  const ipmi = frames.filter((f) => f.payload[3] === 0x07);
  const authed = ipmi.map((f) => ({ f, p: decodeSession15(f.payload) })).filter((x) => x.p.authType === 2);

  it('every MD5-authenticated packet (both directions, temp and real session ID) verifies with "adminpass"', () => {
    expect(authed.length).toBeGreaterThan(20);
    for (const { p } of authed) {
      expect(toHex(md5AuthCode(PASSWORD, p.sessionId, p.message, p.sequence))).toBe(toHex(p.authCode!));
    }
  });

  it('a wrong password or a changed sequence number does not verify', () => {
    const { p } = authed[0]!;
    expect(toHex(md5AuthCode(utf8('adminpas'), p.sessionId, p.message, p.sequence))).not.toBe(toHex(p.authCode!));
    expect(toHex(md5AuthCode(PASSWORD, p.sessionId, p.message, p.sequence + 1))).not.toBe(toHex(p.authCode!));
  });

  it('the console counts from the BMC-issued inbound number, the BMC from the console-chosen outbound number', () => {
    const activateRsp = authed.find(({ p }) => p.message[5] === 0x3a && p.message[0] === 0x81)!.p;
    const rsp = decodeResponse(activateRsp.message);
    const dv = new DataView(rsp.data.buffer, rsp.data.byteOffset);
    const sessionId = dv.getUint32(1, true);
    const inbound = dv.getUint32(5, true);
    const fromConsole = authed.filter(({ f, p }) => f.dstPort === SIM_PORT && p.sessionId === sessionId).map(({ p }) => p.sequence);
    expect(fromConsole[0]).toBe(inbound);
    fromConsole.forEach((s, i) => expect(s).toBe(inbound + i));
    const fromBmc = authed.filter(({ f, p }) => f.srcPort === SIM_PORT && p.sessionId === sessionId).map(({ p }) => p.sequence);
    expect(fromBmc[0]).toBe(activateRsp.sequence);
  });
});
