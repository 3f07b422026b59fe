/**
 * Forwarding modes and the per-connection translation they apply (LVS/IPVS's "packet forwarding
 * methods", DPVS's FNAT):
 * - `tunnel`: IPIP/GRE to the RS (encap.ts; the RS decapsulates), no translation;
 * - `dr`: direct routing — only the Ethernet destination changes to the RS's MAC; the VIP stays
 *   the destination, the RS holds it on its loopback (arp_ignore=1, arp_announce=2) and answers
 *   the client directly;
 * - `nat`: DNAT — VIP:port → RS:port on the way in, and the reverse (RS:port → VIP:port as the
 *   source) on the replies, which the RS routes back through the appliance (RFC 3022's NAPT with
 *   the roles of inside and outside swapped: the "inside" are the servers);
 * - `fullnat`: DNAT as `nat`, plus SNAT of the client to a local address and port of the board,
 *   so replies come back to the board by ordinary routing; the reverse on the way back.
 *
 * `Translation` is what one connection needs to be translated identically in both directions and
 * after a takeover: the client side (client, VIP) and the server side (source the RS sees, RS).
 * Of it a session record already carries client, VIP, their ports and the RS index (hence the RS
 * address and port, from the configuration); what it must add is the local address and port of a
 * `fullnat` connection — `encodeLocalBinding` / `decodeLocalBinding` give the bytes a sync
 * message appends for it.
 */
import { DecodeError } from '../../common/errors.ts';

export type ForwardingMode = 'tunnel' | 'dr' | 'nat' | 'fullnat';
export const FORWARDING_MODES: readonly ForwardingMode[] = ['tunnel', 'dr', 'nat', 'fullnat'];

/** Outcome of a translation function (0 = done; otherwise a drop reason, see XLATE_REASONS). */
export const XlateResult = {
  OK: 0,
  /** Not TCP or UDP (ICMP queries, SCTP, other protocols): the modes translate ports only for these. */
  UNSUPPORTED: 1,
  /** An ICMP error whose quoted datagram is not this translation's. */
  QUOTE_MISMATCH: 2,
  /** The frame's IP header or the ICMP error's quote is short or inconsistent. */
  MALFORMED: 3,
} as const;
export type XlateResult = (typeof XlateResult)[keyof typeof XlateResult];
/** Drop-reason names of XlateResult codes, as counters and logs show them. */
export const XLATE_REASONS: readonly string[] = ['ok', 'xlate_unsupported_protocol', 'icmp_quote_mismatch', 'xlate_malformed'];

/** One connection's translation. Addresses are 16-byte arrays (IPv4 in bytes 0..3). */
export interface Translation {
  mode: ForwardingMode;
  family: 4 | 6;
  client: Uint8Array;
  clientPort: number;
  vip: Uint8Array;
  vipPort: number;
  rs: Uint8Array;
  /** The RS's port (the service port when the RS has none configured, as IPVS). */
  rsPort: number;
  /** `fullnat`: the board's local address and port the RS sees as the client; otherwise unused. */
  local: Uint8Array;
  localPort: number;
}

/** A translation with its own zeroed address buffers. */
export function newTranslation(mode: ForwardingMode, family: 4 | 6): Translation {
  return {
    mode, family, client: new Uint8Array(16), clientPort: 0, vip: new Uint8Array(16), vipPort: 0,
    rs: new Uint8Array(16), rsPort: 0, local: new Uint8Array(16), localPort: 0,
  };
}

/** The source address the RS sees: the local address under `fullnat`, else the client's. */
export function backSource(t: Translation): Uint8Array {
  return t.mode === 'fullnat' ? t.local : t.client;
}

/** The source port the RS sees. */
export function backSourcePort(t: Translation): number {
  return t.mode === 'fullnat' ? t.localPort : t.clientPort;
}

const MODE_CODE: Record<ForwardingMode, number> = { tunnel: 0, dr: 1, nat: 2, fullnat: 3 };

/** Bytes of the local binding of a sync record: 1 (mode) + 2 (port) + 4|16 (address). */
export function localBindingLength(family: 4 | 6): number {
  return family === 6 ? 19 : 7;
}

/**
 * Encodes a connection's mode and local binding (address and port; zeros unless `fullnat`) into
 * `buf` at `offset`, big-endian: u8 mode (0 tunnel, 1 dr, 2 nat, 3 fullnat), u16 local port,
 * 4|16 bytes local address.
 * @returns the offset after it
 * @throws RangeError when `buf` is too short
 */
export function encodeLocalBinding(t: Translation, buf: Uint8Array, offset: number): number {
  const n = localBindingLength(t.family);
  if (offset < 0 || offset + n > buf.length) throw new RangeError(`local binding: need ${n} bytes at ${offset}, buffer has ${buf.length}`);
  const full = t.mode === 'fullnat';
  buf[offset] = MODE_CODE[t.mode];
  buf[offset + 1] = full ? t.localPort >>> 8 : 0;
  buf[offset + 2] = full ? t.localPort & 0xff : 0;
  const al = t.family === 6 ? 16 : 4;
  for (let i = 0; i < al; i++) buf[offset + 3 + i] = full ? t.local[i]! : 0;
  return offset + n;
}

/**
 * Decodes what `encodeLocalBinding` wrote into `into` (its `family` says the address length).
 * @returns the offset after it
 * @throws DecodeError (layer 'local-binding') on a short buffer or an unknown mode
 */
export function decodeLocalBinding(buf: Uint8Array, offset: number, into: Translation): number {
  const n = localBindingLength(into.family);
  if (offset + n > buf.length) throw new DecodeError('local-binding', 'binding', offset, `need ${n} bytes, have ${Math.max(0, buf.length - offset)}`);
  const m = FORWARDING_MODES[buf[offset]!];
  if (m === undefined) throw new DecodeError('local-binding', 'mode', offset, `unknown forwarding mode ${buf[offset]}`);
  into.mode = m;
  into.localPort = (buf[offset + 1]! << 8) | buf[offset + 2]!;
  into.local.fill(0);
  into.local.set(buf.subarray(offset + 3, offset + n));
  return offset + n;
}
