/**
 * The switch chip's hash functions behind one shape, chosen by name (EcmpConfig.hash):
 * `pearson` (16-bit, FM4224-style; the default), `crc32` (zlib/IEEE), `crc16` (CRC-16/CCITT-FALSE)
 * and `toeplitz` (Microsoft RSS, 40-byte key). Every function returns an unsigned 32-bit number;
 * 16-bit hashes are zero-extended.
 *
 * `layout` tells the field selector which byte layout the hash expects (board/switch/field-select.ts):
 * `standard` = addresses, protocol, ports; `rss` = addresses then ports, no protocol (the layout
 * the RSS verification vectors use).
 */
import type { HashAlgorithmName } from '../switch-config.ts';
import { crc16ccitt, crc32 } from './crc.ts';
import { pearson16 } from './pearson.ts';
import { ToeplitzHasher } from './toeplitz.ts';

export { crc16ccitt, crc32 } from './crc.ts';
export { PEARSON_TABLE, pearson8, pearson16, pearson16V4 } from './pearson.ts';
export { parseToeplitzKey, ToeplitzHasher, TOEPLITZ_KEY_BYTES, TOEPLITZ_MAX_INPUT } from './toeplitz.ts';

/** A hash over `data[0..len)` returning an unsigned 32-bit value. */
export type HashFn = (data: Uint8Array, len: number) => number;

/** Hash input layout: see the module header. */
export type HashLayout = 'standard' | 'rss';

/** One configured hash function. */
export interface HashAlgorithm {
  readonly name: HashAlgorithmName;
  /** Significant output bits (16 or 32); the value is zero-extended to 32 bits. */
  readonly bits: 16 | 32;
  readonly layout: HashLayout;
  readonly hash: HashFn;
}

/** Every algorithm name, in the order the CLI and the bench list them. */
export const HASH_ALGORITHMS: readonly HashAlgorithmName[] = ['pearson', 'crc32', 'crc16', 'toeplitz'];

/** Type guard for algorithm names (CLI and config validation). */
export function isHashAlgorithmName(s: unknown): s is HashAlgorithmName {
  return typeof s === 'string' && (HASH_ALGORITHMS as readonly string[]).includes(s);
}

/**
 * Builds the named hash.
 * @param name         algorithm
 * @param toeplitzKey  40-byte key (bytes or 80 hex digits); required for `toeplitz`, ignored otherwise
 * @throws TypeError for an unknown name or a missing/malformed Toeplitz key; RangeError for a key
 *         that is not 40 bytes
 */
export function createHash(name: HashAlgorithmName, toeplitzKey?: Uint8Array | string): HashAlgorithm {
  switch (name) {
    case 'pearson':
      return { name, bits: 16, layout: 'standard', hash: pearson16 };
    case 'crc32':
      return { name, bits: 32, layout: 'standard', hash: crc32 };
    case 'crc16':
      return { name, bits: 16, layout: 'standard', hash: crc16ccitt };
    case 'toeplitz': {
      if (toeplitzKey === undefined) throw new TypeError('toeplitz hash needs a 40-byte key');
      const h = new ToeplitzHasher(toeplitzKey);
      return { name, bits: 32, layout: 'rss', hash: (d, n) => h.hash(d, n) };
    }
    default:
      throw new TypeError(`unknown hash algorithm '${String(name)}' (expected ${HASH_ALGORITHMS.join(', ')})`);
  }
}
