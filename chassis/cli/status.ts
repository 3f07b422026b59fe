/**
 * `atcasim status`: the one-shot HA view of a running shelf, like `crm_mon -1` — every pair and
 * share with its owner, each member's role, epoch, heartbeat age, sync lag and watchdog time left,
 * the raised alarms with their age, sessions lost since start by age (young / established), and
 * what is out of service, planned or not (chassis/runtime/status-snapshot.ts).
 *
 *   atcasim status [--db FILE] [--json] [--watch [SECONDS]]
 *
 * The shelf is found by its database (`--db`, the same default as `atcasim start`) and asked over
 * its control socket `<db>.ctl` (op `status`; chassis/io/control-client.ts). Only the user who
 * started the shelf can ask it. Not implemented: asking over IPMI (`-H/-p/-U/-P` as `clia` does).
 * Exit status: 0 shown, 2 no shelf running for that database, permission denied, bad flags.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { resolve } from 'node:path';
import { callControl, ControlError } from '../io/control-client.ts';
import { defaultDbPath } from '../io/data-dir.ts';
import { formatStatus, type ShelfStatus } from '../runtime/status-snapshot.ts';
import type { CliContext } from './context.ts';

interface StatusOptions {
  db?: string;
  host?: string;
  json?: boolean;
  /** Seconds between refreshes, or true for the default (2 s). */
  watch?: number | true;
}

function secondsArg(v: string): number {
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || n < 0.2 || n > 3600) throw new InvalidArgumentError(`--watch: "${v}" is not a number of seconds from 0.2 to 3600`);
  return n;
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('HA status of a running shelf: pairs, owners, roles, epochs, heartbeats, sync lag, watchdogs, alarms, sessions lost by age')
    .option('--db <file>', 'the running shelf\'s database (as given to atcasim start)')
    .option('--json', 'one JSON object (--watch: one per line)')
    .option('--watch [seconds]', 'refresh every SECONDS (default 2) until Ctrl-C', secondsArg)
    .option('-H, --host <host>', 'ask over IPMI as clia does (not implemented yet: use --db on the shelf\'s machine)')
    .action(async (o: StatusOptions) => {
      ctx.setExit(await runStatus(o, ctx));
    });
}

/**
 * Asks the shelf and prints; with --watch, again every interval until SIGINT/SIGTERM.
 * @returns the exit status
 */
export async function runStatus(o: StatusOptions, ctx: CliContext): Promise<number> {
  if (o.host !== undefined) {
    ctx.stderr.write('atcasim status: asking over IPMI (-H) is not implemented yet; run it on the shelf\'s machine with --db FILE\n');
    return 2;
  }
  const db = resolve(o.db ?? defaultDbPath());
  const once = async (): Promise<number> => {
    let s: ShelfStatus;
    try {
      s = (await callControl(db, 'status', {}, 5000)) as ShelfStatus;
    } catch (e) {
      if (e instanceof ControlError) {
        ctx.stderr.write(`atcasim status: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
    if (o.json) ctx.stdout.write(`${JSON.stringify(s, null, o.watch === undefined ? 2 : undefined)}\n`);
    else ctx.stdout.write(`${o.watch !== undefined ? '\x1b[H\x1b[2J' : ''}${formatStatus(s)}`);
    return 0;
  };
  if (o.watch === undefined) return once();
  const everyMs = (o.watch === true ? 2 : o.watch) * 1000;
  return new Promise<number>((done) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = (code: number) => {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', onSig);
      process.off('SIGTERM', onSig);
      done(code);
    };
    const onSig = () => stop(0);
    process.on('SIGINT', onSig);
    process.on('SIGTERM', onSig);
    const tick = async () => {
      const code = await once();
      if (code !== 0) stop(code);
      else timer = setTimeout(() => void tick(), everyMs);
    };
    void tick();
  });
}
