/**
 * The operations of a running shelf's control socket, and its wire protocol — pure: no socket
 * here (the server is chassis/io/control-server.ts, the client chassis/io/control-client.ts).
 *
 * The composition root (`atcasim start`) creates one ControlOps, and every part that wants to be
 * reachable from other `atcasim` processes (`atcasim status`, `atcasim lb`, …) adds its operations
 * with `register(name, handler)`; the server never needs to change for a new op.
 *
 * Wire protocol: JSON lines (one object per line, UTF-8, `\n`-terminated), answered in order:
 *   request   {"id":N,"op":"NAME","args":{…}}          (`args` optional, an object; `id` a number
 *                                                       or string the answer echoes)
 *   answer    {"id":N,"ok":true,"result":…}
 *   refusal   {"id":N,"ok":false,"error":"one line"}    (bad JSON, unknown op, a handler's throw;
 *                                                       `id` is null when the line had none)
 * A bad line is answered and the connection keeps serving.
 */

/** The arguments of one request (the `args` object; `{}` when the request had none). */
export type ControlArgs = Readonly<Record<string, unknown>>;

/**
 * One operation: gets the request's args, returns a JSON-serialisable result (or a promise of
 * one). Throwing refuses the request; the error's message (first line) is the answer's `error`.
 */
export type ControlOpHandler = (args: ControlArgs) => unknown;

/** One answer line's object. */
export type ControlResponse =
  | { id: number | string | null; ok: true; result: unknown }
  | { id: number | string | null; ok: false; error: string };

/** Longest request line the server reads, bytes (longer: refused and the connection closed). */
export const MAX_CONTROL_LINE = 1024 * 1024;

/**
 * The control socket of the shelf whose SQLite database is `dbPath`: the same path with `.ctl`
 * appended (so `atcasim … --db FILE` finds the shelf that runs on FILE).
 */
export function controlSocketPath(dbPath: string): string {
  return `${dbPath}.ctl`;
}

/** A one-line message of anything thrown. */
export function oneLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0]!.trim() || (e instanceof Error ? e.name : 'error');
}

/** The registry of operations a shelf answers on its control socket. */
export class ControlOps {
  private readonly handlers = new Map<string, ControlOpHandler>();

  constructor() {
    this.register('ops', () => this.names());
  }

  /**
   * Adds an operation. `name`: lower-case words joined by `-` or `.` (e.g. `status`, `lb.show`).
   * @throws TypeError for a malformed or already registered name
   */
  register(name: string, handler: ControlOpHandler): void {
    if (!/^[a-z][a-z0-9]*([.-][a-z0-9]+)*$/.test(name)) throw new TypeError(`control op name "${name}": use lower-case words joined by - or .`);
    if (this.handlers.has(name)) throw new TypeError(`control op "${name}" is already registered`);
    this.handlers.set(name, handler);
  }

  /** True when `name` is registered. */
  has(name: string): boolean {
    return this.handlers.has(name);
  }

  /** The registered names, sorted (what the built-in op `ops` answers). */
  names(): string[] {
    return [...this.handlers.keys()].sort();
  }

  /**
   * Runs one request of the protocol above. Never throws: every failure is a refusal.
   * @returns the answer object
   */
  async handle(request: unknown): Promise<ControlResponse> {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) return { id: null, ok: false, error: 'bad request: expected a JSON object {"id":N,"op":"NAME","args":{…}}' };
    const r = request as Record<string, unknown>;
    const id = typeof r.id === 'number' || typeof r.id === 'string' ? r.id : null;
    if (typeof r.op !== 'string') return { id, ok: false, error: 'bad request: "op" must be a string' };
    if (r.args !== undefined && (typeof r.args !== 'object' || r.args === null || Array.isArray(r.args))) return { id, ok: false, error: 'bad request: "args" must be an object' };
    const h = this.handlers.get(r.op);
    if (!h) return { id, ok: false, error: `unknown op "${r.op}" (known: ${this.names().join(', ')})` };
    try {
      const result: unknown = await h((r.args ?? {}) as ControlArgs);
      return { id, ok: true, result: result === undefined ? null : result };
    } catch (e) {
      return { id, ok: false, error: oneLine(e) };
    }
  }

  /**
   * Answers one request line. Never throws.
   * @returns the answer line (JSON, without the newline)
   */
  async handleLine(line: string): Promise<string> {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch (e) {
      return JSON.stringify({ id: null, ok: false, error: `bad request: not JSON (${oneLine(e)})` } satisfies ControlResponse);
    }
    const answer = await this.handle(request);
    try {
      return JSON.stringify(answer);
    } catch (e) {
      return JSON.stringify({ id: answer.id, ok: false, error: `the result of "${String((request as { op?: unknown }).op)}" is not serialisable (${oneLine(e)})` } satisfies ControlResponse);
    }
  }
}
