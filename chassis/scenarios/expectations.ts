/**
 * Expectations of a scenario (`expect:` list), each one list item with one key. Times are
 * durations since the start of the run; PAIR is a pair (`shmc`, `lb1`: every share of it) or a
 * share (`lb1/slot3`); NODE is `shmc-a`, `shmc-b` or `slotN`.
 *
 *   never_two_active: PAIR                         no share of PAIR ever has two owners
 *   active: { pair, node, within, after, until? }  NODE owns every share of PAIR at some instant
 *                                                  in [after, after+within] and stays owner until
 *                                                  `until` (default the end of the run)
 *   role: { node, is, at, pair? }                  NODE's role at `at` (`standby` matches both
 *                                                  standby sub-states); pair default: NODE's home
 *                                                  share (`lb1/slot3` for slot3) or `shmc`
 *   sessions_lost: { max, min?, older_than?, protected?, pair?, data_plane? }
 *                                                  sessions lost (per the ha.md §5.5 oracle)
 *                                                  at most `max` (and at least `min`, default 0):
 *                                                  all, those at least `older_than`
 *                                                  old at the fault instant, or the protected ones;
 *                                                  data_plane: true counts what the emulator's data
 *                                                  plane dropped when boards left service instead
 *   sel_contains: { text, min? }                   a SEL line (`ipmitool sel elist` rendering)
 *                                                  contains `text` (case-insensitive); emulator only
 *   no_failover: PAIR                              no share of PAIR changes owner
 *   owner_changes: { pair, is?, max?, min? }       owner changes of PAIR's shares (the role
 *                                                  changes of ha.md §5.3)
 *   max_detection: { pair, max }                   every takeover of PAIR was decided within
 *                                                  `max` of its fault (at least one takeover)
 *   max_takeover: { pair, max }                    … and its new owner forwarded within `max`
 *   takeover: { pair, to?, from?, kind?, not_hot?, after?, within? }
 *                                                  a takeover like this happened
 *   alarm: { name, node?, pair?, after?, within?, cleared? }
 *                                                  the alarm was raised (cleared: cleared) in the window
 *   no_alarm: { name, node?, pair?, after?, until? }
 *                                                  it was never raised in the window
 *   reset: { node, after?, within?, cause? }        NODE's hardware reset it (cause e.g. watchdog)
 *   no_reset: NODE                                 NODE was never reset
 *   completion_code: { action, is, data? }         the `ipmi` action labelled `action` was answered
 *                                                  with completion code `is`; `data` as hex bytes,
 *                                                  `??` matches any byte
 *   traffic: { node, from, to, min_pps }           a hub or board handled at least min_pps packets/s
 *                                                  over [from, to]; emulator only
 *   double_active: { pair, min?, max?, ended_by? } double-active episodes of PAIR (the interlock off,
 *                                                  ha.md S24): count bounds, each over by `ended_by`
 *   refused: { action, code? }                     the action labelled `action` was refused (with
 *                                                  that CommandError code)
 *   invariants: ok | { allow: [names] }            no invariant violation (implied when absent),
 *                                                  or only the named ones (e.g. single-owner)
 */
import type { TimelineEntry } from '../sim/timeline.ts';
import type { Value } from '../config/yaml-reader.ts';
import type { RunResult } from './result.ts';

/** A checked expectation. */
export interface Expectation {
  kind: string;
  /** 1-based line in the scenario file. */
  line: number;
  /** Short text for reports. */
  text: string;
  pairs(): string[];
  nodes(): string[];
  /** Times (ms) at which the emulator must sample packet counters. */
  samples?(): Array<{ node: string; t: number }>;
  check(r: RunResult): { ok: boolean; detail: string };
}

/** Context of expectation parsing. */
export interface ExpectContext {
  engine: 'emulator' | 'model';
  labels: ReadonlySet<string>;
  runForMs: number;
}

/** Expectation kinds (docs/scenarios.md lists them). */
export const EXPECTATION_KINDS = [
  'never_two_active', 'active', 'role', 'sessions_lost', 'sel_contains', 'no_failover', 'owner_changes', 'max_detection',
  'max_takeover', 'takeover', 'alarm', 'no_alarm', 'reset', 'no_reset', 'completion_code', 'traffic', 'double_active', 'refused', 'invariants',
] as const;

