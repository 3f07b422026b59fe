/**
 * `atcasim scenario`: the format (the example of docs/scenarios.md exactly, every duration form, errors with
 * file:line:column), the verb's exit statuses (2 invalid — nothing run, 1 a failed expectation,
 * 0 all passed), byte-identical JSON for the same file, JUnit XML, and expectations that fail
 * when the run does not match them (no expectation that cannot fail).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { loadScenarioFile, nodeScenarioIo, runScenarioVerb } from '../../../../chassis/cli/scenario.ts';
import { parseScenarioAction, formatScenarioAction } from '../../../../chassis/scenarios/actions.ts';
import { runScenario } from '../../../../chassis/scenarios/runner.ts';
import { BUNDLED_CAPTURE_PATH } from '../../../../chassis/runtime/assets.ts';

const tmp = mkdtempSync(join(tmpdir(), 'atcasim-scenario-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const io = nodeScenarioIo();

function file(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

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

const DOC_EXAMPLE = `name: hung active shelf manager
seed: 7
shelf: default                 # or a path to a shelf YAML
heartbeat_ms: 100
traffic:
  pcap: bundled                # the capture shipped with the package, or a path relative to this file
  # generator: { flows_per_s: 2000, duration_s: { median: 5, max: 120 } }
run_for: 30s
timeline:
  - at: 10s
    do: hang shmc-a            # stop feeding its watchdog, process stays alive
  - at: 20s
    do: heal shmc-a
expect:
  - never_two_active: shmc
  - active: { pair: shmc, node: shmc-b, within: 1.2s, after: 10s }
  - sessions_lost: { older_than: 3s, max: 0 }   # age at the fault instant; a ShMC fault loses none
  # other forms:
  # - sessions_lost: { protected: true, max: 0 }  # the ha.md §5.5 oracle
  # - no_failover: shmc                       # the pair's active never changes
  # - role: { node: shmc-a, is: standby, at: 25s }
  # - max_detection: { pair: shmc, max: 300ms }
  # - sel_contains: { text: "watchdog" }
`;

const SHORT = (extra = '', expect = '  - never_two_active: lb1') => `name: short crash
seed: 11
traffic:
  generator: { flows_per_s: 100, duration_s: { median: 5, max: 30 } }
run_for: 8s
timeline:
  - at: 5s
    do: crash slot3
${extra}expect:
${expect}
`;

describe('scenario format', () => {
  it('accepts the documented example exactly', () => {
    const l = loadScenarioFile(file('example.yaml', DOC_EXAMPLE), io);
    expect(l.scenario.name).toBe('hung active shelf manager');
    expect(l.scenario.seed).toBe(7);
    expect(l.scenario.ha.heartbeatMs).toBe(100);
    expect(l.scenario.traffic).toEqual({ kind: 'pcap', path: 'bundled' });
    expect(l.scenario.runForMs).toBe(30_000);
    expect(l.scenario.timeline.map((t) => [t.atMs, t.text])).toEqual([[10_000, 'hang shmc-a'], [20_000, 'heal shmc-a']]);
    expect(l.scenario.expect.map((e) => e.kind)).toEqual(['never_two_active', 'active', 'sessions_lost']);
  });

  it('reads durations as 250ms, 1.5s, 2m and relative paths against the scenario file', () => {
    const shelfPath = file('my-shelf.yaml', readFileSync(join(import.meta.dirname, '../../../../chassis/config/default-shelf.yaml'), 'utf8'));
    const l = loadScenarioFile(file('durations.yaml', `name: d\nshelf: my-shelf.yaml\nrun_for: 2m\ntimeline:\n  - { at: 250ms, do: pause slot3 1.5s }\n  - { at: 1.5s, do: delay heartbeat lb1 250ms }\n`), io);
    expect(l.scenario.shelf).toBe(shelfPath);
    expect(l.scenario.runForMs).toBe(120_000);
    expect(l.scenario.timeline.map((t) => t.atMs)).toEqual([250, 1500]);
    expect(l.scenario.timeline[0]!.action).toEqual({ op: 'pause', node: 'slot3', ms: 1500 });
  });

  it.each([
    ['unknown top key', 'name: x\nrun_for: 1s\nrunfor: 2s\n', /bad\.yaml:3:1: unknown key "runfor"/],
    ['bad duration', 'name: x\nrun_for: 10 seconds\n', /bad\.yaml:2:10: run_for: "10 seconds" is not a duration/],
    ['unknown action', 'name: x\nrun_for: 10s\ntimeline:\n  - { at: 1s, do: explode slot3 }\n', /bad\.yaml:4:19: .*unknown action "explode"/],
    // the unknown name itself, inside the do: text (column 25 is the "s" of slot9)
    ['unknown node', 'name: x\nrun_for: 10s\ntimeline:\n  - { at: 1s, do: crash slot9 }\n', /bad\.yaml:4:25: .*unknown node "slot9"/],
    ['unknown action, a near miss', 'name: x\nrun_for: 10s\ntimeline:\n  - { at: 1s, do: crsh slot3 }\n', /bad\.yaml:4:19: .*unknown action "crsh"; did you mean "crash"\?/],
    ['unknown pair', 'name: x\nrun_for: 10s\nexpect:\n  - no_failover: lb7\n', /bad\.yaml:4:1: expect: unknown pair or share "lb7"/],
    ['action after run_for', 'name: x\nrun_for: 10s\ntimeline:\n  - { at: 11s, do: crash slot3 }\n', /bad\.yaml:4:11: .*after run_for/],
    ['unknown expectation', 'name: x\nrun_for: 10s\nexpect:\n  - always_fine: true\n', /bad\.yaml:4:5: unknown expectation "always_fine"/],
    ['SEL in the model engine', 'name: x\nengine: model\nrun_for: 10s\nexpect:\n  - sel_contains: { text: a }\n', /bad\.yaml:5:.*sel_contains needs the emulator/],
    ['no name', 'run_for: 10s\n', /bad\.yaml:1:1: missing required key "name"/],
    ['YAML syntax', 'name: [x\nrun_for: 1s\n', /bad\.yaml:\d+:\d+: YAML/],
  ])('refuses %s with file:line:column', (_what, text, re) => {
    let err: unknown;
    try {
      loadScenarioFile(file('bad.yaml', text), io);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(re);
  });

  it('prints every name error of a file, each at its value, with "did you mean" for near misses', () => {
    const text = 'name: x\nrun_for: 10s\ntimeline:\n  - { at: 1s, do: crash slot33 }\n  - { at: 2s, do: "hang slt4" }\nexpect:\n  - no_failover: lb7\n';
    let err: unknown;
    try {
      loadScenarioFile(file('many.yaml', text), io);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as Error).message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/many\.yaml:4:25: timeline: "crash slot33": unknown node "slot33"; did you mean "slot3"\?/);
    expect(lines[1]).toMatch(/many\.yaml:5:25: timeline: "hang slt4": unknown node "slt4"; did you mean "slot4"\?/);
    expect(lines[2]).toMatch(/many\.yaml:7:1: expect: unknown pair or share "lb7"; did you mean "lb1"\?/);
  });

  it('parses and formats every action of the documented action list (round trip)', () => {
    for (const t of [
      'crash slot3', 'power-off slot3', 'power-on slot3', 'hang shmc-a', 'pause slot3 1.5s', 'heal slot3', 'cut heartbeat lb1',
      'cut heartbeat lb1 one-way slot3->slot4', 'restore heartbeat lb1', 'delay heartbeat lb1 250ms', 'flap heartbeat lb1 200ms',
      'cut sync lb1/slot3 one-way slot4->slot3', 'restore sync lb1', 'lossy sync lb1 5%', 'cut uplink slot3', 'restore uplink slot3',
      'stick-healthy slot3 low', 'stick-healthy slot3 high', 'interlock off', 'interlock on', 'clock-jump slot3 +1h', 'clock-jump slot4 -30s',
      'ntp-slew slot3 500', 'switchover shmc', 'shift lb1 50', 'upgrade slot4 1.1', 'deactivate slot3', 'activate slot3', 'extract slot3',
      'insert slot3', 'fail slot3', 'repair slot3', 'rs-down 0.0.0.0/0 rs1', 'rs-up any-ipv4 rs1', 'stall-control slot3',
      'ipmi 0x06 0x25', 'ipmi to 0x86 0x06 0x01', 'ipmi local shmc-b 0x06 0x24 0x04 0x01 0x00 0x00 0x0a 0x00',
    ]) {
      const a = parseScenarioAction(t);
      expect(parseScenarioAction(formatScenarioAction(a))).toEqual(a);
    }
  });
});

describe('atcasim scenario (the verb)', () => {
  it('an invalid file among valid ones: exit 2, the message has file:line:column, nothing is run', async () => {
    const ok = file('ok.yaml', SHORT());
    const bad = file('broken.yaml', 'name: x\nrun_for: soon\n');
    const out = sink();
    const err = sink();
    expect(await runScenarioVerb([ok, bad], {}, { stdout: out, stderr: err, setExit: () => {} })).toBe(2);
    expect(err.text).toMatch(/broken\.yaml:2:10: run_for: "soon" is not a duration/);
    expect(err.text).toMatch(/nothing was run/);
    const err2 = sink();
    expect(await runScenarioVerb([join(tmp, 'absent.yaml'), tmp], {}, { stdout: sink(), stderr: err2, setExit: () => {} })).toBe(2);
    expect(err2.text).toContain(`${join(tmp, 'absent.yaml')}:1:1: no such file\n`);
    expect(err2.text).toContain(`${tmp}:1:1: is a directory, not a scenario file\n`);
    expect(out.text).toBe('');
  });

  it('traffic.pcap that is not a capture (garbage, empty): exit 2 with file:line:column, no stack, nothing run', async () => {
    const garbage = join(tmp, 'garbage.pcap');
    writeFileSync(garbage, 'this is not a capture file at all, just text\n');
    const empty = join(tmp, 'empty.pcap');
    writeFileSync(empty, '');
    for (const [cap, why] of [[garbage, /not a usable capture: capture: magic at offset 0: /], [empty, /not a usable capture: capture: magic at offset 0: empty file/]] as const) {
      const f = file('bad-traffic.yaml', `name: bad traffic\nrun_for: 2s\ntraffic:\n  pcap: ${cap}\n`);
      const out = sink();
      const err = sink();
      expect(await runScenarioVerb([f], {}, { stdout: out, stderr: err, setExit: () => {} })).toBe(2);
      expect(err.text).toMatch(/bad-traffic\.yaml:4:9: traffic\.pcap: /);
      expect(err.text).toMatch(why);
      expect(err.text).toMatch(/nothing was run/);
      expect(err.text).not.toMatch(/TypeError|\n {4}at /);
      expect(out.text).toBe('');
    }
  });

  it('a truncated traffic.pcap runs up to the cut, with a warning naming the byte offset', async () => {
    const whole = readFileSync(BUNDLED_CAPTURE_PATH);
    const cut = join(tmp, 'cut.pcap');
    writeFileSync(cut, whole.subarray(0, 5000));
    const f = file('cut-traffic.yaml', `name: cut traffic\nrun_for: 2s\ntraffic:\n  pcap: cut.pcap\n`);
    const out = sink();
    const err = sink();
    expect(await runScenarioVerb([f], {}, { stdout: out, stderr: err, setExit: () => {} })).toBe(0);
    expect(err.text).toMatch(/warning: .*cut-traffic\.yaml:4:9: traffic\.pcap: .*cut\.pcap: pcap(ng)?: (record|block) at offset \d+: cut short: .*; the \d+ packet\(s\) before it are replayed/);
    expect(out.text).toMatch(/PASS {2}cut traffic/);
  });

  it('exit 0 when every expectation holds, 1 when one fails; the report says which and why', async () => {
    const good = file('good.yaml', SHORT('', '  - never_two_active: lb1\n  - active: { pair: lb1/slot3, node: slot4, within: 400ms, after: 5s }'));
    const failing = file('failing.yaml', SHORT('', '  - active: { pair: lb1/slot3, node: slot3, within: 400ms, after: 5s }\n  - no_failover: lb1'));
    const out = sink();
    expect(await runScenarioVerb([good], {}, { stdout: out, stderr: sink(), setExit: () => {} })).toBe(0);
    expect(out.text).toMatch(/PASS {2}short crash/);
    const out2 = sink();
    expect(await runScenarioVerb([good, failing], {}, { stdout: out2, stderr: sink(), setExit: () => {} })).toBe(1);
    expect(out2.text).toMatch(/✗ active slot3 on lb1\/slot3 .* — slot3 not active on lb1\/slot3/);
    expect(out2.text).toMatch(/✗ no failover on lb1 — 1 owner change\(s\): lb1\/slot3 slot3→slot4/);
    expect(out2.text).toMatch(/scenario: 2 run, 1 passed, 1 failed/);
    // the report's parts: timeline of role changes, detection and takeover, sessions lost by age
    expect(out2.text).toMatch(/slot4 lb1\/slot3: standby\.hot → active \(epoch 2, forced\)/);
    expect(out2.text).toMatch(/detected \d+\.\d ms \(\d\.\d\d heartbeat intervals\)/);
    expect(out2.text).toMatch(/sessions: created \d+, lost \d+ \(<1s: \d+, 1-3s: \d+, 3s-Ts\+B: \d+, >=Ts\+B: 0/);
    expect(out2.text).toMatch(/double-active instants: 0/);
  });

  it('the same file gives byte-identical JSON on two runs (emulator and model engines); --junit writes JUnit XML', async () => {
    const emu = file('emu.yaml', SHORT('', '  - never_two_active: lb1\n  - sessions_lost: { protected: true, max: 0 }'));
    const model = file('model.yaml', SHORT().replace('seed: 11', 'seed: 11\nengine: model'));
    const runs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const out = sink();
      expect(await runScenarioVerb([emu, model], { json: true, junit: join(tmp, `junit-${i}.xml`) }, { stdout: out, stderr: sink(), setExit: () => {} })).toBe(0);
      runs.push(out.text);
    }
    expect(runs[1]).toBe(runs[0]);
    const json = JSON.parse(runs[0]!) as Array<{ engine: string; passed: boolean; result: { takeovers: unknown[]; sel: unknown } }>;
    expect(json.map((r) => [r.engine, r.passed])).toEqual([['emulator', true], ['model', true]]);
    expect(json[0]!.result.takeovers.length).toBe(1);
    expect(Array.isArray(json[0]!.result.sel)).toBe(true);
    const xml = readFileSync(join(tmp, 'junit-0.xml'), 'utf8');
    expect(xml).toMatch(/<testsuite name="atcasim scenario" tests="2" failures="0"/);
    expect(xml).toMatch(/<testcase classname="[^"]*emu\.yaml" name="short crash" time="\d+\.\d{3}">/);
  });

  it('a different seed gives a different run (the seed is honoured)', async () => {
    const a = await runScenario(loadScenarioFile(file('s1.yaml', SHORT()), io), io);
    const b = await runScenario(loadScenarioFile(file('s2.yaml', SHORT().replace('seed: 11', 'seed: 12')), io), io);
    expect(a.result.takeovers[0]!.claimAt).not.toBe(b.result.takeovers[0]!.claimAt);
  });

  it('expectations fail when the run does not match them', async () => {
    const r = await runScenario(loadScenarioFile(file('neg.yaml', SHORT('', [
      '  - role: { node: slot3, pair: lb1/slot3, is: active, at: 7s }',
      '  - max_detection: { pair: lb1/slot3, max: 10ms }',
      '  - sessions_lost: { max: 0 }',
      '  - alarm: { name: VERSION_MISMATCH }',
      '  - no_reset: slot3',
      '  - takeover: { pair: lb1/slot3, kind: planned }',
      '  - sel_contains: { text: "no such text anywhere" }',
      '  - owner_changes: { pair: lb1, is: 0 }',
    ].join('\n'))), io), io);
    expect(r.expectations.filter((e) => e.kind !== 'invariants').map((e) => e.ok)).toEqual([false, false, false, false, false, false, false, false]);
  });
});
