/**
 * Neighbour Discovery (RFC 4861; board/packet/ndp.ts) against hand-computed bytes, one of the pure L2/L3
 * modules of live mode. Frames come from test/support/frames.ts, whose checksums are computed
 * independently; every frame produced is checked by checksumProblems.
 */
import { describe, expect, it } from 'vitest';
import { buildNeighbourAdvert, buildNeighbourSolicit, buildUnsolicitedAdvert, NA_OVERRIDE, NA_SOLICITED, NdMessage, parseNd, solicitedNode } from '../../../../board/packet/ndp.ts';
import { addr, checksumProblems, MAC_A, toHex } from '../../../support/frames.ts';

const MY_MAC = Uint8Array.from([0x02, 0xa7, 0xca, 0, 0, 1]);

describe('Neighbour Discovery (RFC 4861)', () => {
  const me = addr('fd00:a7ca:10::3');
  const rs = addr('fd00:a7ca:10::121');
  it('solicited-node group and its MAC (RFC 4291 §2.7.1, RFC 2464 §7)', () => {
    expect(toHex(solicitedNode(rs, new Uint8Array(16)))).toBe('ff0200000000000000000001ff000121');
    const out = new Uint8Array(86);
    buildNeighbourSolicit(out, MY_MAC, me, rs, null);
    expect(toHex(out.subarray(0, 6))).toBe('3333ff000121');
    expect(out[14 + 7]).toBe(255);
    expect(out[54]).toBe(135);
    expect(toHex(out.subarray(78, 86))).toBe('010102a7ca000001');
    expect(checksumProblems(out)).toEqual([]);
  });
  it('an NS parsed and answered: solicited NA with S and O, TLLA, to the solicitor', () => {
    const ns = new Uint8Array(86);
    const solicitorMac = Uint8Array.from(MAC_A);
    buildNeighbourSolicit(ns, solicitorMac, rs, me, null);
    const m = new NdMessage();
    expect(parseNd(ns, 14, 54, 32, m)).toBe(true);
    expect(m.type).toBe(135);
    expect(m.hasLinkAddress).toBe(true);
    expect(toHex(m.target)).toBe(toHex(me));
    const na = new Uint8Array(86);
    buildNeighbourAdvert(na, m, MY_MAC, solicitorMac);
    expect(toHex(na.subarray(0, 12))).toBe(`${toHex(solicitorMac)}02a7ca000001`);
    expect(na[54]).toBe(136);
    expect(na[58]).toBe(NA_SOLICITED | NA_OVERRIDE);
    expect(toHex(na.subarray(22, 38))).toBe(toHex(me));
    expect(toHex(na.subarray(38, 54))).toBe(toHex(rs));
    expect(checksumProblems(na)).toEqual([]);
    const back = new NdMessage();
    expect(parseNd(na, 14, 54, 32, back)).toBe(true);
    expect(toHex(back.linkAddress)).toBe('02a7ca000001');
  });
  it('unsolicited NA: to ff02::1, O set, S clear', () => {
    const na = new Uint8Array(86);
    buildUnsolicitedAdvert(na, MY_MAC, addr('fd00:a7ca:100::12'));
    expect(toHex(na.subarray(0, 6))).toBe('333300000001');
    expect(toHex(na.subarray(38, 54))).toBe('ff020000000000000000000000000001');
    expect(na[58]).toBe(NA_OVERRIDE);
    expect(checksumProblems(na)).toEqual([]);
  });
  it('refuses a hop limit other than 255, a bad checksum, and a solicited NA to a group', () => {
    const ns = new Uint8Array(86);
    buildNeighbourSolicit(ns, MY_MAC, me, rs, null);
    const m = new NdMessage();
    const hop = Uint8Array.from(ns);
    hop[21] = 64;
    expect(parseNd(hop, 14, 54, 32, m)).toBe(false);
    const ck = Uint8Array.from(ns);
    ck[56] ^= 1;
    expect(parseNd(ck, 14, 54, 32, m)).toBe(false);
    const na = new Uint8Array(86);
    buildUnsolicitedAdvert(na, MY_MAC, me);
    na[58] = NA_SOLICITED | NA_OVERRIDE; // S set to a multicast destination (and checksum now wrong too)
    expect(parseNd(na, 14, 54, 32, m)).toBe(false);
  });
});
