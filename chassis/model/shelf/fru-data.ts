/**
 * The FRUs' FRU Inventory Devices: read and written by offset as an EEPROM would be (a write that
 * breaks a checksum is kept), persisted before the command returns; the decoded inventory follows
 * the bytes.
 *
 * Sources: IPMI v2.0 §34 (FRU inventory commands); Platform Management FRU Information Storage
 * Definition v1.0 (the areas).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import { encodeFruInventory, type FruInventory } from '../../sensors/fru.ts';
import type { ShelfContext } from './context.ts';
import { fingerprint } from './records.ts';

/** FRU inventory commands (`shelf.fruData`). */
export class ShelfFruData {
  constructor(private readonly ctx: ShelfContext) {}

  /** Get FRU Inventory Area Info (§34.1): size in bytes, accessed by bytes. @throws CommandError('not_present') */
  info(ref: FruRef): { size: number; byWords: false } {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    return { size: rt.fruData.size, byWords: false };
  }

  /** Read FRU Data (§34.2). @throws CommandError('out_of_range' | 'not_present') */
  read(ref: FruRef, offset: number, count: number): Uint8Array {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const r = rt.fruData.read(offset, count);
    if (!r.ok) throw new CommandError('out_of_range', `FRU offset ${offset} out of range (size ${rt.fruData.size})`);
    return r.data;
  }

  /**
   * Write FRU Data (§34.3): stored as written (a write that breaks a checksum is kept, as an EEPROM
   * would) and persisted before returning. @returns bytes written
   * @throws CommandError('out_of_range' | 'not_present')
   */
  write(ref: FruRef, offset: number, bytes: Uint8Array): number {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const dev = rt.fruData;
    const before = dev.bytes();
    const r = dev.write(offset, bytes);
    if (!r.ok) throw new CommandError('out_of_range', `write of ${bytes.length} bytes at ${offset} runs past the FRU device (${dev.size} bytes)`);
    const baseline = fingerprint(encodeFruInventory(rt.cfg.inventory));
    try {
      this.ctx.store.putFruData(rt.cfg.name, { bytes: dev.bytes(), baseline });
    } catch (e) {
      dev.write(0, before);
      throw e;
    }
    this.ctx.events.emit({ type: 'fru.data', at: this.ctx.clock.now(), fru: rt.cfg.name, offset, length: r.written });
    return r.written;
  }

  /** Decoded FRU inventory of a FRU. @throws CommandError('bad_fru_data') when its image does not decode */
  inventory(ref: FruRef): FruInventory {
    const r = this.ctx.frus.get(ref).fruData.inventory();
    if (!r.ok) throw new CommandError('bad_fru_data', r.error.message);
    return r.inventory;
  }
}
