/**
 * `atcasim lb`: the run-time control plane of a running shelf in ipvsadm(8)'s vocabulary and
 * output (arguments: chassis/cli/lb-args.ts; layouts: chassis/cli/lb-format.ts; the shelf's side:
 * chassis/runtime/lb-ops.ts). It reaches the shelf that runs on the same database (`--db FILE`,
 * default the one `atcasim start` uses) over its control socket `<db>.ctl`, which only the user
 * who started the shelf can open.
 *
 * `-R` names the input line of a refusal (`restore line N: …`), whether the line does not parse
 * or the shelf refuses the edit it makes (the shelf's `edit K: …`, K counting the edits).
 *
 * Exit status: 0 done (`-h`/`--help` too); 1 the shelf refused the change (libipvs's words, e.g. "Service already
 * exists", or the shelf loader's reason); 2 bad arguments (one line, ipvsadm's manner), no shelf
 * running for that database, permission denied.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { callControl, ControlError } from '../io/control-client.ts';
import { defaultDbPath } from '../io/data-dir.ts';
import type { SessionListing } from '../dataplane/types.ts';
import { isService, type ServiceEdit } from '../model/service-table.ts';
import type { LbService } from '../runtime/lb-ops.ts';
import type { CliContext } from './context.ts';
import { printable } from '../config/yaml-reader.ts';
import { LB_USAGE, LbUsageError, parseLbArgs, type LbCall } from './lb-args.ts';
import { formatConns, formatList, formatSave, formatStats } from './lb-format.ts';

/** The `lb.list` answer. */
interface Listing {
  size: number;
  services: LbService[];
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('lb')
    .description('virtual services and real servers of a running shelf, in ipvsadm\'s vocabulary (-A/-E/-D, -a/-e/-d, -L -n, -Z, -S, -R; docs/lb.md)')
    .helpOption(false)
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument('[args...]')
    .action(async (args: string[]) => {
      ctx.setExit(await runLb(args, ctx, () => readStdin()));
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function usage(ctx: CliContext, m: string): number {
  ctx.stderr.write(`atcasim lb: ${m}\n`);
  return 2;
}

/**
 * Runs one call.
 * @param stdin the rules of `-R` (read only for it)
 * @returns the exit status
 */
export async function runLb(argv: readonly string[], ctx: CliContext, stdin: () => Promise<string>): Promise<number> {
  let call: LbCall;
  try {
    call = parseLbArgs(argv);
  } catch (e) {
    if (e instanceof LbUsageError) return usage(ctx, e.message);
    throw e;
  }
  const db = resolve(call.db ?? defaultDbPath());
  try {
    return await run(call, db, ctx, stdin);
  } catch (e) {
    if (e instanceof LbUsageError) return usage(ctx, e.message);
    if (e instanceof ControlError) {
      ctx.stderr.write(`atcasim lb: ${e.message}\n`);
      return e.code === 'refused' ? 1 : 2;
    }
    throw e;
  }
}

async function run(call: LbCall, db: string, ctx: CliContext, stdin: () => Promise<string>): Promise<number> {
  const c = call.command;
  switch (c.kind) {
    case 'edit':
      await callControl(db, 'lb.apply', { edits: [c.edit] }, 30_000);
      return 0;
    case 'help':
      ctx.stdout.write(LB_USAGE);
      return 0;
    case 'restore':
      return restore(db, await stdin());
    case 'zero': {
      const { services } = (await callControl(db, 'lb.list', {}, 30_000)) as Listing;
      const name = c.service === undefined ? undefined : services.find((s) => isService(s as never, c.service!))?.name;
      if (c.service !== undefined && name === undefined) throw new ControlError('refused', 'No such service');
      await callControl(db, 'lb.zero', name === undefined ? {} : { service: name }, 30_000);
      return 0;
    }
    case 'save': {
      ctx.stdout.write(formatSave(((await callControl(db, 'lb.list', {}, 30_000)) as Listing).services));
      return 0;
    }
    case 'list':
      return list(c, db, ctx);
  }
}

/** The edits of `-R` input and the input line (1-based) of each. @throws LbUsageError naming the line */
export function restoreEdits(text: string): { edits: ServiceEdit[]; lines: number[] } {
  const edits: ServiceEdit[] = [];
  const lines: number[] = [];
  text.split('\n').forEach((raw, i) => {
    const l = raw.trim();
    if (l === '' || l.startsWith('#')) return;
    let p: LbCall;
    try {
      p = parseLbArgs(l.split(/\s+/));
    } catch (e) {
      throw new LbUsageError(`restore line ${i + 1}: ${(e as Error).message}`);
    }
    if (p.command.kind !== 'edit') throw new LbUsageError(`restore line ${i + 1}: only -A, -E, -D, -C, -a, -e, -d lines can be restored`);
    edits.push(p.command.edit);
    lines.push(i + 1);
  });
  return { edits, lines };
}

async function restore(db: string, text: string): Promise<number> {
  const { edits, lines } = restoreEdits(text);
  try {
    await callControl(db, 'lb.apply', { edits }, 30_000);
  } catch (e) {
    if (!(e instanceof ControlError) || e.code !== 'refused') throw e;
    // the shelf names the refused edit `edit K:` when it got several; one edit is its only line
    const m = /^edit (\d+): (.*)$/s.exec(e.message);
    const line = m ? lines[Number(m[1]) - 1] : lines.length === 1 ? lines[0] : undefined;
    if (line !== undefined) throw new ControlError(e.code, `restore line ${line}: ${printable(m ? m[2]! : e.message)}`);
    throw e;
  }
  return 0;
}

async function list(c: Extract<LbCall['command'], { kind: 'list' }>, db: string, ctx: CliContext): Promise<number> {
  const args = c.board === undefined ? {} : { slot: c.board };
  if (c.view === 'conns') {
    ctx.stdout.write(formatConns((await callControl(db, 'lb.conns', args, 30_000)) as Array<SessionListing & { slot: number }>));
    return 0;
  }
  let size = 0;
  const ask = async () => {
    const got = (await callControl(db, 'lb.list', args, 30_000)) as Listing;
    size = got.size;
    return c.service === undefined ? got.services : got.services.filter((s) => isService(s as never, c.service!));
  };
  const first = await ask();
  if (c.service !== undefined && first.length === 0) throw new ControlError('refused', 'No such service');
  if (c.view === 'plain') ctx.stdout.write(formatList(first, size));
  else if (c.view === 'stats') ctx.stdout.write(formatStats(first, size));
  else {
    // --rate: two samples one second apart (ipvsadm shows the kernel's estimator)
    const before = new Map<string, number[]>();
    formatStats(first, size, (k, cols) => {
      before.set(k, cols);
      return cols;
    });
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    const second = await ask();
    const dt = (Date.now() - t0) / 1000;
    ctx.stdout.write(formatStats(second, size, (k, cols) => cols.map((v, i) => Math.max(0, (v - (before.get(k)?.[i] ?? v)) / dt))));
  }
  return 0;
}
