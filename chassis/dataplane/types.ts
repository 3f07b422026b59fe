/**
 * Public types of the shelf's data plane (chassis/dataplane/data-plane.ts): options, the stats
 * snapshot the TUI and the headless stats line read, the ipvsadm-style RS table, the session
 * listing for consoles, and the typed events. Pure data shapes; no behaviour.
 *
 * Units: times in ms (the caller's clock: capture time in `replay`, the Clock in `start`), rates
 * in packets/s (pps) and bytes/s, sizes in bytes. Slots are logical slot numbers (integers).
 */
import type { ProbePort } from '../../board/processor/health/probe-port.ts';
import type { Platform } from '../platform.ts';
import type { ShelfConfig } from '../config/types.ts';
import type { EmitSink } from '../../board/processor/encap.ts';
import type { ProcessorBoard } from '../../board/processor/processor-board.ts';

/** Every drop reason the data plane reports (snake_case; `replay --json` lists every key, 0 when
 * none). Processor-board reasons (board/processor/processor-board.ts DROP_REASONS) then hub
 * reasons (board/switch/switch-board.ts SWITCH_DROP_REASONS):
 * - `parse_error`: malformed packet without a usable IP header, or TCP/UDP/SCTP without readable ports;
 * - `not_ip`: a frame without an IP header (ARP, LLDP, …);
 * - `acl`: dropped by an ACL (ternary table) rule;
 * - `no_session`: strict mode only (midstream pickup off): a non-SYN TCP segment without a session;
 * - `no_rule`: no virtual service matches;
 * - `rs_down`: no RS up in the pool (or a TCP session whose RS went down);
 * - `table_full`: the session table is full and nothing may be evicted;
 * - `encap_fail`: the tunnel packet to the RS would exceed 65535 bytes;
 * - `no_member_up`: no processor board is in service;
 * - `no_link`: the hub has no link to any board in service;
 * - `hub_down`: no hub board is in service. */
export const DATAPLANE_DROP_REASONS = [
  'parse_error', 'not_ip', 'acl', 'no_session', 'no_rule', 'rs_down', 'table_full', 'encap_fail',
  'no_member_up', 'no_link', 'hub_down',
] as const;
export type DataPlaneDropReason = (typeof DATAPLANE_DROP_REASONS)[number];

/**
 * How a packet picks its ingress hub (the upstream router's choice between the two hubs of the
 * dual-star fabric):
 * - `'hash'` (default): a symmetric hash of the outer IP addresses and ports (both directions of a
 *   conversation enter the same hub) chooses among the hubs in service; non-IP frames by their MACs;
 * - a number: that hub's logical slot takes all traffic while in service (the other hub when not).
 * Either way, when one hub is out of service every packet enters the other; with none in service
 * the packet is dropped (`hub_down`).
 */
export type IngressPolicy = 'hash' | number;

/**
 * Called when a processor board leaves service with sessions in its table, before they are
 * discarded: the HA layer hands them to the buddy (which already holds the synced ones) and
 * returns how many were taken over; the rest are counted as lost. Without it all are lost.
 */
export type SessionHandover = (slot: number, board: ProcessorBoard) => number;

/** Construction options of a DataPlane. */
export interface DataPlaneOptions {
  /** The shelf: hubs and processor boards by logical slot, `dataplane.ecmp` and `dataplane.processor`. */
  config: ShelfConfig;
  /** Clock (default time for `stats()`/`tick()`), logger, randomness. */
  platform: Platform;
  /** Session-table capacity per processor board; default the config's `sessions.capacity`
   * (1,500,000 in the default shelf: ~72 MB of entries per board, allocated up front). */
  sessionCapacity?: number;
  /** Hot-tier capacity per board; default min(config hot capacity, session capacity). */
  hotCapacity?: number;
  /** Build the ECMP group with the HA buddies as failover targets (a leaving board's buckets go
   * to its buddy). Default false: buckets are spread over the boards in service (issue 3
   * behaviour until HA is wired). */
  buddyFailover?: boolean;
  /** See SessionHandover (HA hook). */
  handover?: SessionHandover;
  /** Where the boards' emitted frames go (a pcap writer for `replay --out`); none = count only. */
  emit?: EmitSink;
  /** The real health probes of the board in `slot` (live mode: its back link); none = simulated RS only. */
  probe?: (slot: number) => ProbePort;
  /** Ingress hub choice, default 'hash'. */
  ingress?: IngressPolicy;
  /** Window of the packets/s figures, ms (default 5000). */
  rateWindowMs?: number;
  /** Slots that start out of service (the Shelf then calls setInService as boards reach M4).
   * Default: every board starts in service. */
  initiallyOutOfService?: readonly number[];
}

/** Per-hub figures in a stats snapshot. */
export interface HubStats {
  slot: number;
  inService: boolean;
  /** Packets/bytes that entered this hub (bytes = original frame lengths). */
  packets: number;
  bytes: number;
  forwarded: number;
  /** Distinct conversations that entered this hub. */
  flows: number;
  /** Packets/s and bytes/s over the rate window. */
  pps: number;
  bps: number;
  drops: { no_member_up: number; no_link: number; hub_down: number };
  /** Egress ports (one per processor board; port number = the board's slot). */
  ports: Array<{ port: number; slot: number; linkUp: boolean; memberUp: boolean; packets: number; bytes: number; flows: number }>;
}

