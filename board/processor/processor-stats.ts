/**
 * The counters a processor board reports (`ProcessorBoard.stats()`) and its drop reasons.
 */

/** Why the board dropped a packet (snake_case, as `atcasim replay --json` reports them). */
export type DropReason =
  | 'parse_error' | 'not_ip' | 'acl' | 'no_session' | 'no_rule' | 'rs_down' | 'table_full' | 'encap_fail';

/** Every drop reason, in report order. */
export const DROP_REASONS: readonly DropReason[] = [
  'parse_error', 'not_ip', 'acl', 'no_session', 'no_rule', 'rs_down', 'table_full', 'encap_fail',
];
/** Per-RS figures in a stats snapshot. */
export interface RealServerStats {
  id: number;
  name: string;
  address: string;
  weight: number;
  effectiveWeight: number;
  up: boolean;
  active: number;
  inactive: number;
  /** Packets forwarded in both directions. */
  packets: number;
  /** ipvsadm --stats: connections scheduled to it, packets and bytes client → RS and back. */
  conns: number;
  inPackets: number;
  outPackets: number;
  inBytes: number;
  outBytes: number;
}

/** A board's counters (a fresh object per call). */
export interface ProcessorStats {
  slot: number;
  packets: number;
  bytes: number;
  forwarded: number;
  /** Sessions created (a conversation = one flow). */
  flows: number;
  drops: Record<DropReason, number>;
  sessions: {
    created: number; active: number; evicted: number; expired: number; reused: number;
    capacity: number; byState: Record<string, number>; memoryBytes: number;
  };
  hot: { size: number; capacity: number; hits: number; coldHits: number; ratio: number; promotions: number; demotions: number };
  services: Array<{
    name: string; vip: string; port: number; scheduler: string; liveShare: number; alarm: boolean; rs: RealServerStats[];
  }>;
}