/** One expectation kind. */
export type ExpectationKind = (typeof EXPECTATION_KINDS)[number];

const ROLE_NAMES = ['booting', 'arbitrating', 'active', 'active.handover', 'standby', 'standby.ready', 'standby.hot', 'resetting', 'failed', 'none'];

const ms = (x: number) => (x >= 1000 ? `${Number((x / 1000).toFixed(3))}s` : `${Number(x.toFixed(1))}ms`);

/** Role of `node` for `share` at time t (from the timeline; 'none' before its first role). */
export function roleAt(tl: readonly TimelineEntry[], node: string, share: string, t: number): string {
  let role = 'none';
  for (const e of tl) {
    if (e.t > t) break;
    if (e.type === 'role' && e.node === node && e.share === share) role = e.to;
  }
  return role;
}

function roleMatches(role: string, want: string): boolean {
  if (want === 'standby') return role === 'standby.ready' || role === 'standby.hot';
  return role === want;
}

/** What a parser of one expectation kind gets. */
interface ParseArgs {
  /** The value under the kind's key. */
  v: Value;
  kind: ExpectationKind;
  ctx: ExpectContext;
  /** The fields every expectation carries (kind, line, text, pairs, nodes). */
  base: (text: string, pairs: string[], nodes: string[]) => Omit<Expectation, 'check' | 'samples'>;
}

/** Parses the value of one expectation kind. @throws ConfigError located at the value */
type ExpectationParser = (a: ParseArgs) => Expectation;

const pairName = (x: Value) => x.str({ min: 1 });

/** `never_two_active` (see the module comment). */
const parseNeverTwoActive: ExpectationParser = ({ v, base }) => {
  const p = pairName(v);
  return {
    ...base(`never_two_active ${p}`, [p], []),
    check: (r) => {
      const shares = new Set(r.sharesOf[p] ?? [p]);
      const eps = r.timeline.filter((e): e is Extract<TimelineEntry, { type: 'double-active' }> => e.type === 'double-active' && shares.has(e.share));
      return eps.length === 0
        ? { ok: true, detail: 'no share had two owners' }
        : { ok: false, detail: `${eps.length} double-active episode(s), first at ${ms(eps[0]!.t)}: ${eps[0]!.share} owned by ${eps[0]!.nodes.join(' and ')}` };
    },
  };
};

/** `active` (see the module comment). */
const parseActive: ExpectationParser = ({ v, base }) => {
  const m = v.map();
  const p = pairName(m.req('pair'));
  const node = m.req('node').str();
  const within = m.req('within').duration();
  const after = m.opt('after')?.duration() ?? 0;
  const until = m.opt('until')?.duration();
  m.done(['pair', 'node', 'within', 'after', 'until']);
  return {
    ...base(`active ${node} on ${p} within ${ms(within)} after ${ms(after)}`, [p], [node]),
    check: (r) => {
      const shares = r.sharesOf[p] ?? [p];
      const holds = (t: number) => shares.every((s) => roleAt(r.timeline, node, s, t) === 'active');
      const end = until ?? r.durationMs;
      const cands = [after, ...r.timeline.filter((e) => e.type === 'role' && e.node === node && e.t > after && e.t <= after + within).map((e) => e.t)];
      const first = cands.find((t) => holds(t));
      if (first === undefined) {
        const now = shares.map((s) => `${s}: ${roleAt(r.timeline, node, s, after + within)}`).join(', ');
        return { ok: false, detail: `${node} not active on ${p} in [${ms(after)}, ${ms(after + within)}] (at the end of the window: ${now})` };
      }
      const lost = r.timeline.find((e) => e.type === 'role' && e.node === node && shares.includes(e.share) && e.t > first && e.t <= end && e.to !== 'active');
      if (lost && lost.type === 'role') return { ok: false, detail: `${node} active on ${p} at ${ms(first)} but ${lost.to} at ${ms(lost.t)} (before ${ms(end)})` };
      return { ok: true, detail: `${node} active on ${p} at ${ms(first)} (${ms(first - after)} after ${ms(after)}) and stays` };
    },
  };
};

