/**
 * A small typed reader over a `yaml` document that keeps source positions, so every validation
 * error reads `file:line:column: message` (ConfigError). Unknown keys are errors at the key's
 * position; aliases (`*name`) are followed; durations are parsed by ./duration.ts.
 * Used by the shelf loader (./shelf-config.ts); scenario files can use it too.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { ConfigError } from '../../board/common/errors.ts';
import { parseDuration } from './duration.ts';

/**
 * `text` with control characters, format characters, lone surrogates and U+FFFD (what a binary
 * file decodes to) written as `\xNN` / `\uNNNN` escapes, so an error message never echoes raw bytes
 * to the terminal.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Cs}\uFFFD]/gu, (c) => {
    const n = c.charCodeAt(0);
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
  });
}

/** `text` cut to `max` characters (an ellipsis marks the cut). */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Parsed document plus what is needed to report positions. */
export class YamlSource {
  readonly doc: Document;
  private readonly lc = new LineCounter();

  /**
   * Parses `text`. @param file name used in error messages.
   * @throws ConfigError at the first YAML syntax error (duplicate keys included).
   */
  constructor(
    readonly text: string,
    readonly file: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lc, prettyErrors: false, uniqueKeys: true, strict: true });
    // A binary file (a capture given as --config, say) is named as such, not parsed as YAML.
    const nul = text.indexOf('\0');
    if (nul >= 0) {
      const p = this.lc.linePos(nul);
      throw new ConfigError(file, p.line, p.col, `not a YAML text file (NUL byte at character ${nul}): is it a binary file, a capture or a database?`);
    }
    const err = this.doc.errors[0];
    if (err) {
      const p = this.lc.linePos(err.pos[0]);
      throw new ConfigError(file, p.line, p.col, printable(`YAML ${err.code.toLowerCase().replace(/_/g, ' ')}: ${err.message.split('\n')[0]}`));
    }
    // `yaml` leaves an alias without an anchor before it as an unresolved node (not in doc.errors):
    // report it here rather than as the missing value it would read as.
    visit(this.doc, {
      Alias: (_key, node) => {
        if (node.resolve(this.doc) === undefined) this.fail(node, `YAML unresolved alias *${node.source}: no anchor &${node.source} is defined before it`);
      },
    });
  }

  /** Line and column (1-based) of a character offset. */
  pos(offset: number): { line: number; col: number } {
    return this.lc.linePos(offset);
  }

  /** Throws ConfigError located at `node` (or at the start of the file). */
  fail(node: Node | null | undefined, message: string): never {
    const off = node?.range?.[0] ?? 0;
    const p = this.pos(off);
    throw new ConfigError(this.file, p.line, p.col, printable(message));
  }

  /** The root node as a value reader. */
  root(): Value {
    return new Value(this, this.doc.contents as Node | null, '(document)');
  }
}

/** A located YAML value. `path` is the dotted key path used in messages (e.g. `boards.slot3.sensors[0]`). */
export class Value {
  readonly node: Node | null;

  constructor(
    readonly src: YamlSource,
    node: Node | null,
    readonly path: string,
    /** Node used for the error position when `node` is null (a key with no value). */
    readonly at: Node | null = node,
  ) {
    let n = node;
    for (let i = 0; n && isAlias(n) && i < 64; i++) n = (n.resolve(src.doc) as Node | undefined) ?? null;
    this.node = n;
  }

  fail(message: string): never {
    return this.src.fail(this.at ?? this.node, `${this.path}: ${message}`);
  }

  /** True for a missing value or an explicit null (`key:` or `key: null`). */
  get isNull(): boolean {
    return this.node === null || (isScalar(this.node) && this.node.value === null);
  }

  get isMap(): boolean {
    return isMap(this.node);
  }

  get isSeq(): boolean {
    return isSeq(this.node);
  }

  private scalar(): unknown {
    if (!isScalar(this.node)) this.fail(`expected a scalar value, got ${this.describe()}`);
    return this.node.value;
  }

  describe(): string {
    if (this.node === null) return 'nothing';
    if (isMap(this.node)) return 'a mapping';
    if (isSeq(this.node)) return 'a list';
    if (isScalar(this.node)) return typeof this.node.value === 'string' ? `"${clip(this.node.value, 60)}"` : String(this.node.value);
    return 'an unsupported node';
  }

  /** A string (numbers are not converted). */
  str(opts: { min?: number; max?: number; pattern?: RegExp; hint?: string } = {}): string {
    const v = this.scalar();
    if (typeof v !== 'string') this.fail(`expected a string, got ${this.describe()}`);
    if (opts.min !== undefined && v.length < opts.min) this.fail(`must be at least ${opts.min} characters`);
    if (opts.max !== undefined && v.length > opts.max) this.fail(`must be at most ${opts.max} characters, got ${v.length}`);
    if (opts.pattern && !opts.pattern.test(v)) this.fail(`"${v}" is not valid${opts.hint ? ` (${opts.hint})` : ''}`);
    return v;
  }

  /** A string or a number written as text (serial numbers, versions: `1.0`). */
  text(opts: { max?: number } = {}): string {
    const v = this.scalar();
    if (typeof v === 'number') {
      const src = isScalar(this.node) && this.node.range ? this.src.text.slice(this.node.range[0], this.node.range[1]) : String(v);
      return src.trim();
    }
    return this.str(opts);
  }

