/**
 * No import cycles between files of board/, chassis/ and ui/ (static imports, `import type` and
 * re-exports included). The layering lint (eslint.config.js) rules out cycles between layers; this
 * catches the ones inside a layer, which a folder rule cannot see.
 *
 * KNOWN_CYCLES is TEMPORARY: part B breaks the sensors cycle and part C the board/packet one
 * (ethernet.ts ↔ parse.ts and the decoders between them); each goes when its part lands, and an
 * entry that matches no cycle any more fails this test.
 */
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from './source-scan.ts';

/** A cycle is known when all its files are under `folder`. */
const KNOWN_CYCLES: Array<{ folder: string; part: 'A' | 'B' | 'C' }> = [
  { folder: 'board/packet/', part: 'C' },
];

/** Strongly connected components with more than one file (Tarjan), each sorted. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('import cycles', () => {
  const files = sourceFiles('board', 'chassis', 'ui');
  const graph = new Map(files.map((f) => [f, importsOf(f).flatMap((e) => (e.target && files.includes(e.target) ? [e.target] : []))]));
  const cycles = cyclesOf(graph);
  const knownFor = (c: string[]) => KNOWN_CYCLES.find((k) => c.every((f) => f.startsWith(k.folder)));

  it('no file imports itself through others (known cycles listed with their part)', () => {
    const known = cycles.filter((c) => knownFor(c));
    if (known.length) console.log(`cycle check: ${known.length} known cycle(s):\n${known.map((c) => `  [part ${knownFor(c)!.part}] ${c.join(' ')}`).join('\n')}`);
    const unknown = cycles.filter((c) => !knownFor(c));
    expect(unknown.map((c) => c.join(' ')), `import cycles:\n${unknown.map((c) => `  ${c.join(' ')}`).join('\n')}`).toEqual([]);
  });

  it('every known cycle still exists (an entry that matches none goes)', () => {
    const stale = KNOWN_CYCLES.filter((k) => !cycles.some((c) => c.every((f) => f.startsWith(k.folder))));
    expect(stale.map((k) => k.folder), 'remove from KNOWN_CYCLES in test/lint/cycles.test.ts').toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(cyclesOf(g)).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});
