/**
 * Each verb loads only what it needs (chassis/cli/index.ts imports every verb's module lazily):
 * the module graph of the compiled `atcasim` (esbuild's metafile of the product build, bin/build.mjs)
 * is followed from each verb's chunk through its static imports, and the heavy parts it reaches
 * are compared with what the verb is allowed. A verb that starts importing the TUI, SQLite or
 * the data plane without needing them fails here; a new verb gets nothing heavy until it is
 * listed in ALLOWED.
 */
import * as esbuild from 'esbuild';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOptions, ROOT } from '../../../bin/build.mjs';

type Heavy = 'tui' | 'sqlite' | 'dataplane' | 'emulator';

/** What reaching each heavy part means: an input path prefix or an external package. */
const HEAVY: Record<Heavy, { inputs: string[]; packages: string[] }> = {
  tui: { inputs: ['ui/'], packages: ['blessed'] },
  sqlite: { inputs: ['chassis/io/sqlite-store.ts', 'chassis/io/shmc-store.ts'], packages: ['better-sqlite3'] },
  // the processor board itself, its session table and schedulers (its config types are not heavy)
  dataplane: { inputs: ['chassis/dataplane/', 'board/processor/processor-board.ts', 'board/processor/tcam/', 'board/processor/scheduler/'], packages: [] },
  emulator: { inputs: ['chassis/runtime/emulator.ts'], packages: [] },
};

/** Entry (the verb's module, or main for `atcasim --version`/`--help`) → the heavy parts it may load statically. */
const ALLOWED: Record<string, Heavy[]> = {
  'chassis/main.ts': [],
  'chassis/cli/clia.ts': [],
  'chassis/cli/status.ts': [],
  'chassis/cli/config.ts': [],
  'chassis/cli/hash.ts': [],
  'chassis/cli/net.ts': [],
  'chassis/cli/db.ts': ['sqlite'],
  // the header parser shares the replay report's capture code
  'chassis/cli/fields.ts': ['dataplane'],
  'chassis/cli/replay.ts': ['dataplane'],
  'chassis/cli/scenario.ts': ['dataplane', 'emulator'],
  'chassis/cli/chaos.ts': ['dataplane', 'emulator'],
  'chassis/cli/shmc.ts': ['sqlite'],
  // the TUI (ui/app.ts) only by its dynamic import, never statically
  'chassis/cli/start.ts': ['sqlite', 'dataplane', 'emulator'],
  'chassis/cli/shelf.ts': ['sqlite', 'dataplane', 'emulator'],
  'ui/app.ts': ['tui'],
  // loaded by `config export` only (a dynamic import): it is the SQLite part itself
  'chassis/io/sqlite-store.ts': ['sqlite'],
};

describe('verb module graphs', async () => {
  const r = await esbuild.build({ ...buildOptions(esbuild, join(ROOT, 'dist', 'graph-probe')), write: false });
  const outputs = r.metafile.outputs;

  /** The inputs and external packages reached from an output through static imports only. */
  function reach(out: string): { inputs: Set<string>; packages: Set<string> } {
    const seen = new Set<string>();
    const inputs = new Set<string>();
    const packages = new Set<string>();
    const walk = (o: string): void => {
      if (seen.has(o)) return;
      seen.add(o);
      for (const i of Object.keys(outputs[o]!.inputs)) inputs.add(i);
      for (const im of outputs[o]!.imports) {
        if (im.kind !== 'import-statement') continue;
        if (im.external) packages.add(im.path);
        else walk(im.path);
      }
    };
    walk(out);
    return { inputs, packages };
  }

  const entries = Object.entries(outputs).filter(([, o]) => o.entryPoint !== undefined);

  it('every verb module is a chunk of its own (loaded lazily)', () => {
    const names = entries.map(([, o]) => o.entryPoint);
    for (const verb of ['clia', 'start', 'db', 'fields', 'config']) expect(names).toContain(`chassis/cli/${verb}.ts`);
    // and main itself reaches no verb module statically
    const main = entries.find(([, o]) => o.entryPoint === 'chassis/main.ts')!;
    expect([...reach(main[0]).inputs].filter((i) => i.startsWith('chassis/cli/') && i !== 'chassis/cli/index.ts')).toEqual([]);
  });

  for (const [out, o] of entries) {
    it(`${o.entryPoint} loads only the heavy parts it needs`, () => {
      const { inputs, packages } = reach(out);
      const allowed = ALLOWED[o.entryPoint!] ?? [];
      for (const [heavy, what] of Object.entries(HEAVY) as Array<[Heavy, (typeof HEAVY)[Heavy]]>) {
        const hits = [...[...inputs].filter((i) => what.inputs.some((p) => i.startsWith(p))), ...what.packages.filter((p) => packages.has(p))];
        if (allowed.includes(heavy)) continue;
        expect(hits, `${o.entryPoint} imports ${heavy} (${hits.slice(0, 3).join(', ')}) — load it lazily, or list it in ALLOWED if the verb needs it`).toEqual([]);
      }
    });
  }
});