/** `role` (see the module comment). */
const parseRole: ExpectationParser = ({ v, base }) => {
  const m = v.map();
  const node = m.req('node').str();
  const isV = m.req('is');
  const is = isV.str();
  if (!ROLE_NAMES.includes(is)) isV.fail(`"${is}" is not a role (${ROLE_NAMES.join(', ')})`);
  const at = m.req('at').duration();
  const pv = m.opt('pair');
  const p = pv ? pairName(pv) : undefined;
  m.done(['node', 'is', 'at', 'pair']);
  return {
    ...base(`role ${node} is ${is} at ${ms(at)}${p ? ` on ${p}` : ''}`, p ? [p] : [], [node]),
    check: (r) => {
      const shares = p ? (r.sharesOf[p] ?? [p]) : [r.homeShare[node] ?? node];
      const roles = shares.map((s) => roleAt(r.timeline, node, s, at));
      const ok = roles.every((x) => roleMatches(x, is));
      return { ok, detail: `${node} ${shares.map((s, i) => `${s}: ${roles[i]}`).join(', ')} at ${ms(at)}` };
    },
  };
};

/** `sessions_lost` (see the module comment). */
const parseSessionsLost: ExpectationParser = ({ v, base, ctx }) => {
  const m = v.map();
  const max = m.req('max').int({ min: 0 });
  const minV = m.opt('min');
  const min = minV?.int({ min: 0 }) ?? 0;
  if (min > max) minV!.fail(`min ${min} is above max ${max}`);
  const older = m.opt('older_than')?.duration();
  const prot = m.opt('protected')?.bool() ?? false;
  const pv = m.opt('pair');
  const p = pv ? pairName(pv) : undefined;
  const dpV = m.opt('data_plane');
  const dp = dpV?.bool() ?? false;
  m.done(['max', 'min', 'older_than', 'protected', 'pair', 'data_plane']);
  if (prot && older !== undefined) v.fail('give older_than or protected, not both');
  if (dp && (prot || older !== undefined || p)) dpV!.fail('data_plane counts every session the data plane dropped: no other filter');
  if (dp && ctx.engine !== 'emulator') dpV!.fail('data_plane needs the emulator');
  if (dp) {
    return {
      ...base(`sessions dropped by the data plane ${min > 0 ? `${min}…` : '≤ '}${max}`, [], []),
      check: (r) => {
        const n = r.sessions.dataPlaneLost ?? 0;
        return { ok: n <= max && n >= min, detail: `${n} sessions dropped by boards leaving service (TIME_WAIT and unsynced ones included)` };
      },
    };
  }
  const what = prot ? 'protected sessions' : older !== undefined ? `sessions older than ${ms(older)} at the fault` : 'sessions';
  return {
    ...base(`${what} lost ${min > 0 ? `${min}…` : '≤ '}${max}${p ? ` on ${p}` : ''}`, p ? [p] : [], []),
    check: (r) => {
      const shares = p ? new Set(r.sharesOf[p] ?? [p]) : null;
      let n = 0;
      let all = 0;
      for (const t of r.takeovers) {
        if (shares && !shares.has(t.share)) continue;
        all += t.loss.lost;
        if (prot) n += t.loss.lostProtected;
        else if (older !== undefined) for (const [age, c] of t.lostAges) n += age >= older ? c : 0;
        else n += t.loss.lost;
      }
      for (const d of r.drops) {
        if (shares && !shares.has(d.share)) continue;
        all += d.lost;
        if (prot) n += d.lostProtected ?? 0;
        else if (older === undefined) n += d.lost;
        else if (older !== undefined) for (const [age, c] of d.lostAges) n += age >= older ? c : 0;
      }
      return { ok: n <= max && n >= min, detail: `${n} ${what} lost (${all} lost in all)` };
    },
  };
};

/** `sel_contains` (see the module comment). */
const parseSelContains: ExpectationParser = ({ v, base, ctx }) => {
  if (ctx.engine !== 'emulator') v.fail('sel_contains needs the emulator (engine: emulator): the count model has no SEL');
  const m = v.map();
  const text = m.req('text').str({ min: 1 });
  const min = m.opt('min')?.int({ min: 1 }) ?? 1;
  m.done(['text', 'min']);
  return {
    ...base(`SEL contains "${text}"${min > 1 ? ` ×${min}` : ''}`, [], []),
    check: (r) => {
      const hits = (r.sel ?? []).filter((l) => l.toLowerCase().includes(text.toLowerCase()));
      return { ok: hits.length >= min, detail: hits.length ? `${hits.length} line(s), first: ${hits[0]}` : `no SEL line contains "${text}" (${(r.sel ?? []).length} records)` };
    },
  };
};

