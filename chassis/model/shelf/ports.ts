/**
 * E-keying of the backplane links: a link is enabled while both its ends are active (M3–M5), unless
 * the shelf manager's Set Port State overrides it; overrides last until the FRU is deactivated
 * (M1/M0).
 *
 * Sources: PICMG 3.0 §3.7 (E-keying); Set/Get Port State (2Ch/0Eh–0Fh).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruRef } from '../../config/slots.ts';
import type { MState } from '../hot-swap.ts';
import { PORT_INTERFACE, portKey, type PortInterfaceName, type PortLink } from '../ports.ts';
import type { ShelfContext } from './context.ts';
import type { FruRuntime } from './frus.ts';
import type { ShelfSel } from './sel.ts';

/** A link and its state (PICMG Get Port State). */
export interface PortStateView extends PortLink {
  enabled: boolean;
}

/** Port (E-keying) commands (`shelf.ports`). */
export class ShelfPorts {
  constructor(
    private readonly ctx: ShelfContext,
    private readonly sel: ShelfSel,
  ) {}

  /** Links of a FRU with their E-keying state (PICMG Get Port State). `iface` and `channel` filter. */
  states(ref: FruRef, iface?: PortInterfaceName, channel?: number): PortStateView[] {
    const rt = this.ctx.frus.get(ref);
    return rt.ports.links
      .filter((l) => (iface === undefined || l.interface === iface) && (channel === undefined || l.channel === channel))
      .map((l) => ({ ...l, enabled: this.enabled(rt, l) }));
  }

  /**
   * Set Port State (PICMG 2Ch/0Eh): enables or disables a link (overrides E-keying until the FRU
   * is deactivated). @throws CommandError('out_of_range') when the FRU has no such link
   */
  set(ref: FruRef, iface: PortInterfaceName | number, channel: number, enabled: boolean): PortStateView {
    const rt = this.ctx.frus.get(ref);
    this.ctx.frus.requirePresent(rt);
    const name = typeof iface === 'number' ? (Object.keys(PORT_INTERFACE) as PortInterfaceName[]).find((k) => PORT_INTERFACE[k] === iface) : iface;
    const l = rt.ports.links.find((x) => x.interface === name && x.channel === channel);
    if (!l) throw new CommandError('out_of_range', `${rt.cfg.name} has no ${String(name ?? iface)} channel ${channel}`);
    rt.ports.overrides.set(portKey(l.interface, l.channel), enabled);
    this.sel.commit([rt], [], [{ type: 'port', at: this.ctx.clock.now(), fru: rt.cfg.name, interface: l.interface, channel, enabled }]);
    return { ...l, enabled };
  }

  private enabled(rt: FruRuntime, l: PortLink): boolean {
    const o = rt.ports.overrides.get(portKey(l.interface, l.channel));
    if (o !== undefined) return o;
    const peer = this.ctx.frus.named(l.peer);
    const up = (s: MState) => s >= 3 && s <= 5;
    return up(rt.hs.context.state) && !!peer && up(peer.hs.context.state);
  }
}
