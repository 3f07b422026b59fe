/**
 * HPM.1 firmware upgrade with real `ipmitool hpm` (1.8.19) against `atcasim start --headless`
 * (the default shelf with its generated traffic), bridged to slot4's IPMC (`-t 0x88 -b 0`):
 *
 * - `hpm check` lists the board's components (IPMC, Payload, Boot) with their versions;
 * - `hpm upgrade FILE activate` of a compatible payload image (`atcasim hpm pack 1.1`) hands
 *   slot4's share to slot3 (planned: slot3 takes lb1/slot4 by a switchover, no failover), reboots
 *   slot4 on 1.1 (reset cause "upgrade to 1.1", no watchdog reset), slot4 takes its share back, and
 *   the shelf's own counter of lost sessions (the stats lines' sessions.lost) does not move — so
 *   no session of any age is lost, those older than the sync age included;
 * - an incompatible image (2.0: slot3 runs 1.x and would refuse it) is refused at Finish Firmware
 *   Upload with D5h before anything changes (no role change, no reset, nothing deferred);
 * - `hpm rollback` goes back to 1.0 the same cooperative way;
 * - corrupted images: a truncated file and a file with a flipped byte are refused by ipmitool
 *   itself (MD5 check) before it sends anything; a flipped byte or a cut inside the component image
 *   of an otherwise valid file reaches the IPMC and is refused with HPM.1 82h (checksum) and 81h
 *   (length); an upload cut short by a raw client (`ipmitool raw`, as ipmitool's own upload cannot
 *   be stopped halfway) is refused with 81h. The board keeps running on its version throughout.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseComponentImage } from '../../chassis/ipmi/hpm/component-image.ts';
import { encodeHpmImage, parseHpmImage, type HpmAction } from '../../chassis/ipmi/hpm/image.ts';
import { ATCASIM_BIN, startHeadless, TEST_ADMIN, type HeadlessEmulator, type LogLine } from '../support/headless.ts';
import { repoRoot } from '../support/shared.ts';

let emu: HeadlessEmulator;

beforeAll(async () => {
  emu = await startHeadless({ sessionCapacity: 8192 });
}, 90_000);
afterAll(async () => {
  if (emu) {
    expect(await emu.stop()).toBe(0);
    emu.cleanup();
  }
});

interface Run {
  code: number | null;
  out: string;
}

/** Runs a program with `input` on stdin (ipmitool hpm upgrade asks y/n). */
function run(argv: string[], input = '', timeoutMs = 180_000): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(argv[0]!, argv.slice(1), { cwd: repoRoot, env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
    p.stdin.end(input);
  });
}

