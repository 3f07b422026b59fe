/**
 * The parse result of board/packet/parse.ts: `ParsedPacket` (the `PacketView` of flow-tuple.ts
 * plus error details) and the allocation-free tuple helpers the parser and the header decoders
 * share. Its own file so the decoders (ethernet.ts, ipv4.ts, …) can name it without importing the
 * parser that imports them.
 */
import { FlowTuple, type PacketView } from './flow-tuple.ts';
import { PacketError, PacketErrorKind } from './packet-error.ts';

/** Most 802.1Q/802.1ad tags kept in `vlanIds` (more are decoded but not kept). */
export const MAX_VLAN_TAGS = 8;
const EMPTY = new Uint8Array(0);

/**
 * The parse result: implements PacketView (flow-tuple.ts) plus error details. One instance per
 * parser, overwritten by every parse; consumers copy what they keep.
 */
export class ParsedPacket implements PacketView {
  /** Buffer holding the frame at [start, start + caplen). */
  buf: Uint8Array = EMPTY;
  /** Offset of the frame in `buf`. All offsets in this object are relative to it. */
  start = 0;
  /** Captured length of the frame, bytes. */
  caplen = 0;
  origLen = 0;
  linkType = 0;
  ethOffset = -1;
  vlanCount = 0;
  readonly vlanIds = new Uint16Array(MAX_VLAN_TAGS);
  readonly outer = new FlowTuple();
  readonly inner = new FlowTuple();
  readonly quoted = new FlowTuple();
  tunnelDepth = 0;
  icmpError = false;
  innerIcmpError = false;
  malformed = false;
  /** True when the capture cut the packet inside a header (snaplen); not malformation. */
  truncated = false;
  /** The first problem found (kind NONE when there is none). Reused. */
  readonly err = new PacketError();
  private view: Uint8Array | null = null;
  /** @internal 32-bit views of the tuples' address bytes (src, dst): clearing and copying an
   * address pair is 8 word moves instead of typed-array builtin calls. */
  readonly ow0 = words(this.outer.src);
  readonly ow1 = words(this.outer.dst);
  readonly iw0 = words(this.inner.src);
  readonly iw1 = words(this.inner.dst);
  readonly qw0 = words(this.quoted.src);
  readonly qw1 = words(this.quoted.dst);

  /** The captured bytes as their own view (made on first access after each parse). */
  get frame(): Uint8Array {
    if (this.view === null) this.view = this.buf.subarray(this.start, this.start + this.caplen);
    return this.view;
  }

  /** The error, or null for a clean packet. */
  get error(): PacketError | null {
    return this.err.kind === PacketErrorKind.NONE ? null : this.err;
  }

  /** Clears everything for the next frame (no allocation). */
  reset(buf: Uint8Array, start: number, caplen: number, linkType: number, origLen: number): void {
    this.buf = buf;
    this.start = start;
    this.caplen = caplen;
    this.linkType = linkType;
    this.origLen = origLen;
    this.view = null;
    this.ethOffset = -1;
    this.vlanCount = 0;
    clearTuple(this.outer, this.ow0, this.ow1);
    if (this.tunnelDepth !== 0) clearTuple(this.inner, this.iw0, this.iw1);
    // `=== true`: a one-word compare in optimized code (a bare boolean test compiles V8's ToBoolean)
    if (this.icmpError === true || this.innerIcmpError === true) clearTuple(this.quoted, this.qw0, this.qw1);
    this.tunnelDepth = 0;
    this.icmpError = false;
    this.innerIcmpError = false;
    this.malformed = false;
    this.truncated = false;
    this.err.clear();
  }
}

function words(a: Uint8Array): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, 4);
}

/** FlowTuple.reset without the typed-array builtins (the hot path's largest cost otherwise). */
export function clearTuple(t: FlowTuple, s: Uint32Array, d: Uint32Array): void {
  t.family = 0;
  s[0] = 0;
  s[1] = 0;
  s[2] = 0;
  s[3] = 0;
  d[0] = 0;
  d[1] = 0;
  d[2] = 0;
  d[3] = 0;
  t.proto = -1;
  t.hasPorts = false;
  t.sport = 0;
  t.dport = 0;
  t.fragment = false;
  t.tcpFlags = -1;
  t.l3Offset = -1;
  t.l4Offset = -1;
  t.ipLength = 0;
}

/** Copies `outer` into `inner` (FlowTuple.copyFrom without the typed-array builtins). */
export function copyOuterToInner(p: ParsedPacket): void {
  const o = p.outer;
  const t = p.inner;
  const a = p.ow0;
  const b = p.ow1;
  const c = p.iw0;
  const e = p.iw1;
  c[0] = a[0]!;
  c[1] = a[1]!;
  c[2] = a[2]!;
  c[3] = a[3]!;
  e[0] = b[0]!;
  e[1] = b[1]!;
  e[2] = b[2]!;
  e[3] = b[3]!;
  t.family = o.family;
  t.proto = o.proto;
  t.hasPorts = o.hasPorts;
  t.sport = o.sport;
  t.dport = o.dport;
  t.fragment = o.fragment;
  t.tcpFlags = o.tcpFlags;
  t.l3Offset = o.l3Offset;
  t.l4Offset = o.l4Offset;
  t.ipLength = o.ipLength;
}
