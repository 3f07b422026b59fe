/**
 * `atcasim start --live` refusals (root needed for the lab; a visible SKIP line otherwise): each
 * is one line naming the thing, exit 2, no database left behind, and a running live emulator on
 * the same lab keeps serving:
 * - no lab under the prefix (missing namespace / interface);
 * - a TAP busy (a second emulator on the same lab);
 * - a shelf with an RS outside every back-side subnet, or a local address overlapping a VIP;
 * - a bad prefix, --replay with --live, --prefix without --live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATCASIM_BIN, startHeadless, type HeadlessEmulator } from '../support/headless.ts';
import { repoRoot } from '../support/shared.ts';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
if (!root) process.stdout.write('SKIP live refusals e2e (test/e2e/live-refusals.test.ts): needs root for network namespaces and TAP devices\n');
const P = `lr${process.pid % 100_000}`;
const dir = mkdtempSync(join(tmpdir(), 'atcasim-live-refusals-'));
const LIVE = readFileSync(join(repoRoot, 'chassis', 'config', 'live-shelf.yaml'), 'utf8');

function start(args: string[], db: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ATCASIM_BIN, 'start', '--headless', '--db', db, '--ipmi-port', '0', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function variant(name: string, edit: (s: string) => string): string {
  const f = join(dir, name);
  writeFileSync(f, edit(LIVE));
  return f;
}

afterAll(() => {
  if (root) spawnSync(process.execPath, [ATCASIM_BIN, 'net', 'down', '--prefix', P]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!root)('atcasim start --live refusals (root)', () => {
  let emu: HeadlessEmulator;
  beforeAll(async () => {
    const up = spawnSync(process.execPath, [ATCASIM_BIN, 'net', 'up', '--prefix', P], { encoding: 'utf8' });
    expect(up.stderr).toBe('');
    emu = await startHeadless({ dir: join(dir, 'running'), rate: 'capture', args: ['--live', '--prefix', P] });
  }, 120_000);
  afterAll(async () => {
    await emu?.stop();
  });

  const cases: Array<[string, () => string[], RegExp]> = [
    ['no lab under the prefix', () => ['--live', '--prefix', 'nolab9'], /^atcasim start: --live: cannot open tap port nolab9-s1 in network namespace nolab9-router: no network namespace nolab9-router \(is the lab up\? atcasim net up\)$/],
    ['a busy TAP (the lab is in use)', () => ['--live', '--prefix', P], new RegExp(`^atcasim start: --live: cannot open tap port ${P}-s1 in network namespace ${P}-router: the interface is busy \\(another process holds it\\)$`)],
    ['an RS outside every back-side subnet', () => ['--live', '--prefix', P, '--config', variant('outside.yaml', (s) => s.replace('198.18.10.112:8080', '203.0.113.9:8080'))], /^atcasim start: .*outside\.yaml:\d+:\d+: dataplane\.services\[1\]\.pool\[1\]\.address: real server nat2 \(203\.0\.113\.9\) of service 'web-nat' is outside every back-side subnet/],
    ['a local address overlapping a VIP', () => ['--live', '--prefix', P, '--config', variant('overlap.yaml', (s) => s.replace('vip: 198.18.100.11', 'vip: 198.18.10.41'))], /^atcasim start: .*overlap\.yaml:\d+:\d+: boards\.slot4\.back_port\.local_addresses\[1\]: local address 198\.18\.10\.41 of slot4 overlaps the VIP 198\.18\.10\.41 of service 'web-nat'/],
    ['a bad prefix', () => ['--live', '--prefix', 'Bad-Prefix'], /^atcasim start: bad --prefix 'Bad-Prefix'/],
    ['--replay with --live', () => ['--live', '--replay', join(repoRoot, 'chassis', 'assets', 'loopback-mix-20k.pcap')], /^atcasim start: --live takes its traffic from the lab: --replay cannot be given with it$/],
    ['--prefix without --live', () => ['--prefix', P], /^atcasim start: --prefix needs --live$/],
  ];
  for (const [label, args, want] of cases) {
    it(`${label}: one line, exit 2, no database, the running shelf unaffected`, () => {
      const db = join(dir, `${label.replace(/\W+/g, '-')}.db`);
      const r = start(args(), db);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(want);
      expect(existsSync(db)).toBe(false);
      // (a few tries: on a heavily shared machine one request may miss its 3 s)
      let answer = '';
      for (let i = 0; i < 5 && !/^nat[12]$/.test(answer); i++) {
        answer = spawnSync('ip', ['netns', 'exec', `${P}-client`, 'curl', '-s', '-m', '3', 'http://198.18.100.11/'], { encoding: 'utf8' }).stdout.trim();
      }
      expect(answer).toMatch(/^nat[12]$/);
    }, 60_000);
  }
});
