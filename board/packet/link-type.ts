/**
 * Link-layer header types of capture files (the `LINKTYPE_*` registry, tcpdump.org/linktypes.html;
 * IANA draft-ietf-opsawg-pcaplinktype) that atcasim decodes, plus the helpers that split the
 * pcap link-type word.
 *
 * pcap's 32-bit link-type field: bits 0-15 the link type, bits 16-25 reserved (must be zero;
 * tshark refuses the file otherwise), bits 26-31 FCS information (bit 26 "F" = FCS length present,
 * bits 28-31 FCS length in 16-bit words). As tshark does, atcasim ignores bits 26-31.
 */

/** Link types atcasim parses. Values are LINKTYPE_* numbers. */
export const LinkType = {
  /** BSD loopback: 4-byte address family in the capturing host's byte order. */
  NULL: 0,
  /** Ethernet II / 802.3 (LINKTYPE_ETHERNET, DLT_EN10MB). */
  ETHERNET: 1,
  /** PPP, RFC 1661 (optionally with the RFC 1662 0xff 0x03 address/control bytes). */
  PPP: 9,
  /** Raw IP on some BSDs (DLT_RAW = 12): version nibble gives the family. */
  RAW_12: 12,
  /** Raw IP (LINKTYPE_RAW): version nibble gives the family. */
  RAW: 101,
  /** OpenBSD loopback: 4-byte address family in network byte order. */
  LOOP: 108,
  /** Linux cooked capture v1 (16-byte header). */
  LINUX_SLL: 113,
  /** Raw IPv4 only. */
  IPV4: 228,
  /** Raw IPv6 only. */
  IPV6: 229,
  /** Linux cooked capture v2 (20-byte header). */
  LINUX_SLL2: 276,
} as const;

export type LinkTypeValue = (typeof LinkType)[keyof typeof LinkType];

const SUPPORTED = new Set<number>(Object.values(LinkType));

/** True when atcasim can decode frames of this link type (low 16 bits, already masked). */
export function isSupportedLinkType(linkType: number): boolean {
  return SUPPORTED.has(linkType);
}

/** Short lower-case name for messages ('ethernet', 'linux-sll', … or 'linktype-N'). */
export function linkTypeName(linkType: number): string {
  switch (linkType) {
    case LinkType.NULL:
      return 'null';
    case LinkType.ETHERNET:
      return 'ethernet';
    case LinkType.PPP:
      return 'ppp';
    case LinkType.RAW_12:
    case LinkType.RAW:
      return 'raw';
    case LinkType.LOOP:
      return 'loop';
    case LinkType.LINUX_SLL:
      return 'linux-sll';
    case LinkType.IPV4:
      return 'ipv4';
    case LinkType.IPV6:
      return 'ipv6';
    case LinkType.LINUX_SLL2:
      return 'linux-sll2';
    default:
      return `linktype-${linkType}`;
  }
}

/** Mask of the reserved bits 16-25 of the pcap link-type word. */
export const LINKTYPE_RESERVED_MASK = 0x03ff0000;

/** The link type proper (bits 0-15) of a pcap link-type word; FCS bits 26-31 are dropped. */
export function linkTypeOf(word: number): number {
  return word & 0xffff;
}
