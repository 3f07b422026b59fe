/**
 * Compare real ipmitool / FreeIPMI runs against atcasim with the reference transcripts in
 * ../shared/ipmi/golden (format: ../shared/ipmi/README.md "Golden-file format"), by *shape*:
 * same exit code, same field labels in the same order, the same sections and blank lines, the
 * same table column counts, stderr empty where the transcript's is, and the same stderr text
 * where both fail for the same reason. Values (IDs, GUIDs, counts, names) are atcasim's own, and
 * runs of same-shaped lines or blocks (user tables, session slots) match any length ≥ 1
 * (README "Comparing atcasim with these files").
 *
 * Usage (the full battery reuses this):
 *   const r = await runAgainstGolden('ipmitool-lanplus-C3/01_mc_info.txt', port);
 *   expect(r.problems).toEqual([]);
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shared } from './shared.ts';

/** One parsed transcript. */
export interface GoldenTranscript {
  /** Path relative to ../shared/ipmi/golden. */
  file: string;
  /** The command line exactly as recorded (host 127.0.0.1, port 9001). */
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Parses a transcript (byte counts are honoured, so trailing blanks survive).
 * @throws Error naming the file and the line that does not follow the format
 */
export function parseGolden(text: string, file = '<text>'): GoldenTranscript {
  const buf = Buffer.from(text, 'utf8');
  let pos = 0;
  const line = (): string => {
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) throw new Error(`${file}: truncated transcript at byte ${pos}`);
    const l = buf.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    return l;
  };
  const block = (name: string): string => {
    const h = line();
    const m = new RegExp(`^=== ${name} \\((\\d+) bytes\\)$`).exec(h);
    if (!m) throw new Error(`${file}: expected "=== ${name} (N bytes)", got "${h}"`);
    const n = Number(m[1]);
    const s = buf.subarray(pos, pos + n).toString('utf8');
    pos += n;
    if (buf[pos] === 0x0a && buf[pos + 1] === 0x3d && n > 0 && buf[pos - 1] !== 0x0a) pos++; // newline added after unterminated output
    return s;
  };
  const cmd = line();
  if (!cmd.startsWith('$ ')) throw new Error(`${file}: first line must start with "$ "`);
  const ex = /^=== exit code: (\d+)$/.exec(line());
  if (!ex) throw new Error(`${file}: missing "=== exit code"`);
  const stdout = block('stdout');
  const stderr = block('stderr');
  if (line() !== '=== end') throw new Error(`${file}: missing "=== end"`);
  return { file, command: cmd.slice(2), exitCode: Number(ex[1]), stdout, stderr };
}

/** Loads ../shared/ipmi/golden/<rel>. */
export function loadGolden(rel: string): GoldenTranscript {
  return parseGolden(readFileSync(shared('ipmi', 'golden', rel), 'utf8'), rel);
}

/** Transcript paths of one folder of ../shared/ipmi/golden (e.g. 'ipmitool-lanplus-C3'), in battery order. */
export function listGolden(folder: string): string[] {
  return readdirSync(shared('ipmi', 'golden', folder))
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => `${folder}/${f}`);
}

/** Splits a recorded command line like a POSIX shell would for these files (single and double quotes). */
export function splitCommandLine(cmd: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let has = false;
  for (const ch of cmd) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else cur += ch;
  }
  if (quote) throw new Error(`unterminated quote in: ${cmd}`);
  if (has || cur) out.push(cur);
  return out;
}

/** Points a recorded argv at atcasim: ipmitool / rmcp_ping `-p 9001`, FreeIPMI `-h 127.0.0.1:9001`. */
export function retarget(argv: string[], port: number, host = '127.0.0.1'): string[] {
  return argv.map((a, i) => {
    if (argv[i - 1] === '-p' && a === '9001' && (argv[0] === 'ipmitool' || argv[0] === 'rmcp_ping')) return String(port);
    if (argv[i - 1] === '-H' && argv[0] === 'ipmitool') return host;
    if (argv[i - 1] === '-h' && /:9001$/.test(a)) return `${host}:${port}`;
    return a;
  });
}

