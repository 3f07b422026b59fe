/**
 * Platform: what the core needs from the outside world, handed down from the composition root
 * (OpenIPMI lanserv's `sysinfo` idea without the sockets): a clock, a logger and randomness — the
 * only seam through which the core gets time or random numbers.
 * Wall-clock runs get SystemClock + pino + an OS-seeded Random + node:crypto bytes
 * (chassis/io/crypto-random.ts); simulated runs and tests get SimClock + a capturing or null
 * logger + SeededRandom(seed) + `seededCryptoRandom` (so a scenario reproduces from its seed).
 */
import type { Clock } from '../board/common/clock.ts';
import type { Logger } from '../board/common/logger.ts';
import type { Random } from '../board/common/random.ts';

/**
 * Cryptographically strong random bytes: `n` (0..65536) fresh bytes per call. Used for what must
 * not be guessable: RMCP+/RAKP random numbers and session IDs (IPMI v2.0 §13.20, §13.31), IPMI 1.5
 * challenge strings and session IDs (§22.16), generated administrator passwords and the system GUID.
 */
export type CryptoRandom = (n: number) => Uint8Array;

export interface Platform {
  clock: Clock;
  log: Logger;
  /** Seeded pseudo-random numbers (schedulers, simulated RS, chaos). Never for secrets. */
  random: Random;
  /** Secret-grade random bytes (see CryptoRandom). */
  cryptoRandom: CryptoRandom;
}

/**
 * A deterministic stand-in for `Platform.cryptoRandom`: each byte is `random.int(256)`, so a
 * simulated run or a test reproduces from its seed. The bytes are predictable: never hand this
 * to a shelf that real clients reach (chassis/io/crypto-random.ts is the real one).
 */
export function seededCryptoRandom(random: Random): CryptoRandom {
  return (n) => {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = random.int(256);
    return b;
  };
}
