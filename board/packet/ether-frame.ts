/**
 * Ethernet II framing for frames the appliance builds or rewrites on a live link (IEEE 802.3
 * §3.1.1: destination MAC, source MAC, EtherType; one optional IEEE 802.1Q tag), and MAC address
 * text (IEEE 802 canonical hex, `02:a7:ca:00:00:01`). The dissector for captures is ethernet.ts;
 * this module is the small writer/locator side the live data path needs, allocation-free.
 */

export const ETHERTYPE_IPV4 = 0x0800;
export const ETHERTYPE_ARP = 0x0806;
export const ETHERTYPE_VLAN = 0x8100;
export const ETHERTYPE_IPV6 = 0x86dd;
/** Bytes of an untagged Ethernet II header. */
export const ETH_LEN = 14;
/** The broadcast MAC ff:ff:ff:ff:ff:ff. */
export const BROADCAST_MAC: Readonly<Uint8Array> = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

/**
 * Offset of the payload after the Ethernet header (and one 802.1Q tag), with its EtherType in
 * `out.type`; −1 when the frame is shorter than its header.
 */
export function etherPayload(frame: Uint8Array, len: number, out: { type: number }): number {
  if (len < ETH_LEN) return -1;
  let type = (frame[12]! << 8) | frame[13]!;
  let off = ETH_LEN;
  if (type === ETHERTYPE_VLAN) {
    if (len < ETH_LEN + 4) return -1;
    type = (frame[16]! << 8) | frame[17]!;
    off += 4;
  }
  out.type = type;
  return off;
}

/** Writes an untagged Ethernet II header at `off`; returns the payload offset. */
export function writeEthernet(out: Uint8Array, off: number, dst: Uint8Array, src: Uint8Array, type: number): number {
  out.set(dst.subarray(0, 6), off);
  out.set(src.subarray(0, 6), off + 6);
  out[off + 12] = type >>> 8;
  out[off + 13] = type & 0xff;
  return off + ETH_LEN;
}

/**
 * Parses `aa:bb:cc:dd:ee:ff` (or with `-`).
 * @throws TypeError `bad MAC address 'x'`
 */
export function parseMac(text: string): Uint8Array {
  const parts = text.trim().split(/[:-]/);
  if (parts.length !== 6 || !parts.every((p) => /^[0-9a-fA-F]{2}$/.test(p))) throw new TypeError(`bad MAC address '${text}'`);
  return Uint8Array.from(parts.map((p) => parseInt(p, 16)));
}

/** MAC text, lower-case colon-separated (allocates; not for the hot path). */
export function macText(m: Uint8Array, off = 0): string {
  const h: string[] = [];
  for (let i = 0; i < 6; i++) h.push(m[off + i]!.toString(16).padStart(2, '0'));
  return h.join(':');
}

/** True when bytes `a[ao..ao+n)` equal `b[bo..bo+n)`. */
export function bytesEqual(a: Uint8Array, ao: number, b: Uint8Array, bo: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}
