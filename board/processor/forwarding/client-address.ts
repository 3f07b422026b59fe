/**
 * The client's address towards the RS under `fullnat` (a service's `client_address`):
 * - `none`: the RS sees the board's local address only;
 * - `toa`: a TCP option of kind 254 (toa.ts) on the client's SYN and on its first segment after
 *   the SYN (the handshake's ACK or the first data), as DPVS does;
 * - `proxy-protocol`: a PROXY v2 header (proxy-protocol.ts) before the client's first data byte,
 *   every later client sequence number moved up by its length and the RS's acknowledgements down.
 *
 * `ClientAddressStage` applies the chosen mode to one TCP segment of a connection, after the
 * `fullnat` rewrite (nat.ts), with the connection's `ClientAddressState`: the state a takeover
 * needs, `encodeClientAddressState` gives its sync bytes. On the SYN the MSS option is lowered by
 * the bytes the mode adds (so a full-sized first segment still fits the path once the header or
 * option is in it). A segment with no room goes out unchanged and is counted; a connection picked
 * up mid-stream (no SYN seen) gets no PROXY header (its stream has begun) and is counted.
 * A retransmission of the first data segment gets the header again (the RS's stream needs it at
 * the same place); if it no longer fits, that segment is dropped (counted), never sent unshifted.
 * UDP is left alone (the YAML allows `toa` and `proxy-protocol` for TCP services only).
 */
import { adjust16, read16, write16 } from '../../packet/checksum.ts';
import { DecodeError } from '../../common/errors.ts';
import type { IpLayout } from '../../packet/ip-layout.ts';
import { encodeProxyV2, proxyV2Length, shiftAckOutbound, shiftSeqInbound, tcpSeq, type ProxyEndpoints } from './proxy-protocol.ts';
import { openTcpSpace, tcpHeaderLength } from './tcp-insert.ts';
import { insertToa, toaLength } from './toa.ts';
import type { Translation } from './translation.ts';

export type ClientAddressMode = 'none' | 'toa' | 'proxy-protocol';
export const CLIENT_ADDRESS_MODES: readonly ClientAddressMode[] = ['none', 'toa', 'proxy-protocol'];

/** PROXY header progress of a connection. */
export const ProxyPhase = {
  /** No SYN seen yet. */
  NONE: 0,
  /** SYN seen; the header waits for the first data byte (shifting applies). */
  WAITING: 1,
  /** The header went out (shifting applies). */
  SENT: 2,
  /** No header on this connection (picked up mid-stream, or no room): nothing shifted. */
  OFF: 3,
} as const;

/** Per-connection state of the stage (what the buddy needs to continue the connection). */
export interface ClientAddressState {
  /** `toa`: the first segment after the SYN has yet to carry the option. */
  toaPending: boolean;
  /** `proxy-protocol`: a ProxyPhase. */
  proxy: number;
  /** `proxy-protocol`: the client's first data sequence number (its ISN + 1). */
  first: number;
}

/** A fresh state (a new connection). */
export function newClientAddressState(): ClientAddressState {
  return { toaPending: false, proxy: ProxyPhase.NONE, first: 0 };
}

/** Counters of the stage. */
export interface ClientAddressCounters {
  toaOnSyn: number;
  toaOnFirstAck: number;
  /** Segments that should have carried TOA but had no room (options full or MTU). */
  toaNoRoom: number;
  proxyHeaders: number;
  /** Retransmissions of the first data segment that got the header again. */
  proxyResent: number;
  /** Connections without a header: the first data segment had no room. */
  proxyNoRoom: number;
  /** Connections without a header: picked up mid-stream. */
  proxyMidstream: number;
  /** Retransmitted first segments dropped: the header no longer fits. */
  proxyDropped: number;
  /** SYNs whose MSS option was lowered. */
  mssLowered: number;
}

/** Bytes of a synced state: u8 flags (bit 0 toaPending), u8 proxy phase, u32 first. */
export const CLIENT_ADDRESS_STATE_LENGTH = 6;

