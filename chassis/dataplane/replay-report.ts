/**
 * The report of `atcasim replay`: one JSON object (docs/replay.md documents every field) built
 * from a data-plane stats snapshot, and its text rendering. Pure.
 */
import type { DataPlaneDropReason, DataPlaneStats } from './types.ts';
import { DATAPLANE_DROP_REASONS } from './types.ts';
import { imbalance } from './data-plane.ts';

/** One board (processor or hub) in the report. */
export interface ReplayBoard {
  /** Logical slot number. */
  slot: number;
  packets: number;
  bytes: number;
  /** Distinct conversations this board saw. */
  flows: number;
  /** Live sessions at the end (hubs: 0, they keep no state). */
  sessions: number;
}

/** One hub port in the report. */
export interface ReplayPort {
  hub: number;
  port: number;
  /** Slot of the processor board behind the port. */
  slot: number;
  packets: number;
  bytes: number;
  flows: number;
}

/** The report (`--json` prints it as is). */
export interface ReplayReport {
  files: Array<{ file: string; format: string | null; error: string | null }>;
  loops: number;
  packets: number;
  bytes: number;
  flows: number;
  forwarded: number;
  dropped: number;
  drops: Record<DataPlaneDropReason, number>;
  boards: ReplayBoard[];
  hubs: ReplayBoard[];
  ports: ReplayPort[];
  /** max/mean over processor boards, by flows (0 without flows). */
  imbalance: number;
  /** max/mean over processor boards, by packets. */
  imbalance_packets: number;
  /** Per hub: max/mean over its ports, by flows. */
  port_imbalance: Array<{ hub: number; imbalance: number }>;
  sessions: { created: number; active: number; evicted: number; expired: number; capacity_per_board: number };
  elapsed_ms: number;
  /** CPU time (user + system) of the process during the data path, ms: on a loaded machine the
   * wall-clock figure includes time the process waited for a core. */
  cpu_ms: number;
  pps: number;
  ns_per_packet: number;
  /** Original-length bytes per second of data-path time. */
  bps: number;
  out: { file: string; frames: number } | null;
}

/** Inputs of buildReplayReport. */
export interface ReplayReportInput {
  files: ReplayReport['files'];
  loops: number;
  sessionCapacity: number;
  stats: DataPlaneStats;
  /** Data-path time, ms (wall clock). */
  elapsedMs: number;
  /** CPU time during the data path, ms. */
  cpuMs: number;
  out: ReplayReport['out'];
}

/** Builds the report (every drop key present, 0 when none). */
export function buildReplayReport(i: ReplayReportInput): ReplayReport {
  const s = i.stats;
  const drops = {} as Record<DataPlaneDropReason, number>;
  for (const k of DATAPLANE_DROP_REASONS) drops[k] = s.drops[k] ?? 0;
  const ports: ReplayPort[] = [];
  for (const h of s.hubs) {
    for (const p of h.ports) ports.push({ hub: h.slot, port: p.port, slot: p.slot, packets: p.packets, bytes: p.bytes, flows: p.flows });
  }
  const elapsed = i.elapsedMs;
  const packets = s.totals.packets;
  return {
    files: i.files,
    loops: i.loops,
    packets,
    bytes: s.totals.bytes,
    flows: s.totals.flows,
    forwarded: s.totals.forwarded,
    dropped: s.totals.dropped,
    drops,
    boards: s.boards.map((b) => ({ slot: b.slot, packets: b.packets, bytes: b.bytes, flows: b.flows, sessions: b.sessions.active })),
    hubs: s.hubs.map((h) => ({ slot: h.slot, packets: h.packets, bytes: h.bytes, flows: h.flows, sessions: 0 })),
    ports,
    imbalance: round(s.imbalance, 6),
    imbalance_packets: round(imbalance(s.boards.map((b) => b.packets)), 6),
    port_imbalance: s.hubs.map((h) => ({ hub: h.slot, imbalance: round(imbalance(h.ports.map((p) => p.flows)), 6) })),
    sessions: {
      created: s.totals.sessions.created,
      active: s.totals.sessions.active,
      evicted: s.totals.sessions.evicted,
      expired: s.totals.sessions.expired,
      capacity_per_board: i.sessionCapacity,
    },
    elapsed_ms: round(elapsed, 3),
    cpu_ms: round(i.cpuMs, 3),
    pps: elapsed > 0 ? Math.round((packets * 1000) / elapsed) : 0,
    ns_per_packet: packets > 0 ? round((elapsed * 1e6) / packets, 1) : 0,
    bps: elapsed > 0 ? Math.round((s.totals.bytes * 1000) / elapsed) : 0,
    out: i.out,
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function pad(s: string | number, n: number): string {
  return String(s).padStart(n);
}

/** The text report (what `replay` prints without --json). */
export function formatReplayReport(r: ReplayReport): string {
  const L: string[] = [];
  const files = r.files.map((f) => f.file);
  L.push(`replayed ${files.length} file${files.length === 1 ? '' : 's'}${r.loops > 1 ? ` x ${r.loops} loops` : ''}: ${r.packets} packets, ${r.bytes} bytes, ${r.flows} flows`);
  L.push(`forwarded ${r.forwarded}, dropped ${r.dropped}`);
  L.push('');
  L.push('board      packets        bytes      flows   sessions');
  for (const b of r.hubs) L.push(`slot${pad(b.slot, 2)} hub ${pad(b.packets, 10)} ${pad(b.bytes, 12)} ${pad(b.flows, 10)} ${pad('-', 10)}`);
  for (const b of r.boards) L.push(`slot${pad(b.slot, 2)}     ${pad(b.packets, 10)} ${pad(b.bytes, 12)} ${pad(b.flows, 10)} ${pad(b.sessions, 10)}`);
  L.push(`imbalance (max/mean over processor boards): ${r.imbalance.toFixed(3)} by flows, ${r.imbalance_packets.toFixed(3)} by packets`);
  L.push('');
  L.push('hub port -> board    packets      flows');
  for (const p of r.ports) L.push(`slot${pad(p.hub, 2)} ${pad(p.port, 4)} -> slot${pad(p.slot, 2)} ${pad(p.packets, 10)} ${pad(p.flows, 10)}`);
  for (const p of r.port_imbalance) L.push(`port imbalance on slot${p.hub}: ${p.imbalance.toFixed(3)} (max/mean by flows)`);
  L.push('');
  L.push(`sessions: ${r.sessions.created} created, ${r.sessions.active} active, ${r.sessions.evicted} evicted, ${r.sessions.expired} expired (capacity ${r.sessions.capacity_per_board} per board)`);
  L.push(`drops: ${DATAPLANE_DROP_REASONS.map((k) => `${k}=${r.drops[k]}`).join(' ')}`);
  L.push(`throughput: ${r.pps} packets/s, ${r.ns_per_packet} ns/packet, ${(r.bps * 8 / 1e6).toFixed(1)} Mbit/s over ${r.elapsed_ms.toFixed(1)} ms of data path (${r.cpu_ms.toFixed(1)} ms CPU)`);
  if (r.out) L.push(`wrote ${r.out.frames} frames to ${r.out.file}`);
  return `${L.join('\n')}\n`;
}
