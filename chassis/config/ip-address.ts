/**
 * IP addresses in text form as the shelf YAML writes them (virtual service VIPs, real servers, ACL
 * prefixes, the IPMI bind address): dotted-quad IPv4 and RFC 4291 §2.2 IPv6 (with `::` and an
 * embedded IPv4 tail). Pure: no I/O.
 */

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** True for an IPv4 or IPv6 address in text form (no prefix, no port). */
export function isIpAddress(s: string): boolean {
  if (IPV4.test(s)) return true;
  return isIpv6(s);
}

/** True for an IPv4 address in dotted-quad form. */
export function isIpv4(s: string): boolean {
  return IPV4.test(s);
}

function isIpv6(s: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || s.includes(':::')) return false;
  let groups = s.split(':');
  const last = groups[groups.length - 1]!;
  let extra = 0;
  if (last.includes('.')) {
    if (!IPV4.test(last)) return false;
    groups = groups.slice(0, -1);
    extra = 2;
  }
  const dbl = s.indexOf('::');
  if (dbl !== s.lastIndexOf('::')) return false;
  const parts = groups.filter((g, i) => !(g === '' && (dbl >= 0 || i === 0 || i === groups.length - 1)));
  if (parts.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  const count = parts.length + extra;
  return dbl >= 0 ? count <= 7 : count === 8;
}

/**
 * Prefix length of a netmask as ipvsadm(8) -M takes it: a dotted IPv4 mask with contiguous ones
 * (`255.255.255.0` → 24, IPv4 only) or a prefix length 0..`full`.
 * @param full 32 (IPv4) or 128 (IPv6)
 * @returns the prefix length, or null when `text` is neither
 */
export function netmaskBits(text: string, full: number): number | null {
  if (/^\d{1,3}$/.test(text)) {
    const n = Number(text);
    return n <= full ? n : null;
  }
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (m === null || full !== 32) return null;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255)) return null;
  const w = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  const bits = 32 - Math.log2(((~w >>> 0) + 1) || 2 ** 32);
  return Number.isInteger(bits) ? bits : null;
}
