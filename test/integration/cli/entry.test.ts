/**
 * The `atcasim` entry point (bin/atcasim.mjs) runs the compiled build (bin/build.mjs, dist/):
 * after a source edit it rebuilds by itself before running (nothing on stderr), and with
 * ATCASIM_TSX=1 (the fallback taken when esbuild is missing) it runs the sources through tsx
 * with its one-line note.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentBuild, isFresh } from '../../../bin/build.mjs';
import { ATCASIM_BIN } from '../../support/headless.ts';
import { repoRoot } from '../../support/shared.ts';

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

function atcasim(args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ATCASIM_BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('atcasim entry point', () => {
  it('runs the compiled build; a source edit is rebuilt before the run', () => {
    let r = atcasim(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const before = currentBuild();
    expect(before && isFresh(before)).toBe(true);
    // an edit (its mtime after the build) makes the build stale …
    const edited = join(repoRoot, 'chassis', 'cli', 'config.ts');
    const now = new Date(Math.max(Date.now(), before!.builtAtMs + 1000));
    utimesSync(edited, now, now);
    expect(isFresh(before)).toBe(false);
    // … and the next run rebuilds, silently, then runs
    r = atcasim(['config', 'print-default']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^# atcasim default shelf/);
    const after = currentBuild()!;
    expect(after.dir).not.toBe(before!.dir);
    expect(after.inputs).toContain('chassis/cli/config.ts');
    expect(isFresh(after)).toBe(true);
  }, 120_000);

  it('ATCASIM_TSX=1 runs the sources through tsx, with a one-line note', () => {
    const r = atcasim(['--version'], { ATCASIM_TSX: '1' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toMatch(/^atcasim: note: running the TypeScript sources through tsx \(slower start-up\): ATCASIM_TSX=1; `npm run build` compiles them\n$/);
  }, 120_000);
});