/** Outcome of a client run. */
export interface RunResult {
  argv: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Wall-clock duration, ms (informational; not asserted). */
  ms: number;
}

let freeipmiHome: string | undefined;

/**
 * Runs a client asynchronously (the LAN server may live in this process, so never spawnSync).
 * FreeIPMI gets a private empty HOME (SDR cache), as the transcripts were taken.
 */
export function runClient(argv: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  freeipmiHome ??= mkdtempSync(join(tmpdir(), 'atcasim-freeipmi-'));
  const start = performance.now();
  return new Promise((resolve) => {
    execFile(
      argv[0]!,
      argv.slice(1),
      { encoding: 'utf8', timeout: opts.timeoutMs ?? 60_000, env: { ...process.env, HOME: freeipmiHome, LC_ALL: 'C', ...opts.env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
        resolve({ argv, exitCode: code, stdout, stderr, ms: performance.now() - start });
      },
    );
  });
}

/** Options of the shape comparison. */
export interface ShapeOptions {
  /** Labels (text before the colon, trimmed) removed from both outputs before comparing, e.g. atcasim's extra "console ip". */
  ignoreLabels?: readonly string[];
  /** Applied to both outputs first (e.g. cut FreeIPMI's bogus channel entries). */
  transform?: (text: string) => string;
  /**
   * Compare record listings whose records differ in kind and number (FreeIPMI `ipmi-sensors -v`:
   * threshold and discrete records in the shelf's own order): the first block must match, and the
   * set of distinct block shapes must be the same (each expected kind of record appears, and no
   * other kind). Default false: blocks compared in order with runs collapsed.
   */
  blockSet?: boolean;
}

/**
 * The shape of an output: one token per line — BLANK, TABLE:<number of '|'>, LABEL:<text up to
 * and including the first colon that is followed by a space or the end of the line, padding kept>,
 * TEXT:# (unindented line starting with a digit: a table row), TEXT:<first word> (other unindented
 * text: headings, table headers) or TEXT:<indent> (indented list items) — with runs of equal
 * tokens collapsed, then runs of equal blank-separated blocks collapsed.
 */
export function shapeOf(text: string, opts: ShapeOptions = {}): string[] {
  const src = opts.transform ? opts.transform(text) : text;
  const ignore = new Set(opts.ignoreLabels ?? []);
  const tokens: string[] = [];
  for (const line of src.split('\n')) {
    let t: string;
    if (line.trim() === '') t = 'BLANK';
    else if (line.includes('|')) t = `TABLE:${line.split('|').length - 1}`;
    else {
      const m = /^([^:]*?):(?=\s|$)/.exec(line);
      if (m && m[1]!.length <= 48) {
        if (ignore.has(m[1]!.trim())) continue;
        t = `LABEL:${m[1]}:`;
      } else {
        const indent = /^\s*/.exec(line)![0];
        // unindented: a row starting with a number (table row) or the first word (headings, headers)
        if (indent === '') t = /^\d/.test(line) ? 'TEXT:#' : `TEXT:${line.split(/\s+/)[0]}`;
        else t = `TEXT:${indent.replace(/\t/g, '\\t')}`;
      }
    }
    if (tokens[tokens.length - 1] !== t) tokens.push(t);
  }
  while (tokens[tokens.length - 1] === 'BLANK') tokens.pop();
  // collapse repeated blocks (runs between BLANKs)
  const blocks: string[][] = [[]];
  for (const t of tokens) {
    if (t === 'BLANK') blocks.push([]);
    else blocks[blocks.length - 1]!.push(t);
  }
  const out: string[] = [];
  let prev: string | undefined;
  for (const b of blocks) {
    const key = b.join('\n');
    if (key === prev) continue;
    if (prev !== undefined) out.push('BLANK');
    out.push(...b);
    prev = key;
  }
  return out;
}

/** The blocks (runs between BLANK tokens) of a shape. */
function blocksOf(shape: string[]): string[] {
  const out: string[][] = [[]];
  for (const t of shape) {
    if (t === 'BLANK') out.push([]);
    else out[out.length - 1]!.push(t);
  }
  return out.filter((b) => b.length > 0).map((b) => b.join('\n'));
}

/** Differences between two outputs' shapes (empty when they match). */
export function compareShape(expected: string, actual: string, opts: ShapeOptions = {}): string[] {
  const a = shapeOf(expected, opts);
  const b = shapeOf(actual, opts);
  const problems: string[] = [];
  if (opts.blockSet) {
    const ea = blocksOf(a);
    const eb = blocksOf(b);
    if (ea[0] !== eb[0]) problems.push(`first block differs: expected ${JSON.stringify(ea[0])}, got ${JSON.stringify(eb[0])}`);
    const sa = new Set(ea);
    const sb = new Set(eb);
    for (const k of sa) if (!sb.has(k)) problems.push(`no block shaped ${JSON.stringify(k)}`);
    for (const k of sb) if (!sa.has(k)) problems.push(`unexpected block shaped ${JSON.stringify(k)}`);
    return problems;
  }
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) {
      problems.push(`shape differs at token ${i}: expected ${JSON.stringify(a[i])}, got ${JSON.stringify(b[i])}`);
      break;
    }
  }
  return problems;
}