/**
 * Encodes `st` into `buf` at `offset` (big-endian, see CLIENT_ADDRESS_STATE_LENGTH).
 * @returns the offset after it
 * @throws RangeError when `buf` is too short
 */
export function encodeClientAddressState(st: ClientAddressState, buf: Uint8Array, offset: number): number {
  if (offset < 0 || offset + CLIENT_ADDRESS_STATE_LENGTH > buf.length) throw new RangeError(`client address state: need 6 bytes at ${offset}, buffer has ${buf.length}`);
  buf[offset] = st.toaPending ? 1 : 0;
  buf[offset + 1] = st.proxy;
  const f = st.first >>> 0;
  buf[offset + 2] = f >>> 24;
  buf[offset + 3] = (f >>> 16) & 0xff;
  buf[offset + 4] = (f >>> 8) & 0xff;
  buf[offset + 5] = f & 0xff;
  return offset + CLIENT_ADDRESS_STATE_LENGTH;
}

/**
 * Decodes what `encodeClientAddressState` wrote into `into`.
 * @returns the offset after it
 * @throws DecodeError (layer 'client-address') on a short buffer, unknown flags or phase
 */
export function decodeClientAddressState(buf: Uint8Array, offset: number, into: ClientAddressState): number {
  if (offset + CLIENT_ADDRESS_STATE_LENGTH > buf.length) throw new DecodeError('client-address', 'state', offset, `need 6 bytes, have ${Math.max(0, buf.length - offset)}`);
  if (buf[offset]! > 1) throw new DecodeError('client-address', 'flags', offset, `unknown flags 0x${buf[offset]!.toString(16)}`);
  if (buf[offset + 1]! > ProxyPhase.OFF) throw new DecodeError('client-address', 'phase', offset + 1, `unknown PROXY phase ${buf[offset + 1]}`);
  into.toaPending = buf[offset] === 1;
  into.proxy = buf[offset + 1]!;
  into.first = ((buf[offset + 2]! << 24) | (buf[offset + 3]! << 16) | (buf[offset + 4]! << 8) | buf[offset + 5]!) >>> 0;
  return offset + CLIENT_ADDRESS_STATE_LENGTH;
}

/**
 * Lowers the MSS option (kind 2, RFC 9293 §3.7.1) of the segment at `ip.l4` by `by` bytes, with
 * the checksum adjusted incrementally. @returns true when the segment had an MSS option
 */
export function lowerMss(frame: Uint8Array, ip: IpLayout, by: number): boolean {
  const l4 = ip.l4;
  const end = l4 + tcpHeaderLength(frame, ip);
  let p = l4 + 20;
  while (p < end) {
    const kind = frame[p]!;
    if (kind === 0) return false;
    if (kind === 1) {
      p++;
      continue;
    }
    if (p + 1 >= end) return false;
    const len = frame[p + 1]!;
    if (len < 2 || p + len > end) return false;
    if (kind === 2 && len === 4) {
      const old = read16(frame, p + 2);
      const mss = Math.max(old - by, 88);
      write16(frame, l4 + 16, adjust16(read16(frame, l4 + 16), old, mss));
      write16(frame, p + 2, mss);
      return true;
    }
    p += len;
  }
  return false;
}

const TCP_FIN_SYN_RST_ACK = { SYN: 0x02, RST: 0x04, ACK: 0x10 };

/** Applies a service's `client_address` mode to the segments of its `fullnat` connections. */
export class ClientAddressStage {
  readonly counters: ClientAddressCounters = {
    toaOnSyn: 0, toaOnFirstAck: 0, toaNoRoom: 0, proxyHeaders: 0, proxyResent: 0, proxyNoRoom: 0,
    proxyMidstream: 0, proxyDropped: 0, mssLowered: 0,
  };
  private readonly scratch = new Uint8Array(64);
  private readonly ends: ProxyEndpoints = { family: 4, proto: 6, src: new Uint8Array(16), srcPort: 0, dst: new Uint8Array(16), dstPort: 0 };

  /** @param mtu the back side's IP MTU (bytes a grown datagram may reach), e.g. 1500 */
  constructor(private readonly mtu: number) {}

