/**
 * The control-socket operations every running shelf answers (chassis/runtime/control-ops.ts for
 * the protocol). Other parts add theirs to the same ControlOps in the composition root.
 *
 *   ping                      → {"shelf":NAME}                        (is a shelf there, which)
 *   command {"line":"…"}      → the operator command's answer (chassis/runtime/control.ts: the
 *                               grammar of `--stdin-commands`, e.g. "fault slot3"); a refused
 *                               command is an answer with ok:false inside `result`, not an error
 *   status                    → the shelf's HA status (./status-snapshot.ts ShelfStatus; `atcasim status`)
 *   ops                       → the names of all registered ops (built into ControlOps)
 */
import type { ControlOps } from './control-ops.ts';
import { runControlLine } from './control.ts';
import type { Emulator } from './emulator.ts';
import type { ShelfStatus } from './status-snapshot.ts';

/**
 * Registers the ops above on `ops` for the running emulator `em`; `status` builds the status now.
 * @throws TypeError when one of the names is already registered
 */
export function registerShelfOps(ops: ControlOps, em: Pick<Emulator, 'config' | 'commands'>, status: () => ShelfStatus): void {
  ops.register('status', () => status());
  ops.register('ping', () => ({ shelf: em.config.name }));
  ops.register('command', (args) => {
    if (typeof args.line !== 'string') throw new TypeError('command: args.line must be a string (e.g. "fault slot3")');
    return runControlLine(args.line, em.commands) ?? { event: 'command', line: '', ok: true, message: 'nothing to do (blank line)' };
  });
}
