/**
 * `dr` (direct routing, LVS-DR) forwarding: the client's frame goes to the RS with only its
 * Ethernet header changed — destination the RS's MAC (from the neighbour table), source the
 * board's back-side MAC. The IP datagram is untouched: the destination stays the VIP, which the
 * RS holds on its loopback (so it accepts it) without answering ARP for it (arp_ignore=1,
 * arp_announce=2), and the RS's replies go to the client directly, never through the appliance.
 * So the RS must be on a link of the board (same L2 segment), and no checksum changes.
 */

/**
 * Rewrites the Ethernet addresses of `frame` for direct routing to the RS.
 * @param rsMac the RS's MAC; `boardMac` the back-side port's MAC
 * @returns the frame length to send (unchanged: `len`)
 */
export function drForward(frame: Uint8Array, len: number, rsMac: Uint8Array, boardMac: Uint8Array): number {
  frame.set(rsMac.subarray(0, 6), 0);
  frame.set(boardMac.subarray(0, 6), 6);
  return len;
}
