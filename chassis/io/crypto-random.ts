/**
 * The wall-clock implementation of `Platform.cryptoRandom` (chassis/platform.ts): node:crypto's
 * CSPRNG (randomFillSync, the kernel's getrandom). The only place the product takes secret-grade
 * randomness from the OS; the core receives it through the Platform.
 */
import { randomFillSync } from 'node:crypto';
import type { CryptoRandom } from '../platform.ts';

/** `n` bytes from node:crypto's CSPRNG. @throws RangeError when n > 2^31-1 (node:crypto's bound) */
export const nodeCryptoRandom: CryptoRandom = (n) => randomFillSync(new Uint8Array(n));
