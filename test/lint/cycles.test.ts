/**
 * No import cycles between files of board/, chassis/ and ui/ (static imports, `import type` and
 * re-exports included). The layering lint (eslint.config.js) rules out cycles between layers; this
 * catches the ones inside a layer, which a folder rule cannot see. There are no exceptions: the
 * packet decoders reach the parser through the Dissector interface (board/packet/dissector.ts),
 * the parser imports the decoders.
 */
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from './source-scan.ts';

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

  it('no file imports itself through others', () => {
    expect(cycles.map((c) => c.join(' ')), `import cycles:\n${cycles.map((c) => `  ${c.join(' ')}`).join('\n')}`).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(cyclesOf(g)).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});
