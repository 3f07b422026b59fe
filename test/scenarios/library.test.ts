/**
 * The scenario library (chassis/scenarios/library/*.yaml, shipped with the package): every
 * scenario of ../shared/research/ha.md §5.3 (S01–S27, S09 in two variants) on the share lb1/slot3
 * (A = slot3, B = slot4) or, for management, on the shelf-manager pair, plus a hub-board and a
 * processor-board failure, each run on the full emulator in simulated time (`atcasim scenario`'s
 * runner) with the expectations ha.md states. Every one must pass. The set is checked against
 * the scenario list of ha.md itself, so a scenario cannot be silently left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, nodeScenarioIo } from '../../chassis/cli/scenario.ts';
import { formatReport } from '../../chassis/scenarios/report.ts';
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
  for (const f of files) {
    it(`${f} passes`, async () => {
      const l = loadScenarioFile(join(dir, f), io);
      const r = await runScenario(l, io);
      expect(r.passed, formatReport(r)).toBe(true);
      // Not vacuous: every scenario states expectations beyond the implied invariant check.
      expect(r.expectations.length).toBeGreaterThan(1);
      expect(r.result.invariants.checks).toBeGreaterThan(0);
    });
  }
});
