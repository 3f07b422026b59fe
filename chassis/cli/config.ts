/**
 * `atcasim config`: the shelf YAML helpers.
 *
 *   atcasim config print-default     print the shipped default shelf (copy it, edit it, pass --config)
 *   atcasim config check FILE...     validate shelf files: one summary line each and exit 0, or
 *                                    `file:line:column: message` on stderr and exit 2
 *   atcasim config export [--db F]   print the shelf YAML in force: the one stored in the database
 *                                    (a running shelf's run-time service changes, `atcasim lb`,
 *                                    included); exit 2 when the database holds none
 */
import type { Command } from 'commander';
import { ConfigError } from '../../board/common/errors.ts';
import { summarizeShelf } from '../config/shelf-config.ts';
import { readDefaultShelfYaml } from '../io/data-dir.ts';
import { loadShelfConfigFile } from './read-file.ts';
import type { CliContext } from './context.ts';
import { resolve } from 'node:path';
import { defaultDbPath } from '../io/data-dir.ts';
import type { SqliteStore } from '../io/sqlite-store.ts';

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command('config').description('print or check shelf configuration files (YAML)');
  cmd
    .command('print-default')
    .description('print the built-in default shelf YAML')
    .action(() => {
      ctx.stdout.write(readDefaultShelfYaml());
    });
  cmd
    .command('export')
    .description('print the shelf YAML in force (stored in the database, run-time service changes included)')
    .option('--db <file>', 'the database (as given to atcasim start)')
    .action(async (o: { db?: string }) => {
      const file = resolve(o.db ?? defaultDbPath());
      let store: SqliteStore;
      try {
        // SQLite only for export: `config check` / `print-default` start without it
        const { SqliteStore } = await import('../io/sqlite-store.ts');
        store = SqliteStore.open(file, { mustExist: true, readonly: true });
      } catch (e) {
        ctx.stderr.write(`atcasim config export: ${(e as Error).message.split('\n')[0]}\n`);
        ctx.setExit(2);
        return;
      }
      try {
        const c = store.getConfig();
        if (c === undefined) {
          ctx.stderr.write(`atcasim config export: ${file} holds no shelf yet (atcasim start stores one)\n`);
          ctx.setExit(2);
          return;
        }
        ctx.stdout.write(c.yaml.endsWith('\n') ? c.yaml : `${c.yaml}\n`);
      } finally {
        store.close();
      }
    });
  cmd
    .command('check')
    .description('validate shelf YAML files (exit 0 ok, 2 with file:line:column errors)')
    .argument('<file...>', 'shelf YAML files')
    .action((files: string[]) => {
      for (const f of files) {
        try {
          const { config } = loadShelfConfigFile(f);
          ctx.stdout.write(`${f}: ok: ${summarizeShelf(config)}\n`);
        } catch (e) {
          if (!(e instanceof ConfigError)) throw e;
          ctx.stderr.write(`${e.message}\n`);
          ctx.setExit(2);
        }
      }
    });
}