  /**
   * A client → RS TCP segment of connection `t` (already rewritten by `natInbound`).
   * @param len the frame's length; `ip` its layout (updated when the segment grows)
   * @returns the new frame length, or −1: drop the segment (see the module header)
   */
  inbound(mode: ClientAddressMode, frame: Uint8Array, ip: IpLayout, len: number, t: Translation, st: ClientAddressState): number {
    if (mode === 'none' || ip.proto !== 6 || ip.l4 < 0 || ip.fragment) return len;
    const flags = frame[ip.l4 + 13]!;
    const syn = (flags & (TCP_FIN_SYN_RST_ACK.SYN | TCP_FIN_SYN_RST_ACK.ACK)) === TCP_FIN_SYN_RST_ACK.SYN;
    const rst = (flags & TCP_FIN_SYN_RST_ACK.RST) !== 0;
    return mode === 'toa' ? this.toa(frame, ip, len, t, st, syn, rst) : this.proxy(frame, ip, len, t, st, syn, rst);
  }

  /** An RS → client TCP segment (already rewritten by `natOutbound`). */
  outbound(mode: ClientAddressMode, frame: Uint8Array, ip: IpLayout, st: ClientAddressState): void {
    if (mode !== 'proxy-protocol' || ip.proto !== 6 || ip.l4 < 0 || ip.fragment) return;
    if (st.proxy !== ProxyPhase.WAITING && st.proxy !== ProxyPhase.SENT) return;
    shiftAckOutbound(frame, ip, st.first, proxyV2Length(ip.family === 6 ? 6 : 4));
  }

  private toa(frame: Uint8Array, ip: IpLayout, len: number, t: Translation, st: ClientAddressState, syn: boolean, rst: boolean): number {
    const n = toaLength(t.family);
    if (syn) {
      if (lowerMss(frame, ip, n)) this.counters.mssLowered++;
      st.toaPending = true;
    } else if (!st.toaPending || rst) {
      return len;
    } else {
      st.toaPending = false;
    }
    const out = insertToa(frame, ip, len, t.client, t.clientPort, this.mtu, this.scratch);
    if (out < 0) {
      this.counters.toaNoRoom++;
      return len;
    }
    if (syn) this.counters.toaOnSyn++;
    else this.counters.toaOnFirstAck++;
    return out;
  }

  private proxy(frame: Uint8Array, ip: IpLayout, len: number, t: Translation, st: ClientAddressState, syn: boolean, rst: boolean): number {
    const fam = t.family;
    const delta = proxyV2Length(fam);
    if (syn) {
      if (lowerMss(frame, ip, delta)) this.counters.mssLowered++;
      st.first = (tcpSeq(frame, ip.l4) + 1) >>> 0;
      st.proxy = ProxyPhase.WAITING;
      return len;
    }
    if (st.proxy === ProxyPhase.NONE) {
      st.proxy = ProxyPhase.OFF;
      this.counters.proxyMidstream++;
    }
    if (st.proxy === ProxyPhase.OFF) return len;
    const hl = tcpHeaderLength(frame, ip);
    const payload = ip.end - (ip.l4 + hl);
    if (!rst && payload > 0 && tcpSeq(frame, ip.l4) === st.first) {
      const e = this.ends;
      e.family = fam;
      e.src.set(t.client);
      e.srcPort = t.clientPort;
      e.dst.set(t.vip);
      e.dstPort = t.vipPort;
      encodeProxyV2(e, this.scratch, 0);
      const out = openTcpSpace(frame, ip, len, ip.l4 + hl, this.scratch.subarray(0, delta), this.mtu, false);
      if (out >= 0) {
        if (st.proxy === ProxyPhase.SENT) this.counters.proxyResent++;
        else this.counters.proxyHeaders++;
        st.proxy = ProxyPhase.SENT;
        return out;
      }
      if (st.proxy === ProxyPhase.SENT) {
        this.counters.proxyDropped++;
        return -1;
      }
      st.proxy = ProxyPhase.OFF;
      this.counters.proxyNoRoom++;
      return len;
    }
    shiftSeqInbound(frame, ip, st.first, delta);
    return len;
  }
}
