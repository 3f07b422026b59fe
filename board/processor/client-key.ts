/**
 * What the schedulers and the persistence table key a new connection's client by: the hash of
 * its source address alone (the `sh` scheduler's input, IPVS ip_vs_sh.c folds IPv6 the same way),
 * and the source address masked to a persistence netmask (ipvsadm -M).
 */
import type { FlowTuple } from '../packet/flow-tuple.ts';

/** Hash of a tuple's source address alone: IPv4 as a u32, IPv6 its four words XORed. */
export function srcHash(t: FlowTuple): number {
  const s = t.src;
  let h = ((s[0]! << 24) | (s[1]! << 16) | (s[2]! << 8) | s[3]!) >>> 0;
  if (t.family === 6) {
    for (let i = 4; i < 16; i += 4) h = (h ^ (((s[i]! << 24) | (s[i + 1]! << 16) | (s[i + 2]! << 8) | s[i + 3]!) >>> 0)) >>> 0;
  }
  return h;
}

/**
 * The client address of `t` masked to its `bits` leading bits (ipvsadm -M), written into `out`
 * (16 bytes, reused); the tuple's own array when `bits` covers the whole address.
 */
export function maskedSource(t: FlowTuple, bits: number, out: Uint8Array): Uint8Array {
  const full = t.family === 6 ? 128 : 32;
  if (bits >= full) return t.src;
  out.fill(0);
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) out[i] = t.src[i]!;
  if ((bits & 7) !== 0) out[whole] = t.src[whole]! & ((0xff << (8 - (bits & 7))) & 0xff);
  return out;
}
