/**
 * `atcasim clia` without a verb — the interactive shell — driven by `expect` on a real terminal
 * (a PTY) against a running emulator: the password asked once without echo, the `CLI>` prompt,
 * Tab completion of verbs and FRU names, history (↑ and `history`), `help`, `exit`. And the same
 * shell fed from a pipe: each line run, the last command's exit status.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATCASIM_BIN, type HeadlessEmulator } from '../support/headless.ts';
import { ADMIN_PASSWORD, startReferenceEmulator } from '../support/ipmi-shelf.ts';
import { repoRoot } from '../support/shared.ts';

let emu: HeadlessEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startReferenceEmulator();
  dir = mkdtempSync(join(tmpdir(), 'atcasim-clia-shell-'));
});
afterAll(async () => {
  if (emu) {
    expect(await emu.stop()).toBe(0);
    emu.cleanup();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs an expect script; exit 3 from the script means one of its `expect`s timed out. */
function runExpect(script: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `s${Math.random().toString(36).slice(2)}.exp`);
  writeFileSync(file, script);
  return new Promise((resolve) => {
    execFile('expect', [file], { cwd: repoRoot, timeout: 120_000, env: { ...process.env, ATCASIM_ADMIN_PASSWORD: '', TERM: 'xterm' } }, (err, stdout) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout });
    });
  });
}

describe('interactive (expect on a PTY)', () => {
  it('password without echo, prompt, completion of verbs and FRU names, history, help, exit', async () => {
    const script = `
set timeout 40
# typed as a person types: readline takes a burst of characters for a paste and does not complete in it
set send_slow {1 .03}
expect_after timeout { puts "\\nTIMEOUT"; exit 3 }
spawn ${process.execPath} ${ATCASIM_BIN} clia -p ${emu.ipmi.port} --timeout 3000
expect "Password for admin@127.0.0.1:${emu.ipmi.port}: "
send "${ADMIN_PASSWORD}\\r"
expect "CLI> "
send -s "shmst\\t"
expect "shmstatus"
send "\\r"
expect -re "Role: active.*CLI> "
send -s "fru pem\\t"
sleep 0.3
send -s "\\t"
expect -re "pem1.+pem2"
send -s "2\\r"
expect -re "FRU # 0  pem2 .*CLI> "
send "\\033\\[A"
expect "fru pem2"
send "\\r"
expect -re "FRU # 0  pem2 .*CLI> "
send "help\\r"
expect -re "showunhealthy.*CLI> "
send "sensordata slot3 \\"Node3 Temp\\"\\r"
expect -re "Processed data: \\\\d+ degrees C.*CLI> "
send "nosuchverb\\r"
expect -re "unknown verb \\"nosuchverb\\".*CLI> "
send "history\\r"
expect -re "1  shmstatus.*3  fru pem2.*CLI> "
send "exit\\r"
expect eof
catch wait result
exit [lindex $result 3]
`;
    const r = await runExpect(script);
    expect(r.out).not.toMatch(/TIMEOUT/);
    expect(r.code).toBe(0);
    // the password never reaches the screen
    expect(r.out).not.toContain(ADMIN_PASSWORD);
    expect(r.out).toMatch(/CLI> /);
  }, 150_000);
});

describe('from a pipe', () => {
  const pipe = (input: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, [ATCASIM_BIN, 'clia', '-p', String(emu.ipmi.port), '--timeout', '3000'], { cwd: repoRoot, env: { ...process.env, ATCASIM_ADMIN_PASSWORD: ADMIN_PASSWORD } });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      p.stdin.end(input);
    });

  it('runs each line; the exit status is the last command\'s', async () => {
    const ok = await pipe('fru slot3\nshelf\n');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^(CLI> )?86: FRU # 0 {2}slot3 /m);
    expect(ok.stdout).toMatch(/Shelf Address: "atcasim-default"/);
    const bad = await pipe('fru slot3\nfru slot9\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/slot9 is not a FRU of this shelf/);
  }, 60_000);
});
