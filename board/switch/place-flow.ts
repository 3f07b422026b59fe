/**
 * "Where will this flow go?" without a running shelf: builds a flow tuple from text, hashes it with
 * an ECMP profile, and maps it over a member list — what `atcasim hash` prints, and what tests and
 * the bench use. Control path (allocates).
 */
import { FlowTuple } from '../packet/flow-tuple.ts';
import { CommandError } from '../common/errors.ts';
import { EcmpGroup } from './ecmp-group.ts';
import { FieldSelector } from './field-select.ts';
import { createHash } from './hash/index.ts';
import { parseIp } from './ip-text.ts';
import { DEFAULT_ECMP, type EcmpConfig, type EcmpMember } from './switch-config.ts';

/** IP protocol numbers by name (IANA). */
export const PROTOCOL_NUMBERS: Readonly<Record<string, number>> = { icmp: 1, tcp: 6, udp: 17, gre: 47, icmpv6: 58, sctp: 132 };

/** A flow written as text (CLI style). */
export interface FlowText {
  src: string;
  dst: string;
  /** Both ports or neither (0..65535). */
  sport?: number;
  dport?: number;
  /** Protocol name (tcp, udp, sctp, icmp, icmpv6, gre) or number 0..255; default tcp. */
  proto?: string | number;
}

/**
 * Builds a FlowTuple from text. With ports, `hasPorts` is true (the protocol must then be TCP, UDP
 * or SCTP); without, the tuple is L3 only.
 * @throws CommandError with code `bad_address` (not IPv4/IPv6, or mixed families), `bad_port`
 *         (not an integer 0..65535, or only one port given), `bad_protocol` (unknown name, out of
 *         range, or ports with a protocol that has none)
 */
export function tupleFromText(f: FlowText): FlowTuple {
  const src = parseIp(f.src);
  if (!src) throw new CommandError('bad_address', `source '${f.src}' is not an IPv4 or IPv6 address`);
  const dst = parseIp(f.dst);
  if (!dst) throw new CommandError('bad_address', `destination '${f.dst}' is not an IPv4 or IPv6 address`);
  if (src.family !== dst.family) {
    throw new CommandError('bad_address', `source is IPv${src.family} but destination is IPv${dst.family}`);
  }
  let proto: number;
  if (f.proto === undefined) proto = 6;
  else if (typeof f.proto === 'number' || /^[0-9]+$/.test(f.proto)) {
    proto = Number(f.proto);
    if (!Number.isInteger(proto) || proto < 0 || proto > 255) throw new CommandError('bad_protocol', `protocol number ${f.proto} is outside 0..255`);
  } else {
    const p = PROTOCOL_NUMBERS[f.proto.toLowerCase()];
    if (p === undefined) throw new CommandError('bad_protocol', `unknown protocol '${f.proto}' (expected ${Object.keys(PROTOCOL_NUMBERS).join(', ')} or 0..255)`);
    proto = p;
  }
  const hasSport = f.sport !== undefined;
  const hasDport = f.dport !== undefined;
  if (hasSport !== hasDport) throw new CommandError('bad_port', 'give both --sport and --dport, or neither');
  for (const [name, v] of [['source', f.sport], ['destination', f.dport]] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < 0 || v > 65535)) {
      throw new CommandError('bad_port', `${name} port ${v} is not an integer in 0..65535`);
    }
  }
  if (hasSport && proto !== 6 && proto !== 17 && proto !== 132) {
    throw new CommandError('bad_protocol', `protocol ${proto} has no ports (ports need tcp, udp or sctp)`);
  }
  const t = new FlowTuple();
  t.family = src.family;
  t.src.set(src.bytes);
  t.dst.set(dst.bytes);
  t.proto = proto;
  t.hasPorts = hasSport;
  t.sport = f.sport ?? 0;
  t.dport = f.dport ?? 0;
  return t;
}

/**
 * The ECMP hash of a tuple under a profile (fields, hash, symmetric, toeplitzKey; defaults
 * DEFAULT_ECMP). The l2 profile hashes L3+L4 here (a tuple has no MACs).
 * @returns unsigned 32-bit hash (16-bit hashes zero-extended; 0 for a tuple without IP header)
 * @throws TypeError/RangeError for a bad profile (see createHash, FieldSelector)
 */
export function hashFlow(config: Partial<EcmpConfig>, tuple: FlowTuple): number {
  const c = { ...DEFAULT_ECMP, ...config };
  const algo = createHash(c.hash, c.toeplitzKey);
  const sel = new FieldSelector({ fields: c.fields, symmetric: c.symmetric, tunnel: c.tunnel, layout: algo.layout });
  const n = sel.selectTuple(tuple);
  return n > 0 ? algo.hash(sel.buf, n) : 0;
}

/** Where a flow lands: hash, hub port, board slot and resilient bucket (-1 when not applicable). */
export interface FlowPlacement {
  hash: number;
  port: number;
  slot: number;
  bucket: number;
}

/**
 * Maps a flow over an ECMP member list with every member up, as a freshly configured shelf would
 * (both hubs alike). Port and slot are -1 when `members` is empty.
 * @throws TypeError/RangeError for a bad configuration or member list (see EcmpGroup)
 */
export function placeFlow(config: EcmpConfig, members: readonly EcmpMember[], tuple: FlowTuple): FlowPlacement {
  const group = new EcmpGroup(config, members);
  const hash = hashFlow(config, tuple);
  const port = group.select(hash);
  return { hash, port, slot: group.slotOf(port), bucket: group.bucketOf(hash) };
}