/** Overrides for the outcomes where atcasim must differ from ipmi_sim (README "ipmi_sim fails, atcasim must succeed"). */
export interface GoldenExpectations extends ShapeOptions {
  /** Expected exit code instead of the transcript's. */
  exitCode?: number;
  /** Expected stdout to compare the shape with, instead of the transcript's (e.g. the -C 3 output for -C 17). */
  stdout?: string;
  /** Expected stderr: exact text, a pattern, or '' for empty. Default: the transcript's (empty ↔ empty, else exact). */
  stderr?: string | RegExp;
  /** Replaces the recorded argv (after retargeting), e.g. to drop `-W opensesspriv`. */
  argv?: (argv: string[]) => string[];
}

/** A run compared with its transcript. */
export interface GoldenComparison {
  golden: GoldenTranscript;
  result: RunResult;
  /** Human-readable differences; empty when the run matches. */
  problems: string[];
}

/**
 * Runs the transcript's command line against 127.0.0.1:`port` and compares exit code, stdout
 * shape and stderr. @param rel path under ../shared/ipmi/golden
 */
export async function runAgainstGolden(rel: string, port: number, exp: GoldenExpectations = {}): Promise<GoldenComparison> {
  const golden = loadGolden(rel);
  let argv = retarget(splitCommandLine(golden.command), port);
  if (exp.argv) argv = exp.argv(argv);
  const result = await runClient(argv);
  const problems: string[] = [];
  const wantExit = exp.exitCode ?? golden.exitCode;
  if (result.exitCode !== wantExit) problems.push(`exit code ${result.exitCode}, expected ${wantExit}`);
  problems.push(...compareShape(exp.stdout ?? golden.stdout, result.stdout, exp));
  const wantErr = exp.stderr ?? golden.stderr;
  if (wantErr instanceof RegExp) {
    if (!wantErr.test(result.stderr)) problems.push(`stderr ${JSON.stringify(result.stderr)} does not match ${wantErr}`);
  } else if (result.stderr !== wantErr) {
    problems.push(`stderr ${JSON.stringify(result.stderr)}, expected ${JSON.stringify(wantErr)}`);
  }
  if (problems.length) problems.push(`command: ${argv.join(' ')}`, `stdout was:\n${result.stdout}`);
  return { golden, result, problems };
}

/** Cuts FreeIPMI bmc-info after the channel 0 and 1 entries (the rest is client-side garbage, research §I.10). */
export function firstTwoChannels(text: string): string {
  let at = -1;
  for (let i = 0; i < 3; i++) {
    at = text.indexOf('Channel Number', at + 1);
    if (at < 0) return text;
  }
  return text.slice(0, at);
}
