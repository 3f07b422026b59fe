/**
 * Ethernet II / IEEE 802.3 (14-byte header: destination MAC, source MAC, type-or-length), IEEE
 * 802.1Q VLAN tags (TPID 0x8100, and 0x9100 as tshark's default Q-in-Q TPID) and IEEE 802.1ad
 * service tags (TPID 0x88a8), and IEEE 802.2 LLC/SNAP after an 802.3 length field.
 *
 * As tshark: a type/length value 1..1500 is an 802.3 length (no `eth.type` occurrence, the
 * payload is limited to that length; a length past the frame is malformed), 0 an unknown type,
 * 1501-1535 neither (not decoded); 802.1Q tag IDs are `vlan.id` occurrences, 802.1ad S-tag
 * IDs are not (tshark lists them as `ieee8021ad.id`). A priority tag (VID 0) is a tag.
 * Tags on the outermost Ethernet header are kept in `vlanIds` (802.1Q and 802.1ad alike).
 */
import { Field } from './field-recorder.ts';
import { PacketErrorKind } from './packet-error.ts';
import type { Dissector } from './dissector.ts';
import { MAX_VLAN_TAGS } from './parsed-packet.ts';

export const ETH_HEADER_LEN = 14;
/** Largest 802.3 length value; larger type/length values are ethertypes. */
export const IEEE_802_3_MAX_LEN = 1500;

/** Ethernet header at `off`; continues with the ethertype's header. */
export function dissectEthernet(d: Dissector, off: number, cap: number, rep: number): void {
  const p = d.p;
  if (d.outerL2 === true && p.ethOffset < 0) p.ethOffset = off - d.base;
  if (off + ETH_HEADER_LEN > cap) {
    d.short('ethernet', 'type', off, ETH_HEADER_LEN, rep);
    return;
  }
  const b = d.b;
  const type = (b[off + 12]! << 8) | b[off + 13]!;
  if (type <= IEEE_802_3_MAX_LEN && type !== 0) {
    length8023(d, type, off + 12, off + ETH_HEADER_LEN, cap, rep);
    return;
  }
  // Values 1501-1535 are neither lengths nor ethertypes: tshark shows the payload as data.
  if (type < 0x0600 && type !== 0) return;
  // tshark treats type 0 (ETHERTYPE_UNK) as an (unknown) ethertype, not as a length.
  if (d.rec !== null) d.rec.num(Field.ETH_TYPE, type);
  d.ethertype(type, off + ETH_HEADER_LEN, cap, rep);
}

/** A 4-byte VLAN tag (TCI, then the next type) at `off`; `serviceTag` for 802.1ad (0x88a8). */
export function dissectVlan(d: Dissector, off: number, cap: number, rep: number, serviceTag: boolean): void {
  if (off + 2 > cap) {
    d.short('vlan', 'tci', off, 2, rep);
    return;
  }
  const b = d.b;
  const vid = ((b[off]! << 8) | b[off + 1]!) & 0x0fff;
  if (!serviceTag && d.rec !== null) d.rec.num(Field.VLAN_ID, vid);
  if (d.outerL2) {
    const p = d.p;
    if (p.vlanCount < MAX_VLAN_TAGS) p.vlanIds[p.vlanCount++] = vid;
  }
  if (off + 4 > cap) {
    d.short('vlan', 'type', off + 2, 2, rep);
    return;
  }
  const type = (b[off + 2]! << 8) | b[off + 3]!;
  if (type <= IEEE_802_3_MAX_LEN) {
    length8023(d, type, off + 2, off + 4, cap, rep);
    return;
  }
  d.ethertype(type, off + 4, cap, rep);
}

/**
 * The payload after an 802.3 length field `len` (at `at`): limited to `len` bytes when they fit;
 * a length beyond the frame is malformed (bad-length) and the rest of the frame is decoded
 * anyway, as tshark does.
 */
function length8023(d: Dissector, len: number, at: number, off: number, cap: number, rep: number): void {
  const end = off + len;
  if (end > rep) {
    d.fail(PacketErrorKind.BAD_LENGTH, 'ethernet', 'length', at);
    d.llc(off, cap, rep);
    return;
  }
  d.llc(off, cap < end ? cap : end, end);
}

/**
 * IEEE 802.2 LLC at `off`. Only SNAP (DSAP 0xAA, SSAP 0xAA, UI) with OUI 00-00-00 is followed:
 * its protocol ID is an ethertype (RFC 1042). Other LLC payloads (STP, CDP, …) carry no IP header.
 */
export function dissectLlc(d: Dissector, off: number, cap: number, rep: number): void {
  const b = d.b;
  if (off + 3 > cap) {
    d.short('llc', 'control', off, 3, rep);
    return;
  }
  if (b[off] !== 0xaa || b[off + 1] !== 0xaa || b[off + 2] !== 0x03) return;
  if (off + 8 > cap) {
    d.short('llc', 'snap', off + 3, 5, rep);
    return;
  }
  if (b[off + 3] === 0 && b[off + 4] === 0 && b[off + 5] === 0) {
    d.ethertype((b[off + 6]! << 8) | b[off + 7]!, off + 8, cap, rep);
  }
}
