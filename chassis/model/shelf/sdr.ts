/**
 * The shelf's SDR repository, rebuilt from the FRUs whenever what it lists changes (a controller
 * installed or extracted, the active ShMC changed): first the shelf manager's records at the
 * logical address (20h) from the active ShMC (or the first one), then every installed controller at
 * its own IPMB address — the ShMCs too (10h/12h): the standby ShMC's own SEL records name their
 * sensors there, as PICMG 3.0 shelf managers list both.
 *
 * Sources: IPMI v2.0 §33 (SDR repository commands), §43 (record formats, ../sdr-build.ts).
 */
import { CommandError } from '../../../board/common/errors.ts';
import { SdrRepository, type SdrInfo, type SdrRecord, type SdrRefusal } from '../../sensors/sdr.ts';
import { controllerRecords } from '../sdr-build.ts';
import type { ShelfContext } from './context.ts';

/** SDR repository commands (`shelf.sdr`). */
export class ShelfSdr {
  private readonly repo = new SdrRepository();

  /** @param sel the SEL clock stamps the repository's last change */
  constructor(
    private readonly ctx: ShelfContext,
    private readonly sel: { time(): number },
  ) {}

  /** Rebuilds the records from the FRUs present and the active ShMC. */
  rebuild(): void {
    const { frus, config } = this.ctx;
    const recs: SdrRecord[] = [];
    const shmcs = frus.ofKind('shmc');
    const tmpl = shmcs.find((r) => r.cfg.name === frus.activeShmc()) ?? shmcs[0];
    if (tmpl) recs.push(...controllerRecords(tmpl.cfg, frus.shelfManagerAddress, config.shelfManager.label, true));
    for (const rt of frus.all) {
      if (rt.hs.context.state === 0) continue;
      recs.push(...controllerRecords(rt.cfg, rt.cfg.ipmbAddress, rt.cfg.label, false));
    }
    this.repo.replace(recs, this.sel.time());
  }

  /** Get SDR Repository Info (§33.9). */
  info(): SdrInfo {
    return this.repo.info();
  }

  /** Reserve SDR Repository (§33.11). */
  reserve(): number {
    return this.repo.reserve();
  }

  /**
   * Get SDR (§33.12): `count` bytes (FFh = all) of record `id` (0 = first) from `offset`.
   * @throws CommandError('not_found' | 'reservation_invalid' | 'offset_out_of_range')
   */
  get(id: number, offset: number, count: number, reservation: number): { next: number; data: Uint8Array } {
    const r = this.repo.get(id, offset, count, reservation);
    if (!r.ok) throw new CommandError(r.reason satisfies SdrRefusal, `Get SDR ${id}: ${r.reason.replace(/_/g, ' ')}`);
    return { next: r.next, data: r.data };
  }

  /** The SDR records (decoded) in ID order. */
  records(): SdrRecord[] {
    return this.repo.list();
  }
}
