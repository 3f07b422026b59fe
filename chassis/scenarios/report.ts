/**
 * Renders scenario reports: the text a person reads (timeline of role changes, detection and
 * takeover times, sessions lost by age, double-active instants, each expectation with ✓/✗), the
 * JSON scripts read (`--json`: deterministic — the same file gives byte-identical output, no wall
 * times), and JUnit XML for CI (`--junit FILE`). Pure: reports in, text out.
 */
import type { TimelineEntry } from '../sim/timeline.ts';
import type { ScenarioReport } from './runner.ts';

const fmt = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(3)}s` : '-');
const dur = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(3)} s` : `${ms.toFixed(1)} ms`);

function timelineLine(e: TimelineEntry): string | null {
  switch (e.type) {
    case 'action':
      return `${fmt(e.t)}  do ${e.text}${e.ok ? '' : `  (refused: ${e.error})`}`;
    case 'role':
      return `${fmt(e.t)}  ${e.node} ${e.share}: ${e.from} → ${e.to} (epoch ${e.epoch}${e.to === 'active' && e.activation ? `, ${e.activation}${e.notHot ? ', TAKEOVER_NOT_HOT' : ''}` : ''})`;
    case 'hardware':
      return e.what === 'power-on' && e.cause === 'initial' ? null : `${fmt(e.t)}  ${e.node} ${e.what} (${e.cause})`;
    case 'watchdog':
      return `${fmt(e.t)}  ${e.node} IPMI watchdog ${e.event}`;
    case 'takeover':
      return e.from === null ? null : `${fmt(e.t)}  ${e.share} moved ${e.from} → ${e.to} (${e.kind ?? 'unknown'})`;
    case 'double-active':
      return `${fmt(e.t)}  DOUBLE ACTIVE ${e.share}: ${e.nodes.join(' and ')}${e.until !== null ? ` until ${fmt(e.until)}` : ''}`;
    case 'loss':
      return `${fmt(e.t)}  ${e.share}: ${e.lost} sessions lost${e.node ? ` on ${e.node}` : ''} with no takeover (protected ${e.protected}): ${e.reason}`;
    case 'handover-aborted':
      return `${fmt(e.t)}  ${e.node} ${e.share}: planned switchover abandoned (${e.reason}), ${e.node} keeps the share`;
    case 'violation':
      return `${fmt(e.t)}  VIOLATION ${e.invariant}: ${e.detail}`;
    case 'alarm':
      return null;
  }
}

/**
 * The text report of one scenario.
 * @param opts.roles include the boot-time role changes (before the first action), default false
 */
export function formatReport(r: ScenarioReport, opts: { verbose?: boolean } = {}): string {
  const res = r.result;
  const out: string[] = [];
  out.push(`${r.passed ? 'PASS' : 'FAIL'}  ${r.name}  (${r.file}; engine ${r.engine}, seed ${r.seed}, ${dur(r.runForMs)} simulated)`);
  const firstAction = res.timeline.find((e) => e.type === 'action')?.t ?? Infinity;
  const lines = res.timeline
    .filter((e) => opts.verbose || e.type !== 'role' || e.t >= firstAction || e.to === 'active')
    .map(timelineLine)
    .filter((x): x is string => x !== null);
  out.push('  timeline:');
  const shown = opts.verbose ? lines : lines.slice(0, 60);
  for (const l of shown) out.push(`    ${l}`);
  if (shown.length < lines.length) out.push(`    … ${lines.length - shown.length} more (--verbose)`);
  const moves = res.takeovers;
  out.push(`  takeovers: ${moves.length === 0 ? 'none' : ''}`);
  for (const t of moves) {
    out.push(
      `    ${t.share} ${t.from} → ${t.to} (${t.kind ?? '?'}${t.notHot ? ', not hot' : ''}, epoch ${t.epoch}): fault ${fmt(t.faultAt)}, ` +
        `detected ${dur(t.detectionMs)} (${t.detectionIntervals.toFixed(2)} heartbeat intervals), forwarding ${dur(t.takeoverMs)} after the fault; ` +
        `lost ${t.loss.lost} (protected ${t.loss.lostProtected}, ≥T_s+B ${t.loss.lostEstablished}, oldest ${dur(t.loss.maxLostAgeMs)})`,
    );
  }
  const by = res.sessions.byAge;
  const ages = ['<1s', '1-3s', '3s-Ts+B', '>=Ts+B'].map((k) => `${k}: ${by[k] ?? 0}`).join(', ');
  out.push(`  sessions: created ${res.sessions.created}, lost ${res.sessions.lost} (${ages}; protected ${res.sessions.lostProtected})${res.sessions.dataPlaneLost !== undefined ? `, data plane counted ${res.sessions.dataPlaneLost} lost` : ''}`);
  out.push(`  sync: ${res.sync.datagrams} datagrams, ${res.sync.bytes} bytes; age filter saved ${(100 * res.sync.ageFilterReduction).toFixed(1)} % of the sessions`);
  out.push(`  double-active instants: ${res.doubleActive.episodes} (${dur(res.doubleActive.totalMs)})`);
  const alarms = Object.entries(res.alarms).map(([k, v]) => `${k}×${v}`).join(', ');
  out.push(`  alarms raised: ${alarms || 'none'}`);
  out.push(`  invariants: ${res.invariants.checks} checks, ${res.invariants.violations.length} violation(s)`);
  out.push('  expectations:');
  for (const e of r.expectations) out.push(`    ${e.ok ? '✓' : '✗'} ${e.text} — ${e.detail}${e.ok ? '' : ` (line ${e.line})`}`);
  return out.join('\n');
}

/** The JSON of a list of reports (deterministic: no wall times; two spaces of indentation). */
export function reportsJson(reports: readonly ScenarioReport[]): string {
  return JSON.stringify(reports.map((r) => ({ ...r, result: { ...r.result } })), (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? (v > 0 ? 'Infinity' : v < 0 ? '-Infinity' : 'NaN') : v), 2);
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * JUnit XML (one testcase per scenario; failed expectations in its failure element).
 * @param wallMs wall time each scenario took, ms (the `time` attributes)
 */
export function junitXml(reports: readonly ScenarioReport[], wallMs: readonly number[]): string {
  const failures = reports.filter((r) => !r.passed).length;
  const total = wallMs.reduce((a, b) => a + b, 0) / 1000;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="atcasim scenario" tests="${reports.length}" failures="${failures}" time="${total.toFixed(3)}">`,
    `  <testsuite name="atcasim scenario" tests="${reports.length}" failures="${failures}" errors="0" time="${total.toFixed(3)}">`,
  ];
  reports.forEach((r, i) => {
    lines.push(`    <testcase classname="${xml(r.file)}" name="${xml(r.name)}" time="${((wallMs[i] ?? 0) / 1000).toFixed(3)}">`);
    const bad = r.expectations.filter((e) => !e.ok);
    if (bad.length) {
      lines.push(`      <failure message="${xml(`${bad.length} expectation(s) failed: ${bad.map((e) => e.text).join('; ')}`)}" type="expectation">${xml(bad.map((e) => `line ${e.line}: ${e.text} — ${e.detail}`).join('\n'))}</failure>`);
    }
    lines.push(`      <system-out>${xml(formatReport(r))}</system-out>`);
    lines.push('    </testcase>');
  });
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
