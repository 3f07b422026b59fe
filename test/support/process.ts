/**
 * Process checks for end-to-end tests that start real processes.
 */
import { readFileSync } from 'node:fs';

/**
 * True while the process exists and has not exited: an exited child whose parent died may linger
 * as a zombie until init reaps it, which `kill(pid, 0)` alone would report as alive (Linux /proc).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
