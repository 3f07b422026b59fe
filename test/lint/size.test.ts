/**
 * Size limits of board/ and chassis/ (the house's "files under ~700 lines, functions under ~120"):
 * no source file over 700 lines, no function, method, accessor, constructor or arrow function over
 * 120 lines (its span from the signature to the closing brace, nested functions included; found
 * with the TypeScript compiler API, test/lint/source-scan.ts). There are no exceptions; a failing
 * run prints the offenders.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionSpans, lineCount, repoRoot, sourceFiles } from './source-scan.ts';

const MAX_FILE_LINES = 700;
const MAX_FUNCTION_LINES = 120;

interface Offender {
  where: string;
  lines: number;
  limit: number;
}

function offenders(): Offender[] {
  const out: Offender[] = [];
  for (const file of sourceFiles('board', 'chassis')) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    const n = lineCount(text);
    if (n > MAX_FILE_LINES) out.push({ where: file, lines: n, limit: MAX_FILE_LINES });
    for (const f of functionSpans(file, text)) {
      if (f.lines > MAX_FUNCTION_LINES) out.push({ where: `${file}:${f.line} ${f.name}`, lines: f.lines, limit: MAX_FUNCTION_LINES });
    }
  }
  return out;
}

const show = (o: Offender) => `  ${o.where}: ${o.lines} lines (limit ${o.limit})`;

describe('size limits of board/ and chassis/', () => {
  const found = offenders();

  it(`no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
    expect(found.map(show), `over the limit:\n${found.map(show).join('\n')}`).toEqual([]);
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
