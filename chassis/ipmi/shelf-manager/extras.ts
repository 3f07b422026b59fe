/**
 * The PICMG features the Shelf model does not carry, modelled at the minimum a real ShMC or board
 * reports (the house rule: where the model lacks a feature, answer like a real controller rather
 * than failing), kept here on top of the Shelf API:
 *
 * - **ShMC links** (Set/Get Port State at a shelf manager): each ShMC has one Base Interface link
 *   to each hub slot (channel 1 → slot1, channel 2 → slot2; PICMG 3.0 §6.2: the hubs' Base
 *   Interface carries the shelf-management Ethernet). A link is enabled while both ends are in
 *   M3–M5, unless Set Port State overrode it.
 * - **AMC port state** (Set/Get AMC Port State 2Ch/19h–1Ah, AMC.0 §3.9): every controller reports
 *   one point-to-point AMC channel 0 (port 0, link type 05h AMC.2 Ethernet, extension 0 =
 *   1000BASE-BX, grouping 0), enabled while its FRU is in M3–M5 unless overridden.
 * - **Clocks** (Set/Get Clock State 2Ch/2Ch–2Dh, PICMG 3.0 §3.7.3 synchronisation clocks): clock IDs
 *   0–5 = CLK1A, CLK1B (8 kHz), CLK2A, CLK2B (19.44 MHz), CLK3A, CLK3B (user-defined) of the one
 *   clock resource a board has (the backplane; the optional resource byte is accepted and not
 *   used); all start disabled (setting 00h) until Set Clock State configures them.
 * - **Bused resources** (2Ch/17h, PICMG 3.0 §3.7.3.4): metallic test buses 1–2 and synchronisation
 *   clock groups 1–3, shelf-wide; board commands query (status 0 "in control" / 1 "no control"),
 *   release, force and bus-free.
 *
 * This state is kept in memory only (not in the SQLite store) and starts afresh at every start.
 * Errors are CommandError (mapped to completion codes by errors.ts).
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { Shelf } from '../../model/shelf.ts';

/** An M-state in which E-keyed links may be enabled (M3 activation … M5 deactivation request). */
function keyed(shelf: Shelf, fru: string): boolean {
  const s = shelf.state(fru);
  return s >= 3 && s <= 5;
}

/** A ShMC Base Interface link (same shape as the Shelf's PortStateView). */
export interface ShmcLinkView {
  interface: 'base';
  channel: number;
  portFlags: number;
  linkType: number;
  linkTypeExtension: number;
  groupingId: number;
  /** FRU at the other end (the hub board). */
  peer: string;
  enabled: boolean;
}

/** One AMC link (Get AMC Port State entry). */
export interface AmcLinkView {
  channel: number;
  device: number | undefined;
  portFlags: number;
  linkType: number;
  linkTypeExtension: number;
  groupingId: number;
  enabled: boolean;
}

/** Clock state (Get Clock State). `setting` b3 enabled, b2 direction (1 source), b1:0 PLL control. */
export interface ClockState {
  setting: number;
  index: number;
  family: number;
  accuracy: number;
  frequencyHz: number;
}

/** Names of the modelled clock IDs. */
export const CLOCK_NAMES: readonly string[] = ['CLK1A', 'CLK1B', 'CLK2A', 'CLK2B', 'CLK3A', 'CLK3B'];

/** Bused resource names by ID (PICMG 3.0 Table 3-41). */
export const BUSED_RESOURCES: readonly string[] = ['Metallic Test Bus #1', 'Metallic Test Bus #2', 'Synch clock group 1', 'Synch clock group 2', 'Synch clock group 3'];

/** Board-side Bused Resource commands (request byte 2). */
export const BUS_COMMAND = { query: 0, release: 1, force: 2, busFree: 3 } as const;

/** In-memory state of the features above. */
export class PicmgExtras {
  private readonly shmcPortOverrides = new Map<string, boolean>();
  private readonly amcOverrides = new Map<string, boolean>();
  private readonly clocks = new Map<string, ClockState>();
  private readonly busOwner = new Map<number, string>();

  constructor(private readonly shelf: Shelf) {}

