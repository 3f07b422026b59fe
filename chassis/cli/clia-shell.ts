/**
 * `atcasim clia` without a verb: an interactive shell in the style of Pigeon Point's `clia`
 * (`CLI>` prompt), on node:readline.
 *
 * - each line is one verb with its arguments, run as `atcasim clia VERB …` would run it (one IPMI
 *   session per command, so an idle shell never holds a session the shelf times out); words in
 *   double or single quotes stay together (`sensordata slot3 "Node3 Temp"`);
 * - `help [VERB]`, `history` (this shell's lines), `exit` / `quit` / Ctrl-D leave (exit status 0);
 * - ↑/↓ walk the history; Tab completes verbs, then FRU names (the shelf's FRU list, read once
 *   at start and again after each command) and each verb's keywords;
 * - a failing command prints its message and the shell goes on; the last status is kept for the
 *   exit status of a shell fed from a pipe (`printf 'fru slot3\n' | atcasim clia`).
 */
import { createInterface, type Completer } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { THRESHOLDS } from '../clia/verbs-threshold.ts';
import { LAN_PARAMS } from '../clia/verbs-lan.ts';
import { VERBS } from '../clia/verbs.ts';

/** Words that follow a verb (besides FRU names), for Tab completion. */
const KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  alarm: ['minor', 'major', 'critical', 'clear'],
  shelf: ['info', 'power', 'cooling'],
  user: ['list', 'add', 'passwd', 'priv', 'enable', 'disable', 'delete', 'callback', 'operator', 'admin', 'none'],
  setthreshold: [...THRESHOLDS, '-r'],
  getlanconfig: Object.keys(LAN_PARAMS),
  setlanconfig: Object.keys(LAN_PARAMS).filter((k) => LAN_PARAMS[k]!.parse),
  inject: ['fault', 'sensor', 'payload', 'comm'],
  repair: ['payload', 'comm'],
  handle: ['open', 'close'],
  frucontrol: ['cold', 'warm', 'graceful', 'diag'],
  sel: ['clear'],
  help: Object.keys(VERBS),
};
/** Verbs that take no FRU. */
const NO_FRU = new Set(['shmstatus', 'switchover', 'showunhealthy', 'alarm', 'shelf', 'user', 'getlanconfig', 'setlanconfig', 'version', 'help', 'sel']);
/** Words of the shell itself. */
const SHELL_WORDS = ['help', 'history', 'exit', 'quit'];

/**
 * Splits a command line into words: blanks separate, "double" or 'single' quotes keep a word together.
 * @throws Error('unterminated quote') when a quote is not closed
 */
export function splitWords(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  const quotes = (line.match(/"/g)?.length ?? 0) % 2 !== 0 || (line.replace(/"[^"]*"/g, '').match(/'/g)?.length ?? 0) % 2 !== 0;
  if (quotes) throw new Error('unterminated quote');
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/**
 * Tab completion of `line` (readline's completer shape: candidates and the word they replace).
 * @param frus the shelf's FRU names (may be empty when the shelf did not answer)
 */
export function complete(line: string, frus: readonly string[]): [string[], string] {
  const words = line.split(/\s+/);
  const word = words[words.length - 1] ?? '';
  const pool = words.length <= 1 ? [...Object.keys(VERBS), ...SHELL_WORDS] : [...(KEYWORDS[words[0]!] ?? []), ...(NO_FRU.has(words[0]!) ? [] : frus)];
  const hits = [...new Set(pool)].filter((c) => c.startsWith(word)).sort();
  return [hits, word];
}

/** What the shell needs from `atcasim clia`. */
export interface ShellPorts {
  input: Readable;
  output: Writable;
  stderr: Writable;
  /** Runs one verb as `atcasim clia VERB ARGS…` does. @returns its exit status */
  run(verb: string, args: string[]): Promise<number>;
  /** The shelf's FRU names for completion ([] when it cannot be asked). */
  fruNames(): Promise<string[]>;
  /** Interactive terminal: prompt, history keys and completion. */
  terminal: boolean;
}

/**
 * Runs the shell until `exit`, `quit` or the end of input.
 * @returns the exit status: 0, or from a pipe the last command's status
 */
export async function runCliaShell(p: ShellPorts): Promise<number> {
  let frus = await p.fruNames().catch(() => [] as string[]);
  const completer: Completer = (line: string) => complete(line, frus);
  const rl = createInterface({ input: p.input, output: p.output, terminal: p.terminal, completer, historySize: 500, prompt: 'CLI> ' });
  const history: string[] = [];
  let last = 0;
  if (p.terminal) p.output.write('atcasim clia shell: "help" lists the verbs, Tab completes, "exit" leaves\n');
  rl.prompt();
  for await (const raw of rl) {
    const line = raw.trim();
    if (line) history.push(line);
    let words: string[] = [];
    try {
      words = splitWords(line);
    } catch (e) {
      p.stderr.write(`atcasim clia: ${(e as Error).message}\n`);
      last = 2;
    }
    const [verb, ...args] = words;
    if (verb === 'exit' || verb === 'quit') break;
    if (verb === 'history') p.output.write(history.map((h, i) => `${String(i + 1).padStart(4)}  ${h}\n`).join(''));
    else if (verb) {
      last = await p.run(verb, args);
      if (verb !== 'help') frus = await p.fruNames().catch(() => frus);
    }
    rl.prompt();
  }
  rl.close();
  return p.terminal ? 0 : last;
}
