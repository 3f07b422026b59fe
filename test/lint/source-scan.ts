/**
 * Reads the product's sources with the TypeScript compiler API (parse only, no type check) for the
 * structure checks in test/lint/: which files there are, what each imports (static `import`,
 * `import type`, `export … from`; relative specifiers resolved to repository paths), and the line
 * span of every function, method, accessor, constructor and arrow function.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Repository root (the folder holding package.json). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every .ts file under the given top-level folders, as repository paths ('chassis/ipmi/x.ts'), sorted. */
export function sourceFiles(...folders: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const p = posix.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) out.push(p);
    }
  };
  for (const f of folders) walk(f);
  return out.sort();
}

/** Every folder under the given top-level folders, as repository paths. */
export function sourceFolders(...folders: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = posix.join(dir, e.name);
      out.push(p);
      walk(p);
    }
  };
  for (const f of folders) walk(f);
  return out.sort();
}

function parse(file: string, text = readFileSync(join(repoRoot, file), 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

/** One import of a file. */
export interface ImportEdge {
  /** The specifier as written. */
  spec: string;
  /** Repository path it resolves to (relative specifiers only). */
  target?: string;
  line: number;
}

/** The static imports and re-exports of `file` (dynamic import() is left out: it is how cli/ loads ui/). */
export function importsOf(file: string): ImportEdge[] {
  const sf = parse(file);
  const out: ImportEdge[] = [];
  for (const st of sf.statements) {
    if ((ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      const spec = st.moduleSpecifier.text;
      const line = sf.getLineAndCharacterOfPosition(st.getStart(sf)).line + 1;
      out.push(spec.startsWith('.') ? { spec, target: posix.normalize(posix.join(posix.dirname(file), spec)), line } : { spec, line });
    }
  }
  return out;
}

/** Lines of a text as an editor numbers them (a final newline ends the last line, it does not start one). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** A function-like node and its span. */
export interface FunctionSpan {
  /** `name`, `Class.method`, `Class.constructor`, `outer/<arrow>` for an unnamed one. */
  name: string;
  /** First line (the signature, not its docstring), 1-based. */
  line: number;
  /** Lines from the signature to the closing brace, inclusive (nested functions included). */
  lines: number;
}

function nameOf(n: ts.Node, sf: ts.SourceFile): string | undefined {
  const named = n as ts.Node & { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))) return named.name.text;
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf);
  return undefined;
}

/** Every function, method, accessor, constructor and arrow function with a body in `file`. */
export function functionSpans(file: string, text?: string): FunctionSpan[] {
  const sf = parse(file, text);
  const out: FunctionSpan[] = [];
  /** @param outer name of the enclosing named function @param cls name of the enclosing class */
  const visit = (n: ts.Node, outer: string | undefined, cls: string | undefined) => {
    let nextOuter = outer;
    if (ts.isFunctionLike(n) && (n as ts.FunctionLikeDeclaration).body) {
      const own = nameOf(n, sf);
      const isMember = cls !== undefined && (ts.isClassLike(n.parent) || (ts.isPropertyDeclaration(n.parent) && ts.isClassLike(n.parent.parent)));
      const name = own !== undefined ? (isMember ? `${cls}.${own}` : own) : `${outer ?? '<module>'}/<${ts.isArrowFunction(n) ? 'arrow' : 'function'}>`;
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ name, line: first + 1, lines: last - first + 1 });
      if (own !== undefined) nextOuter = name;
    }
    const childCls = ts.isClassLike(n) ? (n.name?.text ?? '<class>') : cls;
    ts.forEachChild(n, (c) => visit(c, nextOuter, childCls));
  };
  visit(sf, undefined, undefined);
  return out;
}

/** The project's ESLint configuration module (eslint.config.js), for its exported tables. */
export interface LintConfigModule {
  LAYERS: Record<string, string[]>;
  layerOf(file: string): string | undefined;
}

/** Loads eslint.config.js (a JavaScript module the type checker does not see). */
export async function lintConfig(): Promise<LintConfigModule> {
  return (await import(pathToFileURL(join(repoRoot, 'eslint.config.js')).href)) as LintConfigModule;
}

/** `path` relative to the repository root, with forward slashes. */
export function repoPath(path: string): string {
  return relative(repoRoot, path).split('\\').join('/');
}
