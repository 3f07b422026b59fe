/**
 * pino edge of the Logger port (board/common/logger.ts): builds the process's loggers.
 *
 * `atcasim start --headless` writes JSON lines to stdout (one object per line, pino's format:
 * `level` as a number, `time` in ISO 8601, `pid`, the bindings such as `module`, then the fields
 * and `msg`). With the TUI the screen owns the terminal, so the log goes to a file instead.
 * Writes are synchronous (`pino.destination({ sync: true })`): a line is in the file or pipe when
 * the call returns, so nothing is lost at shutdown or on `kill -9`, and a script reading the
 * `ready` line sees it at once. The log volume is small (events, not packets), so this costs little.
 *
 * Two loggers share one destination: `log` at the user's `--log-level` for everything, and
 * `events` at `info` always, for the lines scripts depend on (`ready`, `stats`, `shutdown`,
 * the first-start administrator password) — `--log-level warn` must not hide the ready line.
 */
import pino from 'pino';
import type { Logger } from '../../board/common/logger.ts';

/** pino level names accepted by `--log-level`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where the log lines go. */
export type LogDestination = { kind: 'stdout' } | { kind: 'stderr' } | { kind: 'file'; path: string };

/** Options of createLoggers. */
export interface LoggerOptions {
  /** Verbosity of `log` [info]. */
  level?: LogLevel;
  destination: LogDestination;
}

/** The process's loggers (see the module comment). */
export interface ProcessLoggers {
  /** General log at the configured level. */
  log: Logger;
  /** Always-on log (info) for ready/stats/shutdown lines. */
  events: Logger;
  /** Flushes pending output (a no-op with synchronous destinations; safe to call twice). */
  flush(): void;
}

/** True when `s` is one of LOG_LEVELS. */
export function isLogLevel(s: string): s is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(s);
}

/**
 * Creates the loggers.
 * @throws Error when a log file cannot be opened (the caller reports it and exits 2)
 */
export function createLoggers(opts: LoggerOptions): ProcessLoggers {
  const d = opts.destination;
  const dest =
    d.kind === 'file'
      ? pino.destination({ dest: d.path, sync: true, mkdir: true, mode: 0o600 }) // the first start logs the admin password
      : pino.destination({ dest: d.kind === 'stdout' ? 1 : 2, sync: true });
  const base = {
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const log = uniqueBindings(pino({ ...base, level: opts.level ?? 'info' }, dest));
  const events = uniqueBindings(pino({ ...base, level: 'info' }, dest));
  return {
    log: log as unknown as Logger,
    events: events as unknown as Logger,
    flush: () => {
      try {
        dest.flushSync();
      } catch {
        // nothing buffered, or the destination is closed: nothing to do
      }
    },
  };
}

/**
 * pino appends a child's bindings to its parent's, so `log.child({ module: 'a' }).child({ module:
 * 'b' })` writes `"module":"a","module":"b"` (a JSON object with a duplicate key, which most
 * parsers silently reduce to the last). Here a child whose bindings repeat a key of its parent is
 * made from the root with the merged bindings instead: every key once, the innermost value wins.
 * pino children inherit from their parent (`Object.create`), so every descendant gets this too.
 */
function uniqueBindings(root: pino.Logger): pino.Logger {
  type ChildFn = (this: pino.Logger, bindings: pino.Bindings, options?: unknown) => pino.Logger;
  const plainChild = root.child as unknown as ChildFn;
  const child: ChildFn = function (bindings, options) {
    const own = this.bindings();
    const repeats = Object.keys(bindings).some((k) => k in own);
    return repeats ? plainChild.call(root, { ...own, ...bindings }, options) : plainChild.call(this, bindings, options);
  };
  (root as unknown as { child: ChildFn }).child = child;
  return root;
}
