/**
 * Keys of the TUI: key → UiCommand (pure), selection moves (pure), and UiCommand → the emulator's
 * operator command API (chassis/runtime/commands.ts) — the same Shelf commands scripts and IPMI
 * use. The TUI holds no shelf logic: a refused command comes back as the Shelf's CommandError
 * message, shown on the message line.
 *
 * Keys (see HELP_LINES in view-model.ts): ←/→ Tab S-Tab select, ↑/↓ switch between the front
 * row and the management row, x open handle, i close handle, e extract (insert when extracted),
 * f fault, r repair, s switchover (the ShMC pair; a processor board's share when one is selected),
 * w hang the selected node, PgUp/PgDn scroll details, ? help, q and
 * Ctrl-C quit.
 */
import { CommandError } from '../board/common/errors.ts';
import type { MState } from '../chassis/model/hot-swap.ts';
import type { HotSwapOutcome } from '../chassis/model/shelf/hot-swap.ts';
import type { OperatorCommands } from '../chassis/runtime/commands.ts';

/** Selection moves. */
export type SelectMove = 'left' | 'right' | 'next' | 'prev' | 'up' | 'down';

/** What a key asks for. */
export type UiCommand =
  | { kind: 'select'; move: SelectMove }
  | { kind: 'scroll'; by: number }
  | { kind: 'open-handle' | 'close-handle' | 'extract' | 'insert' | 'fault' | 'repair' | 'hang'; target: string }
  | { kind: 'switchover'; pair: string }
  | { kind: 'not-redundant'; target: string }
  | { kind: 'help' }
  | { kind: 'close-help' }
  | { kind: 'ha-status' }
  | { kind: 'close-ha-status' }
  | { kind: 'quit' };

/** What the keymap needs to know about the UI. */
export interface KeyContext {
  /** Selected FRU name or `slotN`. */
  selected: string;
  /** M-state of the selected FRU (undefined for an empty slot). */
  selectedState?: MState;
  /** Kind of the selected FRU ('processor', 'hub', 'shmc', …; undefined for an empty slot). */
  selectedKind?: string;
  /** The help overlay is open. */
  help: boolean;
  /** The HA status overlay (`a`) is open. */
  haStatus?: boolean;
  /** Lines the detail pane scrolls per PgUp/PgDn. */
  page?: number;
}

/** The pair `s` switches over unless a processor board is selected: the shelf managers (docs/tui.md). */
export const SWITCHOVER_PAIR = 'shmc';

/**
 * Maps a key (blessed's `key.full`: 'x', 'left', 'S-tab', 'C-c', '?', 'pageup' …) to a command.
 * @returns undefined for keys without a meaning
 */
export function keyToCommand(key: string, ctx: KeyContext): UiCommand | undefined {
  if (key === 'C-c') return { kind: 'quit' };
  if (ctx.help) return key === 'q' ? { kind: 'quit' } : { kind: 'close-help' };
  if (ctx.haStatus) return key === 'q' ? { kind: 'quit' } : { kind: 'close-ha-status' };
  const target = ctx.selected;
  switch (key) {
    case 'left':
    case 'h':
      return { kind: 'select', move: 'left' };
    case 'right':
    case 'l':
      return { kind: 'select', move: 'right' };
    case 'tab':
      return { kind: 'select', move: 'next' };
    case 'S-tab':
      return { kind: 'select', move: 'prev' };
    case 'up':
    case 'k':
      return { kind: 'select', move: 'up' };
    case 'down':
    case 'j':
      return { kind: 'select', move: 'down' };
    case 'pageup':
      return { kind: 'scroll', by: -(ctx.page ?? 5) };
    case 'pagedown':
      return { kind: 'scroll', by: ctx.page ?? 5 };
    case 'x':
      return { kind: 'open-handle', target };
    case 'i':
      return { kind: 'close-handle', target };
    case 'e':
      return ctx.selectedState === 0 ? { kind: 'insert', target } : { kind: 'extract', target };
    case 'f':
      return { kind: 'fault', target };
    case 'r':
      return { kind: 'repair', target };
    case 's':
      // On a processor board: its share (handed to its buddy, or back home); on a ShMC: the ShMC
      // pair; on anything else (empty slot, hub, fan, PEM) nothing to switch over: say so.
      if (ctx.selectedKind === 'processor') return { kind: 'switchover', pair: target };
      if (ctx.selectedKind === 'shmc') return { kind: 'switchover', pair: SWITCHOVER_PAIR };
      return { kind: 'not-redundant', target };
    case 'w':
      return { kind: 'hang', target };
    case '?':
      return { kind: 'help' };
    case 'a':
      return { kind: 'ha-status' };
    case 'q':
    case 'escape':
      return key === 'q' ? { kind: 'quit' } : undefined;
    default:
      return undefined;
  }
}

