/**
 * What a running emulator shows to its front ends (the TUI, the headless stats line, tests): one
 * read-only bundle built on demand from the parts' own snapshots. Plain data; nothing here
 * mutates the emulator.
 */
import type { ChassisSnapshot } from '../model/snapshot.ts';
import type { DataPlaneStats, RsTable } from '../dataplane/types.ts';
import type { FeedEntry } from './event-feed.ts';
import type { HaMemberView, LostByAge } from './ha-seam.ts';

/** Where the emulator listens (the `ready` line's addresses). */
export interface Endpoints {
  /** IPMI LAN `host:port`, when the IPMI server runs. */
  ipmi?: string;
  /** Serial console paths (user side of each PTY) by FRU name (docs/consoles.md; empty without PTYs). */
  consoles: Record<string, string>;
  /** Stable links to those paths ($XDG_RUNTIME_DIR/atcasim/slot3 …) by FRU name, when made. */
  consoleLinks?: Record<string, string>;
}

/** About the traffic source. */
export interface TrafficSourceView {
  /** Capture file being looped ('bundled' for the shipped capture). */
  file: string;
  /** Target rate in packets/s, or 'capture' when paced to capture time. */
  rate: number | 'capture';
  /** Completed loops over the capture. */
  loops: number;
  /** Packets delivered so far. */
  packets: number;
}

/** The bundle (see module comment). */
export interface EmulatorView {
  snapshot: ChassisSnapshot;
  /** Latest data-plane sample (absent when the emulator runs without a data plane). */
  traffic?: DataPlaneStats;
  /** Packets/s history per logical slot, oldest first (one sample per second). */
  history: ReadonlyMap<number, readonly number[]>;
  /** Packets/s of the whole shelf, oldest first. */
  totalHistory: readonly number[];
  /** Newest SEL entries, oldest first. */
  events: readonly FeedEntry[];
  /** Live HA member status (empty until the HA layer is wired). */
  ha: readonly HaMemberView[];
  /** Sessions lost since start by age cohort (lost-by-age.ts); absent without HA session sync. */
  lostByAge?: LostByAge;
  /** Whether the HA operator actions (switchover, hang) exist in this build. */
  haAvailable: boolean;
  endpoints: Endpoints;
  source?: TrafficSourceView;
  /** Session-table capacity per processor board. */
  sessionCapacity?: number;
}

/** Looks up the RS table of a processor board (undefined for other slots). */
export type RsTableLookup = (slot: number) => RsTable | undefined;
