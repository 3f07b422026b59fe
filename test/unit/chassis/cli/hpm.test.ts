import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPackImage, describeImage, parseHpmVersion, readImageFile, register } from '../../../../chassis/cli/hpm.ts';
import { parseComponentImage } from '../../../../chassis/ipmi/hpm/component-image.ts';
import { parseHpmImage } from '../../../../chassis/ipmi/hpm/image.ts';
import { defaultConfig } from '../../../support/shelf-fixture.ts';

describe('atcasim hpm pack', () => {
  it('builds a valid image carrying the FRU identity, a backup and an upload of the component image', () => {
    const cfg = defaultConfig();
    const slot4 = cfg.frus.find((f) => f.name === 'slot4')!;
    const img = parseHpmImage(buildPackImage('1.1', { fru: 'slot4' }, cfg, 1_700_000_000));
    expect(img.header.deviceId).toBe(slot4.device.deviceId);
    expect(img.header.manufacturerId).toBe(slot4.device.manufacturerId);
    expect(img.header.productId).toBe(slot4.device.productId);
    expect(img.header.components).toBe(0x02);
    expect(img.header.earliestCompatible).toEqual({ major: 0, minor: 0 });
    expect(img.actions.map((a) => a.type)).toEqual(['backup', 'upload']);
    const up = img.actions[1]!;
    if (up.type !== 'upload') throw new Error('no upload');
    expect(parseComponentImage(up.data, 1).version).toEqual({ major: 1, minor: 1, aux: [0, 0, 0, 0] });
    expect(up.data.length).toBe(19 + 4096 + 16);
    expect(describeImage(img)[2]).toBe('action backup components 02h');
  });

  it('boot images have no backup action; --earliest and --size are honoured', () => {
    const img = parseHpmImage(buildPackImage('3.4', { component: 'boot', earliest: '1.05', size: '0' }, defaultConfig(), 0));
    expect(img.actions.map((a) => a.type)).toEqual(['upload']);
    expect(img.header.earliestCompatible).toEqual({ major: 1, minor: 5 });
    expect(img.header.components).toBe(0x04);
  });

  it('refuses bad input with one line', () => {
    const cfg = defaultConfig();
    expect(() => buildPackImage('1', {}, cfg, 0)).toThrow(/VERSION "1": expected MAJOR.MINOR/);
    expect(() => buildPackImage('1.100', {}, cfg, 0)).toThrow(/minor 0..99/);
    expect(() => buildPackImage('1.1', { component: 'fpga' }, cfg, 0)).toThrow(/--component "fpga"/);
    expect(() => buildPackImage('1.1', { fru: 'slot99' }, cfg, 0)).toThrow(/no such FRU/);
    expect(() => buildPackImage('1.1', { size: '-1' }, cfg, 0)).toThrow(/--size/);
    expect(parseHpmVersion('2.10')).toEqual({ major: 2, minor: 10 });
  });
});

/** Runs `atcasim hpm ARGS` in-process: what it wrote to stdout and stderr, and the exit status. */
async function hpm(...args: string[]): Promise<{ out: string; err: string; exit: number }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  let exit = 0;
  const program = new Command().exitOverride();
  register(program, { stdout, stderr, setExit: (c) => (exit = Math.max(exit, c)) });
  await program.parseAsync(['node', 'atcasim', 'hpm', ...args]);
  return { out, err, exit };
}

describe('atcasim hpm: messages for bad input and bad files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hpmfix-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pack shows the reason an argument is refused, not a file-system error', async () => {
    const out = join(dir, 'v.img');
    const cases: [string[], RegExp][] = [
      [['v'], /^atcasim hpm pack: VERSION "v": expected MAJOR\.MINOR/],
      [['1.1', '--size', '-1'], /^atcasim hpm pack: --size "-1": expected 0\.\.8388608 bytes$/],
      [['1.1', '--component', 'nope'], /^atcasim hpm pack: --component "nope": expected ipmc, payload, boot$/],
      [['1.1', '--fru', 'slot99'], /^atcasim hpm pack: --fru "slot99": no such FRU in shelf /],
      [['1.1', '--earliest', '9.9.9'], /^atcasim hpm pack: --earliest "9\.9\.9": expected MAJOR\.MINOR/],
      [['1.1', '--description', 'x'.repeat(30)], /^atcasim hpm pack: --description "x{30}": at most 20 characters$/],
    ];
    for (const [args, want] of cases) {
      const r = await hpm('pack', ...args, '--out', out);
      expect(r.err.trimEnd(), args.join(' ')).toMatch(want);
      expect(r.err).not.toMatch(/cannot write|cannot read/);
      expect(r.err.split('\n').length, 'one line').toBe(2);
      expect(r.exit).toBe(2);
    }
    const w = await hpm('pack', '1.1', '--out', join(dir, 'no', 'such', 'v.img'));
    expect(w.err).toMatch(/^atcasim hpm pack: cannot write .*v\.img: no such file/);
    const ok = await hpm('pack', '1.1', '--out', out);
    expect(ok.exit).toBe(0);
    expect((await hpm('inspect', out)).out).toMatch(/^device ID /);
  });

  it('inspect names the file and what is wrong with it', async () => {
    const missing = join(dir, 'nonexistent.img');
    expect(await hpm('inspect', missing)).toEqual({ out: '', err: `atcasim hpm inspect: ${missing}: no such file\n`, exit: 2 });
    expect(await hpm('inspect', dir)).toEqual({ out: '', err: `atcasim hpm inspect: ${dir}: is a directory, not an HPM.1 image file\n`, exit: 2 });
    const junk = join(dir, 'junk.img');
    writeFileSync(junk, randomBytes(5000));
    expect(await hpm('inspect', junk)).toEqual({ out: '', err: `atcasim hpm inspect: ${junk}: not an HPM.1 image (no PICMGFWU signature)\n`, exit: 1 });
    // The signature is there but the bytes behind it were changed: now the MD5 is the news.
    const bad = Buffer.from(buildPackImage('1.1', {}, defaultConfig(), 0));
    bad[60]! ^= 1;
    writeFileSync(junk, bad);
    expect((await hpm('inspect', junk)).err).toMatch(/MD5 signature does not match/);
  });

  it('inspect reads a device or an oversized file with a bound', async () => {
    expect(await hpm('inspect', '/dev/zero')).toEqual({ out: '', err: 'atcasim hpm inspect: /dev/zero: not an HPM.1 image: a character device, not a regular file\n', exit: 1 });
    const big = join(dir, 'big.img');
    writeFileSync(big, Buffer.alloc(2000));
    expect(() => readImageFile(big, 1000)).toThrow(`${big}: not an HPM.1 image: 2000 bytes, more than the 1000 an image may have`);
    expect(readImageFile(big, 2000).length).toBe(2000);
  });
});