/** `no_failover` (see the module comment). */
const parseNoFailover: ExpectationParser = ({ v, base }) => {
  const p = pairName(v);
  return {
    ...base(`no failover on ${p}`, [p], []),
    check: (r) => {
      const shares = r.sharesOf[p] ?? [p];
      const n = shares.reduce((a, s) => a + (r.shares[s]?.ownerChanges ?? 0), 0);
      return { ok: n === 0, detail: n === 0 ? 'owners never changed' : `${n} owner change(s): ${r.takeovers.filter((t) => shares.includes(t.share)).map((t) => `${t.share} ${t.from}→${t.to} at ${ms(t.claimAt)}`).join('; ')}` };
    },
  };
};

/** `owner_changes` (see the module comment). */
const parseOwnerChanges: ExpectationParser = ({ v, base }) => {
  const m = v.map();
  const p = pairName(m.req('pair'));
  const is = m.opt('is')?.int({ min: 0 });
  const max = m.opt('max')?.int({ min: 0 });
  const min = m.opt('min')?.int({ min: 0 });
  m.done(['pair', 'is', 'max', 'min']);
  if (is === undefined && max === undefined && min === undefined) v.fail('give is, max or min');
  return {
    ...base(`owner changes of ${p}${is !== undefined ? ` = ${is}` : ''}${min !== undefined ? ` ≥ ${min}` : ''}${max !== undefined ? ` ≤ ${max}` : ''}`, [p], []),
    check: (r) => {
      const shares = r.sharesOf[p] ?? [p];
      const n = shares.reduce((a, s) => a + (r.shares[s]?.ownerChanges ?? 0), 0);
      const ok = (is === undefined || n === is) && (max === undefined || n <= max) && (min === undefined || n >= min);
      return { ok, detail: `${n} owner change(s)` };
    },
  };
};

/** `max_detection` / `max_takeover` (see the module comment). */
const parseMaxTime: ExpectationParser = ({ v, base, kind }) => {
  const m = v.map();
  const p = pairName(m.req('pair'));
  const max = m.req('max').duration();
  m.done(['pair', 'max']);
  const field = kind === 'max_detection' ? 'detectionMs' : 'takeoverMs';
  return {
    ...base(`${kind === 'max_detection' ? 'detection' : 'takeover'} on ${p} ≤ ${ms(max)}`, [p], []),
    check: (r) => {
      const shares = new Set(r.sharesOf[p] ?? [p]);
      const ts = r.takeovers.filter((t) => shares.has(t.share));
      if (ts.length === 0) return { ok: false, detail: `no takeover on ${p} to measure` };
      const worst = Math.max(...ts.map((t) => t[field]));
      return { ok: worst <= max, detail: `worst ${ms(worst)} over ${ts.length} takeover(s)` };
    },
  };
};

/** `takeover` (see the module comment). */
const parseTakeover: ExpectationParser = ({ v, base }) => {
  const m = v.map();
  const p = pairName(m.req('pair'));
  const to = m.opt('to')?.str();
  const from = m.opt('from')?.str();
  const kindV = m.opt('kind')?.oneOf(['forced', 'planned', 'boot', 'orphan'] as const);
  const notHot = m.opt('not_hot')?.bool();
  const after = m.opt('after')?.duration() ?? 0;
  const within = m.opt('within')?.duration();
  m.done(['pair', 'to', 'from', 'kind', 'not_hot', 'after', 'within']);
  return {
    ...base(`takeover on ${p}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}${kindV ? ` (${kindV})` : ''}${notHot !== undefined ? ` not_hot=${notHot}` : ''}`, [p], [to, from].filter((x): x is string => !!x)),
    check: (r) => {
      const shares = new Set(r.sharesOf[p] ?? [p]);
      const hit = r.takeovers.find((t) => shares.has(t.share) && (to === undefined || t.to === to) && (from === undefined || t.from === from) &&
        (kindV === undefined || t.kind === kindV) && (notHot === undefined || t.notHot === notHot) && t.claimAt >= after && (within === undefined || t.claimAt <= after + within));
      return hit
        ? { ok: true, detail: `${hit.share} ${hit.from}→${hit.to} (${hit.kind}${hit.notHot ? ', TAKEOVER_NOT_HOT' : ''}) at ${ms(hit.claimAt)}` }
        : { ok: false, detail: `no such takeover (takeovers: ${r.takeovers.filter((t) => shares.has(t.share)).map((t) => `${t.share} ${t.from}→${t.to} ${t.kind}${t.notHot ? ' not-hot' : ''} at ${ms(t.claimAt)}`).join('; ') || 'none'})` };
    },
  };
};

