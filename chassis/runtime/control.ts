/**
 * A line-based control channel over the operator command API (chassis/runtime/commands.ts) —
 * the same calls the TUI's keys make. `atcasim start --headless --stdin-commands` reads one
 * command per line from stdin and answers each with one JSON log line (`"event":"command"`)
 * written after the command returned, i.e. after its SQLite transaction committed. It exists for
 * scripts and end-to-end tests until IPMI's PICMG commands and `atcasim clia` cover everything;
 * it is not a network interface (only whoever started the process can use it).
 *
 * Grammar (words separated by blanks; `#` starts a comment; the TUI key works as the verb):
 *   open-handle SLOT | x SLOT        deactivate: M4 → M5 → M6 → M1
 *   close-handle SLOT | i SLOT       activate:   M1 → M2 → M3 → M4
 *   extract SLOT | e SLOT            pull the board (M0)
 *   insert SLOT                      plug it back in
 *   fault SLOT [payload|comm] | f    inject a fault
 *   repair SLOT | r SLOT             repair
 *   switchover [PAIR] | s            planned switchover (HA layer; default pair shmc)
 *   hang NODE | w NODE               hang a node (HA layer)
 *   heal NODE                        end a hang (HA layer)
 * SLOT is `slotN`, `N`, or a FRU name (`shmc-a`, `fan1`, …).
 */
import { CommandError } from '../../board/common/errors.ts';
import type { FaultKind } from '../model/events.ts';
import type { OperatorCommands } from './commands.ts';

/** A parsed control line. */
export type ControlCommand =
  | { verb: 'open-handle' | 'close-handle' | 'extract' | 'insert' | 'repair' | 'hang' | 'heal'; target: string }
  | { verb: 'fault'; target: string; kind: FaultKind }
  | { verb: 'switchover'; pair: string };

/** The answer to one line. */
export interface ControlResult {
  event: 'command';
  /** The line as received (trimmed). */
  line: string;
  ok: boolean;
  /** Stable code of a refusal (CommandError code, or `usage`). */
  code?: string;
  message: string;
  /** FRU and its M-state right after the command (hot-swap commands). */
  fru?: string;
  state?: string;
}

const ALIASES: Readonly<Record<string, string>> = {
  x: 'open-handle',
  deactivate: 'open-handle',
  i: 'close-handle',
  activate: 'close-handle',
  e: 'extract',
  f: 'fault',
  r: 'repair',
  s: 'switchover',
  w: 'hang',
};

const TARGETED = new Set(['open-handle', 'close-handle', 'extract', 'insert', 'fault', 'repair', 'hang', 'heal']);

/**
 * Parses a line. @returns the command, undefined for a blank or comment line
 * @throws CommandError('usage') with the grammar's hint for anything else
 */
export function parseControlLine(line: string): ControlCommand | undefined {
  const text = line.replace(/#.*/, '').trim();
  if (text === '') return undefined;
  const words = text.split(/\s+/);
  const verb = ALIASES[words[0]!.toLowerCase()] ?? words[0]!.toLowerCase();
  if (verb === 'switchover') {
    if (words.length > 2) throw new CommandError('usage', 'usage: switchover [PAIR]');
    return { verb: 'switchover', pair: words[1] ?? 'shmc' };
  }
  if (!TARGETED.has(verb)) {
    throw new CommandError('usage', `unknown command "${words[0]}" (open-handle|x, close-handle|i, extract|e, insert, fault|f, repair|r, switchover|s, hang|w, heal)`);
  }
  const target = words[1];
  if (target === undefined) throw new CommandError('usage', `usage: ${verb} SLOT`);
  if (verb === 'fault') {
    const kind = (words[2] ?? 'payload').toLowerCase();
    if ((kind !== 'payload' && kind !== 'comm') || words.length > 3) throw new CommandError('usage', 'usage: fault SLOT [payload|comm]');
    return { verb: 'fault', target, kind };
  }
  if (words.length > 2) throw new CommandError('usage', `usage: ${verb} SLOT`);
  return { verb: verb as Exclude<ControlCommand, { verb: 'fault' | 'switchover' }>['verb'], target };
}

/**
 * Parses and runs one line against the operator API.
 * @returns the answer, or undefined for a blank/comment line. Never throws for refusals or bad
 *   lines (they are answers with `ok: false`); rethrows anything that is not a CommandError.
 */
export function runControlLine(line: string, api: OperatorCommands): ControlResult | undefined {
  const trimmed = line.trim();
  try {
    const c = parseControlLine(trimmed);
    if (!c) return undefined;
    const hs = (o: { fru: string; state: number; changed: boolean }, what: string): ControlResult => ({
      event: 'command',
      line: trimmed,
      ok: true,
      message: `${o.fru}: ${what}${o.changed ? '' : ' (no change)'}`,
      fru: o.fru,
      state: `M${o.state}`,
    });
    switch (c.verb) {
      case 'open-handle':
        return hs(api.openHandle(c.target), 'handle opened');
      case 'close-handle':
        return hs(api.closeHandle(c.target), 'handle closed');
      case 'extract':
        return hs(api.extract(c.target), 'extracted');
      case 'insert':
        return hs(api.insert(c.target), 'inserted');
      case 'fault':
        return hs(api.injectFault(c.target, c.kind), `${c.kind} fault injected`);
      case 'repair':
        return hs(api.repair(c.target), 'repaired');
      case 'switchover':
        api.switchover(c.pair);
        return { event: 'command', line: trimmed, ok: true, message: `${c.pair}: switchover requested` };
      case 'hang':
        api.hang(c.target);
        return { event: 'command', line: trimmed, ok: true, message: `${c.target}: hung` };
      case 'heal':
        api.heal(c.target);
        return { event: 'command', line: trimmed, ok: true, message: `${c.target}: healed` };
    }
  } catch (e) {
    if (e instanceof CommandError) return { event: 'command', line: trimmed, ok: false, code: e.code, message: e.message };
    throw e;
  }
}
