/**
 * Spawns `node bin/atcasim.mjs start --headless …` for end-to-end tests (everyone's: IPMI,
 * consoles, HA …), waits for its `"event":"ready"` line, and returns the addresses it listens on.
 *
 * Defaults keep runs small and parallel-safe: a fresh temporary directory and database, IPMI on a
 * free port (`--ipmi-port 0`), a small session table (`--session-capacity 4096`), traffic at a
 * fixed 5,000 packets/s, a known administrator (`admin` / `atcasim-test-pw`), stats every second.
 * Every stdout line is parsed as JSON and kept (`lines`); `waitFor` polls them.
 *
 *   const emu = await startHeadless();
 *   await runIpmitool(['-p', String(emu.ipmi.port), …]);
 *   const code = await emu.stop();           // SIGTERM, resolves with the exit code
 *
 * Always stop (or kill) what you start (`afterAll(() => emu?.kill())`): the helper never leaves a
 * process behind on its own, but a test that throws before `stop()` must clean up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './shared.ts';

/** Path of the `atcasim` entry point. */
export const ATCASIM_BIN = join(repoRoot, 'bin', 'atcasim.mjs');

/** The administrator every headless test emulator gets unless told otherwise. */
export const TEST_ADMIN = { user: 'admin', password: 'atcasim-test-pw' } as const;

/** A parsed JSON log line (pino fields plus the event's own). */
export type LogLine = Record<string, unknown> & { event?: string; msg?: string; level?: number };

/** The ready line. */
export interface ReadyLine extends LogLine {
  event: 'ready';
  ipmi: string | null;
  consoles: Record<string, string>;
  db: string;
  pid: number;
}

/** Options of startHeadless. */
export interface HeadlessOptions {
  /** Database file [DIR/atcasim.db in a new temp dir]. */
  db?: string;
  /** Directory for the database and anything else [a new mkdtemp dir, removed by cleanup()]. */
  dir?: string;
  /** Session-table capacity per board [4096]. */
  sessionCapacity?: number;
  /** Traffic rate, packets/s [5000]; 'capture' = paced to the capture. */
  rate?: number | 'capture';
  /** `--stats-interval` [1s]. */
  statsInterval?: string;
  /** Administrator password given with --admin-password [TEST_ADMIN.password]; null = none given. */
  adminPassword?: string | null;
  /** `--stdin-commands` (send() writes to it) [false]. */
  stdinCommands?: boolean;
  /** More arguments after the defaults (e.g. ['--config', file, '--hot-swap-step', '200ms']). */
  args?: string[];
  /** Extra environment variables (ATCASIM_ADMIN_PASSWORD is removed unless given here). */
  env?: Record<string, string>;
  /** Time to wait for the ready line, ms [45000; start-up compiles TypeScript through tsx]. */
  readyTimeoutMs?: number;
}

