/**
 * The layering lint (eslint.config.js) refuses what it must. Each fixture in test/fixtures/lint/
 * (left out of `eslint .` and of tsc) names in `// as: PATH -> RULE: TEXT` lines where it is
 * linted — through ESLint's Node API with the project's own configuration, as if the text sat at
 * PATH — and what must be reported there (a message of RULE containing TEXT), or `clean`. A
 * removed or weakened rule makes an expected message disappear and this test fail; a `clean` line
 * shows the fixture is refused for its place, not for being broken.
 *
 * Also checked: every product file belongs to a layer, no folder inside the product reuses a
 * layer's folder name (the rules match import strings by folder name).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { lintConfig, repoRoot, sourceFiles, sourceFolders, type LintConfigModule } from './source-scan.ts';

const fixtureDir = join(repoRoot, 'test', 'fixtures', 'lint');

interface Case {
  fixture: string;
  as: string;
  /** undefined = must lint clean. */
  want?: { rule: string; text: string };
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const fixture of readdirSync(fixtureDir).filter((f) => f.endsWith('.ts')).sort()) {
    const text = readFileSync(join(fixtureDir, fixture), 'utf8');
    for (const m of text.matchAll(/^\/\/ as: (\S+) -> (.+)$/gm)) {
      const [, as, what] = m as unknown as [string, string, string];
      if (what.trim() === 'clean') out.push({ fixture, as });
      else {
        const r = /^([a-z-]+): (.+)$/.exec(what.trim());
        if (!r) throw new Error(`${fixture}: cannot read "${m[0]}"`);
        out.push({ fixture, as, want: { rule: r[1]!, text: r[2]! } });
      }
    }
  }
  return out;
}

const all = cases();
let eslint: ESLint;
let config: LintConfigModule;

beforeAll(async () => {
  eslint = new ESLint({ cwd: repoRoot });
  config = await lintConfig();
});

async function lintAs(fixture: string, as: string): Promise<ESLint.LintResult> {
  const [r] = await eslint.lintText(readFileSync(join(fixtureDir, fixture), 'utf8'), { filePath: join(repoRoot, as) });
  return r!;
}

describe('layering lint', () => {
  it('has fixtures for the forbidden imports layers.md names (model→io, ipmi→ui, board→chassis, ha→ipmi; snmp beside ipmi)', () => {
    const refused = all.filter((c) => c.want);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    for (const [as, text] of [
      ['chassis/model/fixture.ts', 'chassis/model must not import chassis/io'],
      ['chassis/ipmi/fixture.ts', 'chassis/ipmi must not import ui'],
      ['board/processor/fixture.ts', 'board/processor must not import chassis/model'],
      ['chassis/ha/fixture.ts', 'chassis/ha must not import chassis/ipmi'],
      ['chassis/snmp/fixture.ts', 'chassis/snmp must not import chassis/ipmi'],
      ['chassis/ipmi/fixture.ts', 'chassis/ipmi must not import chassis/snmp'],
      ['chassis/model/fixture.ts', 'chassis/model must not import chassis/snmp'],
      ['chassis/snmp/fixture.ts', 'chassis/snmp must not import chassis/io'],
    ]) {
      expect(refused.some((c) => c.as === as && c.want!.text === text), `${as}: ${text}`).toBe(true);
    }
  });

  for (const c of all) {
    it(`${c.fixture} as ${c.as}: ${c.want ? `${c.want.rule} "${c.want.text}"` : 'clean'}`, async () => {
      const r = await lintAs(c.fixture, c.as);
      const msgs = r.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
      expect(r.messages.filter((m) => m.fatal), 'the fixture parses').toEqual([]);
      if (!c.want) expect(msgs).toEqual([]);
      else expect(r.messages.some((m) => m.ruleId === c.want!.rule && m.message.includes(c.want!.text)), `expected ${c.want.rule} "${c.want.text}", got:\n${msgs.join('\n') || '(nothing)'}`).toBe(true);
    });
  }

  it('every product file belongs to a layer', () => {
    const orphans = sourceFiles('board', 'chassis', 'ui').filter((f) => !config.layerOf(f));
    expect(orphans, 'add its folder to LAYERS in eslint.config.js').toEqual([]);
  });

  it('no folder inside the product reuses the name of a layer folder', () => {
    const layerDirs = Object.keys(config.LAYERS).filter((l) => !l.endsWith('.ts'));
    const names = new Map(layerDirs.map((l) => [posix.basename(l), l]));
    const clashes = sourceFolders('board', 'chassis', 'ui').filter((d) => names.has(posix.basename(d)) && names.get(posix.basename(d)) !== d);
    expect(clashes, 'the import rules match folder names: rename the folder').toEqual([]);
  });
});
