/**
 * The hubs' resilient bucket table (the data plane's EcmpGroup) as the HA layer's ShareRouter port
 * (chassis/ha/node-ports.ts). It lives in the composition layer because it joins two siblings that
 * never import each other (chassis/dataplane and chassis/ha). A share is written `PAIR/HOME`
 * (docs/ha.md: `lb1/slot3` is the share whose home is slot3); its buckets are the ECMP group's home
 * buckets of that board's hub port (port N leads to slot N, chassis/config `ecmpMembers`).
 * - `assign(share, node)`: every bucket of the share is owned by `node` (EcmpGroup.moveShare);
 *   assigning it to its home gives it back (restoreShare). Takes effect at once for new packets
 *   on both hubs.
 * - `shift(share, percent)`: blue/green — the home keeps `percent` % of its share for new flows,
 *   the rest goes to the pair's other member (EcmpGroup.shift with fraction 1 − percent/100;
 *   absolute, not cumulative).
 * Errors: CommandError('no_such_share') for a share or node that is not a processor pair member;
 * the group's own CommandErrors (e.g. 'not_resilient' on a modulo shelf).
 */
import { CommandError } from '../../board/common/errors.ts';
import type { ShareRouter } from '../ha/node-ports.ts';
import type { PairConfig } from '../config/ha.ts';
import type { EcmpGroup } from '../../board/switch/ecmp-group.ts';

/** Logical slot of a board name `slotN`, or -1. */
function slotOf(node: string): number {
  const m = /^slot([0-9]{1,3})$/.exec(node);
  return m ? Number(m[1]) : -1;
}

/**
 * Builds the ShareRouter over `group` for the processor pairs of the shelf.
 * @param group the data plane's ECMP group (DataPlane.group)
 * @param pairs the shelf's HA pairs (ShelfConfig.ha.pairs; shmc pairs are ignored)
 */
export function shareRouter(group: EcmpGroup, pairs: readonly PairConfig[]): ShareRouter {
  const shares = new Map<string, { home: number; buddy: number }>();
  for (const p of pairs) {
    if (p.kind !== 'processor') continue;
    const [a, b] = p.members.map(slotOf) as [number, number];
    if (a < 0 || b < 0) continue;
    shares.set(`${p.name}/${p.members[0]}`, { home: a, buddy: b });
    shares.set(`${p.name}/${p.members[1]}`, { home: b, buddy: a });
  }
  const need = (share: string) => {
    const s = shares.get(share);
    if (!s) throw new CommandError('no_such_share', `no processor-pair share '${share}' (shares: ${[...shares.keys()].join(', ') || 'none'})`);
    return s;
  };
  return {
    assign(share: string, node: string): void {
      const s = need(share);
      const to = slotOf(node);
      if (to !== s.home && to !== s.buddy) throw new CommandError('no_such_share', `${node} is not a member of the pair of share '${share}'`);
      if (to === s.home) group.restoreShare(s.home);
      else group.moveShare(s.home, to);
    },
    shift(share: string, percent: number): void {
      const s = need(share);
      if (!(percent >= 0 && percent <= 100)) throw new CommandError('bad_fraction', `shift percent must be in 0..100, got ${percent}`);
      group.shift(s.home, s.buddy, 1 - percent / 100);
    },
  };
}
