/**
 * Where atcasim's files live, and reading the shelf YAML from disk (the pure loader in
 * chassis/config takes text). The product reads only its own package files and the paths the
 * user names; never ../shared.
 *
 * - Database: `--db FILE`, else `$XDG_DATA_HOME/atcasim/atcasim.db`, else
 *   `~/.local/share/atcasim/atcasim.db` (XDG Base Directory Specification).
 * - Default shelf: chassis/config/default-shelf.yaml, shipped with the package.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../board/common/errors.ts';
import { parseShelfConfig } from '../config/shelf-config.ts';
import type { ShelfConfig } from '../config/types.ts';

/** Absolute path of the shipped default shelf YAML. */
export const DEFAULT_SHELF_PATH: string = fileURLToPath(new URL('../config/default-shelf.yaml', import.meta.url));

/** Name used for the default shelf in messages and in the database. */
export const DEFAULT_SHELF_NAME = 'default-shelf.yaml';

/**
 * Default database path for an environment.
 * @param env environment variables (XDG_DATA_HOME is honoured when absolute)
 * @param home home directory
 */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'share');
  return join(base, 'atcasim', 'atcasim.db');
}

/** Creates the folder that will hold `file` (recursive, no error when it exists). */
export function ensureParentDir(file: string): void {
  if (file === ':memory:') return;
  mkdirSync(dirname(file), { recursive: true });
}

/** The shipped default shelf YAML text. */
export function readDefaultShelfYaml(): string {
  return readFileSync(DEFAULT_SHELF_PATH, 'utf8');
}

/** The parsed default shelf. @throws ConfigError if the shipped file is broken (a packaging bug). */
export function loadDefaultShelf(): ShelfConfig {
  return parseShelfConfig(readDefaultShelfYaml(), DEFAULT_SHELF_NAME);
}

/**
 * Reads and parses a shelf YAML file.
 * @returns the text (for the database) and the parsed configuration
 * @throws ConfigError when the file cannot be read (`file:1:1: cannot read: …`) or is invalid
 */
export function loadShelfFile(path: string): { yaml: string; config: ShelfConfig } {
  let yaml: string;
  try {
    yaml = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(path, 1, 1, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return { yaml, config: parseShelfConfig(yaml, path) };
}
