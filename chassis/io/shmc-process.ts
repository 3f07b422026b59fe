/**
 * Starting, killing and restarting shelf-manager processes for the split shelf (docs/split.md).
 *
 * The only command ever run is this installation's own entry point with the verb `shmc` and flags
 * that pass `parseShmcArgv` (chassis/split/shmc-flags.ts): `node bin/atcasim.mjs shmc --node …`.
 * A restart (the shelf's watchdog reset) kills the old process with SIGKILL, waits until it is gone
 * (its UDP and TCP ports are free again), then starts the same command. A process the supervisor
 * did not start (a ShMC the user ran by hand) is killed only if /proc/PID/cmdline shows it is an
 * `shmc` of the same node. Each child's stdout/stderr go to `<its --db>.log` (or its --log-file).
 * `stopAll` ends every child it started (SIGCONT first, so a stopped one can die, then SIGTERM,
 * SIGKILL after a grace period).
 *
 * The administrator password never goes on a child's command line (where `ps` and /proc/PID/cmdline
 * show it to every user): `spawn` strips any `--admin-password` from the argv it is given and passes
 * the password in the child's environment as ATCASIM_ADMIN_PASSWORD (/proc/PID/environ is readable
 * by its owner only).
 *
 * A child that exits before it registered on the bus (it crashed while starting, or was killed
 * before its firmware armed the watchdog, which then cannot reset it) is started again after
 * `respawnDelayMs`, at most `maxEarlyExits` times in a row; once registered, its resets are the
 * shelf watchdog's business.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../board/common/logger.ts';
import { CommandError } from '../../board/common/errors.ts';
import { ADMIN_PASSWORD_ENV, parseShmcArgv, stripAdminPassword } from '../split/shmc-flags.ts';
import type { ShmcRegistration } from '../split/split-shelf.ts';
import { ensureParentDir } from './data-dir.ts';

/** Absolute path of the atcasim entry point (bin/atcasim.mjs). */
export const ATCASIM_ENTRY = fileURLToPath(new URL('../../bin/atcasim.mjs', import.meta.url));

function sleep(ms: number): Promise<void> {
  return new Promise((r) => globalThis.setTimeout(r, ms));
}

/**
 * The process exists and has not exited: a zombie awaiting its parent's wait() counts as gone
 * (Linux /proc; without /proc, `kill(pid, 0)` alone decides). Also used by the e2e tests.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** True when /proc says `pid` runs `atcasim shmc --node X` (Linux; false where /proc is missing). */
function isShmcProcess(pid: number, node: string): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const i = args.indexOf('--node');
    return args.includes('shmc') && i >= 0 && `shmc-${args[i + 1]}` === node;
  } catch {
    return false;
  }
}

/** See the module header. */
/** Options of the supervisor. */
export interface ShmcSupervisorOptions {
  /** True once the process `pid` registered as `node` on the bus (then the shelf watchdog resets it). */
  registered?(node: string, pid: number): boolean;
  /** Delay before starting a child again that exited before registering, ms [1000]. */
  respawnDelayMs?: number;
  /** Consecutive early exits per node before giving up [5]. */
  maxEarlyExits?: number;
}

/** Starts, kills and restarts `atcasim shmc` processes (see the module header). */
export class ShmcSupervisor {
  private readonly children = new Map<number, ChildProcess>();
  private readonly earlyExits = new Map<string, number>();
  private readonly timers = new Set<ReturnType<typeof globalThis.setTimeout>>();
  private stopping = false;

  constructor(private readonly log: Logger, private readonly opts: ShmcSupervisorOptions = {}) {}

