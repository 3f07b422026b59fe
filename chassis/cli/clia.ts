/**
 * `atcasim clia [-H HOST] [-p PORT] [-U USER] [-P PASSWORD] [--json] VERB …` — a shelf-manager CLI
 * in the style of PICMG shelf managers (Pigeon Point `clia`), talking to a running emulator over
 * its own IPMI LAN interface (RMCP+ cipher suite 17 by default), as any remote client does.
 * Defaults: 127.0.0.1, port 6230, user admin, password from ATCASIM_ADMIN_PASSWORD. Verbs and their
 * output: chassis/clia/verbs.ts and docs/clia.md.
 *
 * Exit status: 0 ok; 1 refused by the shelf (non-zero completion code, unknown slot); 2 usage or
 * connection error (no answer, login refused). With --json, stdout carries one JSON value (the
 * verb's result, or {"error": {code, message}}); messages go to stderr either way.
 */
import type { Command } from 'commander';
import { createSocket } from 'node:dgram';
import { Writable } from 'node:stream';
import { nodeCryptoRandom } from '../io/crypto-random.ts';
import { readSecret } from '../io/read-secret.ts';
import { maintRequest } from '../io/shmc-maint.ts';
import { SystemClock } from '../io/system-clock.ts';
import { ConnectionError, IpmiClient, type DatagramTransport } from '../clia/client.ts';
import { RefusedError, ShelfApi } from '../clia/shelf-api.ts';
import { UsageError, VERBS, helpText } from '../clia/verbs.ts';
import { runCliaShell } from './clia-shell.ts';
import type { CliContext } from './context.ts';

