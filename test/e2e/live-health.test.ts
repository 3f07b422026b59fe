/**
 * Real health checks in live mode (root needed; a visible SKIP line otherwise): every kind —
 * `http` (web-dr), `tcp` (web-nat), `icmp` (web-fullnat) and `udp` (the IPv6 web6-fullnat, with a
 * socat UDP listener on each of its real servers) — probed from the boards' back-side addresses
 * over the live links. A real server stopped (its HTTP server killed, echo ignored, its UDP
 * listener killed) is marked down by every board after fall × interval, and new connections avoid
 * it; started again it comes back after rise probes. The real servers' logs show the probes came
 * from the boards' own addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRsLog } from '../../chassis/io/netns-lab.ts';
import { ATCASIM_BIN, startHeadless, type HeadlessEmulator, type LogLine } from '../support/headless.ts';
import { repoRoot } from '../support/shared.ts';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
if (!root) process.stdout.write('SKIP live health e2e (test/e2e/live-health.test.ts): needs root for network namespaces and TAP devices\n');
const P = `lh${process.pid % 100_000}`;
const dir = mkdtempSync(join(tmpdir(), 'atcasim-live-health-'));
const STATE = `/run/atcasim/net/${P}`;
const INTERVAL = 1000;
const FALL = 3;
const KINDS = ['http', 'tcp', 'icmp', 'udp'];

function sh(cmd: string, args: string[], timeoutMs = 60_000): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** The live shelf with one health kind per service, probed every second. */
function shelfFile(): string {
  let i = 0;
  const text = readFileSync(join(repoRoot, 'chassis', 'config', 'live-shelf.yaml'), 'utf8')
    .replace(/health: \{ kind: http, path: \/, interval: 2s, timeout: 1s, rise: 2, fall: 3 \}/g, () => {
      const k = KINDS[i++]!;
      return `health: { kind: ${k}, ${k === 'http' ? 'path: /, ' : ''}interval: 1s, timeout: 500ms, rise: 2, fall: ${FALL} }`;
    });
  expect(i).toBe(4);
  const f = join(dir, 'live-health.yaml');
  writeFileSync(f, text);
  return f;
}

function pidsIn(ns: string): number[] {
  return sh('ip', ['netns', 'pids', ns]).stdout.split('\n').filter((x) => x !== '').map(Number);
}

function startHttp(name: string, port: number): void {
  const child = spawn('ip', ['netns', 'exec', `${P}-rs-${name}`, process.execPath, join(repoRoot, 'chassis', 'io', 'rs-http-server.mjs'),
    '--name', name, '--port', String(port), '--log', `${STATE}/${name}.log`, '--ready', `${dir}/${name}.ready`], { detached: true, stdio: 'ignore' });
  child.unref();
}

function startUdp(name: string): void {
  const child = spawn('ip', ['netns', 'exec', `${P}-rs-${name}`, 'socat', '-u', 'UDP6-RECV:8080,reuseaddr', 'OPEN:/dev/null'], { detached: true, stdio: 'ignore' });
  child.unref();
}

function curl(url: string, n: number): Record<string, number> {
  const r = sh('ip', ['netns', 'exec', `${P}-client`, 'curl', '-s', '-m', '3', '-H', 'Connection: close', '-w', '\n', `${url}?h=[1-${n}]`], 120_000);
  const c: Record<string, number> = {};
  for (const l of r.stdout.split('\n').filter((x) => x !== '')) c[l] = (c[l] ?? 0) + 1;
  return c;
}