  /**
   * Starts `atcasim shmc ARGV` with the administrator password in its environment
   * (ATCASIM_ADMIN_PASSWORD): `adminPassword`, else a `--admin-password` found in `argv` (removed from
   * the command line), else the one this process's own environment holds.
   * @returns the child process
   * @throws CommandError('bad_flag') when the flags do not pass the check or there is no password
   *   (nothing is started)
   */
  spawn(argv: readonly string[], adminPassword?: string): ChildProcess {
    const stripped = stripAdminPassword(argv);
    const clean = stripped.argv;
    const password = adminPassword ?? stripped.password;
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (password !== undefined) env[ADMIN_PASSWORD_ENV] = password;
    // The same check the child makes (the password included), so a bad set fails here, not in a loop.
    const f = parseShmcArgv(clean, { env });
    if (f.adminPassword === undefined) throw new CommandError('bad_flag', `no administrator password for the ShMC (${ADMIN_PASSWORD_ENV})`);
    const logFile = f.logFile ?? `${f.db}.log`;
    ensureParentDir(logFile);
    const fd = openSync(logFile, 'a');
    const child = spawn(process.execPath, [ATCASIM_ENTRY, 'shmc', ...clean], { stdio: ['ignore', fd, fd], env });
    closeSync(fd);
    if (child.pid !== undefined) {
      const pid = child.pid;
      this.children.set(pid, child);
      const node = `shmc-${f.node}`;
      child.once('exit', (code, signal) => {
        this.children.delete(pid);
        if (this.stopping) return;
        this.log.info({ category: 'shmc-process', pid, node, code, signal }, `${node} (pid ${pid}) exited`);
        const reg = this.opts.registered;
        if (!reg) return;
        if (reg(node, pid)) {
          this.earlyExits.set(node, 0);
          return;
        }
        const n = (this.earlyExits.get(node) ?? 0) + 1;
        this.earlyExits.set(node, n);
        if (n > (this.opts.maxEarlyExits ?? 5)) {
          this.log.error({ category: 'shmc-process', node, exits: n - 1 }, `${node} exited ${n - 1} times before registering: not started again`);
          return;
        }
        this.log.warn({ category: 'shmc-process', node, pid, code, signal }, `${node} exited before registering on the bus: starting it again`);
        const t = globalThis.setTimeout(() => {
          this.timers.delete(t);
          if (this.stopping) return;
          try {
            this.spawn(clean, password);
          } catch (e) {
            this.log.error({ category: 'shmc-process', node, err: String(e) }, `${node} could not be started`);
          }
        }, this.opts.respawnDelayMs ?? 1000);
        this.timers.add(t);
      });
    }
    return child;
  }

  /** Kills a ShMC with SIGKILL and waits until it is gone (at most `waitMs`). Never throws. */
  async kill(reg: ShmcRegistration, waitMs = 3000): Promise<void> {
    const child = this.children.get(reg.pid);
    try {
      if (child) {
        const gone = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGKILL');
        await Promise.race([gone, sleep(waitMs)]);
        return;
      }
      if (!processAlive(reg.pid)) return; // already gone (killed from outside)
      if (!isShmcProcess(reg.pid, reg.node)) {
        this.log.warn({ category: 'shmc-process', pid: reg.pid, node: reg.node }, `pid ${reg.pid} is not ${reg.node}'s shmc process: not killed`);
        return;
      }
      process.kill(reg.pid, 'SIGKILL');
      const t0 = performance.now();
      while (processAlive(reg.pid) && isShmcProcess(reg.pid, reg.node) && performance.now() - t0 < waitMs) await sleep(20);
    } catch (e) {
      this.log.warn({ category: 'shmc-process', pid: reg.pid, err: String(e) }, 'kill failed');
    }
  }

  /**
   * Power cycle: kill, wait, start again with the registered flags (and its password, through the
   * environment). Never throws.
   */
  async restart(reg: ShmcRegistration): Promise<void> {
    await this.kill(reg);
    if (this.stopping) return;
    try {
      const c = this.spawn(reg.argv, reg.adminPassword);
      this.log.warn({ category: 'shmc-process', node: reg.node, old_pid: reg.pid, pid: c.pid }, `${reg.node} restarted (pid ${c.pid})`);
    } catch (e) {
      this.log.error({ category: 'shmc-process', node: reg.node, err: String(e) }, `${reg.node} could not be restarted`);
    }
  }

  /** PIDs of the running children. */
  pids(): number[] {
    return [...this.children.keys()];
  }

  /** Ends every child (SIGCONT, SIGTERM, then SIGKILL after `graceMs`). */
  async stopAll(graceMs = 2000): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const all = [...this.children.values()];
    const exits = all.map((c) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r()))));
    for (const c of all) {
      c.kill('SIGCONT');
      c.kill('SIGTERM');
    }
    const done = Promise.all(exits);
    await Promise.race([done, sleep(graceMs)]);
    for (const c of all) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.race([done, sleep(1000)]);
  }
}
