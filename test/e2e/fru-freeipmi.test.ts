// FreeIPMI's `ipmi-fru --fru-file` as an outside reader of the FRU images atcasim writes
// (chassis/sensors/fru.ts, chassis/config/shelf-config.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FruStorage,
  encodeFruInventory,
} from '../../chassis/sensors/fru.ts';
import { parseShelfConfig } from '../../chassis/config/shelf-config.ts';

describe('FreeIPMI ipmi-fru reads the images atcasim writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atcasim-fru-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const defaults = parseShelfConfig(readFileSync(new URL('../../chassis/config/default-shelf.yaml', import.meta.url), 'utf8'), 'default-shelf.yaml');

  it('every FRU of the default shelf prints without errors and with its configured strings', () => {
    for (const fru of defaults.frus) {
      const file = join(dir, `${fru.name}.fru`);
      writeFileSync(file, new FruStorage(encodeFruInventory(fru.inventory), fru.fruSize).bytes());
      const out = execFileSync('ipmi-fru', [`--fru-file=${file}`], { encoding: 'utf8' });
      expect(out, fru.name).not.toMatch(/Error/i);
      expect(out).toContain(`FRU Board Manufacturer: ${fru.inventory.board!.manufacturer}`);
      expect(out).toContain(`FRU Board Product Name: ${fru.inventory.board!.product}`);
      expect(out).toContain(`FRU Board Serial Number: ${fru.inventory.board!.serial}`);
      expect(out).toContain(`FRU Product Asset Tag: ${fru.inventory.product!.assetTag}`);
      expect(out).toContain('FRU Board Manufacturing Date/Time: 01/15/24 - 12:00:00');
      expect(out).toContain('FRU Chassis Type: Rack Mount Chassis');
    }
  });

  it('flags the area a corrupting write broke', () => {
    const fru = defaults.frus.find((f) => f.name === 'slot3')!;
    const s = new FruStorage(encodeFruInventory(fru.inventory), fru.fruSize);
    const boardAt = s.bytes()[3]! * 8;
    s.write(boardAt + 10, Uint8Array.of(s.bytes()[boardAt + 10]! ^ 1));
    const file = join(dir, 'bad.fru');
    writeFileSync(file, s.bytes());
    expect(execFileSync('ipmi-fru', [`--fru-file=${file}`], { encoding: 'utf8' })).toContain('board info area checksum invalid');
  });
});