/** `alarm` / `no_alarm` (see the module comment). */
const parseAlarm: ExpectationParser = ({ v, base, kind }) => {
  const m = v.map();
  const name = m.req('name').str({ min: 1 });
  const node = m.opt('node')?.str();
  const pv = m.opt('pair');
  const p = pv ? pairName(pv) : undefined;
  const after = m.opt('after')?.duration() ?? 0;
  const within = kind === 'alarm' ? m.opt('within')?.duration() : undefined;
  const until = kind === 'no_alarm' ? m.opt('until')?.duration() : undefined;
  const cleared = kind === 'alarm' ? (m.opt('cleared')?.bool() ?? false) : false;
  m.done(kind === 'alarm' ? ['name', 'node', 'pair', 'after', 'within', 'cleared'] : ['name', 'node', 'pair', 'after', 'until']);
  return {
    ...base(`${kind === 'alarm' ? (cleared ? 'alarm cleared' : 'alarm raised') : 'no alarm'} ${name}${node ? ` on ${node}` : ''}${p ? ` (${p})` : ''}`, p ? [p] : [], node ? [node] : []),
    check: (r) => {
      const shares = p ? new Set(r.sharesOf[p] ?? [p]) : null;
      const end = kind === 'alarm' ? (within !== undefined ? after + within : r.durationMs) : (until ?? r.durationMs);
      const hits = r.timeline.filter((e): e is Extract<TimelineEntry, { type: 'alarm' }> => e.type === 'alarm' && e.alarm === name && e.raised === !cleared &&
        (node === undefined || e.node === node) && (shares === null || shares.has(e.share)) && e.t >= after && e.t <= end);
      if (kind === 'alarm') return hits.length ? { ok: true, detail: `${hits[0]!.node} ${hits[0]!.share} at ${ms(hits[0]!.t)}` } : { ok: false, detail: `not ${cleared ? 'cleared' : 'raised'} in [${ms(after)}, ${ms(end)}]` };
      return hits.length ? { ok: false, detail: `raised on ${hits[0]!.node} ${hits[0]!.share} at ${ms(hits[0]!.t)}` } : { ok: true, detail: 'never raised' };
    },
  };
};

/** `reset` / `no_reset` (see the module comment). */
const parseReset: ExpectationParser = ({ v, base, kind }) => {
  let node: string;
  let after = 0;
  let within: number | undefined;
  let cause: string | undefined;
  if (kind === 'no_reset') node = v.str();
  else {
    const m = v.map();
    node = m.req('node').str();
    after = m.opt('after')?.duration() ?? 0;
    within = m.opt('within')?.duration();
    cause = m.opt('cause')?.str();
    m.done(['node', 'after', 'within', 'cause']);
  }
  return {
    ...base(`${kind === 'reset' ? 'reset of' : 'no reset of'} ${node}${cause ? ` by ${cause}` : ''}`, [], [node]),
    check: (r) => {
      const end = within !== undefined ? after + within : r.durationMs;
      const hits = r.timeline.filter((e): e is Extract<TimelineEntry, { type: 'hardware' }> => e.type === 'hardware' && e.what === 'reset' && e.node === node &&
        (cause === undefined || e.cause.startsWith(cause)) && e.t >= after && e.t <= end);
      if (kind === 'reset') return hits.length ? { ok: true, detail: `reset (${hits[0]!.cause}) at ${ms(hits[0]!.t)}` } : { ok: false, detail: `not reset in [${ms(after)}, ${ms(end)}]` };
      return hits.length ? { ok: false, detail: `reset (${hits[0]!.cause}) at ${ms(hits[0]!.t)}` } : { ok: true, detail: 'never reset' };
    },
  };
};

