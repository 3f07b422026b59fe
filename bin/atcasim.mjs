#!/usr/bin/env node
// Entry point of the `atcasim` command. Runs the JavaScript compiled from the TypeScript sources
// (dist/, built by `npm ci` through bin/build.mjs), so start-up needs no TypeScript loader. When
// a source file changed since that build, it rebuilds first (esbuild, well under a second); if
// that cannot be done it runs the sources through tsx, with a one-line note on stderr (also
// with ATCASIM_TSX=1: stack traces then name the .ts files and lines directly).
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { build, currentBuild, DIST, isFresh } from './build.mjs';

async function entry() {
  if (process.env.ATCASIM_TSX === '1') return viaTsx('ATCASIM_TSX=1');
  let b = currentBuild();
  if (isFresh(b)) return pathToFileURL(join(DIST, b.dir, 'main.js')).href;
  try {
    b = await build();
    return pathToFileURL(join(DIST, b.dir, 'main.js')).href;
  } catch (e) {
    return viaTsx(e && e.code === 'ERR_MODULE_NOT_FOUND' ? 'esbuild is not installed' : `the build failed (${String(e && e.message ? e.message : e).split('\n')[0]})`);
  }
}

/** The sources through tsx, with the one-line note saying why. */
async function viaTsx(why) {
  process.stderr.write(`atcasim: note: running the TypeScript sources through tsx (slower start-up): ${why}; \`npm run build\` compiles them\n`);
  const { register } = await import('tsx/esm/api');
  register();
  return new URL('../chassis/main.ts', import.meta.url).href;
}

const { main } = await import(await entry());
process.exitCode = await main(process.argv);
