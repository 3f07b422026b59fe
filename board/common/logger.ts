/**
 * The Logger port: pino-shaped so the composition root can hand in a real pino logger
 * (chassis/io), while the core stays free of I/O. Tests use `captureLogger()`.
 * Call style as pino: `log.warn({ category: 'invalid-msg', offset }, 'dropped datagram')`.
 */
export interface Logger {
  child(bindings: Record<string, unknown>): Logger;
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything. */
export const nullLogger: Logger = {
  child: () => nullLogger,
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  bindings: Record<string, unknown>;
  obj: object;
  msg?: string;
}

/** A logger that keeps every record in `records` (shared with its children), for tests. */
export function captureLogger(records: LogRecord[] = [], bindings: Record<string, unknown> = {}): Logger & { records: LogRecord[] } {
  const at = (level: LogRecord['level']) => (obj: object, msg?: string) => {
    records.push({ level, bindings, obj, msg });
  };
  return {
    records,
    child: (b) => captureLogger(records, { ...bindings, ...b }),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}
