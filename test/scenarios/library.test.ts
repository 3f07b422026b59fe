/**
 * The scenario library (chassis/scenarios/library/*.yaml, shipped with the package): every
 * scenario of ../shared/research/ha.md §5.3 (S01–S27, S09 in two variants) on the share lb1/slot3
 * (A = slot3, B = slot4) or, for management, on the shelf-manager pair, plus a hub-board and a
 * processor-board failure, each run on the full emulator in simulated time (`atcasim scenario`'s
 * runner) with the expectations ha.md states. Every one must pass. The set is checked against
 * the scenario list of ha.md itself, so a scenario cannot be silently left out.
 *
 * Each report's JSON (what `atcasim scenario FILE --json` prints, with the file named relative to
 * the repository) must equal the committed copy in test/scenarios/reports/ byte for byte: a change
 * that moves code without meaning to change behaviour keeps them identical; a change that means to
 * alter a report regenerates them on purpose (`ATCASIM_UPDATE_REPORTS=1 npx vitest run test/scenarios/library.test.ts`)
 * and the commit shows the difference.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, nodeScenarioIo } from '../../chassis/cli/scenario.ts';
import { formatReport, reportsJson } from '../../chassis/scenarios/report.ts';
import { runScenario } from '../../chassis/scenarios/runner.ts';
import { repoRoot, shared } from '../support/shared.ts';

const dir = join(repoRoot, 'chassis', 'scenarios', 'library');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();

describe('scenario library', () => {
  it('covers every ha.md §5.3 scenario, plus hub-board and processor-board failure', () => {
    const ids = [...readFileSync(shared('research', 'ha.md'), 'utf8').matchAll(/\*\*(S\d\d[ab]?) — /g)].map((m) => m[1]!.toLowerCase());
    expect(ids.length).toBeGreaterThanOrEqual(28);
    for (const id of ids) expect(files.some((f) => f.startsWith(`${id}-`)), `library file for ${id}`).toBe(true);
    expect(files).toContain('hub-failure.yaml');
    expect(files).toContain('board-failure.yaml');
    expect(files).toContain('shmc-switchover-ipmi.yaml');
  });

  const io = nodeScenarioIo();
  if (process.env.ATCASIM_UPDATE_REPORTS === '1') mkdirSync(join(repoRoot, 'test', 'scenarios', 'reports'), { recursive: true });
  for (const f of files) {
    it(`${f} passes`, async () => {
      const l = loadScenarioFile(relative(repoRoot, join(dir, f)), io);
      const r = await runScenario(l, io);
      expect(r.passed, formatReport(r)).toBe(true);
      const golden = join(repoRoot, 'test', 'scenarios', 'reports', f.replace(/\.yaml$/, '.json'));
      const json = `${reportsJson([r])}\n`;
      if (process.env.ATCASIM_UPDATE_REPORTS === '1') writeFileSync(golden, json);
      expect(existsSync(golden), `committed report ${relative(repoRoot, golden)}`).toBe(true);
      expect(json, `${f}: its --json report differs from the committed one`).toBe(readFileSync(golden, 'utf8'));
      // Not vacuous: every scenario states expectations beyond the implied invariant check.
      expect(r.expectations.length).toBeGreaterThan(1);
      expect(r.result.invariants.checks).toBeGreaterThan(0);
    });
  }
});
