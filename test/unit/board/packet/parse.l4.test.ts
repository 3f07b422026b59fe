/**
 * TCP, UDP, SCTP (board/packet/tcp.ts, udp.ts, sctp.ts) and ICMP/ICMPv6 with quoted packets
 * (board/packet/icmp.ts). Availability rules (which fields tshark lists for a cut header) were
 * checked against tshark 4.0 with the oracle's options.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CaptureReader } from '../../../../board/packet/capture-reader.ts';
import { addressText } from '../../../../board/packet/flow-tuple.ts';
import { shared } from '../../../support/shared.ts';
import { cat, hex } from '../../../support/packet-builders.ts';
import { eth, ipv4, ipv6, parse, tcp, tupleText, udp } from './parse-helpers.ts';

const v4 = (proto: number, l4: Uint8Array, opts = {}) => eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', proto, l4, opts));

describe('TCP', () => {
  it('12-bit flags: AE (ex-NS) + CWR + ECE + SYN = 0x01c2 (AccECN SYN)', () => {
    const { v, f } = parse(v4(6, tcp(40000, 443, 0x1c2)));
    expect([f['tcp.flags'], v.outer.tcpFlags]).toEqual(['0x01c2', 0x1c2]);
  });

  it.each([
    [14, false],
    [15, false],
    [16, true],
  ])('flags are listed only once the window is captured too (%i bytes of TCP → %s)', (n, shown) => {
    const frame = v4(6, tcp(1234, 80, 0x18)).subarray(0, 34 + n);
    const { v, f } = parse(frame, 1, 54);
    expect(f['tcp.srcport']).toBe('1234');
    expect(f['tcp.flags'] !== undefined).toBe(shown);
    expect([v.outer.tcpFlags, v.truncated]).toEqual([0x18, true]);
  });

  it('data offset < 5: ports listed, flags not, malformed (bad-header-length)', () => {
    const { v, f } = parse(v4(6, tcp(1, 2, 0x10, 4)));
    expect([f['tcp.srcport'], f['tcp.flags']]).toEqual(['1', undefined]);
    expect([v.error?.kindName, v.error?.field, v.error?.offset]).toEqual(['bad-header-length', 'data_offset', 46]);
  });

  it('a header longer than the segment (data offset 7 in 20 bytes) is an overrun, as pcapplusplus tcp-malformed', () => {
    const seg = tcp(49671, 25014, 0x10, 7).subarray(0, 20);
    const { v, f } = parse(v4(6, seg));
    expect(f['tcp.flags']).toBe('0x0010');
    expect([v.malformed, v.error?.kindName]).toEqual([true, 'overrun']);
  });
});

describe('UDP', () => {
  it.each([0, 4, 7])('length %i < 8 is malformed; the ports are still listed', (len) => {
    const { v, f } = parse(v4(17, udp(1000, 2000, new Uint8Array(4), len)));
    expect(f['udp.srcport']).toBe('1000');
    expect([v.malformed, v.error?.kindName]).toEqual([true, 'bad-length']);
  });

  it('length beyond the IP payload is malformed (not for a fragment)', () => {
    expect(parse(v4(17, udp(1, 2, new Uint8Array(0), 16))).v.error?.kindName).toBe('overrun');
  });

  it('4 bytes of UDP give the ports; 3 give nothing (tshark reads both ports before listing them)', () => {
    expect(parse(v4(17, udp(1, 2).subarray(0, 4), { tl: 44 }), 1, 60).f['udp.dstport']).toBe('2');
    expect(parse(v4(17, udp(1, 2).subarray(0, 3), { tl: 44 }), 1, 60).f['udp.dstport']).toBeUndefined();
  });
});

describe('SCTP', () => {
  const common = hex`0b 59 0b 59  00 00 00 00  00 00 00 00`; // ports 2905/2905, vtag, checksum
  it('ports are listed once the 12-byte common header is captured; the tuple has them from 4 bytes', () => {
    const full = v4(132, cat(common, hex`00 03 00 04`));
    expect(parse(full).f['sctp.srcport']).toBe('2905');
    const cut = parse(full.subarray(0, 34 + 11), 1, full.length);
    expect(cut.f['sctp.srcport']).toBeUndefined();
    expect([cut.v.outer.sport, cut.v.truncated]).toEqual([2905, true]);
  });

  it('chunk length < 4 is malformed', () => {
    expect(parse(v4(132, cat(common, hex`00 03 00 02`))).v.error?.field).toBe('chunk_length');
  });

  it("an INIT whose last parameter's padding is counted in the chunk length is malformed (zeek sctp.pcap frame 1)", () => {
    const init = hex`
      01 00 00 20  43 23 25 44  00 00 ff ff  00 11 00 11  5c fe 37 9f   # INIT, chunk length 32
      c0 00 00 04                                                      # Forward-TSN-supported
      00 0c 00 06  00 05 00 00                                         # Supported address types, length 6 + 2 padding
    `;
    const { v, f } = parse(v4(132, cat(hex`00 07 00 07  00 00 00 00  37 61 a7 46`, init)));
    expect(f['sctp.srcport']).toBe('7');
    expect([v.malformed, v.error?.field]).toEqual([true, 'parameter']);
    // the same INIT with chunk length 30 (padding outside the chunk) is fine
    const ok = init.slice();
    ok[3] = 30;
    expect(parse(v4(132, cat(hex`00 07 00 07  00 00 00 00  37 61 a7 46`, ok))).v.malformed).toBe(false);
  });
});

describe('ICMP errors quote the offending packet (not a tunnel)', () => {
  it('port unreachable quoting UDP: icmpError, quoted reversed, fields outer then quoted', () => {
    const quoted = ipv4('10.0.0.2', '8.8.8.8', 17, udp(40000, 53));
    const { v, f } = parse(v4(1, cat(hex`03 03 00 00 00 00 00 00`, quoted)));
    expect(f['ip.src']).toBe('10.0.0.1,10.0.0.2');
    expect(f['ip.proto']).toBe('1,17');
    expect(f['udp.dstport']).toBe('53');
    expect([v.icmpError, v.innerIcmpError, v.tunnelDepth]).toEqual([true, false, 0]);
    expect(tupleText(v.outer)).toBe('10.0.0.1 > 10.0.0.2 proto 1');
    expect(tupleText(v.inner)).toBe(tupleText(v.outer));
    expect(tupleText(v.quoted)).toBe('8.8.8.8:53 > 10.0.0.2:40000 proto 17');
  });

  it('an 8-byte TCP quote (RFC 792 minimum) gives ports but no flags, and is not an error', () => {
    const quoted = ipv4('10.0.0.2', '10.0.0.9', 6, tcp(1, 2, 0x12).subarray(0, 8), { tl: 60 });
    const { v, f } = parse(v4(1, cat(hex`04 00 00 00 00 00 00 00`, quoted)));
    expect([f['tcp.srcport'], f['tcp.flags']]).toEqual(['1', undefined]);
    expect([v.malformed, v.truncated, v.quoted.sport, v.quoted.dport]).toEqual([false, false, 2, 1]);
  });

  it('a UDP length < 8 inside a quote is still malformed (tshark flags it)', () => {
    const quoted = ipv4('10.0.0.2', '10.0.0.9', 17, udp(1, 2, new Uint8Array(0), 4));
    expect(parse(v4(1, cat(hex`03 03 00 00 00 00 00 00`, quoted))).v.malformed).toBe(true);
  });

  it('an error quoting an error: every IP header listed, quoted = the first quote', () => {
    const inner = ipv4('10.0.0.5', '10.0.0.6', 17, udp(7, 9));
    const q = ipv4('10.0.0.3', '10.0.0.4', 1, cat(hex`03 03 00 00 00 00 00 00`, inner));
    const { v, f } = parse(v4(1, cat(hex`0b 00 00 00 00 00 00 00`, q)));
    expect(f['ip.proto']).toBe('1,1,17');
    expect(tupleText(v.quoted)).toBe('10.0.0.4 > 10.0.0.3 proto 1');
  });

  it('ICMPv6 destination unreachable quoting IPv6 + hop-by-hop + UDP (zeek icmp6-destunreach-ip6ext-udp)', () => {
    const quoted = ipv6(2, 9, 0, cat(hex`11 00 01 04 00 00 00 00`, udp(3000, 33434)));
    const { v, f } = parse(eth(0x86dd, ipv6(1, 2, 58, cat(hex`01 04 00 00 00 00 00 00`, quoted))));
    expect(f['ipv6.nxt']).toBe('58,0');
    expect(tupleText(v.quoted)).toBe('2001:db8::9:33434 > 2001:db8::2:3000 proto 17');
  });

  it('a quoted IPv6 header cut by the end of the ICMPv6 message is malformed (tshark: "must be exactly 40 bytes")', () => {
    const quoted = ipv6(2, 9, 17, udp(1, 2)).subarray(0, 30);
    expect(parse(eth(0x86dd, ipv6(1, 2, 58, cat(hex`01 04 00 00 00 00 00 00`, quoted)))).v.error?.layer).toBe('ipv6');
  });

  it('an ICMP header shorter than 8 bytes is malformed', () => {
    expect(parse(v4(1, hex`08 00 f7 ff`)).v.error?.layer).toBe('icmp');
  });

  it('shared captures: every ICMP error goes back to the quoted packet\'s sender, so the reversed quote ends at the outer destination', () => {
    let errors = 0;
    // real traffic only (pcapplusplus IcmpPackets is hand-crafted: its quotes need not match)
    for (const name of ['zeek__icmp6.pcap', 'tcpdump__mpls-traceroute.pcap', 'tcpreplay__test.pcap', 'zeek__icmp6-destunreach-ip6ext-udp.pcap']) {
      const r = new CaptureReader({
        packet: (rec) => {
          const { v } = parse(rec.data, rec.linkType, rec.origLen);
          if (!v.icmpError) return;
          errors++;
          expect(v.quoted.family).toBe(v.outer.family);
          expect(addressText(v.quoted.family, v.quoted.dst), `${name} #${rec.number}`).toBe(addressText(v.outer.family, v.outer.dst));
        },
      });
      r.push(readFileSync(shared('pcap', name)));
      r.end();
    }
    expect(errors).toBeGreaterThanOrEqual(13 + 9 + 1);
  });
});
