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
