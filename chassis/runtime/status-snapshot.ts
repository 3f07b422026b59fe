/**
 * The one-shot HA status of a running shelf (`atcasim status`, the control socket's `status` op),
 * like `crm_mon -1`: every pair and share with its owner, each member's role, epoch, heartbeat
 * age, sync lag and watchdog time left; the raised alarms with their age; the sessions lost since
 * start by age cohort; and the FRUs out of service, planned or not. Pure: built from the
 * emulator's view bundle, the HA part's counters and the service log, at a given clock time.
 * Field names are snake_case (JSON); times in ms, null where not known or not applicable.
 */
import type { PairConfig } from '../config/ha.ts';
import type { HaMemberView, LostByAge } from './ha-seam.ts';
import type { OutOfService } from './service-log.ts';
import type { EmulatorView } from './view.ts';

/** One member of a share. */
export interface StatusMember {
  node: string;
  role: string;
  epoch: number;
  /** Ms since this member last heard its peer's heartbeat; null when never. */
  heartbeat_age_ms: number | null;
  /** Owner side: ms the last sync batch waited for its acknowledgement; null on the standby. */
  sync_lag_ms: number | null;
  /** Ms left on the node's IPMI watchdog; null when it is stopped. */
  watchdog_left_ms: number | null;
}

/** One share (the ShMC pair has one, a processor pair one per member: `lb1/slot3`). */
export interface StatusShare {
  share: string;
  pair: string;
  /** The member in role `active`, null when none is. */
  owner: string | null;
  members: StatusMember[];
}

/** A raised alarm. */
export interface StatusAlarm {
  node: string;
  share: string;
  alarm: string;
  /** Ms since it was raised. */
  age_ms: number | null;
}

/** A processor board or ShMC with its HA roles (also in the headless stats line). */
export interface StatusBoard {
  fru: string;
  slot: number | null;
  state: string;
  in_service: boolean;
  /** Share → role of this node in it. */
  roles: Record<string, string>;
}

/** The whole status (see the module comment). */
export interface ShelfStatus {
  shelf: string;
  uptime_s: number;
  /** False when the shelf runs without HA (`start --no-ha`): no pairs, no alarms. */
  ha: boolean;
  shares: StatusShare[];
  boards: StatusBoard[];
  alarms: StatusAlarm[];
  /** Open sessions lost since start by age at the fault (LostByAge); null without HA session sync. */
  sessions_lost: { young: number; established: number; established_ms: number } | null;
  out_of_service: {
    /** Leaves from M4 since start. */
    planned: number;
    unplanned: number;
    /** FRUs out of service now. */
    now: Array<{ fru: string; planned: boolean; cause: string; for_ms: number }>;
  };
}

/** What statusSnapshot reads. */
export interface StatusInput {
  view: EmulatorView;
  pairs: readonly PairConfig[];
  lostByAge?: LostByAge;
  service: { current(): OutOfService[]; planned: number; unplanned: number };
  /** Clock ms now (for the ages of out-of-service FRUs). */
  now: number;
  /** Ms since the shelf started. */
  uptimeMs: number;
}

const finite = (x: number | undefined): number | null => (x === undefined || !Number.isFinite(x) ? null : Math.round(x));

/** The shares of a pair (the ShMC pair: one named like the pair; processor pairs: `pair/member`). */
function sharesOf(p: PairConfig): string[] {
  return p.kind === 'shmc' ? [p.name] : p.members.map((m) => `${p.name}/${m}`);
}

