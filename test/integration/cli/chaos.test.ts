/**
 * `atcasim chaos` run as a process (bin/atcasim.mjs): --help shows the --duration default as a
 * duration the flag accepts. The verb in process and the chaos engine are in
 * test/unit/chassis/scenarios/chaos.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAtcasim } from '../../support/headless.ts';

const tmp = mkdtempSync(join(tmpdir(), 'atcasim-chaos-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('chaos', () => {
  it('--help shows the --duration default as a duration the flag accepts (60s)', async () => {
    const help = await runAtcasim(['chaos', '--help']);
    expect(help.stdout).toMatch(/--duration <duration>[^]*?\(default:\s+60s\)/);
    const r = await runAtcasim(['chaos', '--seeds', '1', '--duration', '60s', '--quiet', '--out', tmp]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);
});
