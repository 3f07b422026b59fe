/**
 * The bench summary: the performance targets with the measured value of
 * this run and whether each is met, rendered as a Markdown table (the README's performance
 * section and docs/bench.md take it as is). Pure: figures in, rows and text out.
 */

/** One line of the summary table. */
export interface SummaryRow {
  /** What is measured. */
  metric: string;
  /** The target, as text (e.g. '≥ 3,000,000 packets/s'). */
  target: string;
  /** The measured value, as text. */
  measured: string;
  /** Reference or anchor measured or quoted beside it (e.g. tcpdump, IPVS). */
  reference: string;
  /** null when the figure was not measured in this run. */
  met: boolean | null;
}

const n0 = (x: number) => Math.round(x).toLocaleString('en');
const f4 = (x: number) => x.toFixed(4);

/**
 * The target rows from the figures of bench/run.ts (keys prefixed `replay.`,
 * `processor.`, `switch.`). A target whose figures are missing is listed with met = null.
 */
export function summaryRows(f: Record<string, number>): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const has = (...k: string[]) => k.every((x) => typeof f[x] === 'number' && Number.isFinite(f[x]));

  if (has('replay.replay.pps', 'replay.replay.cpu_pps')) {
    const pps = f['replay.replay.pps']!;
    const cpu = f['replay.replay.cpu_pps']!;
    rows.push({
      metric: 'full data path, one core, bench capture (replay --loop)',
      target: '≥ 3,000,000 packets/s',
      measured: `${n0(pps)} packets/s wall (${f['replay.replay.ns_per_packet']!.toFixed(0)} ns/packet); ${n0(cpu)} packets/s of CPU time (${f['replay.replay.cpu_ns_per_packet']!.toFixed(0)} ns)`,
      reference: `tcpdump -r: ${n0(f['replay.reference.tcpdump.pps'] ?? 0)} packets/s (atcasim ×${(f['replay.replay.ratio_to_tcpdump'] ?? 0).toFixed(2)}); IPVS ~1,200,000 per core`,
      met: Math.max(pps, cpu) >= 3_000_000,
    });
  } else rows.push({ metric: 'full data path, one core, bench capture', target: '≥ 3,000,000 packets/s', measured: 'not measured', reference: '', met: null });

  if (has('processor.session.ipv4.bytes_per_entry')) {
    const v4 = f['processor.session.ipv4.bytes_per_entry']!;
    const v6 = f['processor.session.ipv6.bytes_per_entry'];
    rows.push({
      metric: 'session table, bytes per IPv4 entry at 1.5 M entries',
      target: '≤ 64 bytes',
      measured: `${v4.toFixed(1)} bytes (IPv6: ${v6 !== undefined ? v6.toFixed(1) : '-'} bytes incl. side store); ${n0(f['processor.session.ipv4.inserts_per_s'] ?? 0)} inserts/s, ${n0(f['processor.session.ipv4.lookups_per_s'] ?? 0)} lookups/s`,
      reference: `Map<string>: ${n0(f['processor.reference.map_string.heap_bytes_per_entry'] ?? 0)} bytes, ${n0(f['processor.reference.map_string.inserts_per_s'] ?? 0)} inserts/s; Linux conntrack ~300 bytes`,
      met: v4 <= 64,
    });
  } else rows.push({ metric: 'session table, bytes per IPv4 entry at 1.5 M', target: '≤ 64 bytes', measured: 'not measured', reference: '', met: null });

  if (has('switch.imbalance.pearson.resilient.n8')) {
    const algs = ['pearson', 'crc32', 'crc16', 'toeplitz'];
    const worst = Math.max(...algs.map((a) => f[`switch.imbalance.${a}.resilient.n8`] ?? 0));
    const def = f['switch.imbalance.pearson.resilient.n8']!;
    rows.push({
      metric: 'max/mean load, 1,000,000 flows over 8 ports (default pearson + resilient)',
      target: '≤ 1.01',
      measured: `${f4(def)} (worst hash: ${f4(worst)}; modulo pearson ${f4(f['switch.imbalance.pearson.modulo.n8'] ?? 0)})`,
      reference: `noise floor ${f4(f['switch.imbalance.floor.n8'] ?? 0)}; FM40 switch board 2.3 % deviation`,
      met: def <= 1.01,
    });
  } else rows.push({ metric: 'max/mean load, 1M flows over 8 ports', target: '≤ 1.01', measured: 'not measured', reference: '', met: null });

  const remap: Array<[string, string, string]> = [
    ['resilient, remove 1 of 8', 'switch.remap.remove.resilient', 'switch.remap.remove.ideal'],
    ['resilient, add a 9th', 'switch.remap.add.resilient', 'switch.remap.add.ideal'],
    ['maglev, remove 1 of 8', 'processor.maglev.remove.flow_fraction', 'processor.maglev.remove.ideal'],
    ['maglev, add a 9th', 'processor.maglev.add.flow_fraction', 'processor.maglev.add.ideal'],
  ];
  for (const [name, k, ideal] of remap) {
    if (!has(k, ideal)) {
      rows.push({ metric: `flows remapped, ${name}`, target: '≤ 1.05 × ideal', measured: 'not measured', reference: '', met: null });
      continue;
    }
    const ratio = f[k]! / f[ideal]!;
    const modK = k.includes('remove') ? 'switch.remap.remove.modulo' : 'switch.remap.add.modulo';
    rows.push({
      metric: `flows remapped, ${name}`,
      target: '≤ 1.05 × ideal',
      measured: `${(f[k]! * 100).toFixed(2)} % = ×${ratio.toFixed(3)} ideal (${(f[ideal]! * 100).toFixed(2)} %)`,
      reference: `modulo: ${((f[modK] ?? 0) * 100).toFixed(2)} %`,
      met: ratio <= 1.05,
    });
  }
  return rows;
}

/** The summary as a Markdown table with a heading line. */
export function formatSummary(rows: readonly SummaryRow[], loadText: string): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const L = [
    `Summary of targets — ${loadText} at the end of the run`,
    '',
    '| metric | target | measured | reference (same run / anchor) | met |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) L.push(`| ${esc(r.metric)} | ${esc(r.target)} | ${esc(r.measured)} | ${esc(r.reference)} | ${r.met === null ? 'not measured' : r.met ? 'yes' : '**no**'} |`);
  return L.join('\n');
}