/** `completion_code` (see the module comment). */
const parseCompletionCode: ExpectationParser = ({ v, base, ctx }) => {
  const m = v.map();
  const lv = m.req('action');
  const label = lv.str();
  if (!ctx.labels.has(label)) lv.fail(`no timeline action is labelled "${label}"`);
  const cc = m.req('is').int({ min: 0, max: 255, hex: true });
  const dv = m.opt('data');
  const data = dv ? dv.str() : undefined;
  if (dv && !/^(\s*(\?\?|[0-9a-fA-F]{2}))*\s*$/.test(data!)) dv.fail('data: hex bytes separated by spaces, ?? for any byte (e.g. "44 01 ?? 10")');
  m.done(['action', 'is', 'data']);
  const want = data?.trim() ? data.trim().split(/\s+/) : undefined;
  return {
    ...base(`${label} answered 0x${cc.toString(16).padStart(2, '0')}${want ? ` [${want.join(' ')}]` : ''}`, [], []),
    check: (r) => {
      const got = r.responses[label];
      if (!got) return { ok: false, detail: `action ${label} did not run` };
      const gotHex = got.data.map((b) => b.toString(16).padStart(2, '0'));
      let ok = got.cc === cc;
      if (ok && want) ok = want.length === gotHex.length && want.every((w, i) => w === '??' || w.toLowerCase() === gotHex[i]);
      return { ok, detail: `cc 0x${got.cc.toString(16).padStart(2, '0')} data [${gotHex.join(' ')}]` };
    },
  };
};

/** `traffic` (see the module comment). */
const parseTraffic: ExpectationParser = ({ v, base, ctx }) => {
  if (ctx.engine !== 'emulator') v.fail('traffic needs the emulator (engine: emulator)');
  const m = v.map();
  const node = m.req('node').str();
  const from = m.req('from').duration();
  const toV = m.req('to');
  const to = toV.duration();
  if (!(to > from)) toV.fail('to must be after from');
  if (to > ctx.runForMs) toV.fail('to is after run_for');
  const minPps = m.req('min_pps').num({ min: 0 });
  m.done(['node', 'from', 'to', 'min_pps']);
  return {
    ...base(`${node} handles ≥ ${minPps} packets/s in [${ms(from)}, ${ms(to)}]`, [], [node]),
    samples: () => [{ node, t: from }, { node, t: to }],
    check: (r) => {
      const s = r.packets[node] ?? [];
      const a = s.find((x) => x[0] === from);
      const b = s.find((x) => x[0] === to);
      if (!a || !b) return { ok: false, detail: `no packet samples for ${node}` };
      const pps = ((b[1] - a[1]) * 1000) / (to - from);
      return { ok: pps >= minPps, detail: `${Math.round(pps)} packets/s` };
    },
  };
};

/** `double_active` (see the module comment). */
const parseDoubleActive: ExpectationParser = ({ v, base }) => {
  const m = v.map();
  const p = pairName(m.req('pair'));
  const min = m.opt('min')?.int({ min: 0 }) ?? 1;
  const max = m.opt('max')?.int({ min: 0 });
  const endedBy = m.opt('ended_by')?.duration();
  m.done(['pair', 'min', 'max', 'ended_by']);
  return {
    ...base(`double-active episodes on ${p} ≥ ${min}${max !== undefined ? ` ≤ ${max}` : ''}${endedBy !== undefined ? `, over by ${ms(endedBy)}` : ''}`, [p], []),
    check: (r) => {
      const shares = new Set(r.sharesOf[p] ?? [p]);
      const eps = r.timeline.filter((e): e is Extract<TimelineEntry, { type: 'double-active' }> => e.type === 'double-active' && shares.has(e.share));
      const late = endedBy === undefined ? [] : eps.filter((e) => e.until === null || e.until > endedBy);
      const ok = eps.length >= min && (max === undefined || eps.length <= max) && late.length === 0;
      return { ok, detail: `${eps.length} episode(s)${eps.map((e) => ` [${ms(e.t)}–${e.until === null ? 'end' : ms(e.until)}: ${e.nodes.join('+')}]`).join('')}` };
    },
  };
};

