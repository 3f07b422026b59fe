/**
 * The TOA option (board/processor/forwarding/toa.ts) against bytes worked out by hand from its
 * documented layouts, and its insertion into real segments: IPv4 and IPv6, lengths, data offset
 * and checksums checked by an independent recomputation (test/support/frames.ts), no room left
 * alone.
 */
import { describe, expect, it } from 'vitest';
import { IpLayout, locateIp } from '../../../../../board/packet/ip-layout.ts';
import { encodeToa, findToa, insertToa, toaLength } from '../../../../../board/processor/forwarding/toa.ts';
import { InsertResult } from '../../../../../board/processor/forwarding/tcp-insert.ts';
import { addr, checksumProblems, toHex } from '../../../../support/frames.ts';
import { LINUX_SYN_OPTIONS, segment, tcpFields } from '../../../../support/tcp-segment.ts';

function layout(f: Uint8Array, len: number): IpLayout {
  const ip = new IpLayout();
  expect(locateIp(f, 14, len, ip)).toBe(true);
  return ip;
}

describe('TOA encoding', () => {
  it('IPv4: kind 254, length 8, port, address (hand-computed)', () => {
    const b = new Uint8Array(8);
    expect(encodeToa(4, addr('198.18.0.2'), 40000, b, 0)).toBe(8);
    // 40000 = 0x9c40; 198.18.0.2 = c6 12 00 02
    expect(toHex(b)).toBe('fe089c40c6120002');
  });
  it('IPv6: kind 254, length 20, port, address (hand-computed)', () => {
    const b = new Uint8Array(22);
    expect(encodeToa(6, addr('fd00:a7ca::2'), 443, b, 2)).toBe(22);
    // 443 = 0x01bb; fd00:a7ca::2 = fd00 a7ca 0000 0000 0000 0000 0000 0002
    expect(toHex(b)).toBe('0000fe1401bbfd00a7ca000000000000000000000002');
  });
  it('lengths and refusals', () => {
    expect(toaLength(4)).toBe(8);
    expect(toaLength(6)).toBe(20);
    expect(() => encodeToa(4, addr('10.0.0.1'), 70000, new Uint8Array(8), 0)).toThrow(/port 70000/);
    expect(() => encodeToa(6, addr('::1'), 1, new Uint8Array(19), 0)).toThrow(/need 20 bytes/);
  });
});

describe('TOA insertion', () => {
  for (const v6 of [false, true]) {
    const fam = v6 ? 'IPv6' : 'IPv4';
    const C = v6 ? 'fd00:a7ca:10::30' : '198.18.10.30';
    const R = v6 ? 'fd00:a7ca:10::121' : '198.18.10.121';
    const client = v6 ? 'fd00:a7ca::2' : '198.18.0.2';
    it(`${fam}: a Linux SYN gets the option first, options after it intact, lengths and checksums right`, () => {
      const [f, len] = segment({ src: C, dst: R, sport: 2001, dport: 8080, seq: 1000, flags: 0x02, options: LINUX_SYN_OPTIONS }, 64);
      const ip = layout(f, len);
      const n = insertToa(f, ip, len, addr(client), 40000, 1500, new Uint8Array(20));
      const grow = v6 ? 20 : 8;
      expect(n).toBe(len + grow);
      const got = f.subarray(0, n);
      expect(checksumProblems(got)).toEqual([]);
      const tf = tcpFields(got);
      expect(tf.dataOffset).toBe(40 + grow);
      expect(tf.options.slice(grow)).toEqual(LINUX_SYN_OPTIONS);
      const want = v6 ? 'fe149c40fd00a7ca000000000000000000000002' : 'fe089c40c6120002';
      expect(toHex(Uint8Array.from(tf.options.slice(0, grow)))).toBe(want);
      const back = findToa(got, ip.l4);
      expect(back?.port).toBe(40000);
      expect(toHex(back!.address)).toBe(toHex(addr(client)));
      // the IP length fields grew by the option
      const l = layout(got, n);
      expect(l.end).toBe(n);
    });
    it(`${fam}: data after the options moves with them`, () => {
      const payload = [0x47, 0x45, 0x54, 0x20, 0x2f];
      const [f, len] = segment({ src: C, dst: R, sport: 2001, dport: 8080, seq: 1001, ack: 5, flags: 0x18, options: [1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 7], payload }, 64);
      const ip = layout(f, len);
      const n = insertToa(f, ip, len, addr(client), 40000, 1500, new Uint8Array(20));
      expect(n).toBeGreaterThan(len);
      expect(tcpFields(f.subarray(0, n)).payload).toEqual(payload);
      expect(checksumProblems(f.subarray(0, n))).toEqual([]);
    });
  }
  it('an Ethernet trailer after a short SYN is dropped, not shifted into the datagram', () => {
    const [f, len] = segment({ src: '198.18.10.30', dst: '198.18.10.121', sport: 2001, dport: 8080, seq: 1, flags: 0x02, trailer: 6 }, 16);
    const ip = layout(f, len);
    const n = insertToa(f, ip, len, addr('198.18.0.2'), 1, 1500, new Uint8Array(20));
    expect(n).toBe(len - 6 + 8);
    expect(checksumProblems(f.subarray(0, n))).toEqual([]);
  });
  it('no option space: 40 option bytes already — nothing changes', () => {
    const opts = [...LINUX_SYN_OPTIONS, ...new Array<number>(20).fill(1)];
    const [f, len] = segment({ src: '198.18.10.30', dst: '198.18.10.121', sport: 2001, dport: 8080, seq: 1, flags: 0x02, options: opts }, 64);
    const before = toHex(f);
    const n = insertToa(f, layout(f, len), len, addr('198.18.0.2'), 1, 1500, new Uint8Array(20));
    expect(n).toBe(-InsertResult.NO_OPTION_SPACE);
    expect(toHex(f)).toBe(before);
  });
  it('IPv6 SYN with 24 option bytes: 20 more do not fit (44 > 40) — nothing changes', () => {
    const opts = [...LINUX_SYN_OPTIONS, 1, 1, 1, 1];
    const [f, len] = segment({ src: 'fd00::1', dst: 'fd00::2', sport: 2001, dport: 8080, seq: 1, flags: 0x02, options: opts }, 64);
    expect(insertToa(f, layout(f, len), len, addr('fd00::9'), 1, 1500, new Uint8Array(20))).toBe(-InsertResult.NO_OPTION_SPACE);
  });
  it('a full-sized segment at the MTU, or a buffer without room: refused, unchanged', () => {
    const payload = new Array<number>(1500 - 20 - 20).fill(0x61);
    const [f, len] = segment({ src: '198.18.10.30', dst: '198.18.10.121', sport: 2001, dport: 8080, seq: 1, ack: 1, flags: 0x10, payload }, 64);
    const before = toHex(f);
    expect(insertToa(f, layout(f, len), len, addr('198.18.0.2'), 1, 1500, new Uint8Array(20))).toBe(-InsertResult.NO_ROOM);
    expect(toHex(f)).toBe(before);
    const [g, glen] = segment({ src: '198.18.10.30', dst: '198.18.10.121', sport: 2001, dport: 8080, seq: 1, flags: 0x02 }, 4);
    expect(insertToa(g, layout(g, glen), glen, addr('198.18.0.2'), 1, 1500, new Uint8Array(20))).toBe(-InsertResult.NO_ROOM);
  });
});
