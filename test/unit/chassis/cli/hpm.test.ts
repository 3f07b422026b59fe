import { describe, expect, it } from 'vitest';
import { buildPackImage, describeImage, parseHpmVersion } from '../../../../chassis/cli/hpm.ts';
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
