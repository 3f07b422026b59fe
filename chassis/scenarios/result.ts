/**
 * What a scenario run produces, whatever the engine (the emulator with its real data plane, or
 * the count model): the HA simulator's timeline, takeovers and invariant audit, plus what only the
 * emulator has (the SEL as `ipmitool sel elist` renders it, IPMI responses, traffic samples).
 * Expectations (expectations.ts) are evaluated against it; the report (report.ts) renders it.
 */
import type { ShareSummary } from '../sim/ha-simulator.ts';
import type { TakeoverReport } from '../sim/takeover-ledger.ts';
import type { TimelineEntry } from '../sim/timeline.ts';

/** An IPMI response kept for a labelled `ipmi` action. */
export interface IpmiResult {
  cc: number;
  data: number[];
}

/** Everything a run produced. Times in ms since the start of the run. */
export interface RunResult {
  engine: 'emulator' | 'model';
  durationMs: number;
  heartbeatMs: number;
  timeline: TimelineEntry[];
  takeovers: TakeoverReport[];
  /** Losses outside takeovers (a split-brain loser dropping its table). */
  drops: Array<{ t: number; share: string; lost: number; lostAges: Array<[number, number]>; lostProtected?: number; reason?: string; node?: string }>;
  shares: Record<string, ShareSummary>;
  /** Pair or share name → its shares. */
  sharesOf: Record<string, string[]>;
  /** Node → its pair name. */
  pairOfNode: Record<string, string>;
  /** Node → the share a `role` expectation means by default (its home share, or the ShMC pair). */
  homeShare: Record<string, string>;
  sessions: {
    /** Sessions created (count model: exact; emulator: the data plane's). */
    created: number;
    lost: number;
    lostProtected: number;
    lostEstablished: number;
    byAge: Record<string, number>;
    maxLostAgeMs: number;
    /** Emulator: sessions the data plane counted lost when boards left service (all kinds, TIME_WAIT included). */
    dataPlaneLost?: number;
  };
  sync: { datagrams: number; bytes: number; incrementalSessions: number; bulkSessions: number; finalSessions: number; filteredSessions: number; ageFilterReduction: number };
  doubleActive: { episodes: number; totalMs: number };
  alarms: Record<string, number>;
  invariants: { checks: number; violations: Array<{ t: number; invariant: string; detail: string }> };
  /** Emulator: the SEL, one `ipmitool sel elist`-style line per record. */
  sel: string[] | null;
  /** Results of labelled `ipmi` actions. */
  responses: Record<string, IpmiResult>;
  /** Outcome of every labelled action: its text and whether it was accepted (error: `code: message`). */
  actions: Record<string, { text: string; ok: boolean; error?: string }>;
  /** Emulator: packets handled by a hub or board at sample times (traffic expectations): node → [t, packets][]. */
  packets: Record<string, Array<[number, number]>>;
  /** Emulator: packets delivered in total and per board at the end. */
  traffic?: { packets: number; forwarded: number; dropped: number; pps: number };
}
