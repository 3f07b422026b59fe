/**
 * The HA actions of a scenario on the full emulator (the runner's emulator engine): hot-swap
 * actions (deactivate, activate, extract, insert, fail, repair) act on the Shelf — any FRU, hubs
 * included — and are recorded in the simulator's timeline; every other action runs on the HA
 * simulator (chassis/sim/ha-simulator.ts) against the HA node the name stands for. `power-off`
 * holds the node's payload off even in M4 until `power-on`, which a FRU outside M4 refuses.
 */
import { CommandError } from '../../board/common/errors.ts';
import type { Shelf } from '../model/shelf.ts';
import type { EmulatorHa } from '../runtime/ha-part.ts';
import type { HaSimulator } from '../sim/ha-simulator.ts';
import { formatAction } from '../sim/sim-actions.ts';
import type { SimAction } from '../sim/sim-actions.ts';

/**
 * Runs an HA action now.
 * @throws CommandError when it is refused (unknown node, not an HA node, a refused switchover …);
 *   the simulator has recorded it
 */
export function runEmulatorAction(shelf: Shelf, part: EmulatorHa, sim: HaSimulator, a: SimAction): void {
  const hotSwap = (fn: () => unknown) => {
    const now = sim.fabric.now();
    const text = formatAction(a);
    try {
      fn();
      sim.note({ t: now, type: 'action', text, ok: true });
    } catch (e) {
      if (e instanceof CommandError) sim.note({ t: now, type: 'action', text, ok: false, error: `${e.code}: ${e.message}` });
      throw e;
    }
  };
  switch (a.op) {
    case 'deactivate':
      return hotSwap(() => shelf.hotSwap.deactivate(a.node));
    case 'activate':
      return hotSwap(() => shelf.hotSwap.activate(a.node));
    case 'extract':
      return hotSwap(() => shelf.hotSwap.extract(a.node));
    case 'insert':
      return hotSwap(() => shelf.hotSwap.insert(a.node));
    case 'fail':
      return hotSwap(() => shelf.hotSwap.injectFault(a.node, 'payload'));
    case 'repair':
      return hotSwap(() => shelf.hotSwap.repair(a.node));
    case 'power-off':
      sim.hold(part.resolveNode(a.node), true);
      sim.perform(a);
      return;
    case 'power-on': {
      const n = part.resolveNode(a.node);
      sim.hold(n, false);
      if (shelf.state(n) !== 4) return hotSwap(() => {
        throw new CommandError('not_active', `${n} is in M${shelf.state(n)}: its payload is powered in M4 only`);
      });
      sim.perform(a);
      return;
    }
    case 'switchover':
      sim.perform({ op: 'switchover', pair: part.resolvePairTarget(a.pair) });
      return;
    default:
      if ('node' in a) part.resolveNode(a.node);
      sim.perform(a);
  }
}
