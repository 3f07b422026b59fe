/**
 * The terminal UI (blessed): a view over a running emulator. It reads the emulator's view bundle
 * (chassis/runtime/view.ts) and calls its operator command API (chassis/runtime/commands.ts)
 * through the keymap; it holds no shelf logic, only UI state (selection, scroll, help, last
 * message). Input and output streams are injectable (tests, tmux, any TTY).
 *
 * Rendering: throttled — at most one render per `frameMs` (default 100 ms, ~10 Hz), when
 * something changed (a key, a resize, a shelf event) and at least every `refreshMs` (default
 * 500 ms) for the traffic figures. Timers go through the injected Clock. The screen adapts to
 * resizes (the view model lays out for any size ≥ 40×16; 80×24 is the design size).
 */
import blessed from 'blessed';
import type { Widgets } from 'blessed';
import type { Clock, TimerId } from '../board/common/clock.ts';
import type { Logger } from '../board/common/logger.ts';
import type { RsTable } from '../chassis/dataplane/types.ts';
import type { OperatorCommands } from '../chassis/runtime/commands.ts';
import type { EmulatorView } from '../chassis/runtime/view.ts';
import { keyToCommand, moveSelection, runCommand } from './keymap.ts';
import { DetailPanel } from './panels/detail.ts';
import { EventsPanel } from './panels/events.ts';
import { HelpPanel } from './panels/help.ts';
import { HaStatusPanel } from './panels/ha-status.ts';
import { formatStatus, type ShelfStatus } from '../chassis/runtime/status-snapshot.ts';
import { ShelfPanel } from './panels/shelf.ts';
import { StatusPanel } from './panels/status.ts';
import { shmcNamesIn } from './lost-text.ts';
import { setColorCount } from './panels/tags.ts';
import { buildViewModel, selectedFru, selectionOrder, type UiState } from './view-model.ts';

/** What the TUI needs from the emulator (chassis/runtime/emulator.ts `Emulator` provides it). */
export interface TuiSource {
  view(): EmulatorView;
  rsTable(slot: number): RsTable | undefined;
  readonly commands: OperatorCommands;
  /** Calls `fn` on every shelf event (to re-render promptly). @returns unsubscribe */
  subscribe(fn: () => void): () => void;
  /** The HA status for the `a` overlay (chassis/runtime/status-snapshot.ts); without it `a` says so. */
  status?(): ShelfStatus;
}

/** Options of the TUI. */
export interface TuiOptions {
  source: TuiSource;
  clock: Clock;
  log: Logger;
  /** Called when the user quits (q, Ctrl-C). The owner stops the emulator and calls destroy(). */
  onQuit: () => void;
  /** Terminal streams [process.stdin / process.stdout]. */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Terminal type [$TERM]. */
  terminal?: string;
  /** First message on the message line (e.g. the generated administrator password). */
  message?: { text: string; level: 'info' | 'error' };
  /** Initial selection [the first processor board]. */
  selected?: string;
  /** Minimum time between renders, ms [100]. */
  frameMs?: number;
  /** Longest time between renders, ms [500]. */
  refreshMs?: number;
}

/** The running TUI. */
export class TuiApp {
  readonly screen: Widgets.Screen;
  private readonly ui: UiState;
  private readonly shelfPanel: ShelfPanel;
  private readonly detailPanel: DetailPanel;
  private readonly eventsPanel: EventsPanel;
  private readonly statusPanel: StatusPanel;
  private readonly helpPanel: HelpPanel;
  private readonly haStatusPanel: HaStatusPanel;
  /** The HA status overlay is open. */
  private haStatus = false;
  private readonly unsubscribe: () => void;
  private timer: TimerId | undefined;
  private dirty = true;
  private lastRender = -Infinity;
  private destroyed = false;
  private renders = 0;

  constructor(private readonly opts: TuiOptions) {
    this.screen = blessed.screen({
      input: opts.input ?? process.stdin,
      output: opts.output ?? process.stdout,
      ...(opts.terminal ? { terminal: opts.terminal } : {}),
      smartCSR: true,
      fullUnicode: true,
      autoPadding: false,
      warnings: false,
      title: 'atcasim',
    } as Widgets.IScreenOptions);
    // In a UTF-8 locale, draw box and bullet characters as UTF-8 rather than through the VT100
    // alternate character set (blessed's default when the terminfo entry has no U8 flag): the
    // screen then reads the same in every terminal and in `tmux capture-pane`.
    const tput = (this.screen as unknown as { tput?: { unicode?: boolean; brokenACS?: boolean } }).tput;
    if (tput?.unicode) tput.brokenACS = true;
    setColorCount((this.screen as unknown as { tput?: { colors?: number } }).tput?.colors ?? 8);
    const first = opts.source.view();
    const order = selectionOrder(first.snapshot);
    const firstBoard = first.snapshot.frus.find((f) => f.kind === 'processor');
    this.ui = {
      selected: opts.selected ?? (firstBoard ? `slot${firstBoard.slot}` : order[0] ?? ''),
      width: this.screen.width as number,
      height: this.screen.height as number,
      help: false,
      detailScroll: 0,
      ...(opts.message ? { message: opts.message } : {}),
    };
    this.shelfPanel = new ShelfPanel(this.screen);
    this.detailPanel = new DetailPanel(this.screen);
    this.eventsPanel = new EventsPanel(this.screen);
    this.statusPanel = new StatusPanel(this.screen);
    this.helpPanel = new HelpPanel(this.screen);
    this.haStatusPanel = new HaStatusPanel(this.screen);
    this.screen.on('keypress', (ch: string | undefined, key: Widgets.Events.IKeyEventArg | undefined) => this.onKey(ch, key));
    this.screen.on('resize', () => this.requestRender());
    this.unsubscribe = opts.source.subscribe(() => this.requestRender());
  }

