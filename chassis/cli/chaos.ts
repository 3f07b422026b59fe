/**
 * `atcasim chaos [--seeds N] [--from-seed S] [--faults LIST] [--duration 60s] [--config FILE]
 * [--out DIR] [--quiet]` — randomised fault schedules in simulated time (docs/scenarios.md).
 * For each seed a schedule is drawn, run on the count model with the invariants audited after
 * every step, and on a violation the seed is printed and a minimised scenario is written to
 * `DIR/chaos-SEED.yaml` (replay it with `atcasim scenario`). Closing line:
 * `chaos: N schedules, V violations, X schedules/s`. Exit 1 on a violation, 2 on bad options,
 * else 0. This file is the I/O edge (the shelf YAML, the output folder).
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { accessSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CommandError, ConfigError } from '../../board/common/errors.ts';
import { parseDuration } from '../config/duration.ts';
import type { ShelfConfig } from '../config/types.ts';
import { loadDefaultShelf } from '../io/data-dir.ts';
import { loadShelfConfigFile } from './read-file.ts';
import { DEFAULT_CHAOS_FAULTS, parseFaults, runChaos } from '../scenarios/chaos.ts';
import type { CliContext } from './context.ts';

/** Options as commander hands them over. */
export interface ChaosCliOptions {
  seeds: number;
  fromSeed: number;
  faults?: string;
  duration: number;
  config?: string;
  out: string;
  quiet?: boolean;
}

function intArg(name: string, min: number, max: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new InvalidArgumentError(`${name} must be an integer ${min}..${max}`);
    return Number(v);
  };
}

function durationArg(v: string): number {
  const ms = parseDuration(v);
  if (ms === undefined || ms < 5000 || ms > 3_600_000) throw new InvalidArgumentError(`--duration: "${v}" is not a duration between 5s and 1h (write 30s, 2m)`);
  return ms;
}

/**
 * Why scenario files could not be written to folder `dir` (checked before any schedule runs), or
 * undefined when they can. The folder itself is created at the first violation; its parent must exist.
 */
function checkOutDir(dir: string): string | undefined {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) return 'is not a folder';
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      return 'permission denied (the folder is not writable)';
    }
    return undefined;
  }
  const parent = dirname(dir);
  if (!existsSync(parent) || !statSync(parent).isDirectory()) return 'cannot create it: its folder does not exist';
  try {
    accessSync(parent, constants.W_OK);
  } catch {
    return `cannot create it: permission denied in ${parent}`;
  }
  return undefined;
}

/**
 * Runs the verb.
 * @returns exit status: 0 no violation, 1 a violation was found, 2 bad options or files
 */
export async function runChaosVerb(o: ChaosCliOptions, ctx: CliContext): Promise<number> {
  let faults: string[];
  try {
    faults = o.faults !== undefined ? parseFaults(o.faults) : [...DEFAULT_CHAOS_FAULTS];
  } catch (e) {
    if (!(e instanceof CommandError)) throw e;
    ctx.stderr.write(`atcasim chaos: ${e.message}\n`);
    return 2;
  }
  let shelf: ShelfConfig;
  try {
    shelf = o.config !== undefined ? loadShelfConfigFile(o.config).config : loadDefaultShelf();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    ctx.stderr.write(`atcasim chaos: ${e.message}\n`);
    return 2;
  }
  if (shelf.ha.pairs.length === 0) {
    ctx.stderr.write('atcasim chaos: the shelf has no HA pair\n');
    return 2;
  }
  const out = resolve(o.out);
  const outProblem = checkOutDir(out);
  if (outProblem !== undefined) {
    ctx.stderr.write(`atcasim chaos: --out ${o.out}: ${outProblem}\n`);
    return 2;
  }
  const t0 = performance.now();
  let violations = 0;
  let done = 0;
  const findings = runChaos(
    { shelf, shelfPath: o.config !== undefined ? resolve(o.config) : 'default', faults, durationMs: o.duration, seeds: o.seeds, fromSeed: o.fromSeed },
    (p) => {
      done++;
      if (p.violation) {
        violations++;
        const f = p.violation;
        let where = '';
        try {
          mkdirSync(out, { recursive: true });
          const file = join(out, `chaos-${f.seed}.yaml`);
          writeFileSync(file, f.yaml);
          where = ` → ${file}`;
        } catch (e) {
          where = ` (could not write the scenario: ${(e as NodeJS.ErrnoException).code ?? String(e)})`;
        }
        ctx.stdout.write(`seed ${f.seed}: ${f.invariant} at ${(f.at / 1000).toFixed(3)}s — ${f.detail}; minimised to ${f.minimised.actions.length} action(s), ${(f.minimised.runForMs / 1000).toFixed(3)}s${where}\n`);
      } else if (!o.quiet && done % 50 === 0) {
        ctx.stderr.write(`chaos: ${done}/${o.seeds} schedules, ${violations} violations\n`);
      }
    },
  );
  const secs = (performance.now() - t0) / 1000;
  ctx.stdout.write(`chaos: ${o.seeds} schedules, ${findings.length} violations, ${(o.seeds / Math.max(secs, 1e-9)).toFixed(2)} schedules/s\n`);
  return findings.length > 0 ? 1 : 0;
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('chaos')
    .description('random fault schedules in simulated time, invariants checked after every step; a violation is minimised into a scenario file (exit 1)')
    .option('--seeds <n>', 'number of schedules', intArg('--seeds', 1, 10_000_000), 100)
    .option('--from-seed <s>', 'first seed', intArg('--from-seed', 0, 0xffffffff), 1)
    .option('--faults <list>', `comma list of action names (default: all but interlock-off: ${DEFAULT_CHAOS_FAULTS.join(',')})`)
    .addOption(new Option('--duration <duration>', 'simulated length of each schedule (5s..1h)').argParser(durationArg).default(60_000, '60s'))
    .option('--config <file>', 'shelf YAML (default: the shipped default shelf)')
    .option('--out <dir>', 'where chaos-SEED.yaml files are written', '.')
    .option('--quiet', 'no progress lines on stderr')
    .action(async (o: ChaosCliOptions) => {
      ctx.setExit(await runChaosVerb(o, ctx));
    });
}
