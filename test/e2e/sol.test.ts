/**
 * IPMI Serial over LAN with the real ipmitool (1.8.19) against `atcasim start --headless`, driven
 * through a PTY by `expect`: `sol activate` reaches the active ShMC's console, `show version`
 * answers, `reboot` brings the boot banner back through SOL, `~.` ends the session cleanly (exit 0,
 * payload deactivated); `-t 0x86 -b 0` (bridged activation) reaches slot3's console; `instance=4`
 * (atcasim's slot convention at 20h) reaches slot4; a second activation of a busy console is
 * refused the way ipmitool reports it; `sol info` reads the SOL parameters.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';

let emu: HeadlessEmulator;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'atcasim-sol-'));
  emu = await startHeadless({ env: { XDG_RUNTIME_DIR: dir }, args: ['--hot-swap-step', '300ms'] });
});
afterAll(async () => {
  if (emu) {
    expect(await emu.stop()).toBe(0);
    emu.cleanup();
  }
  rmSync(dir, { recursive: true, force: true });
});

const base = () => ['-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password];

/** Tcl list word. */
const tcl = (s: string) => `{${s}}`;

/** Runs an expect script; resolves with its exit code and everything it printed. */
function runExpect(script: string, timeoutMs = 100_000): Promise<{ code: number | null; out: string }> {
  const file = join(dir, `s${Math.random().toString(36).slice(2)}.exp`);
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const p = spawn('expect', ['-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.setEncoding('latin1').on('data', (c: string) => (out += c));
    p.stderr.setEncoding('latin1').on('data', (c: string) => (out += c));
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`expect did not finish (${file}); output:\n${out}`));
    }, timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out: `${out}\n--- script ${file}` });
    });
  });
}

/**
 * An expect script: `ipmitool ARGS sol activate AFTER`, Enter → PROMPT, then each step (send a
 * line, expect a pattern before the next prompt), then `~.` and the ipmitool exit status.
 */
function solScript(args: string[], after: string[], prompt: string, steps: Array<{ send: string; expect: string }>, extra = ''): string {
  // an expect body is read as pattern/action pairs only when it starts with a newline
  const fail = (what: string) => `\n  timeout { puts "FAIL: ${what}"; exit 10 }\n  eof { puts "FAIL: eof at ${what}"; exit 11 }\n`;
  return `
log_user 1
set timeout 10
spawn ipmitool ${[...args, 'sol', 'activate', ...after].map(tcl).join(' ')}
set sol $spawn_id
expect {\n  -timeout 30 "SOL Session operational" {} ${fail('activation')} }
send "\\r"
# a keystroke typed the instant ipmitool prints "operational" can race its switch to raw mode, and
# SOL may drop characters under load (IPMI v2.0 §15.9): like an operator, press Enter again (twice
# at most) before calling the console dead; the NOTE lines show when that happened
set enters 0
expect {\n  -re ${tcl(`${prompt} $`)} {}\n  timeout { if {[incr enters] <= 2} { puts "NOTE: no prompt after 10 s, Enter again"; send "\\r"; exp_continue }; puts "FAIL: first prompt"; exit 10 }\n  eof { puts "FAIL: eof at first prompt"; exit 11 }\n}
set timeout 30
${steps.map((s, i) => `send ${tcl(s.send)}\nsend "\\r"\nexpect {\n  -re ${tcl(s.expect)} {} ${fail(`step ${i} (${s.send})`)} }\nexpect {\n  -re ${tcl(`${prompt} $`)} {} ${fail(`prompt after step ${i}`)} }`).join('\n')}
${extra}
set spawn_id $sol
send "~."
expect {\n  "terminated ipmitool" {} ${fail('escape')} }
catch { expect eof }
set result [wait -i $sol]
puts "IPMITOOL-EXIT [lindex $result 3]"
exit 0
`;
}

/**
 * Fails unless the expect transcript contains `needle`; the failure shows the transcript and, after
 * every SOL payload is ended, the emulator's SOL log lines (activation, and the channel counters of
 * each deactivation: retransmits and dropped characters tell a lost packet from a silent console).
 */
async function expectOut(out: string, needle: string): Promise<void> {
  if (out.includes(needle)) return;
  for (const target of [[], ['-t', '0x86', '-b', '0'], ['-t', '0x8c', '-b', '0']]) await runClient(['ipmitool', ...base(), ...target, 'sol', 'deactivate']);
  await runClient(['ipmitool', ...base(), 'sol', 'deactivate', 'instance=4']);
  await new Promise((r) => setTimeout(r, 500));
  const sol = emu.lines.filter((l) => l.category === 'sol').slice(-8).map((l) => JSON.stringify(l)).join('\n');
  expect(out, `${out}\n--- emulator SOL log:\n${sol}`).toContain(needle);
}

async function activeInstances(target: string[] = []): Promise<string> {
  const r = await runClient(['ipmitool', ...base(), ...target, 'raw', '0x06', '0x4a', '0x01']);
  expect(r.exitCode).toBe(0);
  return r.stdout.trim();
}

