/**
 * `atcasim config`: the shelf YAML helpers.
 *
 *   atcasim config print-default     print the shipped default shelf (copy it, edit it, pass --config)
 *   atcasim config check FILE...     validate shelf files: one summary line each and exit 0, or
 *                                    `file:line:column: message` on stderr and exit 2
 */
import type { Command } from 'commander';
import { ConfigError } from '../../board/common/errors.ts';
import { summarizeShelf } from '../config/shelf-config.ts';
import { readDefaultShelfYaml } from '../io/data-dir.ts';
import { loadShelfConfigFile } from './read-file.ts';
import type { CliContext } from './context.ts';

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
