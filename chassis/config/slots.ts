/**
 * Run-time queries over a ShelfConfig about its slots. Slots are named by their logical slot (site)
 * number everywhere — CLI, scenarios, IPMI, TUI: `slot3`, and `3` is accepted; the physical
 * (front-panel) position comes from the shelf's physical order (PICMG 3.0 §3.2.1; 14-slot shelf:
 * physical 1..14 hold logical 13, 11, 9, 7, 5, 3, 1, 2, 4, 6, 8, 10, 12, 14). Hub boards sit in
 * logical slots 1 and 2, processor boards in the others; the hubs' ECMP group has one member per
 * processor board.
 */
import { CommandError } from '../../board/common/errors.ts';
import type { EcmpMember } from '../../board/switch/switch-config.ts';
import type { FruKind, ShelfConfig } from './types.ts';

/** A front-board slot of the shelf. */
export interface SlotInfo {
  /** Logical slot number (1-based). */
  logical: number;
  /** Physical position (1-based, left to right). */
  physical: number;
  /** 'hub' for logical slots 1 and 2, else 'node'. */
  role: 'hub' | 'node';
  /** FRU name of the configured board, if any ('slotN'). */
  occupant?: string;
  occupantKind?: FruKind;
}

/** Every logical slot of the shelf, ordered by logical number. */
export function slotsOf(c: ShelfConfig): SlotInfo[] {
  const out: SlotInfo[] = [];
  for (let s = 1; s <= c.slotCount; s++) {
    const fru = c.frus.find((f) => f.slot === s);
    const info: SlotInfo = { logical: s, physical: c.physicalOrder.indexOf(s) + 1, role: s <= 2 ? 'hub' : 'node' };
    if (fru) {
      info.occupant = fru.name;
      info.occupantKind = fru.kind;
    }
    out.push(info);
  }
  return out;
}

/** A way to name a FRU: 'slot3', '3', 3, 'shmc-a', 'shmc-b', 'fan1', 'pem2'. */
export type FruRef = string | number;

/**
 * Resolves a FRU reference to its name.
 * @throws CommandError('unknown_fru') for a name that is not a FRU or slot of this shelf,
 *   CommandError('empty_slot') for a slot without a board
 */
export function resolveFruRef(c: ShelfConfig, ref: FruRef): string {
  const text = typeof ref === 'number' ? String(ref) : ref.trim().toLowerCase();
  const m = /^(?:slot)?(\d{1,2})$/.exec(text);
  if (m) {
    const n = Number(m[1]);
    if (n < 1 || n > c.slotCount) throw new CommandError('unknown_fru', `no slot ${n}: the shelf has slots 1..${c.slotCount}`);
    const fru = c.frus.find((f) => f.slot === n);
    if (!fru) throw new CommandError('empty_slot', `slot${n} is empty`);
    return fru.name;
  }
  const fru = c.frus.find((f) => f.name === text);
  if (!fru) {
    throw new CommandError('unknown_fru', `"${ref}" is not a FRU of this shelf (slot1..slot${c.slotCount}, ${c.frus.filter((f) => f.slot === undefined).map((f) => f.name).join(', ')})`);
  }
  return fru.name;
}

/** Logical slots of the processor boards, ascending. */
export function processorSlots(c: ShelfConfig): number[] {
  return c.frus.filter((f) => f.kind === 'processor').map((f) => f.slot!);
}

/** Logical slots of the hub boards, ascending. */
export function hubSlots(c: ShelfConfig): number[] {
  return c.frus.filter((f) => f.kind === 'hub').map((f) => f.slot!);
}

/**
 * The hubs' ECMP group: one member per processor board; hub port number = the board's logical
 * slot (port 3 leads to slot3). With `buddyFailover` (the HA layer, docs/ha.md), a member's buckets go to its
 * pair buddy when it goes down (`failoverPort`); without it they are spread over the others.
 */
export function ecmpMembers(c: ShelfConfig, opts: { buddyFailover?: boolean } = {}): EcmpMember[] {
  const buddy = new Map<string, string>();
  if (opts.buddyFailover) {
    for (const p of c.ha.pairs) {
      if (p.kind !== 'processor') continue;
      buddy.set(p.members[0], p.members[1]);
      buddy.set(p.members[1], p.members[0]);
    }
  }
  return c.frus
    .filter((f) => f.kind === 'processor')
    .map((f) => {
      const m: EcmpMember = { port: f.slot!, slot: f.slot! };
      const b = buddy.get(f.name);
      if (b) m.failoverPort = Number(b.slice(4));
      return m;
    });
}