const ipmitool = (args: string[], input = '') =>
  run(['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(emu.ipmi.port), '-U', TEST_ADMIN.user, '-P', TEST_ADMIN.password, '-C', '17', '-t', '0x88', '-b', '0', ...args], input);
const pack = (args: string[]) => run([process.execPath, ATCASIM_BIN, 'hpm', 'pack', ...args]);
const file = (name: string) => join(emu.dir, name);

/** Lines after index `from` that match. */
function since(from: number, pred: (l: LogLine) => boolean): LogLine[] {
  return emu.lines.slice(from).filter(pred);
}

const role = (node: string, share: string, to: string) => (l: LogLine) => l.category === 'role' && l.node === node && l.share === share && l.to === to;
const reset = (node: string) => (l: LogLine) => l.category === 'ha-hardware' && l.node === node && l.what === 'reset';

/** The last stats line's lost-session counter and slot4's entry. */
async function stats(): Promise<{ lost: number; slot4: { state: string; in_service: boolean; sessions: number; pps: number } }> {
  const n = emu.lines.length;
  const l = await emu.waitFor((x) => x.event === 'stats' && emu.lines.indexOf(x) >= n, 5000, 'a stats line');
  const boards = l.boards as Array<{ slot: number; state: string; in_service: boolean; sessions: number; pps: number }>;
  return { lost: (l.sessions as { lost: number }).lost, slot4: boards.find((b) => b.slot === 4)! };
}

/** `hpm check`'s row of a component: [active, backup, deferred] as printed. */
async function versions(name: string): Promise<string[]> {
  const r = await ipmitool(['hpm', 'check']);
  const row = r.out.split('\n').find((x) => x.includes(`|${name.padEnd(13)}|`));
  if (!row) throw new Error(`no ${name} row in:\n${r.out}`);
  return row.split('|').slice(3, 6).map((x) => x.trim());
}

/** Re-wraps `src` with the upload's component image changed by `edit` (checksums and MD5 made valid again). */
function rewrap(src: string, dst: string, edit: (componentImage: Uint8Array) => Uint8Array): void {
  const img = parseHpmImage(readFileSync(src));
  const actions: HpmAction[] = img.actions.map((a) => (a.type === 'upload' ? { ...a, data: edit(a.data) } : a));
  writeFileSync(dst, encodeHpmImage({ ...img, actions }));
}

describe('ipmitool hpm against slot4', () => {
  it('hpm check lists the IPMC, payload and boot components with their versions', async () => {
    const r = await ipmitool(['hpm', 'check']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/Product Id\s+: 0x0003/);
    expect(r.out).toMatch(/\|   0\|IPMC {9}\| {3}1\.05 00000000 \| ---\.-- -------- \|/);
    expect(r.out).toMatch(/\|\* {2}1\|Payload {6}\| {3}1\.00 00000000 \|/);
    expect(r.out).toMatch(/\| {3}2\|Boot {9}\| {3}1\.00 00000000 \|/);
  });

  it('upgrade of a compatible payload under traffic: share handed over, reboot on 1.1, share taken back, no session lost', async () => {
    expect((await pack(['1.1', '--out', file('p11.hpm'), '--fru', 'slot4'])).code).toBe(0);
    const before = await stats();
    expect(before.slot4.sessions).toBeGreaterThan(0);
    const from = emu.lines.length;
    const r = await ipmitool(['hpm', 'upgrade', file('p11.hpm'), 'activate'], 'y\n');
    expect(r.out).toMatch(/Services may be affected during upgrade\. Do you wish to continue\? \(y\/n\)/);
    expect(r.out, r.out).toMatch(/Firmware upgrade procedure successful/);
    expect(r.code).toBe(0);
    // cooperative: slot3 took lb1/slot4 by a switchover while slot4 was still up, then slot4 rebooted on 1.1
    const took = since(from, role('slot3', 'lb1/slot4', 'active'))[0];
    const handed = since(from, role('slot4', 'lb1/slot4', 'active.handover'))[0];
    const resets = since(from, reset('slot4'));
    expect(handed, 'slot4 handed its share over').toBeDefined();
    expect(took, 'slot3 took lb1/slot4').toBeDefined();
    expect(resets.map((l) => l.cause)).toEqual(['upgrade to 1.1']);
    expect(emu.lines.indexOf(took!)).toBeLessThan(emu.lines.indexOf(resets[0]!));
    const back = since(emu.lines.indexOf(resets[0]!), role('slot4', 'lb1/slot4', 'active'));
    expect(back.length, 'slot4 took its share back').toBeGreaterThan(0);
    await emu.waitFor((l) => emu.lines.indexOf(l) > emu.lines.indexOf(back[0]!) && role('slot3', 'lb1/slot4', 'standby.hot')(l), 30_000, 'slot3 a hot standby of lb1/slot4 again');
    expect(await versions('Payload')).toEqual(['1.01 00000000', '1.00 00000000', '---.-- --------']);
    const after = await stats();
    expect(after.lost).toBe(before.lost);
    expect(after.slot4).toMatchObject({ state: 'M4', in_service: true });
    expect(after.slot4.pps).toBeGreaterThan(0);
  }, 240_000);

  it('an incompatible payload (2.0 while the buddy runs 1.x) is refused with D5h before anything changes', async () => {
    expect((await pack(['2.0', '--out', file('p20.hpm'), '--fru', 'slot4'])).code).toBe(0);
    const before = await stats();
    const from = emu.lines.length;
    const r = await ipmitool(['hpm', 'upgrade', file('p20.hpm'), 'activate'], 'y\n');
    expect(r.out).toMatch(/compcode=0xd5/);
    expect(r.out).toMatch(/Firmware upgrade procedure failed/);
    expect(r.code).not.toBe(0);
    expect(since(from, (l) => l.category === 'hpm' && typeof l.msg === 'string' && /refuses 2\.0/.test(l.msg)).length).toBe(1);
    expect(since(from, (l) => l.category === 'role' && (l.node === 'slot4' || l.node === 'slot3'))).toEqual([]);
    expect(since(from, reset('slot4'))).toEqual([]);
    expect(await versions('Payload')).toEqual(['1.01 00000000', '1.00 00000000', '---.-- --------']);
    expect((await stats()).lost).toBe(before.lost);
  }, 120_000);

  it('corrupted images: ipmitool refuses a truncated or flipped file itself; the IPMC refuses a bad component image with 82h/81h', async () => {
    expect((await pack(['1.2', '--out', file('p12.hpm'), '--fru', 'slot4'])).code).toBe(0);
    const good = readFileSync(file('p12.hpm'));
    writeFileSync(file('cut.hpm'), good.subarray(0, good.length - 100));
    const flipped = Buffer.from(good);
    flipped[200]! ^= 0x10;
    writeFileSync(file('flip.hpm'), flipped);
    // valid HPM.1 wrapping, bad component image inside: ipmitool uploads it, the IPMC checks it
    rewrap(file('p12.hpm'), file('inner-flip.hpm'), (c) => {
      const x = Uint8Array.from(c);
      x[100]! ^= 0x10;
      return x;
    });
    rewrap(file('p12.hpm'), file('inner-cut.hpm'), (c) => c.subarray(0, c.length - 64));
    const before = await stats();
    const from = emu.lines.length;
    for (const f of ['cut.hpm', 'flip.hpm']) {
      const r = await ipmitool(['hpm', 'upgrade', file(f), 'activate'], 'y\n');
      expect(r.out, f).toMatch(/Invalid MD5 signature/);
    }
    expect(since(from, (l) => l.category === 'hpm')).toEqual([]); // nothing reached the IPMC
    const flip = await ipmitool(['hpm', 'upgrade', file('inner-flip.hpm'), 'activate'], 'y\n');
    expect(flip.out, flip.out).toMatch(/Error finishing firmware upload\s+compcode=0x82/);
    const cut = await ipmitool(['hpm', 'upgrade', file('inner-cut.hpm'), 'activate'], 'y\n');
    expect(cut.out, cut.out).toMatch(/Error finishing firmware upload\s+compcode=0x81/);
    expect(since(from, reset('slot4'))).toEqual([]);
    expect(await versions('Payload')).toEqual(['1.01 00000000', '1.00 00000000', '---.-- --------']);
    const after = await stats();
    expect(after.lost).toBe(before.lost);
    expect(after.slot4).toMatchObject({ state: 'M4', in_service: true });
  }, 240_000);

  it('a raw client that stops its upload halfway gets 81h at Finish; the board keeps running', async () => {
    const img = parseHpmImage(readFileSync(file('p11.hpm')));
    const up = img.actions.find((a) => a.type === 'upload');
    if (up?.type !== 'upload') throw new Error('no upload action');
    expect(parseComponentImage(up.data, 1).version.minor).toBe(1);
    const hex = (b: ArrayLike<number>) => Array.from(b, (x) => `0x${x.toString(16).padStart(2, '0')}`);
    const raw = (bytes: number[] | string[]) => ipmitool(['raw', '0x2c', ...bytes.map(String)]);
    expect((await raw(['0x31', '0x00', '0x02', '0x02'])).code).toBe(0); // Initiate Upgrade Action: upload, payload
    for (let n = 0; n < 2; n++) expect((await raw(['0x32', '0x00', hex([n])[0]!, ...hex(up.data.subarray(n * 20, n * 20 + 20))])).code).toBe(0);
    const len = up.data.length;
    const fin = await raw(['0x33', '0x00', '0x01', ...hex([len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff, len >>> 24])]);
    expect(fin.code).not.toBe(0);
    expect(fin.out).toMatch(/rsp=0x81/);
    const st = await raw(['0x34', '0x00']);
    expect(st.out.trim()).toBe('00 33 81');
    expect((await stats()).slot4).toMatchObject({ state: 'M4', in_service: true });
  }, 120_000);

  it('hpm rollback goes back to 1.0 cooperatively', async () => {
    const before = await stats();
    const from = emu.lines.length;
    const r = await ipmitool(['hpm', 'rollback']);
    expect(r.out, r.out).toMatch(/Rollback occurred on component mask: 0x02/);
    expect(since(from, role('slot3', 'lb1/slot4', 'active')).length).toBeGreaterThan(0);
    expect(since(from, reset('slot4')).map((l) => l.cause)).toEqual(['upgrade to 1.0']);
    await emu.waitFor((l) => emu.lines.indexOf(l) >= from && role('slot4', 'lb1/slot4', 'active')(l), 30_000, 'slot4 active again');
    expect(await versions('Payload')).toEqual(['1.00 00000000', '---.-- --------', '---.-- --------']);
    const st = await ipmitool(['hpm', 'rollbackstatus']);
    expect(st.out).toMatch(/Rollback occurred on component mask: 0x02/);
    expect((await stats()).lost).toBe(before.lost);
  }, 240_000);
});
