/**
 * The agent's snmpEngineID (RFC 3411 §5, SnmpEngineID): `snmp.engine_id` when configured, else
 * derived from the shelf so that it is the same across restarts and in both ShMCs — a receiver of
 * SNMPv3 notifications is configured with the sender's engine ID (`createUser -e` in snmptrapd.conf),
 * and a failover must not change it. Derived form: 80000000h | PEN of `snmp.enterprise_oid` (4
 * octets, the high bit marks the RFC 3411 format), format 05h (octets), then the 8 octets of a
 * 64-bit FNV-1a hash of the shelf's name and chassis serial.
 *
 * Pure: no I/O.
 */
import type { ShelfConfig } from '../config/types.ts';

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;

/** 64-bit FNV-1a of a string's UTF-16 code units, as 16 hex digits. */
export function fnv1a64(text: string): string {
  let h = FNV64_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * FNV64_PRIME) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/** The engine ID in force for a shelf, as lower-case hex. */
export function engineIdOf(c: Pick<ShelfConfig, 'name' | 'chassisFru' | 'snmp'>): string {
  if (c.snmp.engineId) return c.snmp.engineId;
  const pen = Number(c.snmp.enterpriseOid.split('.')[6] ?? 0) >>> 0;
  const head = ((0x80000000 | pen) >>> 0).toString(16).padStart(8, '0');
  return `${head}05${fnv1a64(`${c.name}\u0000${c.chassisFru.serial}`)}`;
}
