/**
 * Backplane links of the front boards and their E-keying state (PICMG 3.0 §3.7 E-Keying; Set/Get
 * Port State 2Ch/0Eh–0Fh; link descriptor layout in research/ipmi.md §C).
 *
 * Wiring (dual star): a node board's Base and Fabric channel 1 lead to hub slot 1 and channel 2 to
 * hub slot 2. A hub's channel 1 leads to the other hub; its channel c ≥ 2 leads to logical slot
 * c + 1. Only links whose far end is a configured board exist. The shelf manager enables a link
 * (E-keying) while both ends are in M3–M5; Set Port State overrides that until the FRU is
 * deactivated.
 */
import type { FruConfig } from '../config/types.ts';

/** PICMG interface codes (link info b7:6). */
export const PORT_INTERFACE = { base: 0, fabric: 1, update: 2 } as const;
export type PortInterfaceName = keyof typeof PORT_INTERFACE;

/** One link as Get Port State describes it. */
export interface PortLink {
  interface: PortInterfaceName;
  /** Channel 1..15 (link info b5:0). */
  channel: number;
  /** Ports of the channel used by the link (b11:8), e.g. 0b0001 = port 0. */
  portFlags: number;
  /** Link type (b19:12): 01h PICMG 3.0 Base Interface 10/100/1000BASE-T, 02h Ethernet Fabric. */
  linkType: number;
  /** Link type extension (b23:20): 0 = 1000BASE-BX (fabric) / 10/100/1000BASE-T (base). */
  linkTypeExtension: number;
  /** Grouping ID (b31:24). */
  groupingId: number;
  /** FRU name at the other end. */
  peer: string;
}

/** Key of a link in overrides: "interface/channel". */
export function portKey(iface: PortInterfaceName | number, channel: number): string {
  const name = typeof iface === 'number' ? (Object.keys(PORT_INTERFACE) as PortInterfaceName[]).find((k) => PORT_INTERFACE[k] === iface) ?? String(iface) : iface;
  return `${name}/${channel}`;
}

/**
 * The links of a FRU (empty for ShMCs, fan trays, PEMs).
 * @param fru the board
 * @param boardsBySlot configured boards by logical slot
 */
export function linksFor(fru: FruConfig, boardsBySlot: ReadonlyMap<number, FruConfig>): PortLink[] {
  if (fru.slot === undefined) return [];
  const peers: Array<[number, number]> = []; // [channel, peer slot]
  if (fru.kind === 'processor') {
    peers.push([1, 1], [2, 2]);
  } else if (fru.kind === 'hub') {
    const other = fru.slot === 1 ? 2 : 1;
    peers.push([1, other]);
    for (const s of [...boardsBySlot.keys()].sort((a, b) => a - b)) if (s >= 3) peers.push([s - 1, s]);
  }
  const out: PortLink[] = [];
  for (const iface of ['base', 'fabric'] as const) {
    for (const [channel, peerSlot] of peers) {
      const peer = boardsBySlot.get(peerSlot);
      if (!peer || peer.name === fru.name) continue;
      out.push({
        interface: iface,
        channel,
        portFlags: 0b0001,
        linkType: iface === 'base' ? 0x01 : 0x02,
        linkTypeExtension: 0,
        groupingId: 0,
        peer: peer.name,
      });
    }
  }
  return out;
}
