/**
 * Locates ../shared (the read-only reference data beside the clone) and fails loudly if it is
 * missing, so a test never passes vacuously because its inputs were not found.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (the folder holding package.json). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute path of ../shared, or throws. */
export const sharedDir: string = (() => {
  const d = process.env.ATCASIM_SHARED ?? resolve(repoRoot, '..', 'shared');
  if (!existsSync(join(d, 'pcap'))) {
    throw new Error(`reference data not found at ${d} (expected ../shared beside the clone, or ATCASIM_SHARED)`);
  }
  return d;
})();

/** Path inside ../shared. */
export function shared(...parts: string[]): string {
  return join(sharedDir, ...parts);
}

/** Every capture in ../shared/pcap (top level, not bench/), sorted; throws if none. */
export function sharedCaptures(): string[] {
  const dir = shared('pcap');
  const files = readdirSync(dir)
    .filter((f) => /\.(pcap|pcapng)$/.test(f))
    .sort()
    .map((f) => join(dir, f));
  if (files.length === 0) throw new Error(`no captures in ${dir}`);
  return files;
}
