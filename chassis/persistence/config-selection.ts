/**
 * Which shelf configuration is in force (docs/shelf.md "The database"): a new database takes the shelf
 * from `--config` or the shipped default; later starts use the shelf stored in the database, unless
 * `--config` is given, which replaces it (logged). Runtime state (M-states, SEL, FRU data written over
 * IPMI, thresholds, users, roles) survives a replacement for every FRU and sensor whose configuration
 * did not change (the Shelf compares fingerprints when it opens).
 */
import { ConfigError } from '../../board/common/errors.ts';
import type { Logger } from '../../board/common/logger.ts';
import { parseShelfConfig } from '../config/shelf-config.ts';
import type { ShelfConfig } from '../config/types.ts';
import type { Store } from './store.ts';

/** A shelf YAML and where it came from. */
export interface ConfigInput {
  yaml: string;
  /** Path, or `default-shelf.yaml`. */
  source: string;
}

/** The configuration in force and how it was chosen. */
export interface ResolvedShelf {
  config: ShelfConfig;
  yaml: string;
  source: string;
  /** 'given' = `--config`, 'stored' = from the database, 'default' = the shipped default. */
  origin: 'given' | 'stored' | 'default';
  /** A given configuration replaced a different stored one. */
  replaced: boolean;
}

/**
 * Chooses the configuration and stores it when it changed.
 * @param store the opened database
 * @param opts.given the `--config` file, if any
 * @param opts.defaultShelf the shipped default shelf
 * @param opts.nowMs wall-clock time for the `stored_at` column
 * @throws ConfigError when the chosen YAML is invalid (a stored one reports `SOURCE (stored in the database)`)
 */
export function resolveShelfConfig(store: Store, opts: { given?: ConfigInput; defaultShelf: ConfigInput; nowMs: number; log: Logger }): ResolvedShelf {
  const stored = store.getConfig();
  const log = opts.log.child({ module: 'chassis.config' });
  if (opts.given) {
    const config = parseShelfConfig(opts.given.yaml, opts.given.source);
    const replaced = !!stored && stored.yaml !== opts.given.yaml;
    if (!stored || replaced || stored.source !== opts.given.source) {
      store.putConfig({ yaml: opts.given.yaml, source: opts.given.source, storedAt: opts.nowMs });
    }
    if (replaced) log.info({ category: 'config', from: stored!.source, to: opts.given.source }, `shelf configuration replaced by ${opts.given.source}`);
    return { config, yaml: opts.given.yaml, source: opts.given.source, origin: 'given', replaced };
  }
  if (stored) {
    let config: ShelfConfig;
    try {
      config = parseShelfConfig(stored.yaml, `${stored.source} (stored in the database)`);
    } catch (e) {
      if (e instanceof ConfigError) {
        const detail = e.message.slice(`${e.file}:${e.line}:${e.column}: `.length);
        throw new ConfigError(e.file, e.line, e.column, `${detail} — start with --config FILE to replace the stored shelf`);
      }
      throw e;
    }
    return { config, yaml: stored.yaml, source: stored.source, origin: 'stored', replaced: false };
  }
  const config = parseShelfConfig(opts.defaultShelf.yaml, opts.defaultShelf.source);
  store.putConfig({ yaml: opts.defaultShelf.yaml, source: opts.defaultShelf.source, storedAt: opts.nowMs });
  return { config, yaml: opts.defaultShelf.yaml, source: opts.defaultShelf.source, origin: 'default', replaced: false };
}
