/**
 * Session states of the processor board's connection table and the TCP state machine that moves
 * between them from the flags of each segment, in the spirit of IPVS's TCP state tracking
 * (net/netfilter/ipvs/ip_vs_proto_tcp.c: a SYN opens SYN_RECV, the handshake's ACK makes it
 * ESTABLISHED, a FIN moves to FIN_WAIT, FINs from both sides to TIME_WAIT, an RST to CLOSE),
 * tracking both directions because replies come back through the gateway. UDP and other IP
 * protocols have a "new" (unreplied) and a "replied" state, as conntrack's unreplied/assured.
 *
 * Every state is also the index of the session table's aging list, so each state has one idle
 * timeout (TimeoutConfig). The half-open states (SYN_RECV, UDP_NEW, OTHER_NEW) are the ones a new
 * connection may evict when the table is full (TGW's SYN-flood scheme).
 */

/** State codes (u8 in the table). 0 marks a free entry. */
export const SessionState = {
  FREE: 0,
  SYN_RECV: 1,
  ESTABLISHED: 2,
  FIN_WAIT: 3,
  TIME_WAIT: 4,
  CLOSE: 5,
  UDP_NEW: 6,
  UDP: 7,
  OTHER_NEW: 8,
  OTHER: 9,
} as const;
export type SessionStateCode = (typeof SessionState)[keyof typeof SessionState];

/** Number of state codes (aging lists). */
export const STATE_COUNT = 10;

/** Names by code, for reports and SessionRecord text. */
export const STATE_NAMES: readonly string[] = [
  'FREE', 'SYN_RECV', 'ESTABLISHED', 'FIN_WAIT', 'TIME_WAIT', 'CLOSE', 'UDP_NEW', 'UDP', 'OTHER_NEW', 'OTHER',
];

/** True for the states a new connection may evict when the table is full. */
export function isHalfOpen(state: number): boolean {
  return state === SessionState.SYN_RECV || state === SessionState.UDP_NEW || state === SessionState.OTHER_NEW;
}

/** TCP flag bits (RFC 9293 §3.1 control bits, low byte of the 12-bit field). */
export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_ACK = 0x10;

/** Per-entry flag bits kept beside the state (u8 in the table). */
export const EF_REPLY_SEEN = 0x08;
export const EF_FIN_CLIENT = 0x10;
export const EF_FIN_SERVER = 0x20;

/**
 * State of a TCP session created by a segment with `flags` (the session's first packet, from
 * its client). A bare SYN opens SYN_RECV; without one (mid-stream pickup of a replayed capture)
 * an RST gives CLOSE, a FIN gives FIN_WAIT, a SYN+ACK gives SYN_RECV, anything else ESTABLISHED.
 * @param flags 12-bit TCP flags, or -1 when the segment's flags were not captured.
 */
export function tcpInitialState(flags: number): number {
  if (flags < 0) return SessionState.ESTABLISHED;
  if (flags & TCP_RST) return SessionState.CLOSE;
  if (flags & TCP_SYN) return SessionState.SYN_RECV;
  if (flags & TCP_FIN) return SessionState.FIN_WAIT;
  return SessionState.ESTABLISHED;
}

/** Entry flag bits for a new TCP session created by `flags` (a FIN marks the client's FIN). */
export function tcpInitialFlags(flags: number): number {
  return flags >= 0 && (flags & (TCP_FIN | TCP_RST | TCP_SYN)) === TCP_FIN ? EF_FIN_CLIENT : 0;
}

/**
 * Next state of a TCP session on a segment. Returns `(entryFlags << 8) | state`.
 * - RST from either side → CLOSE.
 * - FIN from a side records that side's FIN; SYN_RECV/ESTABLISHED → FIN_WAIT; once both sides
 *   sent a FIN → TIME_WAIT.
 * - An ACK (without SYN/FIN/RST) in SYN_RECV completes the handshake → ESTABLISHED.
 * - SYN and SYN+ACK keep the state (a retransmission, or the server's answer); a SYN that starts
 *   a new connection on a closing session is handled by the board (port reuse) before this.
 * @param state current state (TCP states only)
 * @param entryFlags current entry flag bits (EF_*)
 * @param flags the segment's TCP flags, or -1 when unknown (then only the reply bit changes)
 * @param fromClient true when the segment travels client → server
 */
export function tcpNext(state: number, entryFlags: number, flags: number, fromClient: boolean): number {
  let f = entryFlags;
  // `=== true`: a one-word compare in optimized code (a bare boolean test compiles V8's ToBoolean)
  fromClient = fromClient === true;
  if (!fromClient) f |= EF_REPLY_SEEN;
  if (flags < 0) return (f << 8) | state;
  if (flags & TCP_RST) return (f << 8) | SessionState.CLOSE;
  if (flags & TCP_SYN) return (f << 8) | state;
  if (flags & TCP_FIN) {
    f |= fromClient ? EF_FIN_CLIENT : EF_FIN_SERVER;
    if (state === SessionState.CLOSE || state === SessionState.TIME_WAIT) return (f << 8) | state;
    if ((f & (EF_FIN_CLIENT | EF_FIN_SERVER)) === (EF_FIN_CLIENT | EF_FIN_SERVER)) return (f << 8) | SessionState.TIME_WAIT;
    return (f << 8) | SessionState.FIN_WAIT;
  }
  if ((flags & TCP_ACK) && state === SessionState.SYN_RECV) return (f << 8) | SessionState.ESTABLISHED;
  return (f << 8) | state;
}

/** Next state of a UDP/other session: the first packet from the server side confirms it. */
export function datagramNext(state: number, entryFlags: number, fromClient: boolean): number {
  if (fromClient === true) return (entryFlags << 8) | state;
  const f = entryFlags | EF_REPLY_SEEN;
  if (state === SessionState.UDP_NEW) return (f << 8) | SessionState.UDP;
  if (state === SessionState.OTHER_NEW) return (f << 8) | SessionState.OTHER;
  return (f << 8) | state;
}