/** Builds the status. */
export function statusSnapshot(i: StatusInput): ShelfStatus {
  const ha = i.view.ha;
  const byShare = new Map<string, HaMemberView[]>();
  for (const m of ha) byShare.set(m.share, [...(byShare.get(m.share) ?? []), m]);
  const shares: StatusShare[] = [];
  for (const p of ha.length > 0 ? i.pairs : []) {
    for (const share of sharesOf(p)) {
      const ms = byShare.get(share) ?? [];
      shares.push({
        share,
        pair: p.name,
        owner: ms.find((m) => m.role === 'active')?.node ?? null,
        members: p.members.map((node) => {
          const m = ms.find((x) => x.node === node);
          return {
            node,
            role: m?.role ?? 'failed',
            epoch: m?.epoch ?? 0,
            heartbeat_age_ms: finite(m?.heartbeatAgeMs),
            sync_lag_ms: finite(m?.syncLagMs),
            watchdog_left_ms: finite(m?.watchdogMs),
          };
        }),
      });
    }
  }
  const alarms: StatusAlarm[] = ha.flatMap((m) => m.alarms.map((a) => ({ node: m.node, share: m.share, alarm: a, age_ms: finite(m.alarmAgeMs?.[a]) })));
  const haNodes = new Set(ha.map((m) => m.node));
  const boards: StatusBoard[] = i.view.snapshot.frus
    .filter((f) => f.kind === 'processor' || f.kind === 'shmc' || haNodes.has(f.name))
    .map((f) => ({
      fru: f.name,
      slot: f.slot ?? null,
      state: f.stateLabel,
      in_service: f.inService,
      roles: Object.fromEntries(ha.filter((m) => m.node === f.name).map((m) => [m.share, m.role])),
    }));
  const lost = i.lostByAge;
  return {
    shelf: i.view.snapshot.shelf.name,
    uptime_s: Math.round(i.uptimeMs / 100) / 10,
    ha: ha.length > 0,
    shares,
    boards,
    alarms,
    sessions_lost: lost ? { young: lost.young, established: lost.established, established_ms: lost.establishedMs } : null,
    out_of_service: {
      planned: i.service.planned,
      unplanned: i.service.unplanned,
      now: i.service.current().map((o) => ({ fru: o.fru, planned: o.planned, cause: o.cause, for_ms: Math.max(0, Math.round(i.now - o.since)) })),
    },
  };
}

const secs = (ms: number | null): string => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);

/** The status as text for a terminal (`atcasim status`, the TUI's overlay), at most 78 columns wide (80 with a border). */
export function formatStatus(s: ShelfStatus): string {
  const out: string[] = [`Shelf "${s.shelf}", up ${s.uptime_s.toFixed(1)} s, HA ${s.ha ? 'on' : 'off'}`, ''];
  if (s.ha) {
    out.push('SHARE      OWNER  MEMBER ROLE          EPOCH  HEARTBEAT  SYNC LAG  WATCHDOG');
    for (const sh of s.shares) {
      sh.members.forEach((m, k) => {
        const head = k === 0 ? `${sh.share.padEnd(10)} ${(sh.owner ?? 'NONE').padEnd(6)}` : ' '.repeat(17);
        out.push(`${head} ${m.node.padEnd(6)} ${m.role.padEnd(13)} ${String(m.epoch).padStart(5)}  ${secs(m.heartbeat_age_ms).padStart(9)}  ${secs(m.sync_lag_ms).padStart(8)}  ${secs(m.watchdog_left_ms).padStart(8)}`);
      });
    }
    out.push('');
    if (s.alarms.length === 0) out.push('Alarms: none');
    else {
      out.push('Alarms:');
      for (const a of s.alarms) out.push(`  ${a.alarm.padEnd(22)} ${a.node.padEnd(6)} ${a.share.padEnd(10)} for ${secs(a.age_ms)}`);
    }
  }
  const l = s.sessions_lost;
  out.push(l ? `Sessions lost since start: ${l.young} young (< ${secs(l.established_ms)} old), ${l.established} established` : 'Sessions lost since start: not counted (no HA session sync)');
  const o = s.out_of_service;
  if (o.now.length === 0) out.push('Out of service: none');
  else {
    out.push('Out of service:');
    for (const x of o.now) out.push(`  ${x.fru.padEnd(7)} ${x.planned ? 'planned  ' : 'UNPLANNED'} ${x.cause.padEnd(22)} for ${secs(x.for_ms)}`);
  }
  out.push(`Left service since start: ${o.planned} planned, ${o.unplanned} unplanned`);
  return `${out.join('\n')}\n`;
}
