/**
 * The session-loss oracle of ../shared/research/ha.md §5.5, as the HA design defines "protected"
 * (docs/ha.md):
 *
 *   t_f = the instant the old owner stops forwarding; t_a = the instant the new owner starts.
 *   L   = {s in the old owner's table at t_f, still open at t_a} − {s in the new owner's committed table}
 *   protected(s) ⇔ age(s, t_f) ≥ T_s + B + lag,   lag = the last-acknowledged sync lag at t_f
 *   planned switchover: every session is protected (L must be empty).
 *
 * The lag is how far the acknowledged watermark W (SyncSender.ackedWatermark(): every live session
 * created at or before W is held by a standby with a complete base, acknowledged) trails the
 * edge t_f − T_s − B; so protected(s) ⇔ created(s) ≤ min(t_f − T_s − B, W). For a hang the owner's
 * sender stops at t_f, so W is what the peer acknowledged before the reset. Pure.
 */
import type { LostItem } from '../ha/ha-fabric.ts';

/** Inputs of the oracle for one takeover. */
export interface OracleInput {
  /** t_f, ms. */
  tf: number;
  /** T_s (syncMinAgeMs), ms. */
  syncMinAgeMs: number;
  /** B (syncBatchMs), ms. */
  syncBatchMs: number;
  /** The old owner's acknowledged watermark at t_f (−Infinity: nothing acknowledged). */
  watermark: number;
  /** A planned switchover (all sessions protected). */
  planned: boolean;
}

/** Creation-time cutoff: sessions created at or before it are protected (+Infinity when planned). */
export function protectedCutoff(i: OracleInput): number {
  if (i.planned) return Infinity;
  return Math.min(i.tf - i.syncMinAgeMs - i.syncBatchMs, i.watermark);
}

/** The last-acknowledged sync lag at t_f, ms (0 when the watermark is at or past the edge; Infinity with none). */
export function syncLagMs(i: OracleInput): number {
  if (i.planned) return 0;
  const edge = i.tf - i.syncMinAgeMs - i.syncBatchMs;
  return i.watermark >= edge ? 0 : edge - i.watermark;
}

/** Loss summary of one takeover. */
export interface LossSummary {
  /** |L| in sessions. */
  lost: number;
  /** Lost sessions the oracle says must survive. */
  lostProtected: number;
  /** Lost sessions with age(t_f) ≥ T_s + B ("N_est" in ha.md §5.3). */
  lostEstablished: number;
  /** Lost sessions younger than T_s + B. */
  lostYoung: number;
  /** Largest age at t_f among lost sessions, ms (0 when none). */
  maxLostAgeMs: number;
  /** Lost sessions by age at t_f: '<1s', '1-3s', '3s-Ts+B', '>=Ts+B'. */
  byAge: Record<'<1s' | '1-3s' | '3s-Ts+B' | '>=Ts+B', number>;
  lagMs: number;
}

/** Classifies the lost items of one takeover. */
export function classifyLoss(items: Iterable<LostItem>, i: OracleInput): LossSummary {
  const cut = protectedCutoff(i);
  const est = i.syncMinAgeMs + i.syncBatchMs;
  const out: LossSummary = {
    lost: 0, lostProtected: 0, lostEstablished: 0, lostYoung: 0, maxLostAgeMs: 0,
    byAge: { '<1s': 0, '1-3s': 0, '3s-Ts+B': 0, '>=Ts+B': 0 }, lagMs: syncLagMs(i),
  };
  for (const it of items) {
    const age = i.tf - it.createdAt;
    out.lost += it.sessions;
    if (it.createdAt <= cut) out.lostProtected += it.sessions;
    if (age >= est) out.lostEstablished += it.sessions;
    else out.lostYoung += it.sessions;
    if (age > out.maxLostAgeMs) out.maxLostAgeMs = age;
    const k = age < 1000 ? '<1s' : age < 3000 ? '1-3s' : age < est ? '3s-Ts+B' : '>=Ts+B';
    out.byAge[k] += it.sessions;
  }
  return out;
}