afterAll(() => {
  if (root) sh(process.execPath, [ATCASIM_BIN, 'net', 'down', '--prefix', P]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!root)('live health checks of every kind over the back links (root)', () => {
  let emu: HeadlessEmulator;
  let cfg: string;
  const since = (t: number) => (l: LogLine) => Date.parse(String(l.time)) >= t;
  const change = (kind: 'rs-down' | 'rs-up', service: string, rs: string, t: number) => (l: LogLine) =>
    l.category === kind && l.service === service && l.rs === rs && since(t)(l);
  /** Waits until all four boards reported `kind` for the RS; @returns ms from `t` to the last. */
  async function allBoards(kind: 'rs-down' | 'rs-up', service: string, rs: string, t: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hits = emu.lines.filter(change(kind, service, rs, t));
      const slots = new Set(hits.map((l) => l.slot));
      if (slots.size === 4) return Math.max(...hits.map((l) => Date.parse(String(l.time)))) - t;
      if (Date.now() > deadline) throw new Error(`${kind} ${service}/${rs}: only slots ${[...slots].join(',')} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    cfg = shelfFile();
    const up = sh(process.execPath, [ATCASIM_BIN, 'net', 'up', '--prefix', P, '--config', cfg]);
    expect(up.stderr).toBe('');
    for (const n of ['fnat1', 'fnat2']) startUdp(n);
    emu = await startHeadless({ dir, rate: 'capture', args: ['--live', '--prefix', P, '--config', cfg] });
    await new Promise((r) => setTimeout(r, (FALL + 2) * INTERVAL));
  }, 120_000);

  afterAll(async () => {
    await emu?.stop();
  });

  it('every real server is up by its real probes, sent from the boards\' back-side addresses', () => {
    expect(emu.lines.filter((l) => l.category === 'rs-down')).toEqual([]);
    // (a probe reset at its timeout before the server read its request is logged with peer null)
    const peers = new Set(readRsLog(`${STATE}/dr1.log`).map((l) => String(l.peer)).filter((p) => p !== 'null'));
    expect(peers).toEqual(new Set(['198.18.10.3', '198.18.10.4', '198.18.10.5', '198.18.10.6']));
  });

  it('http: dr2 stopped is down after fall × interval, new connections avoid it; restarted it comes back', async () => {
    const t = Date.now();
    for (const p of pidsIn(`${P}-rs-dr2`)) process.kill(p);
    const took = await allBoards('rs-down', 'web-dr', 'dr2', t, 10_000);
    expect(took).toBeGreaterThanOrEqual((FALL - 1) * INTERVAL);
    expect(took).toBeLessThanOrEqual(FALL * INTERVAL + 2000);
    expect(curl('http://198.18.100.10/', 200)).toEqual({ dr1: 200 });
    const t2 = Date.now();
    startHttp('dr2', 80);
    await allBoards('rs-up', 'web-dr', 'dr2', t2, 10_000);
    const c = curl('http://198.18.100.10/', 200);
    expect(c.dr2 ?? 0).toBeGreaterThan(20);
  }, 60_000);

  it('tcp: nat2 stopped is down (connection refused), new connections avoid it; restarted it comes back', async () => {
    const t = Date.now();
    for (const p of pidsIn(`${P}-rs-nat2`)) process.kill(p);
    await allBoards('rs-down', 'web-nat', 'nat2', t, 10_000);
    expect(String(emu.lines.find(change('rs-down', 'web-nat', 'nat2', t))!.detail)).toMatch(/connection refused/);
    expect(curl('http://198.18.100.11/', 100)).toEqual({ nat1: 100 });
    const t2 = Date.now();
    startHttp('nat2', 8080);
    await allBoards('rs-up', 'web-nat', 'nat2', t2, 10_000);
    expect(curl('http://198.18.100.11/', 150).nat2 ?? 0).toBeGreaterThan(20);
  }, 60_000);

  it('icmp: fnat1 ignoring echo is down (timeout), new connections avoid it; answering again it comes back', async () => {
    const t = Date.now();
    sh('ip', ['netns', 'exec', `${P}-rs-fnat1`, 'sysctl', '-qw', 'net.ipv4.icmp_echo_ignore_all=1']);
    await allBoards('rs-down', 'web-fullnat', 'fnat1', t, 10_000);
    expect(String(emu.lines.find(change('rs-down', 'web-fullnat', 'fnat1', t))!.detail)).toMatch(/timeout/);
    expect(Object.keys(curl('http://198.18.100.12/', 100)).sort()).toEqual(['fnat2', 'fnat3']);
    const t2 = Date.now();
    sh('ip', ['netns', 'exec', `${P}-rs-fnat1`, 'sysctl', '-qw', 'net.ipv4.icmp_echo_ignore_all=0']);
    await allBoards('rs-up', 'web-fullnat', 'fnat1', t2, 10_000);
    expect(curl('http://198.18.100.12/', 100).fnat1 ?? 0).toBeGreaterThan(5);
  }, 60_000);

  it('udp (IPv6): fnat2\'s listener stopped is down (ICMPv6 port unreachable), traffic avoids it; restarted it comes back', async () => {
    const t = Date.now();
    const socat = pidsIn(`${P}-rs-fnat2`).filter((p) => /socat/.test(sh('ps', ['-o', 'comm=', '-p', String(p)]).stdout));
    expect(socat.length).toBe(1);
    process.kill(socat[0]!);
    await allBoards('rs-down', 'web6-fullnat', 'fnat2', t, 10_000);
    expect(String(emu.lines.find(change('rs-down', 'web6-fullnat', 'fnat2', t))!.detail)).toMatch(/unreachable/);
    expect(curl('http://[fd00:a7ca:100::12]/', 50)).toEqual({ fnat1: 50 });
    const t2 = Date.now();
    startUdp('fnat2');
    await allBoards('rs-up', 'web6-fullnat', 'fnat2', t2, 10_000);
    expect(curl('http://[fd00:a7ca:100::12]/', 100).fnat2 ?? 0).toBeGreaterThan(40);
  }, 60_000);
});
