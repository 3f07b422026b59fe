/**
 * One board's console UART as its user sees it: the line discipline (./line-discipline.ts), the
 * firmware shell (./shell.ts), the payload's life (running, halted, restarting; hung), a
 * scrollback buffer, and any number of attached sides — the PTY (chassis/io/serial-console.ts)
 * and IPMI Serial over LAN sessions (chassis/ipmi/sol) — that all see the same output and feed
 * the same input, as a local serial connector and SOL share one UART on real boards.
 *
 * Behaviour:
 * - running: input is echoed and executed; output goes to every attached side (and scrollback);
 * - halted (payload off: M0, M1–M3, chassis power off) or hung (HA `hang`): input is dropped,
 *   nothing is printed — the console "stops answering";
 * - restart (reboot, FRU Control reset, watchdog reset): a message, silence for `rebootMs`, then
 *   the banner and a prompt; `boot()` (payload reaching M4) prints the banner at once.
 * Text from the shell uses `\n`; the console sends CR LF (termios ONLCR).
 *
 * Pure: time and timers come from the Clock port; output goes to the sinks it is given.
 */
import type { Clock, TimerId } from '../../board/common/clock.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { ConsoleBoardPort } from './board-port.ts';
import { LineEditor } from './line-discipline.ts';
import { FirmwareShell } from './shell.ts';

/** What the payload behind the console is doing. */
export type PayloadPower = 'running' | 'halted' | 'restarting';

/** Receives console output bytes (ASCII). */
export type ConsoleSink = (bytes: Uint8Array) => void;

/** Options of a board console. Defaults in brackets. */
export interface BoardConsoleOptions {
  /** FRU name (`slot3`). */
  name: string;
  /** The board the shell talks to. */
  port: ConsoleBoardPort;
  clock: Clock;
  /** Time a restart takes before the banner, ms [1000]. */
  rebootMs?: number;
  /** Bytes of output kept for `scrollback()` [16384]. */
  scrollbackBytes?: number;
  /** Whether the payload runs when the console is created [running]. */
  initial?: 'running' | 'halted';
  log?: Logger;
}

const encoder = new TextEncoder();

/** A board's console (see the module comment). */
export class BoardConsole {
  readonly name: string;
  private readonly editor = new LineEditor();
  private readonly shell: FirmwareShell;
  private readonly sinks = new Set<ConsoleSink>();
  private payload: PayloadPower;
  private hung = false;
  private bootedAt: number;
  private restartTimer: TimerId | undefined;
  private scroll = '';
  private readonly scrollMax: number;
  private readonly rebootMs: number;
  private closed = false;
  /** Counters: bytes received while answering, bytes dropped while silent, bytes sent, boots. */
  readonly counters = { bytesIn: 0, bytesDropped: 0, bytesOut: 0, boots: 0, commands: 0 };

  /** @throws RangeError for a negative reboot time or scrollback size */
  constructor(private readonly opts: BoardConsoleOptions) {
    this.name = opts.name;
    this.shell = new FirmwareShell(opts.port);
    this.payload = opts.initial ?? 'running';
    this.bootedAt = opts.clock.now();
    this.rebootMs = opts.rebootMs ?? 1000;
    this.scrollMax = opts.scrollbackBytes ?? 16384;
    if (!(this.rebootMs >= 0) || !(this.scrollMax >= 0)) throw new RangeError('rebootMs and scrollbackBytes must be ≥ 0');
  }

  /** The payload state. */
  get power(): PayloadPower {
    return this.payload;
  }

  /** True while the board hangs (HA `hang`). */
  get isHung(): boolean {
    return this.hung;
  }

  /** True when typed characters are echoed and executed. */
  get answering(): boolean {
    return this.payload === 'running' && !this.hung && !this.closed;
  }

