/**
 * One fabric port of a hub board (dual-star backplane: one port per node slot), with its link
 * state on this hub and its egress counters. Counters are plain numbers updated in place (no
 * allocation per packet); bytes count original frame lengths (pcap orig_len).
 */

/** A hub port's state and counters as a snapshot reports them. */
export interface HubPortCounters {
  /** Hub port number (1-based). */
  port: number;
  /** Logical slot of the board behind it, -1 when the port is not an ECMP member. */
  slot: number;
  /** Link state on this hub. */
  linkUp: boolean;
  /** Whether the ECMP group has the member up (the board is in service). */
  memberUp: boolean;
  /** Packets and bytes forwarded out of this port. */
  packets: number;
  bytes: number;
  /** Distinct flows (conversations) forwarded out of this port; a flow that moved to another port
   * counts on both. */
  flows: number;
  /** Time of the last packet forwarded (ms, the caller's clock), -1 when none. */
  lastPacketAt: number;
}

/** A hub fabric port (mutable; owned by one SwitchBoard). */
export class HubPort {
  /** Link state on this hub: a down link takes the port out of this hub's choices only. */
  linkUp = true;
  packets = 0;
  bytes = 0;
  flows = 0;
  lastPacketAt = -1;

  /** @param port hub port number (1-based) */
  constructor(readonly port: number) {}

  /** Zeroes the counters (link state is kept). */
  resetCounters(): void {
    this.packets = 0;
    this.bytes = 0;
    this.flows = 0;
    this.lastPacketAt = -1;
  }
}
