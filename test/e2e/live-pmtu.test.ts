/**
 * Path MTU discovery through the appliance (root needed; a visible SKIP line otherwise). The
 * boards' back ports have an MTU of 1,400 (`back_port.mtu`); the real servers keep 1,500 on their
 * own links and advertise a 1,460-byte MSS (a route with `mtu 1400 advmss 1460` on their side, so
 * their own segments fit the back side), so the client really sends 1,500-byte IP packets to the
 * VIP. The appliance must answer those with ICMP "fragmentation needed" (IPv4, RFC 1191) or
 * ICMPv6 "packet too big" (RFC 8201) carrying 1,400, the client's kernel must lower its path MTU
 * to the VIP, and a 300 KB upload must then complete — for `nat` over IPv4 and `fullnat` over
 * IPv6.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATCASIM_BIN, startHeadless, type HeadlessEmulator } from '../support/headless.ts';
import { repoRoot } from '../support/shared.ts';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
if (!root) process.stdout.write('SKIP live PMTU e2e (test/e2e/live-pmtu.test.ts): needs root for network namespaces and TAP devices\n');
const P = `lm${process.pid % 100_000}`;
const dir = mkdtempSync(join(tmpdir(), 'atcasim-live-pmtu-'));

function sh(cmd: string, args: string[], timeoutMs = 60_000): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function ns(name: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  return sh('ip', ['netns', 'exec', name, ...args]);
}

afterAll(() => {
  if (root) sh(process.execPath, [ATCASIM_BIN, 'net', 'down', '--prefix', P]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!root)('path MTU discovery through the appliance, back-side MTU 1,400 (root)', () => {
  let emu: HeadlessEmulator;
  const body = join(dir, 'body.bin');

  beforeAll(async () => {
    const cfg = join(dir, 'live-1400.yaml');
    writeFileSync(cfg, readFileSync(join(repoRoot, 'chassis', 'config', 'live-shelf.yaml'), 'utf8').replaceAll('      mtu: 1500\n      local_addresses', '      mtu: 1400\n      local_addresses'));
    const up = sh(process.execPath, [ATCASIM_BIN, 'net', 'up', '--prefix', P, '--config', cfg]);
    expect(up.stderr).toBe('');
    // the real servers' own links at 1,500 (bridge and veths), their routes at 1,400 with MSS 1,460
    const router = `${P}-router`;
    expect(ns(router, 'ip', 'link', 'set', `${P}-back`, 'mtu', '1500').code).toBe(0);
    const links = ns(router, 'ip', '-br', 'link').stdout.split('\n').map((l) => l.split(/[\s@]/)[0]!).filter((n) => /-r\d+$/.test(n));
    for (const l of links) expect(ns(router, 'ip', 'link', 'set', l, 'mtu', '1500').code).toBe(0);
    for (const rs of ['nat1', 'nat2', 'fnat1', 'fnat2']) {
      const n = `${P}-rs-${rs}`;
      expect(ns(n, 'ip', 'link', 'set', 'eth0', 'mtu', '1500').code).toBe(0);
      const r4 = ns(n, 'ip', 'route', 'show', 'default').stdout.trim();
      if (r4 !== '') expect(ns(n, 'sh', '-c', `ip route replace ${r4.replace(/ (mtu|advmss) \d+/g, '')} mtu 1400 advmss 1460 && ip route replace 198.18.10.0/24 dev eth0 mtu 1400 advmss 1460`).code).toBe(0);
      expect(ns(n, 'ip', '-6', 'route', 'replace', 'fd00:a7ca:10::/64', 'dev', 'eth0', 'mtu', '1400', 'advmss', '1440').code).toBe(0);
    }
    writeFileSync(body, Buffer.alloc(300_000, 0x61));
    emu = await startHeadless({ dir, rate: 'capture', args: ['--live', '--prefix', P, '--config', cfg] });
  }, 120_000);

  afterAll(async () => {
    await emu?.stop();
  });

  const liveStats = () => (emu.lines.filter((l) => l.event === 'stats').at(-1)?.live ?? {}) as { tooBig?: number };

  for (const c of [{ label: 'nat, IPv4', vip: '198.18.100.11', url: 'http://198.18.100.11/up', v6: false }, { label: 'fullnat, IPv6', vip: 'fd00:a7ca:100::12', url: 'http://[fd00:a7ca:100::12]/up', v6: true }]) {
    it(`${c.label}: 1,500-byte packets get ${c.v6 ? 'packet too big' : 'fragmentation needed'} (1400), the client's path MTU drops, a 300 KB upload completes`, async () => {
      const before = liveStats().tooBig ?? 0;
      const fam = c.v6 ? ['-6'] : ['-4'];
      ns(`${P}-client`, 'ip', ...fam, 'route', 'flush', 'cache');
      const r = ns(`${P}-client`, 'curl', '-s', '-m', '20', '-o', '/dev/null', '-w', '%{http_code} %{size_upload}', '--data-binary', `@${body}`, c.url);
      expect(r.stdout).toBe('200 300000');
      const route = ns(`${P}-client`, 'ip', ...fam, 'route', 'get', c.vip).stdout;
      expect(route).toMatch(/mtu 1400/);
      await new Promise((res) => setTimeout(res, 1500));
      expect((liveStats().tooBig ?? 0) - before).toBeGreaterThan(0);
    }, 60_000);
  }
});