  /** Attaches an output sink (a PTY, a SOL session). @returns detach */
  attach(sink: ConsoleSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** Number of attached sides. */
  get attached(): number {
    return this.sinks.size;
  }

  /** The last output (up to `scrollbackBytes`), as text. */
  scrollback(): string {
    return this.scroll;
  }

  /** Bytes typed on any attached side. Never throws; dropped while the console does not answer. */
  input(bytes: Uint8Array): void {
    if (!this.answering) {
      this.counters.bytesDropped += bytes.length;
      return;
    }
    this.counters.bytesIn += bytes.length;
    for (const ev of this.editor.feed(bytes)) {
      if (!this.answering) break; // a command rebooted or halted the board: the rest is lost
      if (ev.type === 'echo') this.emit(ev.text);
      else if (ev.type === 'cancel') this.emit(this.shell.prompt());
      else {
        if (ev.text.trim() !== '') this.counters.commands++;
        let r;
        try {
          r = this.shell.execute(ev.text, this.opts.clock.now() - this.bootedAt);
        } catch (e) {
          // the shell never throws by contract; keep the console alive regardless
          r = { output: `% internal error: ${String(e)}\n` };
        }
        if (this.answering && r.output) this.emit(crlf(r.output));
        if (r.reboot) {
          if (this.payload === 'running') this.restart();
        } else if (this.answering) this.emit(this.shell.prompt());
      }
    }
  }

  /** The payload came up (M4): banner and prompt now (also ends a hang). */
  boot(): void {
    this.cancelRestart();
    this.payload = 'running';
    this.hung = false;
    this.bootedAt = this.opts.clock.now();
    this.counters.boots++;
    this.editor.reset();
    this.emit(crlf(this.shell.banner()) + this.shell.prompt());
  }

  /**
   * The payload restarts: prints `message` (when the console answers), goes quiet for `rebootMs`,
   * then boots — or, with `hold`, stays quiet until `boot()` is called (the HA layer reports when
   * the node's software is back). A restart already in progress is not restarted. A reset also
   * ends a hang.
   */
  restart(message?: string, opts: { hold?: boolean } = {}): void {
    if (this.payload === 'restarting') return;
    if (message && this.answering) this.emit(crlf(`\n${message}\n`));
    this.payload = 'restarting';
    this.hung = false;
    this.editor.reset();
    if (opts.hold) return;
    this.restartTimer = this.opts.clock.setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.closed && this.payload === 'restarting') this.boot();
    }, this.rebootMs);
  }

  /** The payload stops (deactivation, extraction, power off): prints `message` when answering, then silence. */
  halt(message?: string): void {
    if (message && this.answering) this.emit(crlf(`\n${message}\n`));
    this.cancelRestart();
    this.payload = 'halted';
    this.editor.reset();
  }

  /** Hangs or un-hangs the board (HA `hang`/`heal`): a hung board neither echoes nor answers; healing resumes it. */
  setHung(hung: boolean): void {
    this.hung = hung;
    if (hung) this.editor.reset();
  }

  /** Prints an asynchronous message (e.g. an NMI) on its own line, then the prompt and the partial line. */
  notice(message: string): void {
    if (!this.answering) return;
    this.emit(crlf(`\n${message}\n`) + this.shell.prompt() + this.editor.pending);
  }

  /** Stops timers and detaches every side. */
  close(): void {
    this.closed = true;
    this.cancelRestart();
    this.sinks.clear();
  }

  private cancelRestart(): void {
    if (this.restartTimer !== undefined) this.opts.clock.clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  private emit(text: string): void {
    if (text === '' || this.closed) return;
    this.scroll = (this.scroll + text).slice(-this.scrollMax);
    const bytes = encoder.encode(text);
    this.counters.bytesOut += bytes.length;
    for (const s of [...this.sinks]) {
      try {
        s(bytes);
      } catch (e) {
        this.opts.log?.warn({ category: 'console', console: this.name, err: String(e) }, 'console output sink failed');
      }
    }
  }
}

/** `\n` → CR LF (ONLCR); an existing CR LF stays as it is. */
export function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}
