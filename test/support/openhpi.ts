/**
 * OpenHPI for end-to-end tests: `openhpid` (Debian openhpid) started in the foreground on a free
 * TCP port with a generated configuration — one `libipmidirect` handler (Debian
 * openhpi-plugin-ipmidirect) talking RMCP with MD5 authentication to the emulator — and its
 * clients (`hpitree`, `hpisensor`, `hpiinv`, `hpievents`, `hpi_shell`; Debian openhpi-clients)
 * pointed at it through OPENHPI_DAEMON_HOST/PORT. Every file (configuration, UID map, the
 * plugin's log) lives in a temporary directory the caller removes.
 *
 *   const hpi = await startOpenHpi({ ipmiPort, user, password, dir });
 *   const tree = await hpi.client(['hpitree', '-r']);
 *   await hpi.stop();
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runClient, type RunResult } from './ipmi-golden.ts';

/** True when openhpid, its clients and the ipmidirect plugin are installed. */
export function openHpiInstalled(): boolean {
  const which = (b: string) => spawnSync('sh', ['-c', `command -v ${b}`]).status === 0;
  const plugin = spawnSync('sh', ['-c', 'ls /usr/lib/openhpi/libipmidirect.so* /usr/lib/*/openhpi/libipmidirect.so* 2>/dev/null']).stdout.length > 0;
  return plugin && ['openhpid', 'hpitree', 'hpisensor', 'hpiinv', 'hpievents', 'hpi_shell'].every(which);
}

/** The plugin directory of the installed OpenHPI (where libipmidirect.so lives). */
function pluginDir(): string {
  const out = spawnSync('sh', ['-c', 'dirname $(ls /usr/lib/openhpi/libipmidirect.so* /usr/lib/*/openhpi/libipmidirect.so* 2>/dev/null | head -1)'], { encoding: 'utf8' });
  return out.stdout.trim();
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Where and how openhpid reaches the shelf. */
export interface OpenHpiOptions {
  ipmiPort: number;
  user: string;
  password: string;
  /** Directory for the configuration, the UID map and the plugin's log. */
  dir: string;
}

/** A running openhpid. */
export interface OpenHpi {
  port: number;
  proc: ChildProcess;
  /** The generated configuration file. */
  conf: string;
  /** Runs an OpenHPI client against this daemon. */
  client(argv: string[], timeoutMs?: number): Promise<RunResult>;
  /** Runs hpi_shell with `commands` (one per line, `quit` appended) as its script. */
  shell(commands: string[], timeoutMs?: number): Promise<RunResult>;
  /** The daemon's stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/** The openhpid configuration: one ipmidirect handler over RMCP (IPMI 1.5, MD5, administrator). */
export function openHpiConfig(o: OpenHpiOptions): string {
  return [
    'OPENHPI_LOG_ON_SEV = "MINOR"',
    'OPENHPI_EVT_QUEUE_LIMIT = 10000',
    'OPENHPI_DEL_SIZE_LIMIT = 10000',
    'OPENHPI_DEL_SAVE = "NO"',
    'OPENHPI_DAT_SIZE_LIMIT = 0',
    'OPENHPI_DAT_USER_LIMIT = 0',
    'OPENHPI_DAT_SAVE = "NO"',
    `OPENHPI_PATH = "${pluginDir()}"`,
    `OPENHPI_VARPATH = "${join(o.dir, 'var')}"`,
    'OPENHPI_AUTOINSERT_TIMEOUT = 0',
    'handler libipmidirect {',
    '  entity_root = "{SYSTEM_CHASSIS,1}"',
    '  name = "lan"',
    '  addr = "127.0.0.1"',
    `  port = "${o.ipmiPort}"`,
    '  auth_type = "md5"',
    '  auth_level = "admin"',
    `  username = "${o.user}"`,
    `  password = "${o.password}"`,
    '  IpmiConnectionTimeout = "5000"',
    '  AtcaConnectionTimeout = "1000"',
    '  MaxOutstanding = "1"',
    '  logflags = "file"',
    `  logfile = "${join(o.dir, 'ipmidirect')}"`,
    '  logfile_max = "2"',
    '}',
    '',
  ].join('\n');
}

/** Starts openhpid in the foreground (-n) on a free port. @throws when it exits at once */
export async function startOpenHpi(o: OpenHpiOptions): Promise<OpenHpi> {
  mkdirSync(join(o.dir, 'var'), { recursive: true });
  const conf = join(o.dir, 'openhpi.conf');
  writeFileSync(conf, openHpiConfig(o));
  chmodSync(conf, 0o600); // openhpid refuses a configuration others can read
  const port = await freeTcpPort();
  const env = { ...process.env, OPENHPI_UID_MAP: join(o.dir, 'uid_map'), OPENHPI_CONF: conf };
  const proc = spawn('openhpid', ['-n', '-c', conf, '-p', String(port), '-f', join(o.dir, 'openhpid.pid')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  await new Promise((r) => setTimeout(r, 500));
  if (proc.exitCode !== null) throw new Error(`openhpid exited at once (${proc.exitCode}): ${out.slice(-500)}`);
  const clientEnv = { OPENHPI_DAEMON_HOST: '127.0.0.1', OPENHPI_DAEMON_PORT: String(port) };
  const client = (argv: string[], timeoutMs = 60_000) => runClient(argv, { timeoutMs, env: clientEnv });
  return {
    port,
    proc,
    conf,
    client,
    shell: (commands, timeoutMs) => {
      const script = join(o.dir, `shell-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.txt`);
      writeFileSync(script, [...commands, 'quit', ''].join('\n'));
      return client(['hpi_shell', '-f', script], timeoutMs);
    },
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
    },
  };
}

/** One RPT entry of `hpi_shell lsres`: resource ID, tag, capability letters. */
export interface HpiResource {
  id: number;
  tag: string;
  caps: string[];
}

/** Parses `lsres` lines "(006):Node3:{S|RDR|INV|RST|FRU|CNT|HS|RES}". */
export function parseLsres(text: string): HpiResource[] {
  const out: HpiResource[] = [];
  for (const m of text.matchAll(/^\((\d+)\):(.*):\{([A-Z|]*)\}\s*$/gm)) out.push({ id: Number(m[1]), tag: m[2]!, caps: m[3]!.split('|') });
  return out;
}

/** Entity paths of `hpitree -r` ("Entity Path: {SYSTEM_CHASSIS,1}{PHYSICAL_SLOT,3}{PICMG_FRONT_BLADE,0}") with their resource IDs. */
export function parseTreeRpts(text: string): Array<{ id: number; path: string; tag: string }> {
  const out: Array<{ id: number; path: string; tag: string }> = [];
  for (const block of text.split(/\n(?=Entity Path: )/)) {
    const path = /^Entity Path: (\S+)/m.exec(block)?.[1];
    const id = /ResourceId: (\d+)/.exec(block)?.[1];
    const tag = /ResourceTag:[\s\S]*?Data: (.*)/.exec(block)?.[1];
    if (path && id) out.push({ id: Number(id), path, tag: (tag ?? '').trim() });
  }
  return out;
}
