/**
 * Test helper: parse one frame with a field recorder and return the view plus the recorded
 * fields as tshark-style comma-joined text.
 */
import { FIELD_NAMES, TextFieldRecorder, type FieldId } from '../../../../board/packet/field-recorder.ts';
import { PacketParser, type ParsedPacket } from '../../../../board/packet/parse.ts';
import { addressText, type FlowTuple } from '../../../../board/packet/flow-tuple.ts';

export interface Parsed {
  v: ParsedPacket;
  /** Recorded fields that have at least one occurrence, e.g. { 'ip.src': '10.0.0.1,10.0.0.2' }. */
  f: Record<string, string>;
}

const parser = new PacketParser();

/** Parses `frame` (link type default Ethernet) with a recorder. */
export function parse(frame: Uint8Array, linkType = 1, origLen = frame.length): Parsed {
  const rec = new TextFieldRecorder();
  const v = parser.parse(frame, linkType, origLen, rec);
  const f: Record<string, string> = {};
  FIELD_NAMES.forEach((name, i) => {
    const t = rec.text(i as FieldId);
    if (t !== '') f[name] = t;
  });
  return { v, f };
}

/** A tuple as compact text: 'family src sport > dst dport proto [flags]'. */
export function tupleText(t: FlowTuple): string {
  if (t.family === 0) return 'none';
  const ports = t.hasPorts ? [`:${t.sport}`, `:${t.dport}`] : ['', ''];
  return `${addressText(t.family, t.src)}${ports[0]} > ${addressText(t.family, t.dst)}${ports[1]} proto ${t.proto}${t.fragment ? ' frag' : ''}`;
}

/** Builds an IPv4 header (checksum 0) around `payload`. */
export function ipv4(src: string, dst: string, proto: number, payload: Uint8Array, opts: { flags?: number; ihl?: number; tl?: number; ver?: number } = {}): Uint8Array {
  const ihl = opts.ihl ?? 5;
  const hdr = new Uint8Array(Math.max(20, ihl * 4));
  hdr[0] = ((opts.ver ?? 4) << 4) | ihl;
  const tl = opts.tl ?? hdr.length + payload.length;
  hdr[2] = tl >> 8;
  hdr[3] = tl & 0xff;
  hdr[4] = 0x12;
  hdr[5] = 0x34;
  const fl = opts.flags ?? 0;
  hdr[6] = fl >> 8;
  hdr[7] = fl & 0xff;
  hdr[8] = 64;
  hdr[9] = proto;
  hdr.set(src.split('.').map(Number), 12);
  hdr.set(dst.split('.').map(Number), 16);
  for (let i = 20; i < hdr.length; i++) hdr[i] = 1; // NOP options
  const out = new Uint8Array(hdr.length + payload.length);
  out.set(hdr);
  out.set(payload, hdr.length);
  return out;
}

/** Builds an IPv6 header around `payload` (addresses given as 16-byte prefixes 2001:db8::N). */
export function ipv6(srcLast: number, dstLast: number, nxt: number, payload: Uint8Array, plen = payload.length): Uint8Array {
  const out = new Uint8Array(40 + payload.length);
  out[0] = 0x60;
  out[4] = plen >> 8;
  out[5] = plen & 0xff;
  out[6] = nxt;
  out[7] = 64;
  out.set([0x20, 0x01, 0x0d, 0xb8], 8);
  out[23] = srcLast;
  out.set([0x20, 0x01, 0x0d, 0xb8], 24);
  out[39] = dstLast;
  out.set(payload, 40);
  return out;
}

/** UDP header + payload. */
export function udp(sport: number, dport: number, payload: Uint8Array = new Uint8Array(4), len = 8 + payload.length): Uint8Array {
  const out = new Uint8Array(8 + payload.length);
  out.set([sport >> 8, sport & 0xff, dport >> 8, dport & 0xff, len >> 8, len & 0xff, 0, 0]);
  out.set(payload, 8);
  return out;
}

/** TCP header (20 bytes + options) with 12-bit flags. */
export function tcp(sport: number, dport: number, flags: number, dataOffsetWords = 5): Uint8Array {
  const out = new Uint8Array(Math.max(20, dataOffsetWords * 4));
  out.set([sport >> 8, sport & 0xff, dport >> 8, dport & 0xff, 0, 0, 0, 1, 0, 0, 0, 0]);
  out[12] = (dataOffsetWords << 4) | ((flags >> 8) & 0x0f);
  out[13] = flags & 0xff;
  out[14] = 0xff;
  out[15] = 0xff;
  for (let i = 20; i < out.length; i++) out[i] = 1;
  return out;
}

/** Ethernet header (zero MACs but locally administered) + payload. */
export function eth(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(14 + payload.length);
  out.set([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, type >> 8, type & 0xff]);
  out.set(payload, 14);
  return out;
}
