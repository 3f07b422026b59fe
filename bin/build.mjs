#!/usr/bin/env node
// Compiles the TypeScript sources to JavaScript for the `atcasim` command (bin/atcasim.mjs), so
// that it starts without a TypeScript loader. Run by `npm ci`/`npm install` (the package's
// postinstall) and `npm run build`; bin/atcasim.mjs runs it again by itself when a source file
// changed since the last build. Uses esbuild (installed with tsx, a runtime dependency).
//
// Output: dist/b-<id>/main.js plus one chunk per verb (chassis/cli/index.ts imports each verb's
// module dynamically: esbuild's code splitting keeps them apart), node_modules left as imports.
// dist/current.json names the build in force and lists its inputs (for the staleness check).
// A new build goes to a new folder and current.json is replaced by a rename, so processes that
// run or rebuild at the same time never see half a build. Older builds are removed after a while.
//
//   node bin/build.mjs            build (prints one line)
//   node bin/build.mjs --if-able  the same, but only a note (exit 0) when esbuild is missing
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
const CURRENT = join(DIST, 'current.json');
/** Builds older than this (and not in force) are removed by the next build. */
const KEEP_OLD_MS = 10 * 60 * 1000;

/**
 * esbuild options of the product build (also used by the module-graph test with `write: false`).
 * Every output file sits directly in `outdir`, so each source's `import.meta.url` is rewritten to
 * the URL of its source file, relative to the output file: paths beside the sources (assets,
 * YAML, the native addon, bin/) keep working.
 */
export function buildOptions(esbuild, outdir) {
  const rewrite = {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const rel = relative(outdir, args.path).split('\\').join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
  return {
    absWorkingDir: ROOT,
    entryPoints: { main: join(ROOT, 'chassis', 'main.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'silent',
    plugins: [rewrite],
  };
}

/** The build in force: `{ dir, builtAtMs, inputs }` (dir relative to dist/), or undefined. */
export function currentBuild() {
  try {
    return JSON.parse(readFileSync(CURRENT, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * True when the build in force exists and none of its inputs changed after it was made (a new
 * source file only matters once an existing one imports it, and that edit is seen).
 */
export function isFresh(b = currentBuild()) {
  if (!b || !existsSync(join(DIST, b.dir, 'main.js'))) return false;
  for (const f of b.inputs) {
    try {
      if (statSync(join(ROOT, f)).mtimeMs > b.builtAtMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Builds into a new folder and puts it in force. @returns the new current.json contents */
export async function build() {
  const esbuild = await import('esbuild');
  const id = `${Date.now().toString(36)}-${process.pid}`;
  const outdir = join(DIST, `b-${id}`);
  mkdirSync(DIST, { recursive: true });
  const builtAtMs = Date.now();
  let result;
  try {
    result = await esbuild.build(buildOptions(esbuild, outdir));
  } catch (e) {
    rmSync(outdir, { recursive: true, force: true });
    throw e;
  }
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/')).sort();
  const current = { dir: `b-${id}`, builtAtMs, inputs };
  const tmp = join(DIST, `.current-${id}.json`);
  writeFileSync(tmp, JSON.stringify(current));
  renameSync(tmp, CURRENT);
  for (const d of readdirSync(DIST)) {
    if (!d.startsWith('b-') || d === current.dir) continue;
    try {
      if (Date.now() - statSync(join(DIST, d)).mtimeMs > KEEP_OLD_MS) rmSync(join(DIST, d), { recursive: true, force: true });
    } catch {
      // another build removed it
    }
  }
  return current;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const ifAble = process.argv.includes('--if-able');
  try {
    const t = Date.now();
    const b = await build();
    console.log(`atcasim: compiled ${b.inputs.length} TypeScript files to dist/${b.dir} in ${Date.now() - t} ms`);
  } catch (e) {
    if (ifAble && e && e.code === 'ERR_MODULE_NOT_FOUND') {
      console.log('atcasim: esbuild is not installed; `atcasim` will run the TypeScript sources through tsx (slower start-up)');
    } else {
      console.error(`atcasim: build failed: ${e && e.message ? e.message.split('\n')[0] : String(e)}`);
      process.exit(1);
    }
  }
}
