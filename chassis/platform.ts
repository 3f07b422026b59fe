/**
 * Platform: what the core needs from the outside world, handed down from the composition root
 * (OpenIPMI lanserv's `sysinfo` idea without the sockets): a clock, a logger and randomness.
 * Wall-clock runs get SystemClock + pino + a seeded or OS-seeded Random; simulated runs get
 * SimClock + a capturing or null logger + SeededRandom(seed).
 */
import type { Clock } from '../board/common/clock.ts';
import type { Logger } from '../board/common/logger.ts';
import type { Random } from '../board/common/random.ts';

export interface Platform {
  clock: Clock;
  log: Logger;
  random: Random;
}
