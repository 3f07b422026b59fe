/**
 * What every CLI verb receives: output streams and the exit status to report. Verbs never call
 * process.exit themselves (so tests can run them in-process and the emulator shuts down cleanly).
 *
 * Exit status convention (all verbs): 0 ok, 1 the thing checked failed or was refused
 * (an expectation, the shelf refusing a command), 2 usage error, bad input file, connection error.
 */
import type { Writable } from 'node:stream';

export interface CliContext {
  stdout: Writable;
  stderr: Writable;
  /** Set the process exit status (the highest value set wins). */
  setExit(code: number): void;
}
