// Types of bin/build.mjs for the TypeScript tests that use it.
import type { BuildOptions } from 'esbuild';

/** The repository root and its dist/ folder. */
export const ROOT: string;
export const DIST: string;
/** The build in force (dist/current.json). */
export interface CurrentBuild {
  /** Its folder, relative to dist/. */
  dir: string;
  /** When it was started, ms since the epoch (inputs changed after this make it stale). */
  builtAtMs: number;
  /** Its source files, relative to the root. */
  inputs: string[];
}
export function buildOptions(esbuild: typeof import('esbuild'), outdir: string): BuildOptions & { metafile: true };
export function currentBuild(): CurrentBuild | undefined;
export function isFresh(b?: CurrentBuild): boolean;
export function build(): Promise<CurrentBuild>;
