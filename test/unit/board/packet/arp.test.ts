/** ARP (RFC 826, RFC 5227; board/packet/arp.ts) against hand-computed bytes (test/support/frames.ts). */
import { describe, expect, it } from 'vitest';
import { ArpMessage, ARP_REPLY, ARP_REQUEST, buildArpAnnouncement, buildArpReply, buildArpRequest, parseArp } from '../../../../board/packet/arp.ts';
import { hex } from '../../../support/packet-builders.ts';
import { addr, toHex } from '../../../support/frames.ts';

const MY_MAC = Uint8Array.from([0x02, 0xa7, 0xca, 0, 0, 1]);

describe('ARP (RFC 826, RFC 5227)', () => {
  const reqFrame = hex`
    ff ff ff ff ff ff  02 00 00 00 00 aa  08 06   # broadcast from MAC_A, ARP
    00 01 08 00 06 04 00 01                       # Ethernet/IPv4, request
    02 00 00 00 00 aa  c6 12 01 01                # sender 198.18.1.1
    00 00 00 00 00 00  c6 12 01 02                # target 198.18.1.2
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00`;
  it('parses a request and answers it with the exact reply bytes', () => {
    const m = new ArpMessage();
    expect(parseArp(reqFrame, 14, reqFrame.length, m)).toBe(true);
    expect(m.op).toBe(ARP_REQUEST);
    expect([...m.targetIp]).toEqual([198, 18, 1, 2]);
    const out = new Uint8Array(60);
    expect(buildArpReply(out, m, MY_MAC)).toBe(60);
    expect(toHex(out)).toBe(toHex(hex`
      02 00 00 00 00 aa  02 a7 ca 00 00 01  08 06
      00 01 08 00 06 04 00 02
      02 a7 ca 00 00 01  c6 12 01 02
      02 00 00 00 00 aa  c6 12 01 01
      00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00`));
    const back = new ArpMessage();
    expect(parseArp(out, 14, 60, back)).toBe(true);
    expect(back.op).toBe(ARP_REPLY);
  });
  it('request and announcement (sender = target address, target MAC zero, broadcast)', () => {
    const out = new Uint8Array(60);
    buildArpRequest(out, MY_MAC, addr('198.18.10.3'), addr('198.18.10.101'));
    expect(toHex(out.subarray(0, 42))).toBe(toHex(hex`ff ff ff ff ff ff 02 a7 ca 00 00 01 08 06 00 01 08 00 06 04 00 01
      02 a7 ca 00 00 01 c6 12 0a 03 00 00 00 00 00 00 c6 12 0a 65`));
    buildArpAnnouncement(out, MY_MAC, addr('198.18.100.10'));
    expect(toHex(out.subarray(0, 42))).toBe(toHex(hex`ff ff ff ff ff ff 02 a7 ca 00 00 01 08 06 00 01 08 00 06 04 00 01
      02 a7 ca 00 00 01 c6 12 64 0a 00 00 00 00 00 00 c6 12 64 0a`));
  });
  it('refuses other hardware/protocol types and short packets', () => {
    const m = new ArpMessage();
    const bad = Uint8Array.from(reqFrame);
    bad[15] = 6; // hardware type 6 (IEEE 802)
    expect(parseArp(bad, 14, bad.length, m)).toBe(false);
    expect(parseArp(reqFrame, 14, 30, m)).toBe(false);
  });
});
