// `atcasim config print-default` and `atcasim config check FILE…`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../chassis/main.ts';
import { parseShelfConfig } from '../../../chassis/config/shelf-config.ts';
import { repoRoot } from '../../support/shared.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-cli-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write: (c, _e, cb) => (f(String(c)), cb()) });
  const code = await main(['node', 'atcasim', ...args], { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)) });
  return { code, out, err };
}

describe('atcasim config', () => {
  it('print-default prints a YAML that checks out and parses to the default shelf', async () => {
    const r = await run('config', 'print-default');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(parseShelfConfig(r.out, 'printed').name).toBe('atcasim-default');
    const f = join(dir, 'copy.yaml');
    writeFileSync(f, r.out);
    const c = await run('config', 'check', f);
    expect(c).toMatchObject({ code: 0, err: '' });
    expect(c.out).toBe(`${f}: ok: shelf "atcasim-default": 14 slots (2 hubs, 4 processor boards, 8 empty), 2 ShMCs, 3 fan trays, 2 PEMs, 38 sensors, 2 virtual services, HA pairs shmc, lb1, lb2\n`);
  });

  it('check reports file:line:column and exits 2; several files are checked in one run', async () => {
    const good = join(dir, 'good.yaml');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(good, 'shelf: { name: g }\nshelf_managers: { units: { shmc-a: {} } }\nboards: { slot1: { type: hub } }\n');
    writeFileSync(bad, 'shelf: { name: b }\nshelf_managers: { units: { shmc-a: {} } }\nboards:\n  slot1: { type: hub, colour: red }\n');
    const r = await run('config', 'check', good, bad, join(dir, 'missing.yaml'), dir);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^.*good\.yaml: ok: shelf "g"/);
    expect(r.err.split('\n').filter(Boolean)).toEqual([
      `${bad}:4:23: boards.slot1: unknown key "colour" (expected one of: type, label, site, hardware_address, inventory, sensors, power, fru_control, device, console, fan, capacity_w, fru_size, front_port, back_port)`,
      `${join(dir, 'missing.yaml')}:1:1: no such file`,
      `${dir}:1:1: is a directory, not a shelf YAML file`,
    ]);
  });

  it('the installed command behaves the same (exit codes through bin/atcasim.mjs)', () => {
    const bin = join(repoRoot, 'bin', 'atcasim.mjs');
    const ok = execFileSync(process.execPath, [bin, 'config', 'check', join(repoRoot, 'chassis/config/default-shelf.yaml')], { encoding: 'utf8' });
    expect(ok).toMatch(/default-shelf\.yaml: ok: /);
    const bad = join(dir, 'syntax.yaml');
    writeFileSync(bad, 'shelf:\n  name: [unclosed\n');
    const r = spawnSync(process.execPath, [bin, 'config', 'check', bad], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: YAML`));
  });
});
