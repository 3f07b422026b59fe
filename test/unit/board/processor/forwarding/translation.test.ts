/** The local-binding codec a sync record appends (board/processor/forwarding/translation.ts). */
import { describe, expect, it } from 'vitest';
import {
  decodeLocalBinding, encodeLocalBinding, newTranslation, type ForwardingMode, type Translation,
} from '../../../../../board/processor/forwarding/translation.ts';
import { DecodeError } from '../../../../../board/common/errors.ts';
import { addr, toHex } from '../../../../support/frames.ts';

function translation(mode: ForwardingMode, v6: boolean): Translation {
  const t = newTranslation(mode, v6 ? 6 : 4);
  t.client.set(addr(v6 ? 'fd00:a7ca::2' : '198.18.0.2'));
  t.clientPort = 40000;
  t.vip.set(addr(v6 ? 'fd00:a7ca:100::12' : '198.18.100.12'));
  t.vipPort = 80;
  t.rs.set(addr(v6 ? 'fd00:a7ca:10::121' : '198.18.10.121'));
  t.rsPort = 8080;
  t.local.set(addr(v6 ? 'fd00:a7ca:10::30' : '198.18.10.30'));
  t.localPort = 2001;
  return t;
}

describe('local binding codec (what a sync record appends)', () => {
  it('IPv4 and IPv6 round trip, exact bytes', () => {
    const t = translation('fullnat', false);
    const buf = new Uint8Array(7);
    expect(encodeLocalBinding(t, buf, 0)).toBe(7);
    expect(toHex(buf)).toBe('0307d1c6120a1e');
    const back = newTranslation('nat', 4);
    expect(decodeLocalBinding(buf, 0, back)).toBe(7);
    expect([back.mode, back.localPort, toHex(back.local.subarray(0, 4))]).toEqual(['fullnat', 2001, 'c6120a1e']);
    const t6 = translation('nat', true);
    const b6 = new Uint8Array(19);
    encodeLocalBinding(t6, b6, 0);
    expect(toHex(b6)).toBe(`02${'00'.repeat(18)}`);
  });
  it('refuses a short buffer and an unknown mode', () => {
    const into = newTranslation('nat', 4);
    expect(() => decodeLocalBinding(new Uint8Array(3), 0, into)).toThrow(DecodeError);
    expect(() => decodeLocalBinding(Uint8Array.from([9, 0, 0, 0, 0, 0, 0]), 0, into)).toThrow(/unknown forwarding mode 9/);
  });
});
