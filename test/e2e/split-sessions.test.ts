/**
 * The split shelf's IPMI sessions end with the ShMC process that held the shelf address
 * (docs/split.md "IPMI sessions"): one `ipmitool … shell` and one FreeIPMI `ipmi-raw --file`
 * session stay open across a `kill -9` of the active ShMC; the request each sends in its old
 * session afterwards fails (ipmitool "Get Device ID command failed", FreeIPMI "session timeout"),
 * the shelf logs the ended sessions, and a new session to the same address (ipmitool and FreeIPMI)
 * answers within the failover bound. Nothing acknowledged is lost: the SEL records written before
 * the kill are all there afterwards and the stats lines count no lost traffic session.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintRequest } from '../../chassis/io/shmc-maint.ts';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';
import { runClient } from '../support/ipmi-golden.ts';

const NODES = ['shmc-a', 'shmc-b'] as const;
type Node = (typeof NODES)[number];
/** A new session must answer within this after the kill: 3 heartbeats + activation + the clients' own retry (ipmitool -N 1 -R 2). */
const FAILOVER_BOUND_MS = 6000;

let emu: HeadlessEmulator | undefined;
const maint: Record<Node, number> = { 'shmc-a': 0, 'shmc-b': 0 };
const spawned: ChildProcess[] = [];
const seenPids = new Set<number>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function status(node: Node): Promise<{ role: string; pid: number } | undefined> {
  try {
    const s = (await maintRequest('127.0.0.1', maint[node], { op: 'status' }, 1000)) as { role: string; pid: number };
    seenPids.add(s.pid);
    return s;
  } catch {
    return undefined;
  }
}

async function waitRole(node: Node, role: string, ms: number): Promise<{ role: string; pid: number }> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const s = await status(node);
    if (s?.role === role) return s;
    await sleep(50);
  }
  throw new Error(`${node} not ${role} within ${ms} ms`);
}

/**
 * A long-lived client reading commands from its stdin, or with `fifo` from a named pipe it is
 * given in place of `FIFO` in argv (FreeIPMI's --file cannot open a socket stdin); `out()` is what
 * it printed so far.
 */
function interactive(argv: string[], fifo?: string): { write(line: string): void; out(): string; until(re: RegExp, ms: number): Promise<void> } {
  if (fifo) execFileSync('mkfifo', [fifo]);
  const p = spawn(argv[0]!, argv.slice(1).map((a) => (fifo ? a.replace('FIFO', fifo) : a)), { env: { ...process.env, LC_ALL: 'C', HOME: emu!.dir } });
  spawned.push(p);
  const input = fifo ? createWriteStream(fifo) : p.stdin!;
  let text = '';
  p.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  p.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  return {
    write: (line) => input.write(`${line}\n`),
    out: () => text,
    until: async (re, ms) => {
      const t0 = performance.now();
      while (!re.test(text)) {
        if (performance.now() - t0 > ms) throw new Error(`${argv[0]}: ${re} not seen within ${ms} ms; output:\n${text}`);
        await sleep(50);
      }
    },
  };
}

const lanplus = () => ['-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu!.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '-C', '17'];
const freeipmi = () => ['-h', `127.0.0.1:${emu!.ipmi.port}`, '-u', TEST_ADMIN.user, '-p', TEST_ADMIN.password, '-D', 'LAN_2_0', '-l', 'ADMIN'];

beforeAll(async () => {
  emu = await startHeadless({ args: ['--split'], readyTimeoutMs: 90_000 });
  const r = emu.ready as unknown as { maint: Record<Node, number> };
  maint['shmc-a'] = r.maint['shmc-a'];
  maint['shmc-b'] = r.maint['shmc-b'];
  const t0 = performance.now();
  for (;;) {
    const roles = await Promise.all(NODES.map(status));
    if (roles.some((s) => s?.role === 'active') && roles.some((s) => s?.role === 'standby.hot')) break;
    if (performance.now() - t0 > 30_000) throw new Error('no active and hot standby ShMC');
    await sleep(100);
  }
}, 120_000);

afterAll(async () => {
  for (const p of spawned) p.kill('SIGKILL');
  await emu?.kill();
  for (const p of seenPids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  emu?.cleanup();
});

describe('split shelf: IPMI sessions end with the active ShMC', () => {
  it('kill -9 of the active ends the ipmitool and FreeIPMI sessions; new sessions to the same address answer within the failover bound; nothing acknowledged lost', async () => {
    for (let i = 0; i < 3; i++) expect((await runClient(['ipmitool', ...lanplus(), 'event', '1'])).exitCode).toBe(0);
    const selBefore = (await runClient(['ipmitool', ...lanplus(), 'sel', 'list'])).stdout.trim().split('\n');
    const tool = interactive(['ipmitool', ...lanplus(), 'shell']);
    tool.write('mc info');
    await tool.until(/Device Revision\s+: 1/, 20_000);
    const raw = interactive(['ipmi-raw', ...freeipmi(), '--file=FIFO'], join(emu!.dir, 'ipmi-raw.fifo'));
    raw.write('0 0x06 0x01');
    await raw.until(/rcvd: 01 00/, 20_000);

    const roles = await Promise.all(NODES.map(status));
    const act = NODES[roles.findIndex((s) => s?.role === 'active')]!;
    const peer: Node = act === 'shmc-a' ? 'shmc-b' : 'shmc-a';
    const endedBefore = emu!.lines.filter((l) => l.category === 'ipmi-sessions').length;
    const t0 = performance.now();
    process.kill(roles[NODES.indexOf(act)]!.pid, 'SIGKILL');
    await waitRole(peer, 'active', 5000);

    // a new session to the same address answers (ipmitool, then FreeIPMI)
    let fresh;
    do fresh = await runClient(['ipmitool', ...lanplus(), '-N', '1', '-R', '2', 'mc', 'info'], { timeoutMs: 20_000 });
    while (fresh.exitCode !== 0 && performance.now() - t0 < FAILOVER_BOUND_MS);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(performance.now() - t0).toBeLessThan(FAILOVER_BOUND_MS);
    const fi = await runClient(['bmc-info', ...freeipmi()], { timeoutMs: 20_000 });
    expect(fi.exitCode, fi.stderr).toBe(0);
    expect(fi.stdout).toMatch(/IPMI Version\s+: 2\.0/);

    // the sessions opened before the kill are gone: their next request fails
    tool.write('mc info');
    await tool.until(/Get Device ID command failed/, 30_000);
    raw.write('0 0x06 0x01');
    await raw.until(/session timeout/, 40_000);
    const ended = emu!.lines.filter((l) => l.category === 'ipmi-sessions').slice(endedBefore);
    expect(ended.reduce((n, l) => n + (l.ended as number), 0)).toBeGreaterThanOrEqual(2);
    expect(String(ended[0]!.msg)).toContain(`${act} (pid`);

    // nothing acknowledged lost: every SEL record is still there; no traffic session lost
    const selAfter = (await runClient(['ipmitool', ...lanplus(), 'sel', 'list'])).stdout.trim().split('\n');
    for (const line of selBefore) expect(selAfter).toContain(line);
    const stats = emu!.lines.filter((l) => l.event === 'stats');
    expect(stats.length).toBeGreaterThan(2);
    for (const s of stats) expect((s.sessions as { lost: number }).lost).toBe(0);
  }, 180_000);
});