/**
 * Moves the selection. `order` is selectionOrder() (front slots, then management FRUs);
 * `frontCount` how many of them are front slots. Left/right and Tab walk the whole order and wrap;
 * up/down jump between the front row and the management row at the nearest position.
 */
export function moveSelection(order: readonly string[], current: string, move: SelectMove, frontCount: number): string {
  if (order.length === 0) return current;
  let i = order.indexOf(current);
  if (i < 0) i = 0;
  const n = order.length;
  const mgmt = n - frontCount;
  switch (move) {
    case 'left':
    case 'prev':
      return order[(i - 1 + n) % n]!;
    case 'right':
    case 'next':
      return order[(i + 1) % n]!;
    case 'down':
    case 'up': {
      if (mgmt <= 0 || frontCount <= 0) return order[i]!;
      if (i < frontCount) {
        const j = Math.min(mgmt - 1, Math.round((i / Math.max(1, frontCount - 1)) * (mgmt - 1)));
        return order[frontCount + j]!;
      }
      const j = i - frontCount;
      const k = Math.min(frontCount - 1, Math.round((j / Math.max(1, mgmt - 1)) * (frontCount - 1)));
      return order[k]!;
    }
  }
}

/** A line for the message bar. */
export interface CommandMessage {
  text: string;
  level: 'info' | 'error';
}

function moved(verb: string, o: HotSwapOutcome): CommandMessage {
  return { text: o.changed ? `${o.fru}: ${verb} → M${o.state}` : `${o.fru}: ${verb} (stays in M${o.state})`, level: 'info' };
}

/**
 * Runs an action command through the operator API and describes the outcome. Refusals
 * (CommandError from the Shelf or the HA layer) become error messages; nothing is thrown for them.
 * @returns the message, or undefined for commands that are not shelf actions (select, help, quit…)
 * @throws only what is not a CommandError (a bug: the caller logs it)
 */
export function runCommand(cmd: UiCommand, api: OperatorCommands): CommandMessage | undefined {
  try {
    switch (cmd.kind) {
      case 'open-handle':
        return moved('handle opened', api.openHandle(cmd.target));
      case 'close-handle':
        return moved('handle closed', api.closeHandle(cmd.target));
      case 'extract':
        return moved('extracted', api.extract(cmd.target));
      case 'insert':
        return moved('inserted', api.insert(cmd.target));
      case 'fault':
        return moved('payload fault injected', api.injectFault(cmd.target, 'payload'));
      case 'repair':
        return moved('repaired', api.repair(cmd.target));
      case 'switchover':
        api.switchover(cmd.pair);
        return { text: `${cmd.pair}: switchover requested`, level: 'info' };
      case 'not-redundant':
        return { text: `${cmd.target}: not part of an HA pair (s switches over a ShMC or a processor board's share)`, level: 'error' };
      case 'hang':
        api.hang(cmd.target);
        return { text: `${cmd.target}: hung (stops feeding its watchdog)`, level: 'info' };
      default:
        return undefined;
    }
  } catch (e) {
    if (e instanceof CommandError) {
      const who = 'target' in cmd ? cmd.target : 'pair' in cmd ? cmd.pair : '';
      return { text: `${who}: ${e.message}`, level: 'error' };
    }
    throw e;
  }
}
