/**
 * Test helpers: annotated hex fixtures and small pcap/pcapng builders (written from the format
 * specifications, not from the code under test), so reader tests can state exactly which bytes
 * they feed in.
 */

/**
 * Bytes from annotated hex: everything after `#` on a line is a comment, whitespace is ignored.
 * @example hex`45 00 00 14  # version/IHL, DSCP, total length`
 */
export function hex(strings: TemplateStringsArray | string, ...vals: unknown[]): Uint8Array {
  const text = typeof strings === 'string' ? strings : strings.reduce((a, s, i) => a + s + (i < vals.length ? String(vals[i]) : ''), '');
  const clean = text
    .split('\n')
    .map((l) => l.replace(/#.*$/, ''))
    .join('')
    .replace(/\s+/g, '');
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new Error(`bad hex fixture: ${clean}`);
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Concatenates byte arrays. */
export function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export interface PcapRecordSpec {
  data: Uint8Array;
  sec?: number;
  frac?: number;
  origLen?: number;
}

/** A classic pcap file (draft-ietf-opsawg-pcap §4): header + records, chosen byte order and unit. */
export function pcapFile(opts: { le?: boolean; nano?: boolean; linkWord?: number; major?: number; minor?: number; snaplen?: number }, records: PcapRecordSpec[]): Uint8Array {
  const le = opts.le ?? true;
  const size = 24 + records.reduce((n, r) => n + 16 + r.data.length, 0);
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, opts.nano ? 0xa1b23c4d : 0xa1b2c3d4, le);
  dv.setUint16(4, opts.major ?? 2, le);
  dv.setUint16(6, opts.minor ?? 4, le);
  dv.setUint32(16, opts.snaplen ?? 65535, le);
  dv.setUint32(20, opts.linkWord ?? 1, le);
  let o = 24;
  for (const r of records) {
    dv.setUint32(o, r.sec ?? 0, le);
    dv.setUint32(o + 4, r.frac ?? 0, le);
    dv.setUint32(o + 8, r.data.length, le);
    dv.setUint32(o + 12, r.origLen ?? r.data.length, le);
    out.set(r.data, o + 16);
    o += 16 + r.data.length;
  }
  return out;
}

/** pcapng block writer for one section's byte order (draft-ietf-opsawg-pcapng §3.1). */
export class PcapngBuilder {
  private parts: Uint8Array[] = [];
  private le = true;

  /** Any block: type, body (padded to 4), total length at both ends. */
  block(type: number, body: Uint8Array): this {
    const padded = (body.length + 3) & ~3;
    const total = 12 + padded;
    const b = new Uint8Array(total);
    const dv = new DataView(b.buffer);
    dv.setUint32(0, type, this.le);
    dv.setUint32(4, total, this.le);
    b.set(body, 8);
    dv.setUint32(total - 4, total, this.le);
    this.parts.push(b);
    return this;
  }

  /** Section Header Block; switches the byte order for the blocks that follow. */
  shb(le: boolean, major = 1, minor = 0): this {
    this.le = le;
    const body = new Uint8Array(16);
    const dv = new DataView(body.buffer);
    dv.setUint32(0, 0x1a2b3c4d, le);
    dv.setUint16(4, major, le);
    dv.setUint16(6, minor, le);
    dv.setInt32(8, -1, le);
    dv.setInt32(12, -1, le);
    return this.block(0x0a0d0d0a, body);
  }

  /** Interface Description Block with optional if_tsresol (code 9) and if_tsoffset (code 14). */
  idb(linkType: number, snaplen: number, tsresol?: number, tsoffset?: number): this {
    const body = new Uint8Array(8 + 8 + 12 + 4);
    const dv = new DataView(body.buffer);
    dv.setUint16(0, linkType, this.le);
    dv.setUint32(4, snaplen, this.le);
    let o = 8;
    if (tsresol !== undefined) {
      dv.setUint16(o, 9, this.le);
      dv.setUint16(o + 2, 1, this.le);
      body[o + 4] = tsresol;
      o += 8;
    }
    if (tsoffset !== undefined) {
      dv.setUint16(o, 14, this.le);
      dv.setUint16(o + 2, 8, this.le);
      dv.setBigInt64(o + 4, BigInt(tsoffset), this.le);
      o += 12;
    }
    dv.setUint32(o, 0, this.le); // opt_endofopt
    o += 4;
    return this.block(1, body.subarray(0, o));
  }

  /** Enhanced Packet Block with a 64-bit timestamp in interface units. */
  epb(ifId: number, ts: bigint, data: Uint8Array, origLen = data.length): this {
    const body = new Uint8Array(20 + ((data.length + 3) & ~3));
    const dv = new DataView(body.buffer);
    dv.setUint32(0, ifId, this.le);
    dv.setUint32(4, Number(ts >> 32n), this.le);
    dv.setUint32(8, Number(ts & 0xffffffffn), this.le);
    dv.setUint32(12, data.length, this.le);
    dv.setUint32(16, origLen, this.le);
    body.set(data, 20);
    return this.block(6, body);
  }

  /** Simple Packet Block: original length + as many bytes as given. */
  spb(origLen: number, data: Uint8Array): this {
    const body = new Uint8Array(4 + ((data.length + 3) & ~3));
    new DataView(body.buffer).setUint32(0, origLen, this.le);
    body.set(data, 4);
    return this.block(3, body);
  }

  /** Obsolete Packet Block (16-bit interface ID, drops count). */
  pb(ifId: number, ts: bigint, data: Uint8Array): this {
    const body = new Uint8Array(20 + ((data.length + 3) & ~3));
    const dv = new DataView(body.buffer);
    dv.setUint16(0, ifId, this.le);
    dv.setUint32(4, Number(ts >> 32n), this.le);
    dv.setUint32(8, Number(ts & 0xffffffffn), this.le);
    dv.setUint32(12, data.length, this.le);
    dv.setUint32(16, data.length, this.le);
    body.set(data, 20);
    return this.block(2, body);
  }

  /** The file so far. */
  bytes(): Uint8Array {
    return cat(...this.parts);
  }
}

/** A minimal Ethernet + IPv4 + UDP frame (ports and addresses chosen by the caller). */
export function udpFrame(src: number[], dst: number[], sport: number, dport: number, payload = 4): Uint8Array {
  const f = new Uint8Array(14 + 20 + 8 + payload);
  f.set([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00]);
  const ip = 14;
  f.set([0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0, ...src, ...dst], ip);
  const tl = 20 + 8 + payload;
  f[ip + 2] = tl >> 8;
  f[ip + 3] = tl & 0xff;
  const u = ip + 20;
  f.set([sport >> 8, sport & 0xff, dport >> 8, dport & 0xff, 0, 8 + payload, 0, 0], u);
  return f;
}
