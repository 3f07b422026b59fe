/**
 * Where each IPM controller of the shelf sends its event messages (`shelf.eventReceivers`): the
 * event receiver address and LUN that Set/Get Event Receiver (IPMI v2.0 §29.1, §29.2) write and
 * read. Every controller starts pointed at the shelf manager (20h, LUN 0), the shelf's only event
 * receiver (PICMG 3.0 §3.2.2: the Shelf Manager receives the IPMCs' events on IPMB-0); FFh turns a
 * controller's event messages off, and its events are then not logged.
 *
 * Volatile, as on a controller: a FRU that leaves M0 (is inserted) starts again at the default.
 * A controller is named by its FRU; the logical shelf manager at 20h is the active ShMC's FRU.
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import type { ShelfContext } from './context.ts';

/** Event Receiver Slave Address that disables event message generation (IPMI v2.0 §29.1). */
export const EVENT_RECEIVER_DISABLED = 0xff;

/** A controller's event receiver: IPMB slave address (8-bit form, FFh = disabled) and LUN 0..3. */
export interface EventReceiver {
  address: number;
  lun: number;
}

/** Event receivers of the shelf's controllers. */
export class ShelfEventReceivers {
  private readonly set_ = new Map<string, EventReceiver>();

  constructor(private readonly ctx: ShelfContext) {
    ctx.events.on('hotswap', (e) => {
      if (e.from === 0) this.set_.delete(e.fru);
    });
  }

  /** The default receiver: the shelf manager's address, LUN 0. */
  defaultReceiver(): EventReceiver {
    return { address: this.ctx.frus.shelfManagerAddress, lun: 0 };
  }

  /** Event receiver of `fru`'s controller. @throws CommandError('unknown_fru' | 'empty_slot') */
  get(fru: FruRef): EventReceiver {
    const name = this.ctx.frus.get(fru).cfg.name;
    return { ...(this.set_.get(name) ?? this.defaultReceiver()) };
  }

  /**
   * Set Event Receiver for `fru`'s controller. The shelf has one event receiver, the shelf manager
   * (its address, LUN 0); FFh disables the controller's event messages (the LUN is then ignored).
   * @throws CommandError('bad_value') for an odd address, a LUN outside 0..3, or an address with no
   *         event receiver behind it (another controller's, or no controller's);
   *         CommandError('unknown_fru' | 'empty_slot')
   */
  set(fru: FruRef, address: number, lun: number): void {
    const name = this.ctx.frus.get(fru).cfg.name;
    const hex = (n: number) => `${n.toString(16).padStart(2, '0').toUpperCase()}h`;
    if (!Number.isInteger(address) || address < 0 || address > 0xff) throw new CommandError('bad_value', `event receiver address ${address} is not a byte`);
    if (!Number.isInteger(lun) || lun < 0 || lun > 3) throw new CommandError('bad_value', `event receiver LUN ${lun} is not 0..3`);
    if (address === EVENT_RECEIVER_DISABLED) {
      this.set_.set(name, { address, lun: 0 });
      return;
    }
    if (address & 1) throw new CommandError('bad_value', `event receiver address ${hex(address)} is odd (bit 0 must be 0 for an IPMB slave address)`);
    const sm = this.ctx.frus.shelfManagerAddress;
    if (address !== sm) {
      const there = this.ctx.frus.all.find((r) => r.cfg.ipmbAddress === address);
      const why = there ? `the controller of ${there.cfg.name} is not an event receiver` : 'no controller answers there';
      throw new CommandError('bad_value', `event receiver ${hex(address)}: ${why}; the shelf manager at ${hex(sm)} is the shelf's event receiver`);
    }
    if (lun !== 0) throw new CommandError('bad_value', `event receiver LUN ${lun}: the shelf manager receives events on LUN 0`);
    this.set_.set(name, { address, lun });
  }

  /** True when `fru`'s controller sends event messages (its receiver is not FFh). */
  enabled(fru: FruRef): boolean {
    return this.get(fru).address !== EVENT_RECEIVER_DISABLED;
  }
}