/** A running headless emulator. */
export interface HeadlessEmulator {
  proc: ChildProcess;
  pid: number;
  dir: string;
  db: string;
  ready: ReadyLine;
  /** The IPMI address of the ready line. */
  ipmi: { host: string; port: number };
  /** Every stdout line so far, parsed (non-JSON lines as `{ msg: text }`). */
  lines: LogLine[];
  /** stderr so far. */
  stderr(): string;
  /** Resolves with the first line (already received or coming) that matches. @throws on timeout or exit */
  waitFor(pred: (l: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>;
  /** Writes a control line to stdin (needs `stdinCommands`) and resolves with its `command` answer. */
  send(line: string, timeoutMs?: number): Promise<LogLine>;
  /** Sends `signal` [SIGTERM] and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Removes the temp dir (only if the helper created it). */
  cleanup(): void;
}

/** The arguments startHeadless passes (exported for tests that spawn differently). */
export function headlessArgs(o: HeadlessOptions & { db: string }): string[] {
  const rate = o.rate ?? 5000;
  return [
    ATCASIM_BIN,
    'start',
    '--headless',
    '--db',
    o.db,
    '--ipmi-port',
    '0',
    '--session-capacity',
    String(o.sessionCapacity ?? 4096),
    ...(rate === 'capture' ? [] : ['--rate', String(rate)]),
    '--stats-interval',
    o.statsInterval ?? '1s',
    ...(o.adminPassword === null ? [] : ['--admin-password', o.adminPassword ?? TEST_ADMIN.password]),
    ...(o.stdinCommands ? ['--stdin-commands'] : []),
    ...(o.args ?? []),
  ];
}

function testEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.ATCASIM_ADMIN_PASSWORD;
  return { ...env, ...extra };
}

/**
 * Starts a headless emulator and waits for its ready line.
 * @throws Error with the stderr tail when it exits or stays silent past the timeout (the process is killed)
 */
export async function startHeadless(opts: HeadlessOptions = {}): Promise<HeadlessEmulator> {
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'atcasim-headless-'));
  const db = opts.db ?? join(dir, 'atcasim.db');
  const proc = spawn(process.execPath, headlessArgs({ ...opts, db }), {
    cwd: repoRoot,
    env: testEnv(opts.env),
    stdio: [opts.stdinCommands ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let err = '';
  let buf = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (text.trim() === '') continue;
      try {
        lines.push(JSON.parse(text) as LogLine);
      } catch {
        lines.push({ msg: text });
      }
    }
    notify();
  });
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (c: string) => {
    err += c;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => {
      resolve({ code, signal });
      notify();
    });
  });
  let done = false;
  void exited.then(() => (done = true));

  const waitFor = (pred: (l: LogLine) => boolean, timeoutMs = 30_000, what = 'a matching log line'): Promise<LogLine> =>
    new Promise((resolve, reject) => {
      let seen = 0;
      const check = () => {
        for (; seen < lines.length; seen++) {
          if (pred(lines[seen]!)) {
            cleanupWait();
            resolve(lines[seen]!);
            return;
          }
        }
        if (done) {
          cleanupWait();
          reject(new Error(`atcasim exited before ${what}; stderr:\n${err.slice(-2000)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanupWait();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last lines:\n${lines.slice(-5).map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${err.slice(-2000)}`));
      }, timeoutMs);
      const cleanupWait = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const kill = async () => {
    if (!done) proc.kill('SIGKILL');
    await exited;
  };
  let ready: ReadyLine;
  try {
    ready = (await waitFor((l) => l.event === 'ready', opts.readyTimeoutMs ?? 45_000, 'the ready line')) as ReadyLine;
  } catch (e) {
    await kill();
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const m = /^(.*):(\d+)$/.exec(ready.ipmi ?? '');
  const ipmi = m ? { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) } : { host: '', port: 0 };
  let commands = 0;
  return {
    proc,
    pid: proc.pid!,
    dir,
    db,
    ready,
    ipmi,
    lines,
    stderr: () => err,
    waitFor,
    send: async (line, timeoutMs = 15_000) => {
      if (!proc.stdin) throw new Error('startHeadless: send() needs stdinCommands: true');
      const skip = lines.filter((l) => l.event === 'command').length;
      commands++;
      proc.stdin.write(`${line}\n`);
      let n = 0;
      return waitFor((l) => l.event === 'command' && n++ >= skip, timeoutMs, `the answer to "${line}" (command ${commands})`);
    },
    stop: async (signal = 'SIGTERM', timeoutMs = 20_000) => {
      if (!done) proc.kill(signal);
      const t = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
      const r = await exited;
      clearTimeout(t);
      return r.code;
    },
    kill,
    exited,
    cleanup: () => {
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Result of a run that is expected to end by itself. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `atcasim ARGS…` to completion (for start-up failures: bad config, corrupt database …).
 * @throws when it does not exit within `timeoutMs` (it is killed)
 */
export function runAtcasim(args: string[], opts: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [ATCASIM_BIN, ...args], { cwd: repoRoot, env: testEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    p.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`atcasim ${args.join(' ')} did not exit within ${opts.timeoutMs ?? 45_000} ms; stderr:\n${stderr.slice(-2000)}`));
    }, opts.timeoutMs ?? 45_000);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}
