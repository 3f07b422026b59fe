/**
 * ACLs and blacklists of the processor board over the ternary table: value/mask rules on
 * (family, protocol, source prefix, destination prefix, destination port), first match by
 * priority wins, action drop or permit; no match permits. Checked for the first packet of a
 * connection (a session-table miss), as TGW checks its per-rule blacklist at scheduling time:
 * a rule added later does not cut sessions already in the table.
 */
import type { FlowTuple } from '../packet/flow-tuple.ts';
import type { AclRuleConfig } from './processor-config.ts';
import { parsePrefix, word } from './ip-address.ts';
import { protocolNumber } from './vip.ts';
import { TernaryTable } from './tcam/ternary-table.ts';

/** Key words: [family << 8 | proto, src 0..3, dst 0..3, sport << 16 | dport]. */
const ACL_WORDS = 10;

/** Result codes of the ACL. */
export const ACL_PERMIT = 0;
export const ACL_DROP = 1;

/** The board's ACL (a fixed-capacity ternary table). */
export class Acl {
  readonly table: TernaryTable;
  private readonly key = new Uint32Array(ACL_WORDS);

  /** @param capacity rules the table can hold (SessionTableConfig.aclCapacity) */
  constructor(capacity: number) {
    this.table = new TernaryTable(ACL_WORDS, capacity);
  }

  /**
   * Adds a rule. A rule naming a source or destination prefix matches that family only; a rule
   * without prefixes matches both families.
   * @returns the rule id (for `remove`)
   * @throws TernaryTableFullError (code `table_full`) when the ACL is full; TypeError on bad fields
   */
  add(rule: AclRuleConfig): number {
    const value = new Array<number>(ACL_WORDS).fill(0);
    const mask = new Array<number>(ACL_WORDS).fill(0);
    let family = 0;
    const prefix = (text: string, at: number): void => {
      const p = parsePrefix(text);
      if (family !== 0 && family !== p.family) throw new TypeError(`ACL rule mixes address families (${rule.src} / ${rule.dst})`);
      family = p.family;
      for (let w = 0; w < 4; w++) {
        const bits = Math.max(0, Math.min(32, p.length - 32 * w));
        mask[at + w] = bits === 0 ? 0 : bits === 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
        value[at + w] = word(p.bytes, w);
      }
    };
    if (rule.src) prefix(rule.src, 1);
    if (rule.dst) prefix(rule.dst, 5);
    const proto = rule.protocol ? protocolNumber(rule.protocol) : -1;
    value[0] = (family << 8) | (proto < 0 ? 0 : proto);
    mask[0] = (family ? 0xff00 : 0) | (proto < 0 ? 0 : 0xff);
    if (rule.dport !== undefined && rule.dport !== 0) {
      if (!Number.isInteger(rule.dport) || rule.dport < 0 || rule.dport > 65535) throw new TypeError(`ACL rule: bad dport ${rule.dport}`);
      value[9] = rule.dport;
      mask[9] = 0xffff;
    }
    if (rule.action !== 'drop' && rule.action !== 'permit') throw new TypeError(`ACL rule: action must be drop or permit`);
    return this.table.add(value, mask, rule.priority, rule.action === 'drop' ? ACL_DROP : ACL_PERMIT);
  }

  /** Removes a rule by id. */
  remove(id: number): boolean {
    return this.table.remove(id);
  }

  /** True when the best matching rule drops the packet. No allocation. */
  drops(t: FlowTuple): boolean {
    if (this.table.size === 0) return false;
    const k = this.key;
    k[0] = (t.family << 8) | (t.proto & 0xff);
    const s = t.src;
    const d = t.dst;
    for (let w = 0; w < 4; w++) {
      const o = w << 2;
      k[1 + w] = ((s[o]! << 24) | (s[o + 1]! << 16) | (s[o + 2]! << 8) | s[o + 3]!) >>> 0;
      k[5 + w] = ((d[o]! << 24) | (d[o + 1]! << 16) | (d[o + 2]! << 8) | d[o + 3]!) >>> 0;
    }
    k[9] = t.hashPorts ? ((t.sport << 16) | t.dport) >>> 0 : 0;
    const id = this.table.lookup(k);
    return id >= 0 && this.table.resultOf(id) === ACL_DROP;
  }
}
