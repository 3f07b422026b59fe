/**
 * Net-SNMP's command-line tools (Debian packages `snmp`, `snmptrapd`) for the SNMP tests: run
 * snmpwalk/snmpget with numeric OIDs and no MIB files, parse their output, run snmptrapd on a
 * port and collect what it prints, and capture the datagrams the real tools send (fuzz seeds).
 * SNMP_PERSISTENT_DIR points at a temp dir so the tools leave nothing in /var/lib/snmp.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseShelfConfig } from '../../chassis/config/shelf-config.ts';
import { readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { engineIdOf } from '../../chassis/snmp/engine-id.ts';

/** The v2c community of the SNMP tests' shelf (snmpShelfYaml). */
export const SNMP_TEST_COMMUNITY = 'atcasim-ro-community';
const COMMUNITY = SNMP_TEST_COMMUNITY;

const persist = mkdtempSync(join(tmpdir(), 'atcasim-snmp-persist-'));
const env = { ...process.env, SNMP_PERSISTENT_DIR: persist, LC_ALL: 'C', MIBS: '', MIBDIRS: '' };

/** Result of one tool run. */
export interface SnmpRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** True when the Net-SNMP tools are installed. */
export function haveSnmpTools(): Promise<boolean> {
  return new Promise((r) => execFile('snmpwalk', ['--version'], { env }, (e) => r(!e)));
}

/** Runs `tool` (snmpwalk, snmpget, snmpbulkwalk, …) with `-On -m ''` (numeric, no MIBs) before `args`. */
export function snmp(tool: string, args: string[], timeoutMs = 60_000): Promise<SnmpRun> {
  return new Promise((resolve) => {
    execFile(tool, ['-On', '-m', '', ...args], { env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** One variable as the tools print it (`.OID = TYPE: value`); strings without their quotes. */
export interface SnmpValue {
  type: string;
  value: string;
}

/** Parses snmpwalk/snmpget output into OID (without the leading dot) → value. */
export function parseVars(stdout: string): Map<string, SnmpValue> {
  const out = new Map<string, SnmpValue>();
  for (const line of stdout.split('\n')) {
    const m = /^\.?([\d.]+) = (?:([A-Za-z0-9-]+): )?(.*)$/.exec(line);
    if (!m) continue;
    let v = m[3]!;
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    out.set(m[1]!, { type: m[2] ?? (v === '' ? 'STRING' : ''), value: v.trim() });
  }
  return out;
}

/** The rows of a table walk: index → column number → value, for OIDs `entry.column.index`. */
export function tableRows(vars: Map<string, SnmpValue>, entry: string): Map<number, Map<number, SnmpValue>> {
  const rows = new Map<number, Map<number, SnmpValue>>();
  for (const [oid, v] of vars) {
    if (!oid.startsWith(`${entry}.`)) continue;
    const [col, index] = oid.slice(entry.length + 1).split('.').map(Number) as [number, number];
    let r = rows.get(index);
    if (!r) rows.set(index, (r = new Map()));
    r.set(col, v);
  }
  return rows;
}

/** A running snmptrapd. */
export interface TrapReceiver {
  /** Lines printed so far. */
  output(): string;
  /** Resolves when the output matches `re` (rejects after `ms`). */
  waitFor(re: RegExp, ms?: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `snmptrapd -f -Lo -On` on 127.0.0.1:`port` with `conf` (snmptrapd.conf lines), printing
 * each notification as `TRAP <security info>` then its variables on one line.
 */
export async function startTrapd(port: number, conf: string): Promise<TrapReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'atcasim-snmptrapd-'));
  writeFileSync(join(dir, 'snmptrapd.conf'), conf);
  const proc: ChildProcess = spawn('snmptrapd', ['-f', '-Lo', '-C', '-c', join(dir, 'snmptrapd.conf'), '-On', '-m', '', '-p', join(dir, 'pid'), '-F', 'TRAP %P\\n%V|%v\\n', `udp:127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => (text += c));
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (text += c));
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  const waitFor = (re: RegExp, ms = 15_000) =>
    new Promise<string>((resolve, reject) => {
      const t0 = Date.now();
      const poll = () => {
        const m = re.exec(text);
        if (m) return resolve(m[0]);
        if (Date.now() - t0 > ms) return reject(new Error(`snmptrapd printed no ${re} within ${ms} ms; output:\n${text.slice(-3000)}`));
        setTimeout(poll, 50);
      };
      poll();
    });
  await waitFor(/NET-SNMP version/, 10_000);
  return {
    output: () => text,
    waitFor,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The datagrams a real tool sends: runs `tool args… 127.0.0.1:PORT OIDs` against a UDP socket that
 * never answers and returns what arrived (the tool times out).
 */
export async function captureRequests(tool: string, args: string[], oids: string[]): Promise<Buffer[]> {
  const s = createSocket('udp4');
  const got: Buffer[] = [];
  s.on('message', (m) => got.push(Buffer.from(m)));
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await snmp(tool, [...args, '-r', '0', '-t', '1', `127.0.0.1:${port}`, ...oids]);
  s.close();
  return got;
}

/** The default shelf with a non-round reading or two and an snmp section sending to `trapPort`. */
export function snmpShelfYaml(trapPort: number): string {
  return (
    readDefaultShelfYaml()
      .replace('{ name: Node3 12V, type: voltage, nominal: 12.0,', '{ name: Node3 12V, type: voltage, nominal: 11.7,')
      .replace('{ name: Hub2 3.3V, type: voltage, nominal: 3.3,', '{ name: Hub2 3.3V, type: voltage, nominal: 3.22,') +
    [
      'snmp:',
      `  communities: [${COMMUNITY}]`,
      '  users:',
      '    - { name: ops, auth: sha, auth_key: ops-auth-pass-1, priv: aes, priv_key: ops-priv-pass-1 }',
      '    - { name: viewer, auth: md5, auth_key: viewer-auth-1 }',
      '  notify:',
      `    - { host: 127.0.0.1, port: ${trapPort}, version: v2c, community: traps-community }`,
      `    - { host: 127.0.0.1, port: ${trapPort}, version: v3, user: ops }`,
      '  location: test bench',
      '',
    ].join('\n')
  );
}

/** snmptrapd.conf accepting the shelf's v2c community and its v3 user under the shelf's engine ID. */
export function trapdConf(yaml: string): string {
  const engineId = engineIdOf(parseShelfConfig(yaml, 'shelf.yaml'));
  return `authCommunity log traps-community\ncreateUser -e 0x${engineId} ops SHA ops-auth-pass-1 AES ops-priv-pass-1\nauthUser log ops priv\n`;
}

/** `ipmitool sdr elist` as name → reading (a number, or the M-state of a hot-swap sensor); ShMC sensors appear under 20h and each ShMC. */
export function elist(stdout: string): Array<{ name: string; reading: number }> {
  const out: Array<{ name: string; reading: number }> = [];
  for (const line of stdout.trim().split('\n')) {
    const f = line.split('|').map((x) => x.trim());
    if (f.length < 5) continue;
    const m = /Transition to M(\d)/.exec(f[4]!) ?? /^(-?\d+(?:\.\d+)?) /.exec(f[4]!);
    if (m) out.push({ name: f[0]!, reading: Number(m[1]) });
  }
  return out;
}

