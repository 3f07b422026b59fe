/**
 * A tiny L2/L3 responder on a live port, made only of the pure modules (ARP, ND, ICMP echo): it
 * answers ARP and Neighbour Solicitations for its addresses and echo requests to them, and counts
 * what it did. The test harness of the live-port adapter before the emulator itself is wired to
 * it: a real `ping` from a lab namespace gets real replies through a TAP.
 */
import { ArpMessage, ARP_REQUEST, buildArpReply, parseArp } from '../../board/packet/arp.ts';
import { bytesEqual, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, etherPayload } from '../../board/packet/ether-frame.ts';
import { echoReplyInPlace, isEchoRequest } from '../../board/packet/icmp-echo.ts';
import { IpLayout, locateIp } from '../../board/packet/ip-layout.ts';
import { buildNeighbourAdvert, ND_NEIGHBOR_SOLICIT, NdMessage, parseNd } from '../../board/packet/ndp.ts';
import type { LivePort } from '../../chassis/io/live-port.ts';

export interface ResponderCounts {
  arpReplies: number;
  naSent: number;
  echoReplies: number;
  ignored: number;
}

/** Starts answering on `port` for `addresses` (16-byte arrays with their family) as `mac`. */
export function startResponder(port: LivePort, mac: Uint8Array, addresses: Array<{ family: 4 | 6; bytes: Uint8Array }>): ResponderCounts {
  const counts: ResponderCounts = { arpReplies: 0, naSent: 0, echoReplies: 0, ignored: 0 };
  const arp = new ArpMessage();
  const nd = new NdMessage();
  const ip = new IpLayout();
  const et = { type: 0 };
  const out = new Uint8Array(1600);
  const mine = (family: 4 | 6, b: Uint8Array, off: number) => addresses.some((a) => a.family === family && bytesEqual(a.bytes, 0, b, off, family === 4 ? 4 : 16));
  port.onFrame((f) => {
    const l3 = etherPayload(f, f.length, et);
    if (l3 < 0) return;
    if (et.type === ETHERTYPE_ARP) {
      if (parseArp(f, l3, f.length, arp) && arp.op === ARP_REQUEST && mine(4, arp.targetIp, 0)) {
        port.send(out, buildArpReply(out, arp, mac));
        counts.arpReplies++;
        return;
      }
    } else if ((et.type === ETHERTYPE_IPV4 || et.type === ETHERTYPE_IPV6) && locateIp(f, l3, f.length, ip)) {
      const fam = ip.family as 4 | 6;
      if (fam === 6 && ip.proto === 58 && ip.l4 >= 0 && f[ip.l4] === ND_NEIGHBOR_SOLICIT && parseNd(f, ip.l3, ip.l4, ip.l4Len, nd) && mine(6, nd.target, 0)) {
        port.send(out, buildNeighbourAdvert(out, nd, mac, f.subarray(6, 12)));
        counts.naSent++;
        return;
      }
      if (mine(fam, f, ip.l3 + (fam === 6 ? 24 : 16)) && isEchoRequest(f, ip)) {
        const copy = f.slice();
        const ip2 = new IpLayout();
        locateIp(copy, l3, copy.length, ip2);
        port.send(copy, echoReplyInPlace(copy, ip2, mac));
        counts.echoReplies++;
        return;
      }
    }
    counts.ignored++;
  });
  return counts;
}
