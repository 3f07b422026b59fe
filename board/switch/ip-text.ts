/**
 * IP address text → bytes, for the `hash` verb and tests (control path; allocates). IPv4 in
 * dotted-quad form (four decimal octets 0..255, no leading zeros beyond a single 0, as
 * inet_pton(AF_INET) accepts); IPv6 per RFC 4291 §2.2 (hex groups, one `::`, an optional trailing
 * dotted IPv4 part); no zone index, no prefix length.
 */

/** A parsed address. */
export interface ParsedIp {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

/** Parses dotted-quad IPv4 text; null when it is not one. */
export function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    out[i] = v;
  }
  return out;
}

/** Parses IPv6 text (RFC 4291 §2.2); null when it is not one. */
export function parseIpv6(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 45) return null;
  let s = text;
  let v4: Uint8Array | null = null;
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.')) {
    v4 = parseIpv4(s.slice(lastColon + 1));
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const dbl = s.indexOf('::');
  if (dbl >= 0 && s.indexOf('::', dbl + 1) >= 0) return null;
  const groups = (x: string): string[] | null => (x === '' ? [] : x.split(':'));
  const head = groups(dbl >= 0 ? s.slice(0, dbl) : s);
  const tail = dbl >= 0 ? groups(s.slice(dbl + 2)) : [];
  if (!head || !tail) return null;
  const total = head.length + tail.length;
  if (dbl < 0 ? total !== 8 : total > 7) return null;
  const words = [...head, ...new Array<string>(8 - total).fill('0'), ...tail];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const w = words[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return null;
    const v = parseInt(w, 16);
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 0xff;
  }
  if (v4) out.set(v4, 12);
  return out;
}

/** Parses IPv4 or IPv6 text; null when it is neither. */
export function parseIp(text: string): ParsedIp | null {
  const t = text.trim();
  const v4 = parseIpv4(t);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = parseIpv6(t);
  return v6 ? { family: 6, bytes: v6 } : null;
}