  /** A finite number. */
  num(opts: { min?: number; max?: number } = {}): number {
    const v = this.scalar();
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(`expected a number, got ${this.describe()}`);
    if (opts.min !== undefined && v < opts.min) this.fail(`must be ≥ ${opts.min}, got ${v}`);
    if (opts.max !== undefined && v > opts.max) this.fail(`must be ≤ ${opts.max}, got ${v}`);
    return v;
  }

  /** An integer (decimal, or 0x… hex, or a "0x…" string). */
  int(opts: { min?: number; max?: number; hex?: boolean } = {}): number {
    let v = this.scalar();
    if (typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v.trim())) v = parseInt(v.trim(), 16);
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(`expected an integer, got ${this.describe()}`);
    const show = (n: number) => (opts.hex ? `0x${n.toString(16)}` : String(n));
    if (opts.min !== undefined && v < opts.min) this.fail(`must be ≥ ${show(opts.min)}, got ${show(v)}`);
    if (opts.max !== undefined && v > opts.max) this.fail(`must be ≤ ${show(opts.max)}, got ${show(v)}`);
    return v;
  }

  bool(): boolean {
    const v = this.scalar();
    if (typeof v !== 'boolean') this.fail(`expected true or false, got ${this.describe()}`);
    return v;
  }

  /** One of `choices`. */
  oneOf<T extends string>(choices: readonly T[]): T {
    const v = this.str();
    if (!(choices as readonly string[]).includes(v)) this.fail(`"${v}" is not one of ${choices.join(', ')}`);
    return v as T;
  }

  /** A duration (`250ms`, `1.5s`, `2m`, `1h`; `0` alone is accepted) in ms. */
  duration(opts: { min?: number; max?: number } = {}): number {
    const v = this.scalar();
    let ms: number;
    if (v === 0) ms = 0;
    else if (typeof v === 'string') {
      const r = parseDuration(v);
      if (r === undefined) this.fail(`"${v}" is not a duration (write e.g. 250ms, 1.5s, 2m)`);
      ms = r;
    } else this.fail(`expected a duration such as 250ms, 1.5s or 2m, got ${this.describe()}`);
    if (opts.min !== undefined && ms < opts.min) this.fail(`must be at least ${opts.min} ms`);
    if (opts.max !== undefined && ms > opts.max) this.fail(`must be at most ${opts.max} ms`);
    return ms;
  }

  /** The items of a list. */
  list(): Value[] {
    if (!isSeq(this.node)) this.fail(`expected a list, got ${this.describe()}`);
    return this.node.items.map((n, i) => new Value(this.src, (n as Node | null) ?? null, `${this.path}[${i}]`, (n as Node | null) ?? this.node));
  }

  /** A mapping reader that rejects unknown keys when `done()` is called. */
  map(): MapReader {
    if (!isMap(this.node)) this.fail(`expected a mapping, got ${this.describe()}`);
    return new MapReader(this.src, this.node, this.path);
  }
}

/** Reads keys of a mapping; `done()` reports the first key that was never read. */
export class MapReader {
  private readonly used = new Set<string>();
  private readonly pairs = new Map<string, Pair<unknown, unknown>>();

  constructor(
    readonly src: YamlSource,
    readonly node: YAMLMap,
    readonly path: string,
  ) {
    for (const p of node.items) {
      const k = p.key;
      const key = isScalar(k) ? String(k.value) : undefined;
      if (key === undefined) src.fail(k as Node, `${path}: keys must be plain scalars`);
      this.pairs.set(key, p);
    }
  }

  private child(key: string): string {
    return this.path === '(document)' ? key : `${this.path}.${key}`;
  }

  /** True when `key` is present. */
  has(key: string): boolean {
    return this.pairs.has(key);
  }

  /** Keys in document order. */
  keys(): string[] {
    return [...this.pairs.keys()];
  }

  /** The value of `key`, or undefined when absent (an explicit null counts as absent). */
  opt(key: string): Value | undefined {
    this.used.add(key);
    const p = this.pairs.get(key);
    if (!p) return undefined;
    const v = new Value(this.src, (p.value as Node | null) ?? null, this.child(key), ((p.value as Node | null) ?? (p.key as Node)) as Node);
    return v.isNull ? undefined : v;
  }

  /** The value of `key`; @throws ConfigError when absent. */
  req(key: string): Value {
    const v = this.opt(key);
    if (!v) this.src.fail((this.pairs.get(key)?.key as Node | undefined) ?? this.node, `${this.path === '(document)' ? '' : `${this.path}: `}missing required key "${key}"`);
    return v;
  }

  /** The key node of `key` (for positions), if present. */
  keyNode(key: string): Node | undefined {
    return this.pairs.get(key)?.key as Node | undefined;
  }

  /** Marks every key as read (for maps whose keys are names, read with `entries`). */
  entries(): Array<[string, Value, Node]> {
    return this.keys().map((k) => {
      this.used.add(k);
      const p = this.pairs.get(k)!;
      return [k, new Value(this.src, (p.value as Node | null) ?? null, this.child(k), ((p.value as Node | null) ?? (p.key as Node)) as Node), p.key as Node];
    });
  }

  /** @throws ConfigError at the first key that no reader asked for. */
  done(known?: readonly string[]): void {
    for (const [k, p] of this.pairs) {
      if (!this.used.has(k)) {
        const hint = known ?? [...this.used];
        this.src.fail(p.key as Node, `${this.path === '(document)' ? '' : `${this.path}: `}unknown key "${k}"${hint.length ? ` (expected one of: ${hint.join(', ')})` : ''}`);
      }
    }
  }
}
