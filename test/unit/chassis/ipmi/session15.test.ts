/** The IPMI 1.5 session wrapper with its MD5 auth code (chassis/ipmi/session15.ts) against captured bytes. */
import { describe, expect, it } from 'vitest';
import { decodeSession15, encodeSession15 } from '../../../../chassis/ipmi/session15.ts';
import { utf8 } from '../../../../chassis/ipmi/users.ts';
import { readIpmiCapture, toHex } from '../../../support/ipmi-captures.ts';

const PASSWORD = utf8('adminpass');

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
