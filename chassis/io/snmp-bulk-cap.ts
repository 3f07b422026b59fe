/**
 * A bound on the work one SNMP GetBulk request can ask of net-snmp's agent (docs/snmp.md).
 *
 * Why: net-snmp (npm 3.29) answers a GetBulk synchronously by looping until its response holds
 * max-repetitions varbinds; past the end of the MIB it keeps appending endOfMibView bindings, so a
 * single `snmpbulkget -Cr1000000` (or a raw max-repetitions of 0x7fffffff) blocks the event loop —
 * no IPMI, no signals, memory growing to gigabytes. Real agents bound the answer by the message size;
 * RFC 3416 §4.2.3 lets an agent answer a GetBulk with fewer variable bindings than asked for (the
 * trailing ones dropped), so atcasim clamps the request before net-snmp's handler runs.
 *
 * Where: the hook sits on the agent's own `getBulkRequest` method, which net-snmp calls after it has
 * decoded, authenticated and (SNMPv3 authPriv) decrypted the message — so it covers v2c and v3 with
 * or without privacy alike; a datagram-level guard could not read an encrypted v3 PDU.
 */

/** The bounds applied to every GetBulk (RFC 3416 §4.2.3 fields). */
export interface BulkLimits {
  /** Largest max-repetitions passed on (net-snmp counts it as the response's total varbinds). */
  maxRepetitions: number;
  /** Largest number of request varbinds kept (non-repeaters and repeaters together; trailing ones dropped). */
  maxVarbinds: number;
}

/** atcasim's bounds: 64 repetitions, 64 request varbinds (an answer stays within one UDP datagram). */
export const BULK_LIMITS: BulkLimits = { maxRepetitions: 64, maxVarbinds: 64 };

/** The fields of net-snmp's decoded GetBulk PDU that the cap reads and rewrites. */
export interface BulkPduFields {
  nonRepeaters: number;
  maxRepetitions: number;
  varbinds: unknown[];
}

/** What a cap changed: the values as they arrived. */
export interface BulkCapped {
  maxRepetitions: number;
  nonRepeaters: number;
  varbinds: number;
}

/**
 * Clamps `pdu` in place: max-repetitions to [0, limits.maxRepetitions], the varbind list to its first
 * limits.maxVarbinds, non-repeaters to [0, kept varbinds] (RFC 3416 §4.2.3: a negative value counts
 * as 0). Returns the values as they arrived when anything changed, null when the request was within
 * bounds. Never throws (non-numbers count as 0).
 */
export function capGetBulk(pdu: BulkPduFields, limits: BulkLimits = BULK_LIMITS): BulkCapped | null {
  const was: BulkCapped = { maxRepetitions: pdu.maxRepetitions, nonRepeaters: pdu.nonRepeaters, varbinds: pdu.varbinds.length };
  const clamp = (v: number, hi: number) => (Number.isFinite(v) ? Math.min(Math.max(Math.trunc(v), 0), hi) : 0);
  if (pdu.varbinds.length > limits.maxVarbinds) pdu.varbinds = pdu.varbinds.slice(0, limits.maxVarbinds);
  pdu.maxRepetitions = clamp(pdu.maxRepetitions, limits.maxRepetitions);
  pdu.nonRepeaters = clamp(pdu.nonRepeaters, pdu.varbinds.length);
  const same = was.maxRepetitions === pdu.maxRepetitions && was.nonRepeaters === pdu.nonRepeaters && was.varbinds === pdu.varbinds.length;
  return same ? null : was;
}

/** The part of net-snmp's Agent the hook replaces (an own property shadows the prototype's method). */
interface BulkHandling {
  getBulkRequest(socket: unknown, message: { pdu: BulkPduFields }, rinfo: unknown): void;
}

/**
 * Wraps `agent`'s GetBulk handler so every request is clamped by capGetBulk(`limits`) first; `onCap`
 * gets the original values of each request that was changed.
 * @throws TypeError when `agent` has no getBulkRequest method (a net-snmp whose internals changed)
 */
export function installBulkCap(agent: object, onCap: (was: BulkCapped) => void, limits: BulkLimits = BULK_LIMITS): void {
  const a = agent as Partial<BulkHandling>;
  const original = a.getBulkRequest;
  if (typeof original !== 'function') throw new TypeError('net-snmp Agent has no getBulkRequest method: the GetBulk cap cannot be installed');
  a.getBulkRequest = function (this: BulkHandling, socket, message, rinfo) {
    const was = capGetBulk(message.pdu, limits);
    if (was) onCap(was);
    original.call(this, socket, message, rinfo);
  };
}