  /** The ShMC's Base Interface links to the configured hub boards (channel 1 → slot1, 2 → slot2). */
  shmcLinks(shmc: string, channel?: number): ShmcLinkView[] {
    const out: ShmcLinkView[] = [];
    for (const ch of [1, 2]) {
      if (channel !== undefined && channel !== ch) continue;
      let hub: string;
      try {
        hub = this.shelf.resolve(ch);
      } catch {
        continue; // hub slot empty
      }
      if (this.shelf.fruConfig(hub).kind !== 'hub') continue;
      const o = this.shmcPortOverrides.get(`${shmc}/${ch}`);
      out.push({
        interface: 'base',
        channel: ch,
        portFlags: 0b0001,
        linkType: 0x01,
        linkTypeExtension: 0,
        groupingId: 0,
        peer: hub,
        enabled: o ?? (keyed(this.shelf, shmc) && keyed(this.shelf, hub)),
      });
    }
    return out;
  }

  /** Set Port State on a ShMC link. @throws CommandError('out_of_range') when the ShMC has no such link */
  setShmcPort(shmc: string, iface: number, channel: number, enabled: boolean): ShmcLinkView {
    const l = iface === 0 ? this.shmcLinks(shmc, channel)[0] : undefined;
    if (!l) throw new CommandError('out_of_range', `${shmc} has no link on interface ${iface} channel ${channel}`);
    this.shmcPortOverrides.set(`${shmc}/${channel}`, enabled);
    return { ...l, enabled };
  }

  /** AMC links of a FRU on `channel` (only channel 0 exists). */
  amcPorts(fru: string, channel: number, device?: number): AmcLinkView[] {
    if (channel !== 0) return [];
    const o = this.amcOverrides.get(`${fru}/${device ?? 'amc'}/${channel}`);
    return [{ channel, device, portFlags: 0b0001, linkType: 0x05, linkTypeExtension: 0, groupingId: 0, enabled: o ?? keyed(this.shelf, fru) }];
  }

  /** Set AMC Port State. @throws CommandError('out_of_range') for a channel other than 0 */
  setAmcPort(fru: string, channel: number, device: number | undefined, enabled: boolean): AmcLinkView {
    if (channel !== 0) throw new CommandError('out_of_range', `${fru} has no AMC channel ${channel} (only channel 0)`);
    this.amcOverrides.set(`${fru}/${device ?? 'amc'}/${channel}`, enabled);
    return this.amcPorts(fru, channel, device)[0]!;
  }

  /** Get Clock State. @throws CommandError('bad_value') for a clock ID other than 0–5 */
  clock(fru: string, id: number): ClockState {
    if (!Number.isInteger(id) || id < 0 || id >= CLOCK_NAMES.length) throw new CommandError('bad_value', `clock ID ${id} does not exist (0..${CLOCK_NAMES.length - 1})`);
    return { ...(this.clocks.get(`${fru}/${id}`) ?? { setting: 0, index: 0, family: 0, accuracy: 0, frequencyHz: 0 }) };
  }

  /** Set Clock State. @throws CommandError('bad_value') for an unknown clock ID or reserved setting bits */
  setClock(fru: string, id: number, state: ClockState): ClockState {
    this.clock(fru, id);
    if (state.setting & 0xf0 || (state.setting & 0x03) === 0x03) throw new CommandError('bad_value', `clock setting ${state.setting.toString(16)}h has reserved bits`);
    this.clocks.set(`${fru}/${id}`, { ...state });
    return { ...state };
  }

  /**
   * Bused Resource, board commands. @returns the status byte: query → 0 in control / 1 no control;
   * release → 0 ack / 1 error (not the owner); force → 0; bus free → 0.
   * @throws CommandError('bad_value') for an unknown command or resource
   */
  busResource(fru: string, command: number, resource: number): number {
    if (!Number.isInteger(resource) || resource < 0 || resource >= BUSED_RESOURCES.length) throw new CommandError('bad_value', `bused resource ${resource} does not exist (0..4)`);
    const owner = this.busOwner.get(resource);
    switch (command) {
      case BUS_COMMAND.query:
        return owner === fru ? 0 : 1;
      case BUS_COMMAND.release:
        if (owner !== fru) return 1;
        this.busOwner.delete(resource);
        return 0;
      case BUS_COMMAND.force:
        this.busOwner.set(resource, fru);
        return 0;
      case BUS_COMMAND.busFree:
        if (owner === fru) this.busOwner.delete(resource);
        return 0;
      default:
        throw new CommandError('bad_value', `bused resource command ${command} is not a board command (0..3)`);
    }
  }
}