/** Per-processor-board figures in a stats snapshot. */
export interface BoardStats {
  slot: number;
  inService: boolean;
  /** Packets/bytes the board handled (forwarded + dropped by it). */
  packets: number;
  bytes: number;
  forwarded: number;
  /** Distinct conversations the hubs sent to this board (a flow that moved counts on both boards). */
  flows: number;
  pps: number;
  bps: number;
  /** Buckets of the shared ECMP table this board serves now (0 for modulo). */
  buckets: number;
  sessions: {
    /** Live sessions. */
    active: number;
    created: number;
    evicted: number;
    expired: number;
    capacity: number;
    /** active / capacity, 0..1. */
    fill: number;
    /** Sessions lost when the board left service (cumulative). */
    lost: number;
    /** Typed-array bytes held by the table. */
    memoryBytes: number;
    byState: Record<string, number>;
  };
  hot: { size: number; capacity: number; hits: number; coldHits: number; ratio: number };
  drops: Record<'parse_error' | 'not_ip' | 'acl' | 'no_session' | 'no_rule' | 'rs_down' | 'table_full' | 'encap_fail', number>;
  /** Pools with a raised alarm (live share below threshold), by service name. */
  alarms: string[];
}

/** A snapshot of the whole data plane (fresh object per call). */
export interface DataPlaneStats {
  /** Time of the snapshot (ms, the time passed to stats() or the platform clock). */
  atMs: number;
  totals: {
    /** Packets/bytes delivered to the data plane. */
    packets: number;
    bytes: number;
    /** Distinct conversations (see docs/replay.md: TCP/UDP/SCTP by 5-tuple, other IP by address
     * pair and protocol, direction-insensitive; non-IP frames are not flows). */
    flows: number;
    forwarded: number;
    dropped: number;
    pps: number;
    bps: number;
    sessions: { active: number; created: number; evicted: number; expired: number; lost: number; capacity: number };
  };
  drops: Record<DataPlaneDropReason, number>;
  hubs: HubStats[];
  boards: BoardStats[];
  /** max/mean of flows over the processor boards (1 = perfect; 0 when no flows). */
  imbalance: number;
}

/** One real server line of the RS table (ipvsadm -Ln's `->` line plus health). */
export interface RsTableEntry {
  name: string;
  /** Address text (IPv4 dotted, IPv6 RFC 5952), with `:port` only when the RS has a port. */
  address: string;
  /** Configured weight (0 = drained). */
  weight: number;
  /** Weight the scheduler uses now (dynamic: from the load score; 0 while drained). */
  effectiveWeight: number;
  /** Connections in ESTABLISHED / in any other state (ipvsadm's ActiveConn / InActConn). */
  active: number;
  inactive: number;
  health: 'up' | 'down';
  /** Packets forwarded to it. */
  packets: number;
  /** 'Tunnel' for IPIP, 'GRE' for GRE (ipvsadm's Forward column). */
  forward: 'Tunnel' | 'GRE';
}

/** One virtual service of the RS table (ipvsadm -Ln's service line). */
export interface RsTableService {
  name: string;
  /** 'TCP' | 'UDP' | 'SCTP' | 'ANY'. */
  protocol: string;
  /** VIP (or prefix for a wildcard VIP) and port (0 = any). */
  vip: string;
  port: number;
  scheduler: string;
  /** Persistence timeout, ms (0 = off). */
  persistenceMs: number;
  /** Live share of the pool's weight, 0..1, and whether its alarm is raised. */
  liveShare: number;
  alarm: boolean;
  realServers: RsTableEntry[];
}

/** The RS table of one processor board. */
export interface RsTable {
  slot: number;
  services: RsTableService[];
}

/** One live session, as a console lists it. */
export interface SessionListing {
  /** 'tcp' | 'udp' | 'sctp' | 'icmp' | … or the protocol number as text. */
  protocol: string;
  /** Client endpoint ('addr:port', IPv6 as '[addr]:port'; no port when the key has none). */
  client: string;
  /** Server endpoint as the client addressed it (the VIP side). */
  server: string;
  /** Session state (SYN_RECV, ESTABLISHED, FIN_WAIT, TIME_WAIT, CLOSE, UDP, OTHER …). */
  state: string;
  /** Service name and RS name. */
  service: string;
  rs: string;
  /** ms since creation and since the last packet (relative to `now`). */
  ageMs: number;
  idleMs: number;
}

/** Events the data plane raises (typed; dotted lower-case types). Processor-board events carry
 * the board's slot. */
export type DataPlaneEvent =
  | { type: 'rs.down'; slot: number; service: string; rs: string; atMs: number; detail: string }
  | { type: 'rs.up'; slot: number; service: string; rs: string; atMs: number; detail: string }
  | { type: 'pool.alarm.raised'; slot: number; service: string; liveShare: number; threshold: number; atMs: number }
  | { type: 'pool.alarm.cleared'; slot: number; service: string; liveShare: number; threshold: number; atMs: number }
  | { type: 'weights.changed'; slot: number; service: string; weights: Record<string, number>; atMs: number }
  | { type: 'board.service'; slot: number; kind: 'hub' | 'processor'; inService: boolean; sessionsLost: number; bucketsMoved: number; atMs: number };

/** The event type names. */
export type DataPlaneEventType = DataPlaneEvent['type'];
/** The event of a given type. */
export type DataPlaneEventOf<T extends DataPlaneEventType> = Extract<DataPlaneEvent, { type: T }>;
/** A listener for events of type T. */
export type DataPlaneListener<T extends DataPlaneEventType> = (ev: DataPlaneEventOf<T>) => void;
