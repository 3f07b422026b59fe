/**
 * The flags of `atcasim shmc` as one value, and the check the shelf applies to what a ShMC
 * registered before it runs it again after a reset: the shelf re-runs only `atcasim shmc` with
 * these flags (each known, each value of the right form), never an arbitrary command (docs/split.md).
 *
 * argv form (the order `shmcArgv` writes):
 *   --node a|b --shelf HOST:PORT --peer-listen HOST:PORT --peer HOST:PORT --ipmi-port PORT
 *   --maint-port PORT --db FILE [--log-file FILE] [--log-level LEVEL]
 * plus, for a user who starts `atcasim shmc` by hand, `--admin-password PW` — or the environment
 * variable ATCASIM_ADMIN_PASSWORD (the name `start`, `shelf` and `clia` read), which does not show in
 * `ps`. The password never goes into an argv this project writes, registers, logs or re-runs:
 * `shmcArgv` leaves it out, `stripAdminPassword` removes it from an argv received from elsewhere, and
 * the supervisor (chassis/io/shmc-process.ts) hands it to a ShMC process through its environment.
 * Hosts must be loopback addresses (127.x.x.x, ::1, localhost): the pair talks on loopback only.
 * Pure: no I/O (the environment is passed in).
 */
import { CommandError } from '../../board/common/errors.ts';

/** Parsed shmc flags. */
export interface ShmcFlags {
  node: 'a' | 'b';
  /** The shelf's bus address. */
  shelf: { host: string; port: number };
  /** Where this ShMC receives heartbeats, sync and mirror datagrams (UDP). Port 0 is refused: the peer must know it. */
  peerListen: { host: string; port: number };
  /** Where the peer receives them. */
  peer: { host: string; port: number };
  /** The shelf address (UDP), bound while this ShMC is active. */
  ipmiPort: number;
  /** This ShMC's maintenance port (TCP, JSON lines). */
  maintPort: number;
  /** This ShMC's own SQLite database (absolute or relative path). */
  db: string;
  /**
   * The administrator password (control operations on the maintenance port), from --admin-password
   * or ATCASIM_ADMIN_PASSWORD; absent only when parsed with `requirePassword: false`.
   */
  adminPassword?: string;
  logFile?: string;
  logLevel?: string;
}

/** The environment variable a ShMC reads its administrator password from (the same name `start` reads). */
export const ADMIN_PASSWORD_ENV = 'ATCASIM_ADMIN_PASSWORD';

