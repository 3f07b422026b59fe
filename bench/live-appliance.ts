/**
 * The whole appliance on live links (root needed; prints a skip line otherwise): real traffic
 * from the lab's client through `atcasim start --live` (router → hub TAP → ECMP → processor
 * board → fullnat → back TAP → real server, and back), beside the same traffic over the plain
 * kernel path of the same lab (client → router → back bridge → the same real server), in the
 * same run:
 *   - an iperf3 TCP stream, Mbit/s, and the ratio appliance / plain;
 *   - iperf3 UDP with 64-byte payloads at full speed: packets/s the server received (the
 *     appliance's live forwarding rate), and the ratio;
 *   - ping latency p50/p99 to the VIP (answered by the appliance's hub) against ping to the real
 *     server's address (the kernel only): what the appliance adds to a round trip.
 * The bench shelf is the live shelf plus one `fullnat` service 198.18.100.20:5201 (SNAT + DNAT,
 * the most work per packet; its RS routes by the router, so the plain path needs no appliance;
 * protocol any, so iperf3's TCP control connection and its UDP test both pass) to an RS `perf1` whose namespace
 * runs iperf3 -s; its health check is icmp (the lab's HTTP server on that port is stopped).
 *
 * Usage: `node bin/run-ts.mjs bench/live-appliance.ts [--seconds S]`, or part of `npm run bench -- --only live`.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = resolve(new URL('.', import.meta.url).pathname);
const BIN = join(here, '..', 'bin', 'atcasim.mjs');
const VIP = '198.18.100.20';
const RS = '198.18.10.131';

const BENCH_SERVICE = `    - name: bench-nat
      vip: ${VIP}
      port: 5201
      protocol: any
      scheduler: wrr
      persistence: 0s
      forwarding: fullnat
      health: { kind: icmp, interval: 2s, timeout: 1s, rise: 2, fall: 3 }
      alarm_below: 0.5
      pool:
        - { name: perf1, address: ${RS}:5201, weight: 1 }
  acl: []`;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
}

async function iperf(ns: string, host: string, args: string[]): Promise<Record<string, any>> {
  const r = await run('ip', ['netns', 'exec', ns, 'iperf3', '-c', host, '-p', '5201', '--json', ...args], { maxBuffer: 16 << 20 }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '{}' }));
  const j = JSON.parse(r.stdout) as Record<string, any>;
  if (j.error !== undefined || j.end?.sum_received === undefined && j.end?.sum === undefined) throw new Error(`iperf3 to ${host}: ${String(j.error ?? 'no result')}`);
  return j;
}

async function ping(ns: string, host: string, n: number): Promise<number[]> {
  const r = await run('ip', ['netns', 'exec', ns, 'ping', '-n', '-c', String(n), '-i', '0.01', '-W', '1', host]);
  return [...r.stdout.matchAll(/time=([\d.]+) ms/g)].map((m) => Number(m[1]));
}

async function waitReady(p: ChildProcess): Promise<void> {
  let buf = '';
  await new Promise<void>((res, rej) => {
    const t = setTimeout(() => rej(new Error('the live emulator did not get ready in 60 s')), 60_000);
    p.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('"event":"ready"')) {
        clearTimeout(t);
        res();
      }
    });
    p.once('exit', (c) => rej(new Error(`the live emulator exited (${c})`)));
  });
}

/** Runs the bench; returns its figures (empty when not root). */
export async function benchAppliance(seconds = 5): Promise<Record<string, number>> {
  if (!(typeof process.getuid === 'function' && process.getuid() === 0)) {
    process.stdout.write('Live appliance: SKIP (needs root for network namespaces and TAP devices)\n\n');
    return {};
  }
  const P = `ba${process.pid % 100000}`;
  const dir = mkdtempSync(join(tmpdir(), 'atcasim-bench-live-'));
  const cfg = join(dir, 'bench-shelf.yaml');
  writeFileSync(cfg, readFileSync(join(here, '..', 'chassis', 'config', 'live-shelf.yaml'), 'utf8').replace('  acl: []', BENCH_SERVICE));
  let emu: ChildProcess | undefined;
  let server: ChildProcess | undefined;
  try {
    const up = spawnSync(process.execPath, [BIN, 'net', 'up', '--prefix', P, '--config', cfg], { encoding: 'utf8' });
    if (up.status !== 0) throw new Error(`net up: ${up.stderr.trim()}`);
    const ns = `${P}-rs-perf1`;
    for (const pid of spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout.split('\n').filter((x) => x !== '')) process.kill(Number(pid));
    server = spawn('ip', ['netns', 'exec', ns, 'iperf3', '-s', '-p', '5201'], { stdio: 'ignore' });
    emu = spawn(process.execPath, [BIN, 'start', '--live', '--prefix', P, '--config', cfg, '--headless', '--db', join(dir, 'b.db'), '--ipmi-port', '0', '--no-ha', '--admin-password', 'bench-pw-12345'], { stdio: ['ignore', 'pipe', 'ignore'] });
    await waitReady(emu);
    emu.stdout!.resume();
    await new Promise((r) => setTimeout(r, 6000)); // icmp health: rise 2 × 2 s
    const client = `${P}-client`;
    const fig: Record<string, number> = {};
    const rows: string[] = [];
    for (const [path, host] of [['plain', RS], ['appliance', VIP], ['plain', RS], ['appliance', VIP]] as const) {
      const tcp = await iperf(client, host, ['-t', String(seconds)]);
      const udp = await iperf(client, host, ['-u', '-b', '0', '-l', '64', '-t', String(seconds)]);
      const s = udp.end.sum as { packets: number; lost_packets: number; seconds: number };
      const mbps = (tcp.end.sum_received.bits_per_second as number) / 1e6;
      const pps = (s.packets - s.lost_packets) / s.seconds;
      // the later of the two rounds counts (the first warms up neighbour tables and sessions)
      fig[`${path}.tcp_mbps`] = Math.round(mbps);
      fig[`${path}.udp64_rx_pps`] = Math.round(pps);
      rows.push(`  ${path.padEnd(9)} TCP ${mbps.toFixed(0).padStart(6)} Mbit/s, UDP 64 B received ${Math.round(pps).toLocaleString('en').padStart(9)} pps (sent ${Math.round(s.packets / s.seconds).toLocaleString('en')})`);
    }
    const pPlain = await ping(client, RS, 300);
    const pApp = await ping(client, VIP, 300);
    fig['plain.ping_p50_ms'] = pct(pPlain, 50);
    fig['plain.ping_p99_ms'] = pct(pPlain, 99);
    fig['appliance.ping_p50_ms'] = pct(pApp, 50);
    fig['appliance.ping_p99_ms'] = pct(pApp, 99);
    fig['ratio.tcp'] = Number((fig['appliance.tcp_mbps']! / fig['plain.tcp_mbps']!).toFixed(3));
    fig['ratio.udp64_pps'] = Number((fig['appliance.udp64_rx_pps']! / fig['plain.udp64_rx_pps']!).toFixed(3));
    process.stdout.write(`Live appliance (fullnat, through atcasim start --live) vs the plain kernel path of the same lab, load ${loadavg().map((x) => x.toFixed(1)).join(', ')}\n${rows.join('\n')}\n`
      + `  ratio appliance/plain: TCP ${fig['ratio.tcp']}, UDP pps ${fig['ratio.udp64_pps']}\n`
      + `  ping p50/p99: plain ${fig['plain.ping_p50_ms']}/${fig['plain.ping_p99_ms']} ms, to the VIP ${fig['appliance.ping_p50_ms']}/${fig['appliance.ping_p99_ms']} ms\n\n`);
    return fig;
  } finally {
    emu?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    server?.kill('SIGTERM');
    spawnSync(process.execPath, [BIN, 'net', 'down', '--prefix', P], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--seconds');
  const fig = await benchAppliance(i >= 0 ? Number(process.argv[i + 1]) : 5);
  process.stdout.write(`${JSON.stringify(fig)}\n`);
}
