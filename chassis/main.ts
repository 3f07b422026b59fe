/**
 * Composition root of the `atcasim` command: parses the command line (commander) and hands off to
 * the verb modules in chassis/cli/. Real sockets, files, timers and the logger are created by the
 * verbs through chassis/io; the core (board/, chassis/ model code) receives them as ports.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { registerAll } from './cli/index.ts';
import type { CliContext } from './cli/context.ts';

/**
 * Runs the CLI. @param argv process.argv-style array (node, script, args…).
 * @returns the exit status: 0 ok, 1 check failed/refused, 2 usage or input error.
 */
export async function main(argv: string[], io: Partial<Pick<CliContext, 'stdout' | 'stderr'>> = {}): Promise<number> {
  if (!io.stdout) quietOnBrokenPipe(process.stdout);
  let code = 0;
  const ctx: CliContext = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    setExit: (c) => {
      if (c > code) code = c;
    },
  };
  const program = new Command();
  program
    .name('atcasim')
    .description('Emulator of an ATCA load-balancer appliance (shelf, boards, IPMI, HA pairs)')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    });
  await registerAll(program, ctx, argv);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help / --version exit 0; usage errors 2 (commander already printed the message).
      return e.exitCode === 0 ? code : 2;
    }
    throw e;
  }
  return code;
}

let pipeWatched = false;

/**
 * A reader that stops early (`atcasim fields x.pcap | head -1`, `scenario --json | head`) closes
 * the pipe: the next write fails with EPIPE. That is the reader's choice, not an error: end at once
 * with status 0, as the shell tools `head` is used with do, instead of a stack trace.
 */
function quietOnBrokenPipe(out: NodeJS.WriteStream): void {
  if (pipeWatched) return;
  pipeWatched = true;
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    // another listener (the TUI's: a vanished terminal's EIO is a hang-up) decides about the rest
    if (out.listenerCount('error') > 1) return;
    throw e;
  });
}

/** The package's version (package.json beside chassis/). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
