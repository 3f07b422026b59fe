/**
 * Live attachment bench (root needed; prints a skip line otherwise): frames/s and Mbit/s from the
 * kernel through the live-port adapter (chassis/io/live-port.ts) and back, beside the same
 * traffic over a plain veth pair, in the same run.
 *
 * Set-up per path, two fresh namespaces A (10.99.0.1) and B (10.99.0.2), IPv6 off:
 *   veth    A —veth— B                                   (the kernel alone: the reference)
 *   tap     A —TAP— [this process: adapter, bridge] —TAP— B
 *   packet  A —veth— [AF_PACKET: adapter, bridge] —veth— B   (offloads off so frames are ≤ MTU)
 * The bridge copies each received batch into the other port's transmit buffer (as the appliance
 * will build its output frames) and sends it as one batch. Traffic: iperf3 UDP with 64-byte
 * payloads at full speed (frames/s; what reaches the receiver and what the bridge moved) and an
 * iperf3 TCP stream (Mbit/s). Rounds alternate the paths; medians are printed with the load
 * average, as others share this machine. The adapter's CPU time per frame (user + system of this
 * process, which includes the kernel's delivery of each written frame) is the figure least
 * disturbed by that sharing.
 *
 * Usage: `node bin/run-ts.mjs bench/live.ts [--rounds N] [--seconds S]`, or `npm run bench -- --only live`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { openLivePort, type LivePort } from '../chassis/io/live-port.ts';

const run = promisify(execFile);
type Path = 'veth' | 'tap' | 'packet';

function sh(args: string[], input?: string): void {
  const r = spawnSync('ip', args, { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim()}`);
}

function load(): string {
  return loadavg().map((x) => x.toFixed(2)).join(', ');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
}

interface Sample {
  path: Path;
  udpRxPps: number;
  udpTxPps: number;
  bridgeFps: number;
  usPerFrame: number;
  tcpMbps: number;
}

function bridge(a: LivePort, b: LivePort): { frames: () => number } {
  let frames = 0;
  const wire = (to: LivePort) => (f: Uint8Array) => {
    frames++;
    to.send(f);
  };
  a.onFrame(wire(b));
  b.onFrame(wire(a));
  return { frames: () => frames };
}

async function iperf(ns: string, args: string[]): Promise<Record<string, any>> {
  const r = await run('ip', ['netns', 'exec', ns, 'iperf3', '-c', '10.99.0.2', '--json', ...args], { maxBuffer: 16 << 20 });
  return JSON.parse(r.stdout) as Record<string, any>;
}

async function onePath(path: Path, tag: string, seconds: number): Promise<Sample> {
  const A = `${tag}a`;
  const B = `${tag}b`;
  sh(['-batch', '-'], `netns add ${A}\nnetns add ${B}\n`);
  const ports: LivePort[] = [];
  let server: ReturnType<typeof execFile> | undefined;
  try {
    for (const n of [A, B]) spawnSync('ip', ['netns', 'exec', n, 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']);
    let ia = 'eth0';
    let ib = 'eth0';
    if (path === 'veth') {
      sh(['link', 'add', 'eth0', 'netns', A, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', B]);
    } else if (path === 'tap') {
      sh(['-n', A, 'tuntap', 'add', 'mode', 'tap', 'name', 'tap0']);
      sh(['-n', B, 'tuntap', 'add', 'mode', 'tap', 'name', 'tap0']);
      ia = ib = 'tap0';
      ports.push(openLivePort({ ifname: 'tap0', netns: A }), openLivePort({ ifname: 'tap0', netns: B }));
    } else {
      sh(['link', 'add', 'eth0', 'netns', A, 'type', 'veth', 'peer', 'name', `${tag}x`, 'netns', B]);
      // the appliance's ends: a third namespace keeps them out of the caller's
      sh(['netns', 'add', `${tag}c`]);
      sh(['-n', B, 'link', 'set', `${tag}x`, 'netns', `${tag}c`]);
      sh(['link', 'add', 'eth0', 'netns', B, 'type', 'veth', 'peer', 'name', `${tag}y`, 'netns', `${tag}c`]);
      for (const [n, d] of [[A, 'eth0'], [B, 'eth0'], [`${tag}c`, `${tag}x`], [`${tag}c`, `${tag}y`]] as const) {
        spawnSync('ip', ['netns', 'exec', n, 'ethtool', '-K', d, 'tx', 'off', 'tso', 'off', 'gso', 'off', 'gro', 'off'], { stdio: 'ignore' });
      }
      sh(['-n', `${tag}c`, '-batch', '-'], `link set ${tag}x up\nlink set ${tag}y up\n`);
      ports.push(openLivePort({ ifname: `${tag}x`, netns: `${tag}c`, kind: 'packet' }), openLivePort({ ifname: `${tag}y`, netns: `${tag}c`, kind: 'packet' }));
    }
    const br = ports.length === 2 ? bridge(ports[0]!, ports[1]!) : null;
    sh(['-n', A, '-batch', '-'], `link set lo up\naddr add 10.99.0.1/24 dev ${ia}\nlink set ${ia} up\n`);
    sh(['-n', B, '-batch', '-'], `link set lo up\naddr add 10.99.0.2/24 dev ${ib}\nlink set ${ib} up\n`);
    server = execFile('ip', ['netns', 'exec', B, 'iperf3', '-s'], () => {});
    await run('ip', ['netns', 'exec', A, 'ping', '-c', '3', '-i', '0.2', '-W', '1', '10.99.0.2']).catch(() => undefined);
    const f0 = br?.frames() ?? 0;
    const c0 = process.cpuUsage();
    const udp = await iperf(A, ['-u', '-b', '0', '-l', '64', '-t', String(seconds)]);
    const c1 = process.cpuUsage(c0);
    const moved = (br?.frames() ?? 0) - f0;
    const tcp = await iperf(A, ['-t', String(seconds)]);
    const s = udp.end.sum as { packets: number; lost_packets: number; seconds: number };
    return {
      path,
      udpTxPps: s.packets / s.seconds,
      udpRxPps: (s.packets - s.lost_packets) / s.seconds,
      bridgeFps: br === null ? NaN : moved / seconds,
      usPerFrame: br === null || moved === 0 ? NaN : (c1.user + c1.system) / moved,
      tcpMbps: (tcp.end.sum_received.bits_per_second as number) / 1e6,
    };
  } finally {
    for (const p of ports) p.close();
    server?.kill('SIGTERM');
    for (const n of [A, B, `${tag}c`]) spawnSync('ip', ['netns', 'del', n], { stdio: 'ignore' });
  }
}

/** Runs the bench; returns its figures (empty when not root). */
export async function benchLive(rounds = 3, seconds = 4): Promise<Record<string, number>> {
  if (!(typeof process.getuid === 'function' && process.getuid() === 0)) {
    process.stdout.write('Live attachment: SKIP (needs root for network namespaces and TAP devices)\n\n');
    return {};
  }
  const samples: Sample[] = [];
  const tag = `bl${process.pid % 100000}`;
  const loads: string[] = [load()];
  for (let r = 0; r < rounds; r++) {
    for (const p of ['veth', 'tap', 'packet'] as Path[]) samples.push(await onePath(p, tag, seconds));
    loads.push(load());
  }
  const fig: Record<string, number> = {};
  const lines: string[] = [];
  for (const p of ['veth', 'tap', 'packet'] as Path[]) {
    const s = samples.filter((x) => x.path === p);
    const m = (k: keyof Sample) => median(s.map((x) => x[k] as number));
    fig[`${p}.udp64_rx_pps`] = Math.round(m('udpRxPps'));
    fig[`${p}.tcp_mbps`] = Math.round(m('tcpMbps'));
    if (p !== 'veth') {
      fig[`${p}.bridge_fps`] = Math.round(m('bridgeFps'));
      fig[`${p}.cpu_us_per_frame`] = Number(m('usPerFrame').toFixed(2));
    }
    lines.push(`  ${p.padEnd(7)} UDP 64 B: sent ${Math.round(m('udpTxPps')).toLocaleString('en').padStart(9)} pps, received ${Math.round(m('udpRxPps')).toLocaleString('en').padStart(9)} pps`
      + (p === 'veth' ? ''.padEnd(44) : `, adapter moved ${Math.round(m('bridgeFps')).toLocaleString('en').padStart(9)} frames/s at ${m('usPerFrame').toFixed(2)} µs CPU/frame`)
      + `; TCP ${Math.round(m('tcpMbps')).toLocaleString('en').padStart(6)} Mbit/s`);
  }
  fig['tap.tcp_ratio_to_veth'] = Number((fig['tap.tcp_mbps']! / fig['veth.tcp_mbps']!).toFixed(3));
  fig['tap.udp_ratio_to_veth'] = Number((fig['tap.udp64_rx_pps']! / fig['veth.udp64_rx_pps']!).toFixed(3));
  process.stdout.write(`Live attachment (bench/live.ts; medians of ${rounds} rounds × ${seconds} s, paths alternated; ${cpus().length} CPUs):\n${lines.join('\n')}\n`
    + `  tap/veth ratio: UDP ${fig['tap.udp_ratio_to_veth']}, TCP ${fig['tap.tcp_ratio_to_veth']}\n  (load average per round: ${loads.join(' | ')})\n\n`);
  return fig;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const arg = (n: string) => {
    const i = process.argv.indexOf(`--${n}`);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  await benchLive(arg('rounds') ?? 3, arg('seconds') ?? 4);
}