/** `refused` (see the module comment). */
const parseRefused: ExpectationParser = ({ v, base, ctx }) => {
  const m = v.map();
  const lv = m.req('action');
  const label = lv.str();
  if (!ctx.labels.has(label)) lv.fail(`no timeline action is labelled "${label}"`);
  const code = m.opt('code')?.str();
  m.done(['action', 'code']);
  return {
    ...base(`${label} refused${code ? ` (${code})` : ''}`, [], []),
    check: (r) => {
      const got = r.actions[label];
      if (!got) return { ok: false, detail: `action ${label} did not run` };
      if (got.ok) return { ok: false, detail: `${got.text} was accepted` };
      return { ok: code === undefined || got.error?.startsWith(`${code}:`) === true, detail: `refused: ${got.error}` };
    },
  };
};

/** `invariants` (see the module comment). */
const parseInvariants: ExpectationParser = ({ v, base }) => {
  let allow: string[] = [];
  if (v.isMap) {
    const m = v.map();
    allow = m.req('allow').list().map((x) => x.str());
    m.done(['allow']);
  } else if (v.str() !== 'ok') v.fail('expected ok or { allow: [names] }');
  return {
    ...base(allow.length ? `no invariant violation except ${allow.join(', ')}` : 'no invariant violation', [], []),
    check: (r) => {
      const bad = r.invariants.violations.filter((x) => !allow.includes(x.invariant));
      return bad.length === 0
        ? { ok: true, detail: `${r.invariants.checks} checks${r.invariants.violations.length ? `, ${r.invariants.violations.length} allowed violation(s)` : ''}` }
        : { ok: false, detail: `${bad.length} violation(s), first at ${ms(bad[0]!.t)}: ${bad[0]!.invariant}: ${bad[0]!.detail}` };
    },
  };
};

/** The parser of each kind. */
const PARSERS: Record<ExpectationKind, ExpectationParser> = {
  never_two_active: parseNeverTwoActive,
  active: parseActive,
  role: parseRole,
  sessions_lost: parseSessionsLost,
  sel_contains: parseSelContains,
  no_failover: parseNoFailover,
  owner_changes: parseOwnerChanges,
  max_detection: parseMaxTime,
  max_takeover: parseMaxTime,
  takeover: parseTakeover,
  alarm: parseAlarm,
  no_alarm: parseAlarm,
  reset: parseReset,
  no_reset: parseReset,
  completion_code: parseCompletionCode,
  traffic: parseTraffic,
  double_active: parseDoubleActive,
  refused: parseRefused,
  invariants: parseInvariants,
};

/**
 * Parses one expectation item.
 * @throws ConfigError located at the item
 */
export function parseExpectation(item: Value, ctx: ExpectContext): Expectation {
  const line = item.src.pos(item.node?.range?.[0] ?? 0).line;
  const top = item.map();
  const keys = top.keys();
  if (keys.length !== 1) item.fail(`each expectation is one key (${EXPECTATION_KINDS.join(', ')}), got ${keys.length ? keys.join(', ') : 'none'}`);
  const kind = keys[0]!;
  if (!(EXPECTATION_KINDS as readonly string[]).includes(kind)) top.src.fail(top.keyNode(kind), `unknown expectation "${kind}" (expected one of: ${EXPECTATION_KINDS.join(', ')})`);
  const v = top.req(kind);
  top.done();
  const base = (text: string, pairs: string[], nodes: string[]) => ({ kind, line, text, pairs: () => pairs, nodes: () => nodes });
  const parse = PARSERS[kind as ExpectationKind];
  if (!parse) return item.fail(`unknown expectation "${kind}"`);
  return parse({ v, kind: kind as ExpectationKind, ctx, base });
}

/** The implied `invariants: ok` of a scenario that states none. */
export function impliedInvariants(line: number): Expectation {
  return {
    kind: 'invariants', line, text: 'no invariant violation (implied)', pairs: () => [], nodes: () => [],
    check: (r) => {
      const bad = r.invariants.violations;
      return bad.length === 0 ? { ok: true, detail: `${r.invariants.checks} checks` } : { ok: false, detail: `${bad.length} violation(s), first at ${ms(bad[0]!.t)}: ${bad[0]!.invariant}: ${bad[0]!.detail}` };
    },
  };
}