/** Options of `parseShmcArgv`. */
export interface ParseShmcOptions {
  /** Where ATCASIM_ADMIN_PASSWORD is looked up when --admin-password is absent (none: not looked up). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Require a password (from argv or env) [true]. The shelf checks registered flags, which carry
   * none, with false.
   */
  requirePassword?: boolean;
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

function loopback(host: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1' || host === 'localhost';
}

/**
 * Parses `HOST:PORT` (a loopback host, port 1..65535).
 * @throws CommandError('bad_flag')
 */
export function parseLoopbackHostPort(flag: string, v: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(v);
  if (!m) throw new CommandError('bad_flag', `${flag}: "${v}" is not HOST:PORT`);
  const host = m[1]!.replace(/^\[|\]$/g, '');
  const port = Number(m[2]);
  if (!loopback(host)) throw new CommandError('bad_flag', `${flag}: ${host} is not a loopback address (the split shelf runs on one machine)`);
  if (port < 1 || port > 65535) throw new CommandError('bad_flag', `${flag}: port must be 1..65535, got ${port}`);
  return { host, port };
}

function portArg(flag: string, v: string): number {
  if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new CommandError('bad_flag', `${flag}: port must be 1..65535, got "${v}"`);
  return Number(v);
}

function pathArg(flag: string, v: string): string {
  if (v === '' || v.length > 4096 || /[\u0000-\u001f]/.test(v) || v.startsWith('-')) throw new CommandError('bad_flag', `${flag}: not a usable file path`);
  return v;
}

/** Checks a password: 1..20 characters (IPMI v2.0 password length). @throws CommandError('bad_flag') */
function checkPassword(source: string, pw: string): string {
  if (pw.length < 1 || pw.length > 20) throw new CommandError('bad_flag', `${source} must be 1..20 characters (IPMI v2.0 password length)`);
  return pw;
}

/**
 * Parses and checks an shmc argv (flags only, no verb). The password comes from --admin-password,
 * else from `opts.env.ATCASIM_ADMIN_PASSWORD`.
 * @throws CommandError('bad_flag') naming the first flag that is unknown, repeated, missing or malformed
 */
export function parseShmcArgv(argv: readonly string[], opts: ParseShmcOptions = {}): ShmcFlags {
  const seen = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i]!;
    const v = argv[i + 1];
    if (!/^--[a-z-]+$/.test(k)) throw new CommandError('bad_flag', `unexpected argument "${k}"`);
    if (v === undefined) throw new CommandError('bad_flag', `${k} needs a value`);
    if (seen.has(k)) throw new CommandError('bad_flag', `${k} given twice`);
    seen.set(k, v);
  }
  const known = new Set(['--node', '--shelf', '--peer-listen', '--peer', '--ipmi-port', '--maint-port', '--db', '--admin-password', '--log-file', '--log-level']);
  for (const k of seen.keys()) if (!known.has(k)) throw new CommandError('bad_flag', `unknown flag ${k}`);
  const need = (k: string): string => {
    const v = seen.get(k);
    if (v === undefined) throw new CommandError('bad_flag', `${k} is required`);
    return v;
  };
  const node = need('--node');
  if (node !== 'a' && node !== 'b') throw new CommandError('bad_flag', `--node must be a or b, got "${node}"`);
  const flagPw = seen.get('--admin-password');
  const envPw = opts.env?.[ADMIN_PASSWORD_ENV];
  let pw: string | undefined;
  if (flagPw !== undefined) pw = checkPassword('--admin-password', flagPw);
  else if (envPw !== undefined && envPw !== '') pw = checkPassword(ADMIN_PASSWORD_ENV, envPw);
  else if (opts.requirePassword !== false) throw new CommandError('bad_flag', `--admin-password is required (or set ${ADMIN_PASSWORD_ENV})`);
  const f: ShmcFlags = {
    node,
    shelf: parseLoopbackHostPort('--shelf', need('--shelf')),
    peerListen: parseLoopbackHostPort('--peer-listen', need('--peer-listen')),
    peer: parseLoopbackHostPort('--peer', need('--peer')),
    ipmiPort: portArg('--ipmi-port', need('--ipmi-port')),
    maintPort: portArg('--maint-port', need('--maint-port')),
    db: pathArg('--db', need('--db')),
  };
  if (pw !== undefined) f.adminPassword = pw;
  const lf = seen.get('--log-file');
  if (lf !== undefined) f.logFile = pathArg('--log-file', lf);
  const ll = seen.get('--log-level');
  if (ll !== undefined) {
    if (!LEVELS.has(ll)) throw new CommandError('bad_flag', `--log-level: unknown level "${ll}"`);
    f.logLevel = ll;
  }
  return f;
}

const hp = (a: { host: string; port: number }): string => (a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`);

/**
 * Writes the flags back as argv (the inverse of parseShmcArgv) WITHOUT the administrator password:
 * this is the argv a ShMC registers on the bus and the shelf re-runs; the password travels in the
 * child's environment (ATCASIM_ADMIN_PASSWORD), never on a command line.
 */
export function shmcArgv(f: ShmcFlags): string[] {
  const out = [
    '--node', f.node, '--shelf', hp(f.shelf), '--peer-listen', hp(f.peerListen), '--peer', hp(f.peer),
    '--ipmi-port', String(f.ipmiPort), '--maint-port', String(f.maintPort), '--db', f.db,
  ];
  if (f.logFile !== undefined) out.push('--log-file', f.logFile);
  if (f.logLevel !== undefined) out.push('--log-level', f.logLevel);
  return out;
}

/**
 * The argv sanitiser: removes every `--admin-password VALUE` pair and every `--admin-password=VALUE`
 * element from `argv`, wherever it stands (also a dangling `--admin-password` at the end), so that no
 * password reaches a registration, a log line or a command line this project starts.
 * @returns the argv without them, and the first password found (undefined when none)
 */
export function stripAdminPassword(argv: readonly string[]): { argv: string[]; password?: string } {
  const out: string[] = [];
  let password: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--admin-password') {
      const v = argv[i + 1];
      if (v !== undefined && password === undefined) password = v;
      i++; // skip the value too
      continue;
    }
    if (a.startsWith('--admin-password=')) {
      if (password === undefined) password = a.slice('--admin-password='.length);
      continue;
    }
    out.push(a);
  }
  return password === undefined ? { argv: out } : { argv: out, password };
}
