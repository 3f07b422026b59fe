/**
 * Address text of the processor configuration → bytes: IPv4 dotted quads (RFC 791), IPv6 text
 * (RFC 4291 §2.2, with `::` and an embedded dotted quad), prefixes (`a/len`) and endpoints
 * (`a.b.c.d:port`, `[v6]:port`). Control-plane only (allocates); the data path works on bytes.
 */

/** A parsed address: `bytes` is 16 long; IPv4 uses bytes 0..3 (the FlowTuple convention). */
export interface ParsedAddress {
  family: 4 | 6;
  bytes: Uint8Array;
}

/** A parsed prefix: the address with host bits cleared and the prefix length in bits. */
export interface ParsedPrefix extends ParsedAddress {
  length: number;
}

/** A parsed endpoint: an address with an optional port (undefined when none was written). */
export interface ParsedEndpoint extends ParsedAddress {
  port: number | undefined;
}

function parseV4(text: string, out: Uint8Array, at: number): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^\d{1,3}$/.test(p)) return false;
    const v = Number(p);
    if (v > 255) return false;
    out[at + i] = v;
  }
  return true;
}

function parseV6(text: string, out: Uint8Array): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const words: number[] = [];
  const tail: number[] = [];
  const fill = (part: string, into: number[], allowV4: boolean): boolean => {
    if (part === '') return true;
    const groups = part.split(':');
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      if (allowV4 && i === groups.length - 1 && g.includes('.')) {
        const b = new Uint8Array(4);
        if (!parseV4(g, b, 0)) return false;
        into.push((b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return false;
      into.push(parseInt(g, 16));
    }
    return true;
  };
  if (halves.length === 1) {
    if (!fill(halves[0]!, words, true) || words.length !== 8) return false;
  } else {
    if (!fill(halves[0]!, words, false) || !fill(halves[1]!, tail, true)) return false;
    if (words.length + tail.length > 7) return false;
    while (words.length + tail.length < 8) words.push(0);
    words.push(...tail);
  }
  for (let i = 0; i < 8; i++) {
    out[2 * i] = words[i]! >> 8;
    out[2 * i + 1] = words[i]! & 0xff;
  }
  return true;
}

/**
 * Parses an IPv4 or IPv6 address.
 * @throws TypeError `bad address 'x'` when the text is neither.
 */
export function parseAddress(text: string): ParsedAddress {
  const bytes = new Uint8Array(16);
  const t = text.trim();
  if (t.includes(':')) {
    if (parseV6(t, bytes)) return { family: 6, bytes };
  } else if (parseV4(t, bytes, 0)) {
    return { family: 4, bytes };
  }
  throw new TypeError(`bad address '${text}'`);
}

/**
 * Parses `addr/len` (or a bare address = host prefix). Host bits are cleared.
 * @throws TypeError on a bad address or a length outside 0..32 (IPv4) / 0..128 (IPv6).
 */
export function parsePrefix(text: string): ParsedPrefix {
  const slash = text.indexOf('/');
  const a = parseAddress(slash < 0 ? text : text.slice(0, slash));
  const max = a.family === 4 ? 32 : 128;
  let length = max;
  if (slash >= 0) {
    const l = text.slice(slash + 1).trim();
    if (!/^\d{1,3}$/.test(l) || Number(l) > max) throw new TypeError(`bad prefix length in '${text}' (0..${max})`);
    length = Number(l);
  }
  const bytes = a.bytes;
  for (let bit = length; bit < max; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return { family: a.family, bytes, length };
}

/**
 * Parses an endpoint: `1.2.3.4`, `1.2.3.4:8080`, `2001:db8::1`, `[2001:db8::1]:8080`.
 * @throws TypeError on bad text or a port outside 1..65535.
 */
export function parseEndpoint(text: string): ParsedEndpoint {
  const t = text.trim();
  let host = t;
  let portText: string | undefined;
  if (t.startsWith('[')) {
    const close = t.indexOf(']');
    if (close < 0) throw new TypeError(`bad endpoint '${text}' (missing ']')`);
    host = t.slice(1, close);
    const rest = t.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw new TypeError(`bad endpoint '${text}'`);
      portText = rest.slice(1);
    }
  } else if (!t.includes('::') && t.split(':').length === 2) {
    const i = t.indexOf(':');
    host = t.slice(0, i);
    portText = t.slice(i + 1);
  }
  const a = parseAddress(host);
  let port: number | undefined;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw new TypeError(`bad port in endpoint '${text}' (1..65535)`);
    }
    port = Number(portText);
  }
  return { family: a.family, bytes: a.bytes, port };
}

/** Big-endian 32-bit word `i` (0..3) of a 16-byte address. */
export function word(bytes: Uint8Array, i: number): number {
  const o = i << 2;
  return ((bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!) >>> 0;
}
