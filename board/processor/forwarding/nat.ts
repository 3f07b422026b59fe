/**
 * `nat` and `fullnat` forwarding of one TCP/UDP datagram, in place (see translation.ts for the
 * modes; rewrite.ts for the checksum rules, RFC 1624):
 *   inbound  (client → RS):  nat      dst VIP:vport → RS:rport
 *                            fullnat  dst VIP:vport → RS:rport, src client:cport → local:lport
 *   outbound (RS → client):  nat      src RS:rport → VIP:vport
 *                            fullnat  src RS:rport → VIP:vport, dst local:lport → client:cport
 * The caller has found the session (so the datagram is the translation's) and writes the
 * Ethernet header for the next hop (`setMacs`). TTL / hop limit are left as they are: the
 * appliance forwards as a bump in the wire, as IPVS does for its NAT mode.
 */
import type { IpLayout } from '../../packet/ip-layout.ts';
import { rewriteDatagram } from './rewrite.ts';
import { type Translation, XlateResult } from './translation.ts';

/** Writes the Ethernet destination and source MAC of `frame` (the next hop and this port). */
export function setMacs(frame: Uint8Array, dst: Uint8Array, src: Uint8Array): void {
  frame.set(dst.subarray(0, 6), 0);
  frame.set(src.subarray(0, 6), 6);
}

/** Translates a client → RS datagram of connection `t` (mode `nat` or `fullnat`). */
export function natInbound(frame: Uint8Array, ip: IpLayout, t: Translation): XlateResult {
  const full = t.mode === 'fullnat';
  const ok = rewriteDatagram(frame, ip, full ? t.local : null, full ? t.localPort : -1, t.rs, t.rsPort);
  return ok ? XlateResult.OK : XlateResult.UNSUPPORTED;
}

/** Translates an RS → client datagram of connection `t` (mode `nat` or `fullnat`). */
export function natOutbound(frame: Uint8Array, ip: IpLayout, t: Translation): XlateResult {
  const full = t.mode === 'fullnat';
  const ok = rewriteDatagram(frame, ip, t.vip, t.vipPort, full ? t.client : null, full ? t.clientPort : -1);
  return ok ? XlateResult.OK : XlateResult.UNSUPPORTED;
}
