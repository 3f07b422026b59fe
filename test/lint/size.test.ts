/**
 * Size limits of board/ and chassis/ (the house's "files under ~700 lines, functions under ~120"):
 * no source file over 700 lines, no function, method, accessor, constructor or arrow function over
 * 120 lines (its span from the signature to the closing brace, nested functions included; found
 * with the TypeScript compiler API, test/lint/source-scan.ts). Every run prints the offenders.
 *
 * KNOWN_OFFENDERS is TEMPORARY: the restructuring splits these files in parallel parts (A: the HA
 * layer and its simulator, B: the Shelf, the shelf YAML and the split shelf, C: the TCAM session
 * table and the data plane); each part removes its entries when it lands, and an entry that is no
 * longer over its limit fails this test, so the list is empty once the parts are merged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionSpans, lineCount, repoRoot, sourceFiles } from './source-scan.ts';

const MAX_FILE_LINES = 700;
const MAX_FUNCTION_LINES = 120;

/** `file` or `file#function` → the part of the restructuring that owns it. */
const KNOWN_OFFENDERS: Record<string, 'A' | 'B' | 'C'> = {};

interface Offender {
  key: string;
  where: string;
  lines: number;
  limit: number;
}

function offenders(): Offender[] {
  const out: Offender[] = [];
  for (const file of sourceFiles('board', 'chassis')) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    const n = lineCount(text);
    if (n > MAX_FILE_LINES) out.push({ key: file, where: file, lines: n, limit: MAX_FILE_LINES });
    for (const f of functionSpans(file, text)) {
      if (f.lines > MAX_FUNCTION_LINES) out.push({ key: `${file}#${f.name}`, where: `${file}:${f.line} ${f.name}`, lines: f.lines, limit: MAX_FUNCTION_LINES });
    }
  }
  return out;
}

const show = (o: Offender) => `  ${o.where}: ${o.lines} lines (limit ${o.limit})`;

describe('size limits of board/ and chassis/', () => {
  const found = offenders();

  it(`no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES} (known offenders listed with their part)`, () => {
    const known = found.filter((o) => KNOWN_OFFENDERS[o.key]);
    const unknown = found.filter((o) => !KNOWN_OFFENDERS[o.key]);
    console.log(
      known.length
        ? `size check: ${known.length} known offender(s), to be split before the restructuring is merged:\n${known.map((o) => `${show(o)} [part ${KNOWN_OFFENDERS[o.key]}]`).join('\n')}`
        : 'size check: no offenders',
    );
    expect(unknown.map(show), `over the limit and not a known offender:\n${unknown.map(show).join('\n')}`).toEqual([]);
  });

  it('every known offender is still over its limit (an entry that is not goes)', () => {
    const stale = Object.keys(KNOWN_OFFENDERS).filter((k) => !found.some((o) => o.key === k));
    expect(stale, `no longer over the limit: remove from KNOWN_OFFENDERS in test/lint/size.test.ts:\n  ${stale.join('\n  ')}`).toEqual([]);
  });

  it('measures what it claims: a 121-line function and a 701-line file are over', () => {
    const body = Array.from({ length: 119 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const spans = functionSpans('x.ts', `/** doc */\nexport function big(): void {\n${body}\n}\nconst small = () => {\n  return 1;\n};\nclass K {\n  m(): void {}\n}\n`);
    expect(spans.find((s) => s.name === 'big')).toEqual({ name: 'big', line: 2, lines: 121 });
    expect(spans.find((s) => s.name === 'small')?.lines).toBe(3);
    expect(spans.map((s) => s.name)).toContain('K.m');
    expect(lineCount('a\n'.repeat(701))).toBe(701);
    expect(lineCount('a\n'.repeat(700))).toBe(700);
  });
});