/** A UDP socket to host:port as a DatagramTransport (datagrams from other peers are ignored). */
export function udpTransport(host: string, port: number): DatagramTransport {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  let handler: ((b: Uint8Array) => void) | undefined;
  socket.on('message', (msg, rinfo) => {
    if (rinfo.port !== port) return;
    handler?.(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength));
  });
  socket.on('error', () => {
    // send errors (e.g. ICMP port unreachable) show up as timeouts
  });
  socket.unref();
  return {
    send: (b) => socket.send(b, port, host),
    onMessage: (fn) => {
      handler = fn;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

interface CliaOptions {
  host: string;
  port: string;
  user: string;
  password?: string;
  cipherSuite: string;
  json?: boolean;
  verbose?: boolean;
  timeout: string;
  /** `shmstatus --maint HOST:PORT`: ask one ShMC's maintenance port (split shelf, docs/split.md). */
  maint?: string;
}

/**
 * Runs one clia verb and writes its output. @returns the exit status (0, 1, 2)
 */
export async function runClia(verb: string | undefined, rawArgs: string[], o: CliaOptions, ctx: Pick<CliContext, 'stdout' | 'stderr'>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = rawArgs.filter((a) => a !== '--json' && a !== '-v' && a !== '--verbose');
  const json = !!o.json || rawArgs.includes('--json');
  const verbose = !!o.verbose || rawArgs.includes('-v') || rawArgs.includes('--verbose');
  const fail = (code: number, kind: string, message: string): number => {
    ctx.stderr.write(`atcasim clia: ${message}\n`);
    if (json) ctx.stdout.write(`${JSON.stringify({ error: { code: kind, message } }, null, 2)}\n`);
    return code;
  };
  if (!verb || verb === 'help') {
    try {
      ctx.stdout.write(helpText(args[0]));
      return 0;
    } catch (e) {
      return fail(2, 'usage', (e as Error).message);
    }
  }
  const v = VERBS[verb];
  if (!v) return fail(2, 'usage', `unknown verb "${verb}" (atcasim clia help)`);
  if (o.maint !== undefined) {
    if (verb !== 'shmstatus') return fail(2, 'usage', '--maint goes with shmstatus only');
    return maintShmStatus(o.maint, json, Number(o.timeout), fail, ctx);
  }
  const port = Number(o.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return fail(2, 'usage', `-p: "${o.port}" is not a UDP port`);
  const suite = Number(o.cipherSuite);
  if (suite !== 17 && suite !== 3) return fail(2, 'usage', '-C: clia speaks cipher suites 17 and 3');
  const timeoutMs = Number(o.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return fail(2, 'usage', `--timeout: "${o.timeout}" is not a duration in ms`);
  const password = o.password ?? env.ATCASIM_ADMIN_PASSWORD;
  if (!password) return fail(2, 'usage', 'no password: give -P PASSWORD or set ATCASIM_ADMIN_PASSWORD');
  const client = new IpmiClient(udpTransport(o.host, port), {
    user: o.user,
    password,
    cipherSuite: suite,
    timeoutMs,
    randomBytes: nodeCryptoRandom,
    clock: new SystemClock(),
  });
  try {
    await client.connect();
    const r = await v.run(new ShelfApi(client), args, { verbose, readSecret: (q) => readSecret(q) });
    ctx.stdout.write(json ? `${JSON.stringify(r.json, null, 2)}\n` : r.text);
    return 0;
  } catch (e) {
    if (e instanceof RefusedError) return fail(1, e.code, e.message);
    if (e instanceof UsageError) return fail(2, 'usage', `${e.message}\nusage: atcasim clia ${v.usage}`);
    if (e instanceof ConnectionError) return fail(2, 'connection', `${o.host}:${port}: ${e.message}`);
    throw e;
  } finally {
    await client.close();
  }
}

/** Registers the verb. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('clia')
    .description('shelf-manager CLI over IPMI (verbs: shmstatus, switchover, fru, board, sensordata, getthreshold, sel, showunhealthy, alarm, shelf, user, getlanconfig, version, activate, deactivate, console, inject …; "clia help"; no verb: an interactive shell)')
    .option('-H, --host <host>', 'shelf address', '127.0.0.1')
    .option('-p, --port <port>', 'IPMI UDP port', '6230')
    .option('-U, --user <user>', 'IPMI user', 'admin')
    .option('-P, --password <password>', 'IPMI password (default: $ATCASIM_ADMIN_PASSWORD)')
    .option('-C, --cipher-suite <id>', 'RMCP+ cipher suite (17 or 3)', '17')
    .option('--timeout <ms>', 'time to wait for each answer, ms', '1000')
    .option('--json', 'JSON output for scripts')
    .option('--maint <host:port>', 'shmstatus: ask one shelf manager\'s maintenance port (split shelf: atcasim start --split)')
    .option('-v, --verbose', 'more detail (shmstatus, board)')
    .argument('[verb]', 'what to do ("help" lists the verbs)')
    .argument('[args...]', 'arguments of the verb')
    .allowUnknownOption()
    .action(async (verb: string | undefined, args: string[], o: CliaOptions) => {
      ctx.setExit(verb ? await runClia(verb, args, o, ctx) : await shell(o, ctx));
    });
}

/**
 * `atcasim clia` without a verb: the interactive shell (clia-shell.ts) on stdin/stdout, each line
 * run as runClia runs a verb. Without -P and ATCASIM_ADMIN_PASSWORD a terminal is asked for the
 * password once (no echo).
 */
async function shell(o: CliaOptions, ctx: CliContext): Promise<number> {
  const terminal = !!process.stdin.isTTY && ctx.stdout === process.stdout;
  const env = { ...process.env };
  if (o.password === undefined && !env.ATCASIM_ADMIN_PASSWORD && terminal) {
    try {
      env.ATCASIM_ADMIN_PASSWORD = await readSecret(`Password for ${o.user}@${o.host}:${o.port}: `);
    } catch (e) {
      ctx.stderr.write(`atcasim clia: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const quiet = { stdout: new Writable({ write: (_c, _e, cb) => cb() }), stderr: new Writable({ write: (_c, _e, cb) => cb() }) };
  return runCliaShell({
    input: process.stdin,
    output: ctx.stdout,
    stderr: ctx.stderr,
    terminal,
    run: (verb, args) => runClia(verb, args, o, ctx, env),
    fruNames: async () => {
      let out = '';
      const io = { ...quiet, stdout: new Writable({ write: (c, _e, cb) => ((out += String(c)), cb()) }) };
      if ((await runClia('fru', ['--json'], o, io, env)) !== 0) return [];
      return (JSON.parse(out) as Array<{ name: string }>).map((f) => f.name);
    },
  });
}

/**
 * `clia shmstatus --maint HOST:PORT [--json]`: one ShMC's own report from its maintenance port
 * (chassis/io/shmc-maint.ts) — its role (`active`, `standby.hot`, …), pid, peer role, last takeover.
 * @returns the exit status (0, 2 when the port does not answer)
 */
async function maintShmStatus(target: string, json: boolean, timeoutMs: number, fail: (code: number, kind: string, message: string) => number, ctx: Pick<CliContext, 'stdout'>): Promise<number> {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) return fail(2, 'usage', `--maint: "${target}" is not HOST:PORT`);
  const host = m[1]!.replace(/^\[|\]$/g, '');
  let s: Record<string, unknown>;
  try {
    s = (await maintRequest(host, Number(m[2]), { op: 'status' }, Number.isFinite(timeoutMs) && timeoutMs > 0 ? Math.max(timeoutMs, 500) : 2000)) as Record<string, unknown>;
  } catch (e) {
    return fail(2, 'connection', (e as Error).message);
  }
  if (json) {
    ctx.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return 0;
  }
  const t = s.takeover as { totalMs: number | null; from: string } | null;
  ctx.stdout.write(
    `${String(s.node)} (pid ${String(s.pid)}): ${String(s.role)}, epoch ${String(s.epoch)}; peer ${String(s.peerRole)}` +
      `${s.shelf_address_bound ? '; holds the shelf address' : ''}` +
      `${t ? `; last takeover from ${t.from} in ${t.totalMs ?? '?'} ms` : ''}\n`,
  );
  return 0;
}
