/**
 * Wall-clock implementation of the Clock port (the only place real timers are created).
 * `now()` is performance.now() (ms, monotonic, fractional).
 */
import { performance } from 'node:perf_hooks';
import type { Clock, TimerId } from '../../board/common/clock.ts';

export class SystemClock implements Clock {
  now(): number {
    return performance.now();
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    return setTimeout(fn, Math.max(0, ms));
  }

  clearTimeout(id: TimerId): void {
    clearTimeout(id as ReturnType<typeof setTimeout>);
  }
}
