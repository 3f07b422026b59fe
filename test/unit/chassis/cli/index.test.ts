/** The verb registry (chassis/cli/index.ts): lazy registration, and the help stubs matching the verbs. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerAll, verbOf, VERBS } from '../../../../chassis/cli/index.ts';
import type { CliContext } from '../../../../chassis/cli/context.ts';

const ctx: CliContext = { stdout: process.stdout, stderr: process.stderr, setExit: () => {} };

describe('verb registry', () => {
  it('finds the verb of an argv (first non-option word, or the word after help)', () => {
    expect(verbOf(['node', 'atcasim', 'clia', 'board', '3'])?.name).toBe('clia');
    expect(verbOf(['node', 'atcasim', '--no-color', 'start', '--headless'])?.name).toBe('start');
    expect(verbOf(['node', 'atcasim', 'help', 'db'])?.name).toBe('db');
    expect(verbOf(['node', 'atcasim', '--version'])).toBeUndefined();
    expect(verbOf(['node', 'atcasim', 'strat'])).toBeUndefined();
  });

  it('registers only the named verb, or every verb as a stub', async () => {
    const one = new Command();
    await registerAll(one, ctx, ['node', 'atcasim', 'config', 'check', 'x.yaml']);
    expect(one.commands.map((c) => c.name())).toEqual(['config']);
    expect(one.commands[0]!.commands.map((c) => c.name())).toContain('check');
    const stubs = new Command();
    await registerAll(stubs, ctx, ['node', 'atcasim', '--help']);
    expect(stubs.commands.map((c) => c.name())).toEqual(VERBS.map((v) => v.name));
    expect(stubs.commands.every((c) => c.commands.length === 0 && c.options.length === 0)).toBe(true);
  });

  it('each stub says what the verb module registers (same name and description)', async () => {
    for (const v of VERBS) {
      const p = new Command();
      (await v.load()).register(p, ctx);
      expect(p.commands.map((c) => c.name()), v.name).toEqual([v.name]);
      expect(p.commands[0]!.description(), v.name).toBe(v.description);
    }
  }, 120_000);
});
