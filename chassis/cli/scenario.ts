/**
 * `atcasim scenario FILE.yaml... [--junit out.xml] [--json] [--verbose]` — scripted failover tests
 * in simulated time (docs/scenarios.md). Every file is parsed and checked first; any
 * invalid file prints `file:line:column: message` and nothing runs (exit 2). Then each scenario
 * runs and its report is printed (text, or JSON with `--json`); exit 1 when an expectation failed,
 * else 0. `--junit FILE` also writes JUnit XML. This file is the I/O edge: it reads the scenario
 * files, shelf YAMLs and captures for the core runner (chassis/scenarios/runner.ts).
 */
import type { Command } from 'commander';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigError } from '../../board/common/errors.ts';
import { readDefaultShelfYaml } from '../io/data-dir.ts';
import { BUNDLED_CAPTURE_PATH } from '../runtime/assets.ts';
import { formatReport, junitXml, reportsJson } from '../scenarios/report.ts';
import { loadScenario, runScenario } from '../scenarios/runner.ts';
import type { LoadedScenario, ScenarioIo, ScenarioReport } from '../scenarios/runner.ts';
import type { CliContext } from './context.ts';
import { fileErrorText, readConfigText } from './read-file.ts';

/** Runs a file read; a failure becomes an Error whose message is the shared wording. */
function readWorded<T>(path: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw new Error(fileErrorText(e, what));
  }
}

/** The node:fs file access of the scenario runner. */
export function nodeScenarioIo(): ScenarioIo {
  let bundled: Uint8Array | undefined;
  return {
    // errors worded like every other verb's ("no such file", "is a directory, not a …")
    readText: (p) => readWorded(p, 'shelf YAML file', () => readFileSync(p, 'utf8')),
    readBytes: (p) => readWorded(p, 'capture file', () => readFileSync(p)),
    defaultShelfYaml: () => readDefaultShelfYaml(),
    bundledCapture: () => (bundled ??= readFileSync(BUNDLED_CAPTURE_PATH)),
    resolve: (file, rel) => (isAbsolute(rel) ? rel : resolve(dirname(file), rel)),
  };
}

/**
 * Reads and checks a scenario file.
 * @throws ConfigError (file:line:column), also for an unreadable file (`file:1:1: no such file`)
 */
export function loadScenarioFile(path: string, io: ScenarioIo = nodeScenarioIo()): LoadedScenario {
  return loadScenario(readConfigText(path, 'scenario file'), path, io);
}

/** Options as commander hands them over. */
export interface ScenarioOptions {
  junit?: string;
  json?: boolean;
  verbose?: boolean;
}

/**
 * Runs the verb.
 * @returns the exit status: 2 invalid file(s), nothing run; 1 an expectation failed; 0 all passed
 */
export async function runScenarioVerb(files: readonly string[], o: ScenarioOptions, ctx: CliContext): Promise<number> {
  const io = nodeScenarioIo();
  const loaded: LoadedScenario[] = [];
  let invalid = 0;
  for (const f of files) {
    try {
      loaded.push(loadScenarioFile(f, io));
    } catch (e) {
      if (!(e instanceof ConfigError) && !(e instanceof RangeError)) throw e;
      ctx.stderr.write(`atcasim scenario: ${e.message}\n`);
      invalid++;
    }
  }
  if (invalid > 0) {
    ctx.stderr.write(`atcasim scenario: ${invalid} invalid file(s); nothing was run\n`);
    return 2;
  }
  for (const l of loaded) for (const w of l.warnings) ctx.stderr.write(`atcasim scenario: warning: ${w}\n`);
  const reports: ScenarioReport[] = [];
  const wall: number[] = [];
  for (const l of loaded) {
    const t0 = performance.now();
    const r = await runScenario(l, io);
    wall.push(performance.now() - t0);
    reports.push(r);
    if (!o.json) ctx.stdout.write(`${formatReport(r, { verbose: o.verbose === true })}\n\n`);
  }
  if (o.json) ctx.stdout.write(`${reportsJson(reports)}\n`);
  const failed = reports.filter((r) => !r.passed).length;
  if (!o.json) ctx.stdout.write(`scenario: ${reports.length} run, ${reports.length - failed} passed, ${failed} failed\n`);
  if (o.junit) {
    try {
      writeFileSync(o.junit, junitXml(reports, wall));
    } catch (e) {
      ctx.stderr.write(`atcasim scenario: cannot write ${o.junit}: ${(e as NodeJS.ErrnoException).code ?? String(e)}\n`);
      return 2;
    }
  }
  return failed > 0 ? 1 : 0;
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('scenario')
    .description('run scripted failover scenarios in simulated time and check their expectations (exit 0 pass, 1 fail, 2 invalid file)')
    .argument('<files...>', 'scenario YAML files (see docs/scenarios.md; the library is in chassis/scenarios/library/)')
    .option('--junit <file>', 'also write JUnit XML')
    .option('--json', 'print the reports as JSON (deterministic: the same file gives the same bytes)')
    .option('--verbose', 'show every timeline entry, boot included')
    .action(async (files: string[], o: ScenarioOptions) => {
      ctx.setExit(await runScenarioVerb(files, o, ctx));
    });
}