// A failed test must not leave a console's SOL payload held by a dead ipmitool's session (it
// would stay active until the session's idle timeout): an administrator ends every payload.
afterEach(async () => {
  for (const target of [[], ['-t', '0x86', '-b', '0'], ['-t', '0x8c', '-b', '0']]) await runClient(['ipmitool', ...base(), ...target, 'sol', 'deactivate']);
  await runClient(['ipmitool', ...base(), 'sol', 'deactivate', 'instance=4']);
});

describe('ipmitool sol against the shelf', { timeout: 150_000 }, () => {
  for (const suite of ['17', '3']) {
    it(`-C ${suite} sol activate: the active ShMC's console answers show version; ~. ends it cleanly`, async () => {
      const r = await runExpect(solScript([...base(), '-C', suite], [], 'shmc-a>', [{ send: 'show version', expect: 'Firmware: +2\\.10 \\(atcasim IPMC\\)' }]));
      await expectOut(r.out, 'IPMITOOL-EXIT 0');
      expect(r.out).toMatch(/Board: +Shelf Manager \(shelf manager\), ShMC-A/);
      expect(await activeInstances()).toBe('0f 00 00'); // deactivated: 15 instances, none active
      await emu.waitFor((l) => l.msg === 'SOL deactivated' && l.console === 'shmc-a' && l.reason === 'deactivated', 5000, 'the SOL deactivation');
    });
  }

  it('-t 0x86 -b 0 sol activate (bridged) reaches slot3; reboot brings the banner back through SOL', async () => {
    const r = await runExpect(
      solScript([...base(), '-C', '17', '-t', '0x86', '-b', '0'], [], 'slot3>', [
        { send: 'show slot', expect: 'IPMB-0 address: +0x86' },
        { send: 'reboot', expect: "restarting system\\..*atcasim processor board firmware 1\\.05 - Processor Node \\(Node3\\).*Type 'help' for the list of commands\\." }, // Tcl: . matches newlines
        { send: 'show sessions 3', expect: '\\d sessions? shown of \\d+ active' }, // after the reset the HA buddy may own its share
      ]),
    );
    await expectOut(r.out, 'IPMITOOL-EXIT 0');
    expect(await activeInstances(['-t', '0x86', '-b', '0'])).toBe('01 00 00');
  });

  it('sol activate instance=4 reaches slot4 (atcasim convention at 20h)', async () => {
    const r = await runExpect(solScript([...base(), '-C', '17'], ['instance=4'], 'slot4>', [{ send: 'show version', expect: 'Processor Node \\(processor board\\), Node4' }]));
    await expectOut(r.out, 'IPMITOOL-EXIT 0');
  });

  it('a second activation of a busy console is refused as ipmitool reports it', async () => {
    const second = `
spawn ipmitool ${[...base(), '-C', '17', 'sol', 'activate'].map(tcl).join(' ')}
set other $spawn_id
expect {
  -i $other "SOL payload already active on another session" {}
  timeout { puts "FAIL: second"; exit 12 }
  eof { puts "FAIL: second eof"; exit 13 }
}
catch { expect -i $other eof }
set r2 [wait -i $other]
puts "SECOND-EXIT [lindex $r2 3]"
`;
    const r = await runExpect(solScript([...base(), '-C', '17'], [], 'shmc-a>', [], second));
    await expectOut(r.out, 'SECOND-EXIT 1');
    expect(r.out).toContain('IPMITOOL-EXIT 0');
  });

  it('sol info shows the SOL parameters with the bound port', async () => {
    const r = await runClient(['ipmitool', ...base(), '-C', '17', 'sol', 'info']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Enabled +: true/);
    expect(r.stdout).toMatch(/Force Encryption +: true/);
    expect(r.stdout).toMatch(/Volatile Bit Rate \(kbps\) +: 115\.2/);
    expect(r.stdout).toMatch(new RegExp(`Payload Port +: ${emu.ipmi.port}\\b`));
  });

  it('the PTY and SOL share one console: a line typed over SOL is seen on the PTY', async () => {
    const { SerialPort } = await import('serialport');
    const port = new SerialPort({ path: emu.ready.consoles['slot6']!, baudRate: 115200, autoOpen: false });
    await new Promise<void>((res, rej) => port.open((e) => (e ? rej(e) : res())));
    let got = '';
    port.on('data', (b: Buffer) => (got += b.toString('latin1')));
    try {
      const r = await runExpect(solScript([...base(), '-C', '17', '-t', '0x8c', '-b', '0'], [], 'slot6>', [{ send: 'show slot', expect: 'IPMB-0 address: +0x8c' }]));
      await expectOut(r.out, 'IPMITOOL-EXIT 0');
      const end = Date.now() + 5000;
      while (!/show slot\r\n[\s\S]*IPMB-0 address: +0x8c[\s\S]*slot6> $/.test(got) && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      expect(got).toMatch(/show slot\r\n[\s\S]*IPMB-0 address: +0x8c[\s\S]*slot6> $/);
    } finally {
      await new Promise<void>((res) => port.close(() => res()));
    }
  });
});
