/**
 * Drives a real terminal program under tmux for end-to-end TUI tests: a detached session of a
 * fixed size on a private tmux server (`tmux -L <unique socket>`, so tests never touch the
 * user's tmux or each other), `send-keys`, `capture-pane -p` (the screen as plain text), resize,
 * and polling with a timeout instead of fixed sleeps. The server runs with a UTF-8 locale so
 * box-drawing and sparkline characters survive the capture.
 *
 *   const t = await TmuxSession.start(['node', 'bin/atcasim.mjs', 'start', …], { width: 80, height: 24 });
 *   const screen = await t.waitFor((s) => s.includes('total'), 30_000);
 *   await t.sendKeys('x');
 *   t.kill();
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { repoRoot } from './shared.ts';

let counter = 0;

/** Options of a session. */
export interface TmuxOptions {
  width?: number;
  height?: number;
  /** Working directory [repository root]. */
  cwd?: string;
  /** Extra environment for the program (merged over a UTF-8 locale and TERM). */
  env?: Record<string, string>;
}

/** Quotes one word for the shell command tmux runs. */
function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** One detached tmux session running one program. */
export class TmuxSession {
  private alive = true;

  private constructor(
    readonly socket: string,
    readonly name: string,
  ) {}

  /**
   * Starts `argv` in a new detached session. When the program exits, the pane stays open (so
   * its last screen and `exit status` line can be read) until kill().
   * @throws when tmux is missing or refuses
   */
  static start(argv: readonly string[], opts: TmuxOptions = {}): TmuxSession {
    const socket = `atcasim-test-${process.pid}-${++counter}-${Date.now().toString(36)}`;
    const name = 'atcasim';
    const env = { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm-256color', ...opts.env };
    delete (env as Record<string, string | undefined>).TMUX;
    const cmd = `${argv.map(shellQuote).join(' ')}; echo "[exit status $?]"; sleep 600`;
    execFileSync(
      'tmux',
      ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', name, '-x', String(opts.width ?? 80), '-y', String(opts.height ?? 24), '-c', opts.cwd ?? repoRoot, cmd],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const s = new TmuxSession(socket, name);
    // Keep the given size even without an attached client.
    s.tmux(['set-option', '-t', name, 'window-size', 'manual']);
    return s;
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } });
  }

  /** The visible screen as text, one line per row (trailing blanks trimmed by tmux). */
  capture(): string {
    return this.tmux(['capture-pane', '-p', '-t', this.name]);
  }

  /** The visible screen with its SGR attributes (`capture-pane -e`): colours as escape sequences. */
  captureEscapes(): string {
    return this.tmux(['capture-pane', '-p', '-e', '-t', this.name]);
  }

  /** Sends keys (tmux key names: 'x', 'Right', 'Tab', 'C-c', 'PageDown' …). */
  sendKeys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', this.name, ...keys]);
  }

  /** Resizes the window (the program gets SIGWINCH). */
  resize(width: number, height: number): void {
    this.tmux(['resize-window', '-t', this.name, '-x', String(width), '-y', String(height)]);
  }

  /**
   * Polls the screen every `pollMs` until `pred` returns a truthy value.
   * @returns that value (or the screen when it returned `true`)
   * @throws with the last screen when `timeoutMs` passes
   */
  async waitFor<T>(pred: (screen: string) => T | false | undefined | null, timeoutMs = 30_000, what = 'the screen', pollMs = 150): Promise<T extends true ? string : T> {
    const until = Date.now() + timeoutMs;
    let screen = '';
    for (;;) {
      screen = this.capture();
      const r = pred(screen);
      if (r) return (r === true ? screen : r) as T extends true ? string : T;
      if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; screen:\n${screen}`);
      await new Promise((res) => setTimeout(res, pollMs));
    }
  }

  /** Kills the session and its private server (idempotent). */
  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
  }
}

/** True when tmux is installed (CI installs it; the TUI tests need it). */
export function haveTmux(): boolean {
  return spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
}
