/**
 * `atcasim chaos`: random fault schedules on the count model with the invariants audited after
 * every step. The default shelf survives 100 seeds of the default pool without a violation; a
 * planted bug (the test-only switch that drops the hardware-interlock guard) is found, minimised to
 * at most 3 actions, and the minimised scenario YAML replays the same violation through
 * `atcasim scenario` (and passes once the planted bug is taken out of it).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { runChaosVerb } from '../../../../chassis/cli/chaos.ts';
import { loadScenarioFile, nodeScenarioIo } from '../../../../chassis/cli/scenario.ts';
import { loadDefaultShelf } from '../../../../chassis/io/data-dir.ts';
import { DEFAULT_CHAOS_FAULTS, drawSchedule, parseFaults, runChaos } from '../../../../chassis/scenarios/chaos.ts';
import { runScenario } from '../../../../chassis/scenarios/runner.ts';
import { shared } from '../../../support/shared.ts';

const shelf = loadDefaultShelf();
const tmp = mkdtempSync(join(tmpdir(), 'atcasim-chaos-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function sink(): Writable & { text: string } {
  const w = new Writable({
    write(chunk, _enc, cb) {
      w.text += String(chunk);
      cb();
    },
  }) as Writable & { text: string };
  w.text = '';
  return w;
}

describe('chaos', () => {
  it('draws the same schedule for a seed, different ones for different seeds, only from the pool', () => {
    const o = { shelf, shelfPath: 'default', faults: ['crash', 'cut-heartbeat'], durationMs: 30_000 };
    const a = drawSchedule(5, o);
    expect(drawSchedule(5, o)).toEqual(a);
    expect(drawSchedule(6, o)).not.toEqual(a);
    for (let s = 1; s < 30; s++) {
      for (const x of drawSchedule(s, o).actions) {
        expect(['crash', 'cut']).toContain(x.action.op);
        expect(x.atMs).toBeGreaterThanOrEqual(3000);
        expect(x.atMs).toBeLessThanOrEqual(28_000);
      }
    }
    expect(DEFAULT_CHAOS_FAULTS).not.toContain('interlock-off');
    expect(DEFAULT_CHAOS_FAULTS).toContain('interlock-on');
  });

  it('refuses unknown fault names and the data-plane actions (they need the emulator)', () => {
    expect(parseFaults('crash, hang ,cut-heartbeat')).toEqual(['crash', 'hang', 'cut-heartbeat']);
    expect(() => parseFaults('crash,explode')).toThrow(CommandError);
    expect(() => parseFaults('rs-down')).toThrow(/need the emulator/);
    expect(() => parseFaults('')).toThrow(/at least one/);
  });

  it('finds the planted interlock bug, minimises it to ≤ 3 actions, and the YAML replays the same violation', async () => {
    const o = {
      shelf, shelfPath: 'default', faults: ['stick-healthy', 'cut-heartbeat', 'delay-heartbeat', 'pause', 'crash', 'switchover'],
      durationMs: 20_000, unsafeNoInterlockGuard: true,
    };
    let found = null as ReturnType<typeof runChaos>[number] | null;
    for (let seed = 1; seed <= 200 && !found; seed += 10) found = runChaos({ ...o, seeds: 10, fromSeed: seed })[0] ?? null;
    expect(found, 'a violation within 200 seeds').not.toBeNull();
    const f = found!;
    expect(f.invariant).toMatch(/single-owner|single-active-line/);
    expect(f.minimised.actions.length).toBeLessThanOrEqual(3);
    expect(f.minimised.actions.length).toBeLessThan(f.original.actions.length + 1);
    expect(f.minimised.runForMs).toBeLessThanOrEqual(f.original.runForMs);
    const file = join(tmp, `chaos-${f.seed}.yaml`);
    writeFileSync(file, f.yaml);
    const io = nodeScenarioIo();
    const replay = await runScenario(loadScenarioFile(file, io), io);
    expect(replay.passed).toBe(false);
    expect(replay.result.invariants.violations.map((v) => v.invariant)).toContain(f.invariant);
    expect(replay.result.invariants.violations[0]!.t).toBeCloseTo(f.minimised.runForMs - 1, -1);
    // The same schedule on the real firmware (interlock guard in place) violates nothing.
    const fixed = join(tmp, `fixed-${f.seed}.yaml`);
    writeFileSync(fixed, f.yaml.split('\n').filter((l) => !l.startsWith('unsafe_no_interlock_guard')).join('\n'));
    const good = await runScenario(loadScenarioFile(fixed, io), io);
    expect(good.result.invariants.violations).toEqual([]);
  });

  it('100 seeds of the default pool on the default shelf: no violation', () => {
    const findings = runChaos({ shelf, shelfPath: 'default', faults: DEFAULT_CHAOS_FAULTS, durationMs: 20_000, seeds: 100, fromSeed: 1 });
    expect(findings.map((f) => `seed ${f.seed}: ${f.invariant}: ${f.detail}`)).toEqual([]);
  }, 300_000); // ~30 s alone; a loaded 2-core CI machine running other suites beside it needs more

  it('the verb: closing line, exit 0 without a violation, exit 2 on bad options', async () => {
    const out = sink();
    const err = sink();
    let code = await runChaosVerb({ seeds: 3, fromSeed: 11, duration: 10_000, out: tmp, quiet: true }, { stdout: out, stderr: err, setExit: () => {} });
    expect(code).toBe(0);
    expect(out.text).toMatch(/^chaos: 3 schedules, 0 violations, \d+(\.\d+)? schedules\/s$/m);
    code = await runChaosVerb({ seeds: 1, fromSeed: 1, duration: 10_000, out: tmp, faults: 'crash,bogus' }, { stdout: sink(), stderr: err, setExit: () => {} });
    expect(code).toBe(2);
    expect(err.text).toMatch(/unknown: bogus/);
    code = await runChaosVerb({ seeds: 1, fromSeed: 1, duration: 10_000, out: tmp, config: join(tmp, 'missing.yaml') }, { stdout: sink(), stderr: err, setExit: () => {} });
    expect(code).toBe(2);
    expect(existsSync(join(tmp, 'chaos-11.yaml'))).toBe(false); // nothing written without a violation
  });

  it('--out is checked before anything runs; a binary --config is named, its bytes not echoed', async () => {
    const run = async (o: Partial<Parameters<typeof runChaosVerb>[0]>) => {
      const out = sink();
      const err = sink();
      const code = await runChaosVerb({ seeds: 1, fromSeed: 1, duration: 10_000, out: tmp, quiet: true, ...o }, { stdout: out, stderr: err, setExit: () => {} });
      return { code, out: out.text, err: err.text };
    };
    const missing = join(tmp, 'no-such-folder', 'findings');
    expect(await run({ out: missing })).toEqual({ code: 2, out: '', err: `atcasim chaos: --out ${missing}: cannot create it: its folder does not exist\n` });
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'x');
    expect(await run({ out: file })).toEqual({ code: 2, out: '', err: `atcasim chaos: --out ${file}: is not a folder\n` });
    // a folder that does not exist yet but whose parent does is fine (created at the first violation)
    expect((await run({ out: join(tmp, 'later') })).code).toBe(0);
    const pcap = await run({ config: shared('pcap', 'tcpdump__IGMP_V2.pcap') });
    expect(pcap.code).toBe(2);
    expect(pcap.err).toMatch(/tcpdump__IGMP_V2\.pcap:\d+:\d+: not a YAML text file/);
    expect(pcap.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\ufffd]/);
  });
});
