/**
 * Wording shared by the verbs for a file the user named that cannot be read: `no such file`,
 * `permission denied`, `is a directory, not a …` rather than a raw errno code or node:fs message.
 * Also the CLI's reading of a shelf YAML (`--config FILE`) with that wording.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../board/common/errors.ts';
import { parseShelfConfig } from '../config/shelf-config.ts';
import type { ShelfConfig } from '../config/types.ts';

/**
 * One-line reason a node:fs call on a file failed.
 * @param e what node:fs threw (an ErrnoException; anything else gives its message)
 * @param what what the file should have been, for EISDIR (e.g. 'capture file')
 */
export function fileErrorText(e: unknown, what: string): string {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string') {
    switch (err.code) {
      case 'ENOENT':
        return 'no such file';
      case 'ENOTDIR':
        return 'no such file (a part of the path is not a folder)';
      case 'EACCES':
      case 'EPERM':
        return 'permission denied';
      case 'EISDIR':
        return `is a directory, not a ${what}`;
      default:
        return `cannot read (${err.code})`;
    }
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Reads a text file the user named as a configuration (shelf YAML, scenario).
 * @throws ConfigError `file:1:1: no such file` (and the other fileErrorText reasons)
 */
export function readConfigText(path: string, what = 'YAML file'): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(path, 1, 1, fileErrorText(e, what));
  }
}

/**
 * Reads and parses a shelf YAML named by `--config`.
 * @returns the text (for the database) and the parsed configuration
 * @throws ConfigError (file:line:column) when it cannot be read or is invalid
 */
export function loadShelfConfigFile(path: string): { yaml: string; config: ShelfConfig } {
  const yaml = readConfigText(path, 'shelf YAML file');
  return { yaml, config: parseShelfConfig(yaml, path) };
}