  /** Draws the first frame and starts the render loop. */
  start(): void {
    this.render();
    this.loop();
  }

  /** Number of frames drawn (tests). */
  get frames(): number {
    return this.renders;
  }

  /** Marks the screen for the next frame. */
  requestRender(): void {
    this.dirty = true;
  }

  private loop(): void {
    const frame = this.opts.frameMs ?? 100;
    const refresh = this.opts.refreshMs ?? 500;
    this.timer = this.opts.clock.setTimeout(() => {
      if (this.destroyed) return;
      const now = this.opts.clock.now();
      if (this.dirty || now - this.lastRender >= refresh) this.render();
      this.loop();
    }, frame);
  }

  private onKey(ch: string | undefined, key: Widgets.Events.IKeyEventArg | undefined): void {
    const name = key?.full ?? key?.name ?? ch;
    if (!name || this.destroyed) return;
    const view = this.opts.source.view();
    const fru = selectedFru(view.snapshot, this.ui.selected);
    const cmd = keyToCommand(name, {
      selected: this.ui.selected,
      ...(fru ? { selectedState: fru.state, selectedKind: fru.kind } : {}),
      help: this.ui.help,
      haStatus: this.haStatus,
      page: Math.max(1, this.ui.height - 16),
    });
    if (!cmd) return;
    switch (cmd.kind) {
      case 'quit':
        this.opts.onQuit();
        return;
      case 'help':
        this.ui.help = true;
        break;
      case 'close-help':
        this.ui.help = false;
        break;
      case 'ha-status':
        if (this.opts.source.status) this.haStatus = true;
        else this.ui.message = { text: 'HA status: not available in this run', level: 'info' };
        break;
      case 'close-ha-status':
        this.haStatus = false;
        break;
      case 'scroll':
        this.ui.detailScroll = Math.max(0, this.ui.detailScroll + cmd.by);
        break;
      case 'select': {
        const order = selectionOrder(view.snapshot);
        this.ui.selected = moveSelection(order, this.ui.selected, cmd.move, view.snapshot.slots.length);
        this.ui.detailScroll = 0;
        break;
      }
      default: {
        try {
          const m = runCommand(cmd, this.opts.source.commands);
          if (m) this.ui.message = m;
        } catch (e) {
          this.opts.log.error({ category: 'tui', err: String(e) }, 'command failed');
          this.ui.message = { text: `internal error: ${(e as Error).message}`, level: 'error' };
        }
      }
    }
    this.render();
  }

  /** Builds the view model and draws it (throttling is the loop's job; keys draw at once). */
  render(): void {
    if (this.destroyed) return;
    this.dirty = false;
    this.lastRender = this.opts.clock.now();
    this.renders++;
    this.ui.width = this.screen.width as number;
    this.ui.height = this.screen.height as number;
    const view = this.opts.source.view();
    const fru = selectedFru(view.snapshot, this.ui.selected);
    const rsTable = fru?.kind === 'processor' && fru.slot !== undefined ? this.opts.source.rsTable(fru.slot) : undefined;
    const vm = buildViewModel({ view, ui: this.ui, ...(rsTable ? { rsTable } : {}) });
    this.shelfPanel.update(vm);
    this.ui.detailScroll = this.detailPanel.update(vm, this.ui.detailScroll);
    this.eventsPanel.update(vm);
    this.statusPanel.update(vm);
    this.helpPanel.update(vm);
    this.haStatusPanel.update(this.haStatus && this.opts.source.status ? shmcNamesIn(formatStatus(this.opts.source.status())) : undefined, this.ui.width, this.ui.height);
    this.screen.render();
  }

  /** Stops rendering and gives the terminal back (leaves the alternate screen). Idempotent. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.unsubscribe();
    try {
      this.screen.destroy();
    } catch {
      // the terminal is gone (SIGHUP, closed pty: write EIO): nothing left to restore
    }
  }
}
