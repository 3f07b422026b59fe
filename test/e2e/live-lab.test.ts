/**
 * The live lab and the live-port adapter against the real Linux network stack (root needed; a
 * visible SKIP line otherwise):
 * - `atcasim net up` makes the namespaces, links, routes and HTTP servers and prints net-ready;
 *   a real curl from the router namespace gets each real server's name, and its log names who
 *   connected;
 * - the adapter opens the hubs' TAPs and a responder made of the pure modules (ARP, ND, ICMP echo)
 *   answers: a real `ping` and `ping -6` from the client namespace to a VIP get replies, over the
 *   router's ECMP routes through both hubs;
 * - bad input: the same prefix again (existing namespace), a busy TAP, a missing interface, not
 *   root, an RS outside every back-side subnet, a local address that is a VIP, a bad prefix, and a
 *   command the kernel refuses half-way (rolled back) — each one line, exit 2, nothing left made;
 * - `atcasim net down` leaves no namespace and no interface of the prefix behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openLivePort, type LivePort } from '../../chassis/io/live-port.ts';
import { readRsLog } from '../../chassis/io/netns-lab.ts';
import { startResponder } from '../support/live-responder.ts';
import { addr } from '../support/frames.ts';
import { repoRoot } from '../support/shared.ts';

const run = promisify(execFile);
const root = typeof process.getuid === 'function' && process.getuid() === 0;
if (!root) process.stdout.write('SKIP live lab e2e (test/e2e/live-lab.test.ts): needs root for network namespaces and TAP devices\n');
const P = `t${process.pid % 1_000_000}`;
const BIN = join(repoRoot, 'bin', 'atcasim.mjs');
const LIVE = join(repoRoot, 'chassis', 'config', 'live-shelf.yaml');
const dir = mkdtempSync(join(tmpdir(), 'atcasim-live-lab-'));

function atcasim(args: string[], opts: { uid?: number } = {}): { code: number; stdout: string; stderr: string } {
  const cmd = opts.uid === undefined ? process.execPath : 'setpriv';
  const argv = opts.uid === undefined ? [BIN, ...args] : [`--reuid=${opts.uid}`, `--regid=${opts.uid}`, '--clear-groups', process.execPath, BIN, ...args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: '/' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function namespaces(prefix: string): string[] {
  return spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout.split('\n').map((l) => l.split(' ')[0]!).filter((n) => n.startsWith(`${prefix}-`));
}

function rootInterfaces(prefix: string): string[] {
  return spawnSync('ip', ['-br', 'link'], { encoding: 'utf8' }).stdout.split('\n').map((l) => l.split(/[\s@]/)[0]!).filter((n) => n.startsWith(`${prefix}-`));
}

function variant(name: string, edit: (s: string) => string): string {
  const f = join(dir, name);
  writeFileSync(f, edit(readFileSync(LIVE, 'utf8')));
  return f;
}

afterAll(() => {
  if (root) atcasim(['net', 'down', '--prefix', P]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!root)('atcasim net up / down and the live-port adapter (root)', () => {
  let ready: Record<string, any>;
  const ports: LivePort[] = [];

  beforeAll(() => {
    const r = atcasim(['net', 'up', '--prefix', P]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBe(1);
    ready = JSON.parse(lines[0]!);
  });

  afterAll(() => {
    for (const p of ports) p.close();
  });

  it('prints net-ready naming namespaces, interfaces, VIPs and RS addresses; all of it exists', () => {
    expect(ready.event).toBe('net-ready');
    expect(ready.namespaces.client).toBe(`${P}-client`);
    expect(ready.vips).toEqual(['198.18.100.10:80', '198.18.100.11:80', '198.18.100.12:80', '[fd00:a7ca:100::12]:80']);
    expect(Object.keys(ready.rs).sort()).toEqual(['dr1', 'dr2', 'fnat1', 'fnat2', 'fnat3', 'nat1', 'nat2']);
    expect(ready.rs.fnat1.addresses).toEqual(['198.18.10.121', 'fd00:a7ca:10::121']);
    expect(namespaces(P).sort()).toEqual([`${P}-client`, `${P}-router`, ...Object.keys(ready.rs).map((n) => `${P}-rs-${n}`)].sort());
    const links = spawnSync('ip', ['-n', `${P}-router`, '-br', 'link'], { encoding: 'utf8' }).stdout;
    for (const i of ready.interfaces as string[]) expect(links).toContain(i);
    expect(ready.ports.map((p: { ifname: string }) => p.ifname)).toEqual([1, 2, 3, 4, 5, 6].map((s) => `${P}-s${s}`));
    // nothing in the caller's namespace
    expect(rootInterfaces(P)).toEqual([]);
  });

  it('each mode got its RS set-up: dr VIP on lo + arp_ignore, nat default via the shelf', () => {
    const lo = spawnSync('ip', ['-n', `${P}-rs-dr1`, '-br', 'addr', 'show', 'dev', 'lo'], { encoding: 'utf8' }).stdout;
    expect(lo).toContain('198.18.100.10/32');
    const ign = spawnSync('ip', ['netns', 'exec', `${P}-rs-dr1`, 'sysctl', '-n', 'net.ipv4.conf.all.arp_ignore', 'net.ipv4.conf.all.arp_announce'], { encoding: 'utf8' }).stdout;
    expect(ign.split('\n').slice(0, 2)).toEqual(['1', '2']);
    expect(spawnSync('ip', ['-n', `${P}-rs-nat1`, 'route', 'show', 'default'], { encoding: 'utf8' }).stdout).toContain('via 198.18.10.2');
    expect(spawnSync('ip', ['-n', `${P}-rs-fnat1`, 'route', 'show', 'default'], { encoding: 'utf8' }).stdout).toContain('via 198.18.10.1');
    const ecmp = spawnSync('ip', ['-n', `${P}-router`, 'route', 'show', '198.18.100.11'], { encoding: 'utf8' }).stdout;
    expect(ecmp).toContain(`nexthop via 198.18.1.2 dev ${P}-s1`);
    expect(ecmp).toContain(`nexthop via 198.18.2.2 dev ${P}-s2`);
  });

  it('the real servers answer HTTP/1.1 with their names and log who connected', async () => {
    const r = await run('ip', ['netns', 'exec', `${P}-router`, 'curl', '-s', '--max-time', '5', 'http://198.18.10.101/', 'http://198.18.10.101/again']);
    expect(r.stdout).toBe('dr1\ndr1\n');
    const r6 = await run('ip', ['netns', 'exec', `${P}-router`, 'curl', '-g', '-s', '--max-time', '5', 'http://[fd00:a7ca:10::122]:8080/']);
    expect(r6.stdout).toBe('fnat2\n');
    const log = readRsLog(ready.rs.dr1.log);
    expect(log.length).toBe(2);
    expect(log[0]).toMatchObject({ rs: 'dr1', client: '198.18.10.1', localPort: 80, conn: 1, req: 1 });
    expect(log[1]).toMatchObject({ conn: 1, req: 2 }); // keep-alive: one connection, two requests
    expect(readRsLog(ready.rs.fnat2.log)[0]).toMatchObject({ client: 'fd00:a7ca:10::1', localPort: 8080 });
  });

  it('ping and ping -6 from the client to a VIP get replies from the adapter + pure modules (both hubs)', async () => {
    const mac1 = Uint8Array.from([0x02, 0xa7, 0xca, 0, 0, 1]);
    const mac2 = Uint8Array.from([0x02, 0xa7, 0xca, 0, 0, 2]);
    const vips = [{ family: 4 as const, bytes: addr('198.18.100.10') }, { family: 6 as const, bytes: addr('fd00:a7ca:100::12') }];
    const p1 = openLivePort({ ifname: `${P}-s1`, netns: `${P}-router` });
    const p2 = openLivePort({ ifname: `${P}-s2`, netns: `${P}-router` });
    ports.push(p1, p2);
    const c1 = startResponder(p1, mac1, [{ family: 4, bytes: addr('198.18.1.2') }, { family: 6, bytes: addr('fd00:a7ca:1::2') }, ...vips]);
    const c2 = startResponder(p2, mac2, [{ family: 4, bytes: addr('198.18.2.2') }, { family: 6, bytes: addr('fd00:a7ca:2::2') }, ...vips]);
    // the TAPs have carrier now: the router's next hops come alive
    const v4 = await run('ip', ['netns', 'exec', `${P}-client`, 'ping', '-c', '5', '-i', '0.2', '-W', '2', '198.18.100.10']);
    expect(v4.stdout).toMatch(/5 packets transmitted, 5 received, 0% packet loss/);
    const v6 = await run('ip', ['netns', 'exec', `${P}-client`, 'ping', '-6', '-c', '5', '-i', '0.2', '-W', '2', 'fd00:a7ca:100::12']);
    expect(v6.stdout).toMatch(/5 packets transmitted, 5 received, 0% packet loss/);
    expect(c1.echoReplies + c2.echoReplies).toBe(10);
    expect(c1.arpReplies + c2.arpReplies).toBeGreaterThanOrEqual(1);
    expect(c1.naSent + c2.naSent).toBeGreaterThanOrEqual(1);
    expect(p1.stats.rxFrames + p2.stats.rxFrames).toBeGreaterThanOrEqual(12);
    expect(p1.stats.txFrames + p2.stats.txFrames).toBeGreaterThanOrEqual(12);
    expect(p1.stats.txDropped + p2.stats.txDropped).toBe(0);
  });

  it('a busy TAP (held by another port) and a missing interface are refused, naming them', () => {
    expect(() => openLivePort({ ifname: `${P}-s1`, netns: `${P}-router` })).toThrow(`cannot open tap port ${P}-s1 in network namespace ${P}-router: the interface is busy`);
    expect(() => openLivePort({ ifname: `${P}-s9`, netns: `${P}-router` })).toThrow(`cannot open tap port ${P}-s9 in network namespace ${P}-router: no such interface`);
    expect(() => openLivePort({ ifname: 'x'.repeat(16) })).toThrow(/bad interface name/);
  });

  it('the same prefix again: one line naming the existing namespace, exit 2, the lab untouched', () => {
    const before = namespaces(P).sort();
    const r = atcasim(['net', 'up', '--prefix', P]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n').length).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`network namespace ${P}-\\S+ exists already`));
    expect(namespaces(P).sort()).toEqual(before);
  });

  it('net down removes every namespace and interface of the prefix', () => {
    for (const p of ports.splice(0)) p.close();
    const r = atcasim(['net', 'down', '--prefix', P]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).removed.length).toBe(9);
    expect(namespaces(P)).toEqual([]);
    expect(rootInterfaces(P)).toEqual([]);
    const again = atcasim(['net', 'down', '--prefix', P]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).removed).toEqual([]);
  });
});

describe.skipIf(!root)('atcasim net up: bad input, nothing made (root)', () => {
  const Q = `q${process.pid % 1_000_000}`;
  const refused = (args: string[], pattern: RegExp | string, uid?: number) => {
    const r = atcasim(['net', 'up', '--prefix', Q, ...args], uid === undefined ? {} : { uid });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n').length).toBe(1);
    expect(r.stderr).toMatch(pattern);
    expect(namespaces(Q)).toEqual([]);
  };
  afterAll(() => atcasim(['net', 'down', '--prefix', Q]));

  it('not root', () => refused([], 'atcasim net up: needs root (network namespaces and TAP devices): run it with sudo', 65534));
  it('an RS outside every back-side subnet', () => {
    const f = variant('outside.yaml', (s) => s.replace('198.18.10.122:8080', '198.18.20.122:8080'));
    refused(['--config', f], /real server fnat2 \(198\.18\.20\.122\) is outside every back-side subnet \(198\.18\.10\.0\/24, fd00:a7ca:10::\/64/);
  });
  it('a local address that is a VIP', () => {
    const f = variant('overlap.yaml', (s) => s.replace('local_addresses: [198.18.10.40,', 'local_addresses: [198.18.100.12,'));
    refused(['--config', f], /boards\.slot4\.back_port\.local_addresses: local address 198\.18\.100\.12 is the VIP of service 'web-fullnat'/);
  });
  it('a bad prefix (interface names must fit 15 characters)', () => refused(['--prefix', 'muchtoolongprefix'], /bad --prefix 'muchtoolongprefix'/));
  it('a missing or broken config file', () => {
    refused(['--config', join(dir, 'nope.yaml')], /nope\.yaml:1:1: no such file/);
    const f = variant('broken.yaml', () => 'boards: [');
    refused(['--config', f], /not a valid YAML shelf/);
  });
  it('a command the kernel refuses half-way is rolled back', () => {
    const f = variant('badgw.yaml', (s) => s.replace('back_gateway: { address: 198.18.10.2, address6: "fd00:a7ca:10::2" }', 'back_gateway: { address: 198.18.99.2, address6: "fd00:a7ca:10::2" }'));
    refused(['--config', f], /ip -n q\d+-rs-\S+ -batch -: .*\(nothing was left made\)$/m);
    expect(rootInterfaces(Q)).toEqual([]);
  });
});
