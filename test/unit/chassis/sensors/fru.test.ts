// FRU inventory (Platform Management FRU Information Storage Definition v1.0; chassis/sensors/fru.ts):
// encoding against the reference shelf's FRU images (../shared/ipmi/sim/atca.emu) and decoding.
// FreeIPMI's `ipmi-fru` reading the images atcasim writes is in test/e2e/fru-freeipmi.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FruStorage,
  decodeFruInventory,
  encodeField,
  encodeFruInventory,
  fruMinutesFromIso,
  fruMinutesToIso,
  type FruInventory,
} from '../../../../chassis/sensors/fru.ts';
import { DecodeError } from '../../../../board/common/errors.ts';
import { shared } from '../../../support/shared.ts';

function referenceImages(): Map<number, Uint8Array> {
  const emu = readFileSync(shared('ipmi', 'sim', 'atca.emu'), 'utf8');
  const out = new Map<number, Uint8Array>();
  for (const l of emu.split('\n').filter((x) => x.startsWith('mc_add_fru_data'))) {
    const [, mc] = l.split(/\s+/);
    out.set(parseInt(mc!, 16), Uint8Array.from(l.split(' data ')[1]!.trim().split(/\s+/).map((x) => parseInt(x, 16))));
  }
  return out;
}

/** The reference FRU contents, written out by hand from the golden `fru print` transcript. */
function referenceInventory(product: string, serial: string, part: string): FruInventory {
  return {
    chassis: { type: 0x17, partNumber: 'ATCA-SHELF-PN', serial: 'SH0001' },
    board: { mfgMinutes: fruMinutesFromIso('2024-01-15T12:00:00Z'), manufacturer: 'Example Telecom', product, serial, partNumber: part, fileId: 'fru.bin' },
    product: { manufacturer: 'Example Telecom', name: product, partNumber: part, version: '1.0', serial, assetTag: `ASSET-${serial}`, fileId: 'fru.bin' },
  };
}

describe('FRU inventory encoding', () => {
  const ref = referenceImages();

  it('produces the reference images byte for byte from the values ipmitool prints', () => {
    expect(Buffer.from(encodeFruInventory(referenceInventory('Shelf Manager', 'SHM0001', 'SHM-100')))).toEqual(Buffer.from(ref.get(0x20)!));
    expect(Buffer.from(encodeFruInventory(referenceInventory('Switch Hub', 'HUB0001', 'HUB-200')))).toEqual(Buffer.from(ref.get(0x82)!));
    expect(Buffer.from(encodeFruInventory(referenceInventory('Processor Node', 'CPU0003', 'CPU-300')))).toEqual(Buffer.from(ref.get(0x86)!));
  });

  it('decodes the reference images into the printed values', () => {
    const inv = decodeFruInventory(ref.get(0x86)!);
    expect(inv.board).toMatchObject({ manufacturer: 'Example Telecom', product: 'Processor Node', serial: 'CPU0003', partNumber: 'CPU-300' });
    expect(fruMinutesToIso(inv.board!.mfgMinutes)).toBe('2024-01-15T12:00:00.000Z');
    expect(inv.chassis).toMatchObject({ type: 0x17, partNumber: 'ATCA-SHELF-PN', serial: 'SH0001' });
    expect(inv.product).toMatchObject({ name: 'Processor Node', version: '1.0', assetTag: 'ASSET-CPU0003' });
  });

  it('areas are multiples of 8 bytes and every checksum sums to zero', () => {
    const img = encodeFruInventory(referenceInventory('Processor Node', 'CPU0003', 'CPU-300'));
    const sum = (a: number, b: number) => [...img.subarray(a, b)].reduce((x, y) => (x + y) & 0xff, 0);
    expect(sum(0, 8)).toBe(0);
    for (const slot of [2, 3, 4]) {
      const at = img[slot]! * 8;
      const len = img[at + 1]! * 8;
      expect(len % 8).toBe(0);
      expect(sum(at, at + len)).toBe(0);
    }
  });

  it('refuses fields it cannot encode', () => {
    expect(() => encodeField('x')).toThrow(/one-character/);
    expect(() => encodeField('y'.repeat(64))).toThrow(/63 bytes/);
    expect(() => encodeField('Ω-board')).toThrow(/Latin-1/);
    expect(encodeField('')).toEqual([0xc0]);
  });

  it('reports corrupt images precisely', () => {
    const img = Uint8Array.from(ref.get(0x82)!);
    img[7] ^= 1;
    expect(() => decodeFruInventory(img)).toThrow(/common_header.checksum at offset 7/);
    const img2 = Uint8Array.from(ref.get(0x82)!);
    img2[45] ^= 1;
    expect(() => decodeFruInventory(img2)).toThrow(DecodeError);
    expect(() => decodeFruInventory(img2)).toThrow(/board.checksum/);
    expect(() => decodeFruInventory(img.subarray(0, 5))).toThrow(/need 8 bytes/);
  });
});

describe('FruStorage (Read/Write FRU Data)', () => {
  it('reads by offset, pads with FFh, refuses reads and writes out of range', () => {
    const img = encodeFruInventory(referenceInventory('Switch Hub', 'HUB0001', 'HUB-200'));
    const f = new FruStorage(img, 256);
    expect(f.size).toBe(256);
    expect(f.read(0, 8)).toEqual({ ok: true, data: img.subarray(0, 8) });
    const tail = f.read(250, 32);
    expect(tail.ok && [...tail.data]).toEqual([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    expect(f.read(256, 1)).toEqual({ ok: false, reason: 'out_of_range' });
    expect(f.write(250, new Uint8Array(7))).toEqual({ ok: false, reason: 'out_of_range' });
  });

  it('a write that changes a field shows in the decoded inventory; a bad write is kept and reported', () => {
    const inv = referenceInventory('Switch Hub', 'HUB0001', 'HUB-200');
    const f = new FruStorage(encodeFruInventory(inv), 512);
    const changed = encodeFruInventory({ ...inv, board: { ...inv.board!, serial: 'HUB0099' } });
    expect(f.write(0, changed)).toEqual({ ok: true, written: changed.length });
    const r = f.inventory();
    expect(r.ok && r.inventory.board!.serial).toBe('HUB0099');
    f.write(45, Uint8Array.of(0x00));
    const bad = f.inventory();
    expect(bad.ok).toBe(false);
    expect(f.read(45, 1)).toEqual({ ok: true, data: Uint8Array.of(0) });
  });
});
