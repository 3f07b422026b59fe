/**
 * Linux "cooked" capture headers (LINKTYPE_LINUX_SLL 113: 16 bytes; LINKTYPE_LINUX_SLL2 276:
 * 20 bytes; tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html and …SLL2.html). The protocol field is
 * an ethertype (tshark's `sll.etype`, not `eth.type`) except for the small Linux ETH_P_* values:
 * 3 = an Ethernet frame follows, 4 = 802.2 LLC, 7 = PPP in HDLC-like framing. For a GRE device
 * (ARPHRD_IPGRE = 778) the protocol field is a GRE protocol type.
 */
import type { Dissector } from './dissector.ts';
import { dissectEthernet } from './ethernet.ts';
import { dissectPpp } from './ppp.ts';

export const SLL_HEADER_LEN = 16;
export const SLL2_HEADER_LEN = 20;
const ARPHRD_IPGRE = 778;

/** LINUX_SLL header at `off`. */
export function dissectLinuxSll(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + SLL_HEADER_LEN > cap) {
    d.short('linux-sll', 'protocol', off, SLL_HEADER_LEN, rep);
    return;
  }
  const b = d.b;
  const hatype = (b[off + 2]! << 8) | b[off + 3]!;
  const proto = (b[off + 14]! << 8) | b[off + 15]!;
  sllPayload(d, hatype, proto, off + SLL_HEADER_LEN, cap, rep);
}

/** LINUX_SLL2 header at `off`. */
export function dissectLinuxSll2(d: Dissector, off: number, cap: number, rep: number): void {
  if (off + SLL2_HEADER_LEN > cap) {
    d.short('linux-sll2', 'protocol', off, SLL2_HEADER_LEN, rep);
    return;
  }
  const b = d.b;
  const proto = (b[off]! << 8) | b[off + 1]!;
  const hatype = (b[off + 8]! << 8) | b[off + 9]!;
  sllPayload(d, hatype, proto, off + SLL2_HEADER_LEN, cap, rep);
}

function sllPayload(d: Dissector, hatype: number, proto: number, off: number, cap: number, rep: number): void {
  if (hatype === ARPHRD_IPGRE) {
    d.greProto(proto, 0, off, cap, rep);
    return;
  }
  if (proto > 1500) {
    d.ethertype(proto, off, cap, rep);
    return;
  }
  switch (proto) {
    case 3:
      dissectEthernet(d, off, cap, rep);
      break;
    case 4:
      d.llc(off, cap, rep);
      break;
    case 7:
      dissectPpp(d, off, cap, rep, true);
      break;
    default:
      break;
  }
}
